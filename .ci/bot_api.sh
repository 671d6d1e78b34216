#!/usr/bin/env bash
# The Bot API against real third-party parts (e2e/bot_api/berserk_stockfish.py): the
# berserk client (PyPI) and Debian's stockfish, through python-chess, on a live server.
# Usage (from the repository): bash .ci/bot_api.sh target/debug/parlor
set -euo pipefail
bin="${1:-target/debug/parlor}"
stockfish="$(command -v stockfish || echo /usr/games/stockfish)"
dir="$(mktemp -d)"
cat > "$dir/config.toml" <<TOML
[store]
path = "$dir/parlor.db"
TOML
"$bin" --port 0 --config "$dir/config.toml" > "$dir/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$dir"' EXIT
address=""
for _ in $(seq 1 600); do
    address="$(grep -o 'listening on http://[0-9.:]*' "$dir/server.log" | head -1 | sed 's/listening on //')" || true
    [[ -n "$address" ]] && break
    if ! kill -0 "$server" 2>/dev/null; then
        cat "$dir/server.log" >&2
        echo "bot-api: the server stopped as it started" >&2
        exit 1
    fi
    sleep 0.1
done
[[ -n "$address" ]] || { echo "bot-api: the server did not say where it listens" >&2; exit 1; }
echo "bot-api: server at $address, engine $stockfish"
if ! timeout 600 python3 e2e/bot_api/berserk_stockfish.py "$address" "$stockfish"; then
    tail -50 "$dir/server.log" >&2
    exit 1
fi

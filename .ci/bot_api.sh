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
who=bot-api
source "$(dirname "${BASH_SOURCE[0]}")/live_server.sh"
start_server "$bin" "$dir/config.toml"
echo "bot-api: server at $address, engine $stockfish"
if ! timeout 600 python3 e2e/bot_api/berserk_stockfish.py "$address" "$stockfish"; then
    tail -50 "$dir/server.log" >&2
    exit 1
fi

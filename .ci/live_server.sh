# Sourced by the CI steps that test a live server (.ci/schemathesis.sh, .ci/bot_api.sh):
# start_server BIN CONFIG starts BIN with CONFIG (its log beside it) on a free port, sets
# `server` (its pid) and `address` (http://host:port, from its "listening on" line), and
# stops it when the calling script exits. The caller owns `dir` (removed at exit) and
# names itself in `who` for its messages.
start_server() {
    "$1" --port 0 --config "$2" > "$dir/server.log" 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$dir"' EXIT
    address=""
    for _ in $(seq 1 600); do
        address="$(grep -o 'listening on http://[0-9.:]*' "$dir/server.log" | head -1 | sed 's/listening on //')" || true
        [[ -n "$address" ]] && return 0
        if ! kill -0 "$server" 2>/dev/null; then
            cat "$dir/server.log" >&2
            echo "$who: the server stopped as it started" >&2
            exit 1
        fi
        sleep 0.1
    done
    echo "$who: the server did not say where it listens" >&2
    exit 1
}

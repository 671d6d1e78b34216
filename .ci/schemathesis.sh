#!/usr/bin/env bash
# schemathesis (PyPI) against a live server's /api/openapi.json: every operation called
# with generated requests, the operator's token on them; no answer may be a 5xx, and
# every status, content type and body must be one the description documents.
# Usage (from the repository): bash .ci/schemathesis.sh target/debug/parlor
set -euo pipefail
bin="${1:-target/debug/parlor}"
dir="$(mktemp -d)"
token="schemathesis-operator-token-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat > "$dir/config.toml" <<TOML
[store]
path = "$dir/parlor.db"

[admin]
token = "$token"
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
        echo "schemathesis: the server stopped as it started" >&2
        exit 1
    fi
    sleep 0.1
done
[[ -n "$address" ]] || { echo "schemathesis: the server did not say where it listens" >&2; exit 1; }
echo "schemathesis: server at $address"
schemathesis run "$address/api/openapi.json" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples 30 \
    --header "Authorization: Bearer $token" \
    --no-color

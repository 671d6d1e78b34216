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
who=schemathesis
source "$(dirname "${BASH_SOURCE[0]}")/live_server.sh"
start_server "$bin" "$dir/config.toml"
echo "schemathesis: server at $address"
schemathesis run "$address/api/openapi.json" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples 30 \
    --header "Authorization: Bearer $token" \
    --no-color

#!/bin/bash
# Instructions per move, by component: the release `parlor` under callgrind, loaded by
# parlor-bench (BENCHMARKS.md, "Where the time goes after the fleet"). Counts are
# repeatable on a busy machine; wall-clock figures are not.
#
#   crates/parlor-bench/scripts/instructions-per-move.sh OUT_DIR [parlor-bench args]
#   e.g. ... /tmp/prof -n 160 --rate 40    (load A: about one move per store batch)
#
# Writes OUT_DIR/callgrind.out.PID.1 (the 20 s window) and prints the moves counted in
# it; read it with `callgrind_annotate --inclusive=yes`.
set -euo pipefail
out=${1:?usage: $0 OUT_DIR [parlor-bench args]}; shift
mkdir -p "$out"
cd "$(dirname "$0")/../../.."
db=$(mktemp -d)
export PARLOR_STORE__PATH=$db/parlor.db PARLOR_ROOMS__FIRST_MOVE_SECS=3600 RUST_LOG=info \
  PARLOR_LIMITS__CONNECTIONS_PER_IP=100000 PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP=100000 \
  PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_IP=100000
valgrind --tool=callgrind --collect-atstart=yes --callgrind-out-file="$out/callgrind.out.%p" \
  target/release/parlor --port 0 > "$out/server.log" 2>&1 &
server=$!
port=
for _ in $(seq 1 120); do
  port=$(grep -o "listening on http://127.0.0.1:[0-9]*" "$out/server.log" | grep -o "[0-9]*$" || true)
  [ -n "$port" ] && break
  sleep 1
done
moves() { curl -s "http://127.0.0.1:$port/metrics" | awk '/^parlor_moves_accepted_total/ {s += $2} END {print s}'; }
target/release/parlor-bench --url "ws://127.0.0.1:$port/ws" --server-pid "$server" "$@" \
  --duration 60 --warmup 5 > "$out/bench.log" 2>&1 &
bench=$!
sleep 25
callgrind_control -z "$server" > /dev/null
before=$(moves)
sleep 20
callgrind_control -d "$server" > /dev/null
after=$(moves)
kill "$bench" 2> /dev/null || true
kill -INT "$server"
sleep 3
kill -9 "$server" 2> /dev/null || true
rm -rf "$db"
echo "moves in the dumped window: $((after - before))"

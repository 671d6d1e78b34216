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
out=$(realpath "${1:?usage: $0 OUT_DIR [parlor-bench args]}")
shift
mkdir -p "$out"
cd "$(dirname "$0")/../../.."
source crates/parlor-bench/scripts/server.sh
start_parlor "$out/server.log" \
  valgrind --tool=callgrind --collect-atstart=yes --callgrind-out-file="$out/callgrind.out.%p"
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
stop_parlor
echo "moves in the dumped window: $((after - before))"

#!/bin/bash
# Context switches per move, by thread: the release `parlor` pinned to core 0, loaded
# by parlor-bench pinned to core 1; voluntary and involuntary switches summed over
# /proc/PID/task/*/status across an 8 s window, divided by the moves accepted in it.
#
#   crates/parlor-bench/scripts/switches-per-move.sh [parlor-bench args]
#   e.g. ... -n 1000 --rate 1000
set -euo pipefail
cd "$(dirname "$0")/../../.."
source crates/parlor-bench/scripts/server.sh
work=$(mktemp -d)
start_parlor "$work/server.log" taskset -c 0
# Switches so far, summed by thread name (spaces made underscores).
switches() {
  for task in /proc/"$server"/task/*; do
    name=$(tr ' ' '_' < "$task/comm")
    awk -v name="$name" '/^voluntary/ {v = $2} /^nonvoluntary/ {n = $2} END {print name, v, n}' "$task/status"
  done | awk '{v[$1] += $2; n[$1] += $3} END {for (k in v) print k, v[k], n[k]}' | sort
}
taskset -c 1 target/release/parlor-bench --url "ws://127.0.0.1:$port/ws" --server-pid "$server" \
  --threads 1 "$@" --duration 20 --warmup 3 > "$work/bench.log" 2>&1 &
bench=$!
sleep 12
m0=$(moves)
switches > "$work/before"
sleep 8
m1=$(moves)
switches > "$work/after"
wait "$bench" || true
grep -E "latency|RSS" "$work/bench.log" || true
stop_parlor
n=$((m1 - m0))
echo "moves in the window: $n"
join "$work/before" "$work/after" | awk -v n="$n" '
  {printf "%-18s voluntary %5.2f  involuntary %5.2f\n", $1, ($4 - $2) / n, ($5 - $3) / n; v += $4 - $2; i += $5 - $3}
  END {printf "all threads        voluntary %5.2f  involuntary %5.2f  total %5.2f\n", v / n, i / n, (v + i) / n}'
rm -rf "$work"

#!/bin/bash
# Where a server's CPU time goes, kernel included, per move: the server (the release
# `parlor`, or the build BENCH_SERVER_BIN names, a baseline included) pinned to core 0
# and loaded by parlor-bench's closed loop pinned to core 1 (BENCHMARKS.md, "Fewer
# wake-ups between threads"). Prints, for a 5 s window:
#   - each thread's system calls and context switches per move (`perf stat`);
#   - each thread's sampled time in µs per move, split into user space and the system
#     call (or fault, or interrupt) its kernel samples were in (`perf record -g`).
# Moves are the server's own count when it has one (/metrics), else the bench's rate.
#
#   crates/parlor-bench/scripts/kernel-by-thread.sh OUT_DIR [parlor-bench args]
#   e.g. ... /tmp/kt -n 1000
set -euo pipefail
out=$(realpath "${1:?usage: $0 OUT_DIR [parlor-bench args]}")
shift
mkdir -p "$out"
cd "$(dirname "$0")/../../.."
source crates/parlor-bench/scripts/server.sh
start_parlor "$out/server.log" taskset -c 0
taskset -c 1 target/release/parlor-bench --url "ws://127.0.0.1:$port/ws" --server-pid "$server" \
  --threads 1 "$@" --duration 24 --warmup 2 > "$out/bench.log" 2>&1 &
bench=$!
sleep 6
events=task-clock,context-switches
for call in sendto recvfrom write epoll_wait futex pwrite64 fsync sched_yield; do
  events="$events,syscalls:sys_enter_$call"
done
m0=$(moves)
perf stat --per-thread -x, -e "$events" -p "$server" -o "$out/stat.csv" -- sleep 5
m1=$(moves)
perf record -F 4000 -g -p "$server" -o "$out/perf.data" -- sleep 5 > /dev/null 2>&1
m2=$(moves)
wait "$bench" || true
stop_parlor
rate=$(grep -o "^ *[0-9]* moves/s" "$out/bench.log" | grep -o "[0-9]*" || echo 0)
stat_moves=$((m1 - m0))
record_moves=$((m2 - m1))
[ "$stat_moves" -gt 0 ] || stat_moves=$((rate * 5))
[ "$record_moves" -gt 0 ] || record_moves=$((rate * 5))
grep -E "moves/s|RSS" "$out/bench.log" || true
echo "moves: $stat_moves in the counted window, $record_moves in the sampled one"
perf script -i "$out/perf.data" -F comm,period,ip,sym,dso > "$out/samples.txt" 2> /dev/null
python3 - "$out/stat.csv" "$stat_moves" "$out/samples.txt" "$record_moves" <<'EOF'
import collections
import re
import sys

stat, stat_moves, samples, record_moves = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
print("\nper move, by thread (perf stat):")
for line in open(stat):
    fields = line.strip().split(",")
    if len(fields) < 4 or not fields[1].replace(".", "").isdigit():
        continue
    thread, count, event = fields[0], float(fields[1]), fields[3]
    if count == 0:
        continue
    if event == "task-clock":
        print(f"  {thread:28} CPU {1000 * count / stat_moves:8.1f} us")
    else:
        print(f"  {thread:28} {event.replace('syscalls:sys_enter_', ''):20} {count / stat_moves:8.3f}")

# Each sample: a header line (thread name, period in ns) and its stack, innermost first.
kernel = re.compile(r"(__x64_sys_\w+|__do_sys_\w+|asm_exc_page_fault|asm_sysvec_\w+|asm_common_interrupt)")
time = collections.Counter()
for block in open(samples).read().split("\n\n"):
    lines = [line.strip() for line in block.strip().split("\n") if line.strip()]
    if not lines:
        continue
    head = lines[0].rsplit(None, 1)
    if len(head) != 2 or not head[1].isdigit():
        continue
    thread, period = head[0], int(head[1])
    frames = lines[1:]
    where = "user"
    if frames and "[kernel.kallsyms]" in frames[0]:
        where = "kernel, other"
        for frame in frames:
            found = kernel.search(frame)
            if found:
                where = found.group(1)
                break
    time[(thread, where)] += period
print("\nper move, by thread and where (perf record), us:")
for (thread, where), period in sorted(time.items(), key=lambda item: -item[1]):
    us = period / 1000 / record_moves
    if us >= 0.1:
        print(f"  {thread:28} {where:36} {us:8.1f}")
EOF

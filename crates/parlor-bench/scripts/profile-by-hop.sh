#!/bin/bash
# Where the server's CPU goes under a load, by hop: the release `parlor` pinned to core 0
# (on disk, or on /dev/shm with BENCH_TMPFS=1), parlor-bench on core 1, and `perf record`
# sampling the server's CPU clock (cpu-clock: this machine has no hardware counters) for
# 8 s in the middle of a 20 s window. Prints each hop's share of the samples and its CPU
# per move, from the bench's own CPU-per-move figure (BENCHMARKS.md, issue #35).
#
#   crates/parlor-bench/scripts/profile-by-hop.sh OUT_PREFIX [parlor-bench args]
#   e.g. ... /tmp/sat -n 1000                      (closed loop: saturation)
#        ... /tmp/open -n 10000 --rate 2000 --connect-concurrency 64
#
# Writes OUT_PREFIX.perf.data (read it with `perf report -i … --children`),
# OUT_PREFIX.bench.log and OUT_PREFIX.server.log.
set -euo pipefail
out=$(realpath -m "${1:?usage: $0 OUT_PREFIX [parlor-bench args]}")
shift
cd "$(dirname "$0")/../../.."
source crates/parlor-bench/scripts/server.sh
start_parlor "$out.server.log" taskset -c 0
taskset -c 1 target/release/parlor-bench --threads 1 --url "ws://127.0.0.1:$port/ws" \
  --server-pid "$server" "$@" --duration 20 --warmup 3 > "$out.bench.log" 2>&1 &
bench=$!
# Setting 10,000 connections up takes a few seconds: sample once the window has begun.
until [ "$(moves)" -gt 1000 ] 2> /dev/null; do
  kill -0 "$bench" 2> /dev/null || { cat "$out.bench.log"; stop_parlor; exit 1; }
  sleep 1
done
sleep 5
perf record -F 999 -g --call-graph dwarf,16384 -p "$server" -o "$out.perf.data" -- sleep 8 > /dev/null 2>&1
wait "$bench" || true
stop_parlor
cat "$out.bench.log"
per_move=$(grep -o "[0-9.]* us per move" "$out.bench.log" | grep -o "^[0-9.]*")
echo
echo "CPU by hop (share of the server's samples; of ${per_move} us per move):"
perf report -i "$out.perf.data" --children --sort sym -g none -q 2> /dev/null > "$out.children.txt"
perf report -i "$out.perf.data" --no-children --sort comm -g none -q 2> /dev/null > "$out.threads.txt"
share() { # the largest inclusive share of a symbol matching $1
  grep -E "\] $1" "$out.children.txt" | awk '{gsub("%", "", $1); if ($1 > m) m = $1} END {print m + 0}'
}
thread() { grep -F "$1" "$out.threads.txt" | awk '{gsub("%", "", $1); s += $1} END {print s + 0}'; }
row() { awk -v n="$1" -v p="$2" -v us="$per_move" 'BEGIN {printf "  %-58s %5.1f%%  %6.1f us\n", n, p, p * us / 100}'; }
row "store: the game log's thread (SQLite and its commits)" "$(thread parlor-game-log)"
row "  of which the commits (WAL writes and fsync)" "$(share 'parlor::store::sql::sqlite::log_thread::<impl parlor::store::sql::log_connection::LogConnection for rusqlite::Connection>::commit')"
row "rooms: the room tasks" "$(share 'poll<parlor::room::actor::\{impl#0\}::run')"
row "  of which the frames' encoding" "$(share 'parlor::protocol::encode')"
row "  of which the fan-out to sessions" "$(share 'parlor::room::fanout::fan_out')"
row "  of which the rules and the room's state machine" "$(share 'parlor_room::machine::moves::<impl parlor_room::machine::RoomState>::apply_move')"
row "sessions: reading, dispatching, queueing frames" "$(share 'parlor::ws::session::run::\{\{closure\}\}')"
row "HTTP/1 dispatcher and WebSocket codec (with socket I/O)" "$(share '<actix_http::h1::dispatcher::Dispatcher<T,S,B,X,U> as core::future::future::Future>::poll')"
row "  of which sending (the kernel's sendto)" "$(share '__x64_sys_sendto')"
row "  of which receiving (the kernel's recvfrom)" "$(share '__x64_sys_recvfrom')"
row "the shared runtime's threads (lobby watchers, timers)" "$(thread tokio-rt-worker)"
row "the worker's scheduler: polling I/O (epoll) and parking" "$(share 'tokio::runtime::io::driver::Driver::turn')"

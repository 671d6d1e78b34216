# Sourced by the profiling scripts here: starts the release `parlor` on a scratch
# database (on disk, or on /dev/shm with BENCH_TMPFS=1) with the per-address limits
# lifted (the whole load comes from one address), and the rooms a connection may create
# a minute too (with `--cycle newroom` each game is a new room), and the messages a
# connection may send a second (a closed loop past 10k moves/s sends more than 20).
#
#   start_parlor LOG [COMMAND PREFIX...]   e.g. start_parlor "$log" taskset -c 0
#
# BENCH_SERVER_BIN names another build to start (default target/release/parlor), for A/B pairs.
#
# Sets `db` (the scratch directory, removed by `stop_parlor`), `server` (the pid of
# what was started) and `port`; `moves` prints the moves the server has accepted.

start_parlor() {
  local log=$1
  shift
  if [ -n "${BENCH_TMPFS:-}" ]; then db=$(mktemp -d -p /dev/shm); else db=$(mktemp -d -p "$PWD/target"); fi
  PARLOR_STORE__PATH=$db/parlor.db PARLOR_ROOMS__FIRST_MOVE_SECS=3600 RUST_LOG=info \
    PARLOR_LIMITS__CONNECTIONS_PER_IP=100000 PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP=100000 \
    PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_IP=100000 PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_CONNECTION=0 \
    PARLOR_LIMITS__MAX_ROOMS=0 PARLOR_LIMITS__MESSAGES_PER_SEC=0 PARLOR_LIMITS__CLOSE_AFTER_REFUSALS=0 \
    "$@" "${BENCH_SERVER_BIN:-target/release/parlor}" --port 0 > "$log" 2>&1 &
  server=$!
  port=
  for _ in $(seq 1 240); do
    port=$(grep -o "listening on http://127.0.0.1:[0-9]*" "$log" | grep -o "[0-9]*$" || true)
    [ -n "$port" ] && return
    sleep 0.5
  done
  echo "parlor did not start; see $log" >&2
  exit 1
}

moves() {
  curl -s "http://127.0.0.1:$port/metrics" | awk '/^parlor_moves_accepted_total/ {s += $2} END {print s}'
}

stop_parlor() {
  kill -INT "$server"
  sleep 3
  kill -9 "$server" 2> /dev/null || true
  rm -rf "$db"
}

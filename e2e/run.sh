#!/usr/bin/env bash
# Browser tests of the bundled web client against a real server binary: e2e/smoke.mjs
# (one person against bots), e2e/people.mjs (several people, lobby, links),
# e2e/page.mjs (the page's layout at 1280×800 and 390×844, keys, premoves, invitations),
# e2e/client.mjs (static/parlor-client.js used by a page of its own), e2e/rules.mjs
# (each game's rules, a stored game's address /game/<id>), e2e/friends.mjs (a room that
# waits for a friend, "Play a bot instead", an opponent gone and the claims) and
# e2e/ratings.mjs (only games between people are rated; scores by opponent; provisional
# ratings) and e2e/bots.mjs (a person challenges a bot account on the Bot API from the
# "Bots online" card and plays it), after madge has checked that the client's modules import one another in no
# circle.
# Usage (from anywhere): E2E_SERVER_BIN=target/debug/parlor bash e2e/run.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export E2E_SERVER_BIN="${E2E_SERVER_BIN:-target/debug/parlor}"

if [[ ! -x /usr/bin/chromium ]]; then
  echo "e2e: /usr/bin/chromium is missing; installing Debian's chromium" >&2
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

# node_modules is stale when the lock file changed after the last install
# (npm writes node_modules/.package-lock.json on every install).
if [[ ! -f e2e/node_modules/.package-lock.json \
   || e2e/package-lock.json -nt e2e/node_modules/.package-lock.json \
   || e2e/package.json -nt e2e/node_modules/.package-lock.json ]]; then
  echo "e2e: installing node packages (npm ci)" >&2
  (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
fi

# The web client's state flows one way (views get their actions injected, actions never
# draw): its modules must not import one another in a circle. madge reads the imports
# with a real parser; no browser needed.
e2e/node_modules/.bin/madge --circular --extensions js static/

if [[ ! -x "$E2E_SERVER_BIN" ]]; then
  echo "e2e: server binary $E2E_SERVER_BIN not found; build it first (cargo build) or set E2E_SERVER_BIN" >&2
  exit 1
fi

# Every suite runs even if one before it fails, so one run reports everything.
status=0
node e2e/smoke.mjs || status=$?
node e2e/people.mjs || status=$?
node e2e/page.mjs || status=$?
node e2e/client.mjs || status=$?
node e2e/rules.mjs || status=$?
node e2e/friends.mjs || status=$?
node e2e/ratings.mjs || status=$?
node e2e/bots.mjs || status=$?
exit "$status"

#!/usr/bin/env bash
# Foundation benchmark (issue 2): start-up time on an existing SQLite database,
# idle RSS, requests/s with p50/p99 under `wrk -t2 -c16 -d10s` for user, org and
# search endpoints (anonymous and with a token), and RSS after 100,000+ requests.
# Usage: bash bench/run.sh [seconds-per-run]   (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
PORT=$((20000 + RANDOM % 20000))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com
URL="http://127.0.0.1:$PORT"

# start runs the server and sets PID and STARTMS (milliseconds until /api/healthz answered).
start() {
  local t0; t0=$(date +%s%N)
  "$WORK/cairn" serve >"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.001; done
  STARTMS=$(( ($(date +%s%N) - t0) / 1000000 ))
}
stop() { kill -TERM $PID; wait $PID 2>/dev/null || true; }
rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' /proc/$PID/status; }

start
TOKEN=$(curl -sf -u root:root-password -H 'Content-Type: application/json' -X POST "$URL/api/v1/users/root/tokens" \
  -d '{"name":"bench","scopes":["all"]}' | sed -E 's/.*"sha1":"([0-9a-f]+)".*/\1/')
curl -sf -H "Authorization: token $TOKEN" -H 'Content-Type: application/json' -X POST "$URL/api/v1/admin/users" \
  -d '{"username":"benchuser","email":"bench@example.com","password":"bench-password","must_change_password":false,"full_name":"Bench User"}' >/dev/null
curl -sf -H "Authorization: token $TOKEN" -H 'Content-Type: application/json' -X POST "$URL/api/v1/orgs" -d '{"username":"benchorg"}' >/dev/null || true
stop

# Start-up to healthy on the existing database: median of 5.
times=()
for _ in 1 2 3 4 5; do start; times+=("$STARTMS"); stop; done
STARTUP=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)

start
sleep 1
IDLE=$(rss)
TOTAL=0
printf '\n| endpoint | auth | req/s | p50 | p99 |\n|---|---|---|---|---|\n'
for path in "/api/v1/users/benchuser" "/api/v1/orgs" "/api/v1/users/search?q=bench"; do
  for auth in anonymous token; do
    hdr=()
    [ "$auth" = token ] && hdr=(-H "Authorization: token $TOKEN")
    out=$(wrk -t2 -c16 -d"${DUR}s" --latency "${hdr[@]}" "$URL$path")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    TOTAL=$((TOTAL + n))
    printf '| %s | %s | %s | %s | %s |\n' "$path" "$auth" "$rps" "$p50" "$p99"
  done
done
while [ "$TOTAL" -lt 100000 ]; do
  n=$(wrk -t2 -c16 -d5s -H "Authorization: token $TOKEN" "$URL/api/v1/users/benchuser" | awk '/requests in/ {print $1}')
  TOTAL=$((TOTAL + n))
done
AFTER=$(rss)
printf '\nstart-up to healthy (existing database, median of 5): %s ms\n' "$STARTUP"
printf 'idle RSS: %s MB\n' "$IDLE"
printf 'RSS after %s requests: %s MB\n' "$TOTAL" "$AFTER"

#!/usr/bin/env bash
# Issue benchmark (issue 4): seeds 100,000 issues and 500,000 comments in one
# repository (directly into the database) and 10,000 notification threads for
# one user, then measures with `wrk -t2 -c16 -d10s` the issue list (first and
# last page), the search for a common word ("leak", in about a third of the
# issues; across repositories in all states and open ones, and in the
# repository's list) and a rare one ("zephyr", one issue in a thousand), and
# the notification list.
# Usage: bash bench/issues.sh [seconds] [database-url]   (empty URL: SQLite)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
DBURL=${2:-}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
go build -o "$WORK/seed" ./bench/seed
PORT=$((20000 + RANDOM % 20000))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com \
  CAIRN_DEBUG_QUERY_COUNT_HEADER=true CAIRN_DATABASE_URL="$DBURL"
URL="http://127.0.0.1:$PORT"
start() {
  "$WORK/cairn" serve >"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.01; done
}
start
TOKEN=$(curl -sf -u root:root-password -H 'Content-Type: application/json' -X POST "$URL/api/v1/users/root/tokens" \
  -d '{"name":"bench","scopes":["all"]}' | sed -E 's/.*"sha1":"([0-9a-f]+)".*/\1/')
REPO_ID=$(curl -sf -H "Authorization: token $TOKEN" -H 'Content-Type: application/json' -X POST "$URL/api/v1/user/repos" \
  -d '{"name":"big"}' | sed -E 's/^\{"id":([0-9]+),.*/\1/')
kill -TERM $PID; wait $PID || true
"$WORK/seed" -data "$WORK/data" -db "$DBURL" -repo "$REPO_ID" -poster 1 -notify-user 1
start
H=(-H "Authorization: token $TOKEN")
LAST=$(( (100000 + 29) / 30 ))
printf '\n| request | req/s | p50 | p99 | queries |\n|---|---|---|---|---|\n'
for path in "/api/v1/repos/root/big/issues?state=all&page=1" "/api/v1/repos/root/big/issues?state=all&page=$LAST" \
  "/api/v1/repos/issues/search?state=all&q=leak" "/api/v1/repos/issues/search?q=leak" "/api/v1/repos/root/big/issues?q=leak" \
  "/api/v1/repos/issues/search?state=all&q=zephyr" "/api/v1/notifications" "/api/v1/notifications?all=true&page=300"; do
  q=$(curl -s -o /dev/null -D - "${H[@]}" "$URL$path" | awk -F': ' 'tolower($1)=="x-cairn-query-count" {print $2}' | tr -d '\r')
  out=$(wrk -t2 -c16 -d"${DUR}s" --latency "${H[@]}" "$URL$path")
  printf '| %s | %s | %s | %s | %s |\n' "$path" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1=="50%" {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')" "$q"
done

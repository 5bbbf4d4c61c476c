#!/usr/bin/env bash
# Release list benchmark (issue 13): one repository with 1,000 releases of 10
# assets each (seeded directly into the SQLite database with sqlite3), then
# GET /releases with limit 1, 10 and 50: the query count (X-Cairn-Query-Count,
# CAIRN_DEBUG_QUERY_COUNT_HEADER=true) must not grow with the page size, since
# assets and publishers are loaded in one query each. With wrk installed it
# also measures req/s (`wrk -t2 -c16 -d<seconds>s`).
# Usage: bash bench/releases.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
command -v sqlite3 >/dev/null || { echo "sqlite3 is required (apt-get install sqlite3)"; exit 1; }
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
PORT=$((20000 + RANDOM % 20000))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com \
  CAIRN_DEBUG_QUERY_COUNT_HEADER=true CAIRN_DATABASE_URL="sqlite:$WORK/data/cairn.db"
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
  -d '{"name":"big","auto_init":true}' | sed -E 's/^\{"id":([0-9]+),.*/\1/')
kill -TERM $PID; wait $PID || true
sqlite3 "$WORK/data/cairn.db" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO releases (repo_id, publisher_id, tag_name, lower_tag_name, target, title, sha1, num_commits, note,
  is_draft, is_prerelease, is_tag, created_unix)
SELECT $REPO_ID, 1, 'v' || i, 'v' || i, 'main', 'Release ' || i, '', 0, 'Notes of release ' || i, FALSE, i % 7 = 0, FALSE, 1700000000 + i FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9)
INSERT INTO attachment (uuid, repo_id, issue_id, comment_id, release_id, uploader_id, name, download_count, size, created_unix)
SELECT lower(hex(randomblob(16))), $REPO_ID, 0, 0, r.id, 1, 'asset-' || n.i || '.tar.gz', 0, 1024, r.created_unix
FROM releases r, n;
UPDATE repository SET num_releases = 1000 WHERE id = $REPO_ID;
SQL
start
H=(-H "Authorization: token $TOKEN")
printf '\n| request | releases | queries | req/s | p50 | p99 |\n|---|---|---|---|---|---|\n'
for path in "/api/v1/repos/root/big/releases?limit=1" "/api/v1/repos/root/big/releases?limit=10" \
  "/api/v1/repos/root/big/releases?limit=50" "/api/v1/repos/root/big/releases?limit=50&page=20" \
  "/api/v1/repos/root/big/releases?per_page=50&pre-release=false" "/api/v1/repos/root/big/releases/latest"; do
  q=$(curl -s -o /dev/null -D - "${H[@]}" "$URL$path" | awk -F': ' 'tolower($1)=="x-cairn-query-count" {print $2}' | tr -d '\r')
  n=$(curl -s "${H[@]}" "$URL$path" | grep -o '"tag_name"' | wc -l)
  rps=- p50=- p99=-
  if command -v wrk >/dev/null; then
    out=$(wrk -t2 -c16 -d"${DUR}s" --latency "${H[@]}" "$URL$path")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  fi
  printf '| %s | %s | %s | %s | %s | %s |\n' "$path" "$n" "$q" "$rps" "$p50" "$p99"
done

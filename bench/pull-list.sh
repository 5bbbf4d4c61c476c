#!/usr/bin/env bash
# Pull request list (issue 12, target 3): PRS pull requests (default 5,000)
# in one repository, each from its own branch with one small commit, created
# through the API (8 in parallel; the time is reported) and all checked; then
# the queries per request (CAIRN_DEBUG_QUERY_COUNT_HEADER) for limit=10 and
# limit=50, first and last page, and requests/s with p50/p99 under
# `wrk -t2 -c16 -d<seconds>s` for GET /repos/{o}/{r}/pulls?state=open&limit=50
# (and limit=10).
# Usage: bash bench/pull-list.sh [prs] [seconds]   (needs wrk and sqlite3)
set -euo pipefail
cd "$(dirname "$0")/.."
PRS=${1:-5000}
DUR=${2:-10}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 is required (apt-get install sqlite3)"; exit 1; }
WORK=$(mktemp -d)
. bench/lib/cairn.sh
trap cairn_cleanup EXIT
cairn_setup
export CAIRN_DEBUG_QUERY_COUNT_HEADER=true
cairn_start
cairn_token

git init -q --bare "$WORK/src.git"
{
  printf 'commit refs/heads/main\nmark :1\ncommitter bench <bench@example.com> 1700000000 +0000\ndata 7\ninitial\n'
  printf 'M 100644 inline README.md\ndata 7\nreadme\n\n'
  for i in $(seq "$PRS"); do
    b="pr-$i"
    printf 'commit refs/heads/%s\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s\nfrom :1\n' \
      "$b" $((1700000000 + i)) ${#b} "$b"
    printf 'M 100644 inline prs/%s.txt\ndata %d\nchange %s\n\n' "$b" $((${#b} + 8)) "$b"
  done
} | git -C "$WORK/src.git" fast-import --quiet
id=$(new_repo big)
git -C "$WORK/src.git" push -q --mirror "$GITURL/root/big.git"
t=$(date +%s%N)
seq "$PRS" | xargs -P 8 -I{} curl -sf -o /dev/null "${H[@]}" -H 'Content-Type: application/json' \
  -X POST "$URL/api/v1/repos/root/big/pulls" -d '{"head":"pr-{}","base":"main","title":"pull request {} fixes a leak in the cache"}'
CREATE=$(ms "$t")
CHECKED=$(wait_checked "$id")
echo "created $PRS pull requests in $CREATE ms; all checked $CHECKED ms later" >&2
total=$(curl -sf -D - -o /dev/null "${H[@]}" "$URL/api/v1/repos/root/big/pulls?state=open&limit=1" | awk -F': ' 'tolower($1)=="x-total-count" {print $2}' | tr -d '\r')
[ "$total" = "$PRS" ] || { echo "X-Total-Count = $total, want $PRS"; exit 1; }

queries() { curl -sf -o /dev/null -D - "${H[@]}" "$URL$1" | awk -F': ' 'tolower($1)=="x-cairn-query-count" {print $2}' | tr -d '\r'; }
printf '\n%s pull requests (created through the API in %s s)\n' "$PRS" "$((CREATE / 1000))"
printf '\n| request | queries | req/s | p50 | p99 |\n|---|---|---|---|---|\n'
for path in "/api/v1/repos/root/big/pulls?state=open&limit=10" "/api/v1/repos/root/big/pulls?state=open&limit=50" \
  "/api/v1/repos/root/big/pulls?state=open&limit=50&page=$((PRS / 50))" "/api/v1/repos/root/big/pulls?state=all&sort=recentupdate&limit=50"; do
  q=$(queries "$path")
  n=$(curl -sf "${H[@]}" "$URL$path" | grep -o '"number":' | wc -l)
  # With a pprof build (CAIRN_BIN, BENCH_PPROF_ADDR), a CPU profile of each run.
  prof=
  if [ -n "${BENCH_PPROF_ADDR:-}" ]; then
    curl -s -o "${PROFILE_DIR:-/tmp}/pull-list-$(echo "$path" | tr -c 'a-z0-9' _).pprof" \
      "http://$BENCH_PPROF_ADDR/debug/pprof/profile?seconds=$((DUR - 2))" &
    prof=$!
  fi
  out=$(wrk -t2 -c16 -d"${DUR}s" --latency "${H[@]}" "$URL$path")
  [ -n "$prof" ] && wait "$prof"
  printf '| %s (%s items) | %s | %s | %s | %s |\n' "$path" "$n" "$q" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1=="50%" {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')"
  echo "$out" | grep -E 'Non-2xx|Socket errors' >&2 || true
done

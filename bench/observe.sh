#!/usr/bin/env bash
# Cost of the access log and the metrics (issue 11): requests/s of
# GET /api/v1/users/{name} with a token under `wrk -t2 -c16`, with
# [log] LEVEL=none and [metrics] ENABLED=false ("off") and with LEVEL=info
# (text, to a file) and metrics on ("on"), alternating, ROUNDS rounds each.
# Besides requests/s it reports the server's CPU time per request (user+system
# from /proc, over the wrk run), which other load on the machine disturbs far
# less than throughput: at saturation throughput goes as its inverse.
# Usage: bash bench/observe.sh [seconds-per-run] [rounds]   (needs wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
ROUNDS=${2:-3}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
WORK=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$WORK"' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
PORT=$((20000 + RANDOM % 20000))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com
URL="http://127.0.0.1:$PORT"

# start runs the server with the given extra environment.
start() {
  env "$@" "$WORK/cairn" serve >"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.01; done
}
stop() { kill -TERM $PID; wait $PID 2>/dev/null || true; PID=; }

start
TOKEN=$(curl -sf -u root:root-password -H 'Content-Type: application/json' -X POST "$URL/api/v1/users/root/tokens" \
  -d '{"name":"bench","scopes":["all"]}' | sed -E 's/.*"sha1":"([0-9a-f]+)".*/\1/')
stop

cputicks() { awk '{print $14 + $15}' /proc/$PID/stat; }
run() { # prints requests/s and server CPU microseconds per request
  start "$@"
  wrk -t2 -c16 -d1s -H "Authorization: token $TOKEN" "$URL/api/v1/users/root" >/dev/null # warm-up
  local t0 out t1
  t0=$(cputicks)
  out=$(wrk -t2 -c16 -d"${DUR}s" -H "Authorization: token $TOKEN" "$URL/api/v1/users/root")
  t1=$(cputicks)
  echo "$out" | awk -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" \
    '/requests in/ {n=$1} /Requests\/sec/ {rps=$2} END {printf "%s %.1f\n", rps, ticks / hz * 1e6 / n}'
  stop
}
off=() on=() offcpu=() oncpu=()
for _ in $(seq "$ROUNDS"); do
  read -r rps cpu < <(run CAIRN_LOG_LEVEL=none CAIRN_METRICS_ENABLED=false); off+=("$rps"); offcpu+=("$cpu")
  read -r rps cpu < <(run CAIRN_LOG_LEVEL=info CAIRN_METRICS_ENABLED=true); on+=("$rps"); oncpu+=("$cpu")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
OFF=$(median "${off[@]}") ON=$(median "${on[@]}")
OFFCPU=$(median "${offcpu[@]}") ONCPU=$(median "${oncpu[@]}")
printf 'log+metrics off: %s req/s, %s us CPU/request (runs: %s / %s)\n' "$OFF" "$OFFCPU" "${off[*]}" "${offcpu[*]}"
printf 'log+metrics on:  %s req/s, %s us CPU/request (runs: %s / %s)\n' "$ON" "$ONCPU" "${on[*]}" "${oncpu[*]}"
awk -v off="$OFF" -v on="$ON" -v offc="$OFFCPU" -v onc="$ONCPU" \
  'BEGIN {printf "cost: %.1f %% of throughput, %.1f %% more CPU per request\n", (off - on) / off * 100, (onc - offc) / offc * 100}'

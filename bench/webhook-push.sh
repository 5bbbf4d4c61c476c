#!/usr/bin/env bash
# Push cost of webhooks (issue 14): the same small pushes to two repositories
# of one server, one without hooks and one with 10 push hooks pointing at a
# receiver on loopback (bench/receiver), interleaved; prints the median push
# time of each and the difference. Deliveries are asynchronous: the push
# only records them. At the end it checks every delivery arrived.
# Usage: bash bench/webhook-push.sh [pushes]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-40}
WORK=$(mktemp -d)
RPID=
trap 'cairn_cleanup; [ -n "$RPID" ] && kill $RPID 2>/dev/null || true' EXIT
source bench/lib/cairn.sh
cairn_setup
go build -o "$WORK/receiver" ./bench/receiver
RPORT=$((20000 + RANDOM % 20000))
"$WORK/receiver" -addr "127.0.0.1:$RPORT" >"$WORK/receiver.log" 2>&1 &
RPID=$!
cairn_start CAIRN_WEBHOOK_ALLOWED_HOST_LIST=loopback
cairn_token
for r in plain hooked; do
  api POST /api/v1/user/repos "{\"name\":\"$r\",\"auto_init\":true}" >/dev/null
  git clone -q "$GITURL/root/$r.git" "$WORK/$r"
done
for i in $(seq 10); do
  api POST /api/v1/repos/root/hooked/hooks "{\"type\":\"gitea\",\"active\":true,\"events\":[\"push\",\"create\"],\"config\":{\"url\":\"http://127.0.0.1:$RPORT/h$i\",\"content_type\":\"json\",\"secret\":\"s$i\"}}" >/dev/null
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$WORK/plain.times"; : >"$WORK/hooked.times"
for i in $(seq "$N"); do
  for r in plain hooked; do
    ( cd "$WORK/$r" && echo "$i" >"f$((i % 20)).txt" && git add -A && git commit -qm "change $i" )
    t0=$(date +%s%N)
    git -C "$WORK/$r" push -q origin HEAD 2>/dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000)) >>"$WORK/$r.times"
  done
done
p=$(median <"$WORK/plain.times"); h=$(median <"$WORK/hooked.times")
want=$((N * 10))
for _ in $(seq 300); do
  got=$(curl -sf "http://127.0.0.1:$RPORT/count")
  [ "$got" -ge "$want" ] && break
  sleep 0.1
done
printf '| pushes | median push, no hooks | median push, 10 hooks | difference | deliveries |\n|---|---|---|---|---|\n'
awk -v p="$p" -v h="$h" -v n="$N" -v got="$got" -v want="$want" \
  'BEGIN {printf "| %d | %.1f ms | %.1f ms | %+.1f %% | %d of %d |\n", n, p/1000, h/1000, (h-p)*100/p, got, want}'

#!/usr/bin/env bash
# Dump and restore benchmark (issue 11): an instance with the seeded issue
# database (ISSUES issues, 5 comments each) and REPOS repositories of about
# MB_PER_REPO MB of incompressible history each; times `cairn dump` against
# `tar -cf` of the data directory, and `cairn restore` into a fresh data
# directory, with the peak memory of each (GNU time's max RSS).
# COLD=1 runs each again with the files it reads evicted from the page cache.
# DB=postgres or DB=mysql puts the instance on the local PostgreSQL or
# MariaDB server (databases cairn_bench_src and cairn_bench_dst, dropped
# first) and restores onto the same kind of server; `pg_dump` or
# `mariadb-dump` of the source is timed beside tar, and its load into
# cairn_bench_ref beside tar -xf.
# PAIRS=n runs n pairs of each (default 3).
# KEEP=1 keeps the temporary directory (instance, archive) and prints it.
# Usage: [COLD=1] [KEEP=1] [PAIRS=n] [DB=postgres|mysql] bash bench/dump.sh [repos] [mb-per-repo] [issues]
set -euo pipefail
cd "$(dirname "$0")/.."
REPOS=${1:-4}
MB=${2:-25}
ISSUES=${3:-100000}
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; if [ -n "${KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
go build -o "$WORK/seed" ./bench/seed
PORT=$((20000 + RANDOM % 20000))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com
SRC= DST=
# fresh NAME: drops and creates database NAME on the DB server.
fresh() {
  case "$DB" in
  postgres) psql -q -h 127.0.0.1 -U postgres -d test -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" ;;
  mysql) mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1" ;;
  esac
}
case "${DB:-}" in
"") ;;
postgres) SRC=postgres://postgres@127.0.0.1:5432/cairn_bench_src?sslmode=disable DST=${SRC/_src/_dst} ;;
mysql) SRC=mysql://root@127.0.0.1:3306/cairn_bench_src DST=${SRC/_src/_dst} ;;
*) echo "DB must be postgres or mysql" >&2; exit 2 ;;
esac
if [ -n "$SRC" ]; then fresh cairn_bench_src; fresh cairn_bench_dst; fi
export CAIRN_DATABASE_URL=$SRC
URL="http://127.0.0.1:$PORT"
start() {
  "$WORK/cairn" serve >"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.01; done
}
start
AUTH=(-u root:root-password -H 'Content-Type: application/json')
for i in $(seq 1 "$REPOS"); do
  curl -sf "${AUTH[@]}" -X POST "$URL/api/v1/user/repos" -d "{\"name\":\"r$i\"}" >/dev/null
  git init -q "$WORK/w$i"
  for c in 1 2 3 4 5; do
    head -c $((MB * 1024 * 1024 / 5)) /dev/urandom >"$WORK/w$i/blob$c"
    git -C "$WORK/w$i" add . && git -C "$WORK/w$i" -c user.name=b -c user.email=b@e commit -qm "c$c"
  done
  git -C "$WORK/w$i" push -q "http://root:root-password@127.0.0.1:$PORT/root/r$i.git" HEAD:main
  rm -rf "$WORK/w$i"
done
kill -TERM $PID; wait $PID || true
"$WORK/seed" -data "$WORK/data" -db "$SRC" -repo 1 -poster 1 -issues "$ISSUES" -comments $((ISSUES * 5)) -threads 100 >/dev/null
start
sync
du -sh "$WORK/data"
# Each run starts with no dirty pages, so none pays for the writeback of
# the previous one's output.
measure() { sync; /usr/bin/time -f "%e s (user %U s, system %S s), max RSS %M KB" "$@"; }
# evict drops the clean cached pages of the files under its arguments (and
# of nothing else on the machine): the "cold" runs read them from disk.
evict() { sync; find "$@" -type f -exec dd if={} iflag=nocache count=0 status=none \;; }
# PAIRS (default 3) back-to-back pairs of each: the page cache and the
# disk's writeback make single runs vary by up to 2x.
for p in $(seq 1 "${PAIRS:-3}"); do
  rm -f "$WORK/plain.tar" "$WORK/dump.tar"
  echo "tar -cf:"; measure tar -cf "$WORK/plain.tar" -C "$WORK" data
  echo "cairn dump:"; measure "$WORK/cairn" dump --file "$WORK/dump.tar" 2>&1 | grep -v '^cairn:'
done
ls -l "$WORK/plain.tar" "$WORK/dump.tar" | awk '{print $5, $9}'
case "${DB:-}" in
postgres) echo "pg_dump -Fc:"; measure pg_dump -h 127.0.0.1 -U postgres -Fc -f "$WORK/pg.dump" cairn_bench_src ;;
mysql) echo "mariadb-dump:"; measure sh -c "mariadb-dump -h 127.0.0.1 -u root --single-transaction cairn_bench_src > '$WORK/my.sql'" ;;
esac
for p in $(seq 1 "${PAIRS:-3}"); do
  rm -rf "$WORK/x" "$WORK/restored"; mkdir "$WORK/x"
  if [ -n "$DST" ]; then fresh cairn_bench_dst; fi
  echo "tar -xf:"; measure tar -xf "$WORK/plain.tar" -C "$WORK/x"
  echo "cairn restore:"; CAIRN_DATABASE_URL=$DST measure "$WORK/cairn" --data-dir "$WORK/restored" restore --file "$WORK/dump.tar" 2>&1 | grep -v '^restored\|^cairn:'
done
case "${DB:-}" in
postgres) fresh cairn_bench_ref; echo "pg_restore:"; measure pg_restore -h 127.0.0.1 -U postgres -d cairn_bench_ref "$WORK/pg.dump" ;;
mysql) fresh cairn_bench_ref; echo "mariadb < dump:"; measure sh -c "mariadb -h 127.0.0.1 -u root cairn_bench_ref < '$WORK/my.sql'" ;;
esac
if [ -n "$SRC" ]; then fresh cairn_bench_ref; fi
if [ -n "${COLD:-}" ]; then
  echo "cold cache (COLD=1; the data directory, then the archive, evicted first):"
  rm -f "$WORK/plain.tar" "$WORK/dump.tar"
  evict "$WORK/data"; echo "tar -cf:"; measure tar -cf "$WORK/plain.tar" -C "$WORK" data
  evict "$WORK/data"; echo "cairn dump:"; measure "$WORK/cairn" dump --file "$WORK/dump.tar" 2>&1 | grep -v '^cairn:'
  rm -rf "$WORK/x" "$WORK/restored"; mkdir "$WORK/x"
  if [ -n "$DST" ]; then fresh cairn_bench_dst; fi
  evict "$WORK/plain.tar"; echo "tar -xf:"; measure tar -xf "$WORK/plain.tar" -C "$WORK/x"
  evict "$WORK/dump.tar"; echo "cairn restore:"; CAIRN_DATABASE_URL=$DST measure "$WORK/cairn" --data-dir "$WORK/restored" restore --file "$WORK/dump.tar" 2>&1 | grep -v '^restored\|^cairn:'
fi

#!/usr/bin/env bash
# Code pages of the web interface: a public repository with the history of
# bench/lib/genrepo.sh (COMMITS commits, 40 branches, 34 tags) plus a
# 10,000-line Go file and a README. Measures, as the signed-out visitor from
# loopback, the first request after a restart (cold: nothing cached) and the
# median of 20 (warm) for the repository home, a directory, the 10,000-line
# file view, its blame, the history, a commit, the branches and a
# comparison; then wrk -t2 -c16 on the home page and the file view, with the
# server's RSS before and after.
# Usage: bash bench/web-code.sh [seconds] [commits]   (needs wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
COMMITS=${2:-15000}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
WORK=$(mktemp -d)
. bench/lib/cairn.sh
trap cairn_cleanup EXIT
cairn_setup

SRC=$(genrepo "$COMMITS")
git clone -q --no-checkout "$SRC" "$WORK/wt" 2>/dev/null
git -C "$WORK/wt" checkout -q -B main origin/main
python3 - "$WORK/wt/big.go" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("package big\n\n")
    n, i = 2, 0
    while n + 8 <= 10000:
        f.write("// F%d returns a number.\nfunc F%d(x int) int {\n\tif x > %d {\n\t\treturn x * 2\n\t}\n\treturn x + %d\n}\n\n" % (i, i, i, i))
        n += 8
        i += 1
    f.write("// end\n" * (10000 - n))
PY
printf '# Big\n\nThe benchmark repository: **%s commits**.\n' "$COMMITS" > "$WORK/wt/README.md"
git -C "$WORK/wt" add big.go README.md && git -C "$WORK/wt" commit -q -m "Add a 10,000-line file and a README"
LINES=$(wc -l < "$WORK/wt/big.go")
HEAD_SHA=$(git -C "$WORK/wt" rev-parse HEAD)
BRANCH=$(git -C "$SRC" for-each-ref --format='%(refname:short)' refs/heads/feature-* | head -1)

cairn_start
cairn_token
new_repo big >/dev/null
git -C "$SRC" push -q "$GITURL/root/big.git" 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*'
git -C "$WORK/wt" push -q "$GITURL/root/big.git" main

seconds() { curl -sf -o /dev/null -w '%{time_total}' "$URL$1"; }
cold_ms() { seconds "$1" | awk '{printf "%.1f", $1*1000}'; }
median_ms() { # median of 20 requests of $1, in milliseconds
  for _ in $(seq 20); do seconds "$1"; echo; done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]*1000}'
}

PAGES=(/root/big /root/big/src/branch/main/src/pkg05 /root/big/src/branch/main/big.go /root/big/blame/branch/main/big.go
  /root/big/commits/branch/main "/root/big/commit/$HEAD_SHA" /root/big/branches "/root/big/compare/$BRANCH...main")
NAMES=("repository home" "directory (src/pkg05)" "$LINES-line file view" "blame of the $LINES-line file" "history (page 1)"
  "commit" "branches" "comparison ($BRANCH...main)")

# Cold: a fresh process, nothing cached.
cairn_stop
cairn_start
printf '\n%s commits, a %s-line file\n' "$COMMITS" "$LINES"
printf '\n| page | cold | warm (median of 20) | bytes |\n|---|---|---|---|\n'
for i in "${!PAGES[@]}"; do
  p=${PAGES[$i]}
  c=$(cold_ms "$p")
  printf '| %s | %s ms | %s ms | %s |\n' "${NAMES[$i]}" "$c" "$(median_ms "$p")" "$(curl -sf "$URL$p" | wc -c)"
done

printf '\n| wrk -t2 -c16 -d%ss | req/s | p50 | p99 | RSS before | RSS after |\n|---|---|---|---|---|---|\n' "$DUR"
for path in /root/big /root/big/src/branch/main/big.go; do
  before=$(cur_rss)
  out=$(wrk -t2 -c16 -d"${DUR}s" --latency "$URL$path")
  printf '| %s | %s | %s | %s | %s MB | %s MB |\n' "$path" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1=="50%" {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')" "$before" "$(cur_rss)"
done

#!/usr/bin/env bash
# Web interface benchmark (issue 15). A public repository with the
# 15,000-commit history of bench/lib/genrepo.sh plus a 10,000-line Go file,
# 100,000 issues and 500,000 comments seeded into it (bench/seed), and one
# issue with 500 comments. Measures, server side from loopback, as the
# signed-out visitor:
#   - the repository home (file list with each entry's last commit, README):
#     cold (first request after a restart) and warm (median of 20);
#   - the 10,000-line file view with highlighting, the issue list, the issue
#     with 500 comments (median of 20 each);
#   - wrk -t2 -c16 on the home page and the issue list, with the server's RSS
#     before and after;
#   - the CSS and JavaScript a page ships, compressed.
# Usage: bash bench/web.sh [seconds] [commits]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
COMMITS=${2:-15000}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
go build -o "$WORK/seed" ./bench/seed
PORT=$((20000 + RANDOM % 20000))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com \
  CAIRN_DEBUG_QUERY_COUNT_HEADER=true
URL="http://127.0.0.1:$PORT"
export GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1 HOME="$WORK/home"
mkdir -p "$HOME"
git config --global user.name bench && git config --global user.email bench@example.com
start() {
  "$WORK/cairn" serve >"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.01; done
}
rss() { awk '/VmRSS/ {printf "%.1f MB", $2/1024}' /proc/$PID/status; }
seconds() { curl -s -o /dev/null -w '%{time_total}' "$URL$1"; }
median_ms() { # median of 20 requests of $1, in milliseconds
  for _ in $(seq 20); do seconds "$1"; echo; done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]*1000}'
}

echo "generating a repository with $COMMITS commits..."
bash bench/lib/genrepo.sh "$WORK/src.git" "$COMMITS" 40 34
git clone -q -b main "$WORK/src.git" "$WORK/wt"
python3 - "$WORK/wt/big.go" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("package big\n\n")
    n = 2
    i = 0
    while n + 8 <= 10000:
        f.write("// F%d returns a number.\nfunc F%d(x int) int {\n\tif x > %d {\n\t\treturn x * 2\n\t}\n\treturn x + %d\n}\n\n" % (i, i, i, i))
        n += 8
        i += 1
PY
printf '# Big\n\nThe benchmark repository: **%s commits**.\n' "$COMMITS" > "$WORK/wt/README.md"
git -C "$WORK/wt" add big.go README.md && git -C "$WORK/wt" commit -q -m "Add a 10,000-line file and a README"
LINES=$(wc -l < "$WORK/wt/big.go")

start
TOKEN=$(curl -sf -u root:root-password -H 'Content-Type: application/json' -X POST "$URL/api/v1/users/root/tokens" \
  -d '{"name":"bench","scopes":["all"]}' | sed -E 's/.*"sha1":"([0-9a-f]+)".*/\1/')
H=(-H "Authorization: token $TOKEN" -H 'Content-Type: application/json')
REPO_ID=$(curl -sf "${H[@]}" -X POST "$URL/api/v1/user/repos" -d '{"name":"big","default_branch":"main"}' | sed -E 's/^\{"id":([0-9]+),.*/\1/')
git -C "$WORK/wt" push -q "http://root:root-password@127.0.0.1:$PORT/root/big.git" main 'refs/tags/*:refs/tags/*'
kill -TERM $PID; wait $PID || true
"$WORK/seed" -data "$WORK/data" -repo "$REPO_ID" -poster 1 -notify-user 1 -threads 0
start
BIG=$(curl -sf "${H[@]}" -X POST "$URL/api/v1/repos/root/big/issues" -d '{"title":"An issue with 500 comments","body":"Many **comments** follow."}' \
  | sed -E 's/.*"number":([0-9]+).*/\1/')
for i in $(seq 500); do
  curl -sf "${H[@]}" -X POST "$URL/api/v1/repos/root/big/issues/$BIG/comments" -d "{\"body\":\"Comment $i with \`code\` and a [link](https://example.com/$i).\"}" >/dev/null
done

# Cold: a fresh process, nothing cached.
kill -TERM $PID; wait $PID || true
start
COLD=$(seconds /root/big | awk '{printf "%.1f", $1*1000}')
HOME_MS=$(median_ms /root/big)
FILE_MS=$(median_ms /root/big/src/branch/main/big.go)
LIST_MS=$(median_ms /root/big/issues)
ISSUE_MS=$(median_ms "/root/big/issues/$BIG")
queries() { curl -s -o /dev/null -D - "$URL$1" | awk -F': ' 'tolower($1)=="x-cairn-query-count" {print $2}' | tr -d '\r'; }

printf '\n%s commits, %s-line file, 100,000 issues, 500,000 comments\n' "$COMMITS" "$LINES"
printf '\n| page | median | queries | target |\n|---|---|---|---|\n'
printf '| repository home, cold | %s ms | | 300 ms |\n' "$COLD"
printf '| repository home, warm | %s ms | %s | 50 ms |\n' "$HOME_MS" "$(queries /root/big)"
printf '| %s-line file view | %s ms | %s | 100 ms |\n' "$LINES" "$FILE_MS" "$(queries /root/big/src/branch/main/big.go)"
printf '| issue list | %s ms | %s | 20 ms |\n' "$LIST_MS" "$(queries /root/big/issues)"
printf '| issue with 500 comments | %s ms | %s | 50 ms |\n' "$ISSUE_MS" "$(queries "/root/big/issues/$BIG")"

printf '\n| wrk -t2 -c16 -d%ss | req/s | p50 | p99 | RSS before | RSS after |\n|---|---|---|---|---|---|\n' "$DUR"
for path in /root/big /root/big/issues; do
  before=$(rss)
  out=$(wrk -t2 -c16 -d"${DUR}s" --latency "$URL$path")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$path" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1=="50%" {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')" "$before" "$(rss)"
done

page=$(curl -s "$URL/root/big")
css=$(echo "$page" | grep -o '/assets/[^"]*\.css' | head -1)
js=$(echo "$page" | grep -o '/assets/[^"]*\.js' | head -1)
gz() { curl -s -H 'Accept-Encoding: gzip' "$URL$1" | wc -c; }
printf '\nCSS and JavaScript shipped (gzip): %s + %s bytes (target: at most 150 KB)\n' "$(gz "$css")" "$(gz "$js")"

#!/usr/bin/env bash
# Memory of a large diff (issue 12, target 4): a pull request whose branch
# adds about MB megabytes (default 100) of text in 1 MB files; after the push
# and the check the server is restarted, then GET
# /api/v1/repos/{o}/{r}/pulls/{n}.diff is fetched with curl twice, and .patch once. Reports
# the server's peak RSS (VmHWM) before and after each fetch against the size
# of the diff, and the transfer time.
# Usage: bash bench/pull-diff.sh [MB]   (needs sqlite3)
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-100}
command -v sqlite3 >/dev/null || { echo "sqlite3 is required (apt-get install sqlite3)"; exit 1; }
WORK=$(mktemp -d)
. bench/lib/cairn.sh
trap cairn_cleanup EXIT
cairn_setup
cairn_start
cairn_token

git init -q -b main "$WORK/w"
echo readme >"$WORK/w/README.md"
git -C "$WORK/w" add README.md && git -C "$WORK/w" commit -qm initial
git -C "$WORK/w" checkout -qb big
mkdir -p "$WORK/w/data"
python3 - "$WORK/w/data" "$MB" <<'PY'
import os, random, sys
out, mb = sys.argv[1], int(sys.argv[2])
random.seed(7)
words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split()
for f in range(mb):
    lines, size = [], 0
    while size < 1 << 20:
        l = "%d %s\n" % (size, " ".join(random.choice(words) for _ in range(10)))
        lines.append(l); size += len(l)
    open(os.path.join(out, "file%03d.txt" % f), "w").write("".join(lines))
PY
git -C "$WORK/w" add data && git -C "$WORK/w" commit -qm "add $MB MB"
id=$(new_repo diff)
git -C "$WORK/w" push -q "$GITURL/root/diff.git" main big
api POST /api/v1/repos/root/diff/pulls '{"head":"big","base":"main","title":"big"}' >/dev/null
wait_checked "$id" >/dev/null
cairn_stop
cairn_start
sleep 1
printf '\n| request | bytes | time (s) | RSS before (MB) | peak RSS before (MB) | peak RSS after (MB) |\n|---|---|---|---|---|---|\n'
for path in /api/v1/repos/root/diff/pulls/1.diff /api/v1/repos/root/diff/pulls/1.diff /api/v1/repos/root/diff/pulls/1.patch; do
  rss0=$(cur_rss) hwm0=$(peak_rss)
  out=$(curl -sf "${H[@]}" -o /dev/null -w '%{size_download} %{time_total}' "$URL$path")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$path" "${out% *}" "${out#* }" "$rss0" "$hwm0" "$(peak_rss)"
done
printf '\nbranch: %s MB of text added; RSS now %s MB\n' "$MB" "$(cur_rss)"

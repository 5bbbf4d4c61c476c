#!/usr/bin/env bash
# Mergeability checks after a push (issue 12, target 2): PRS open pull
# requests (default 500) on the bench/git.sh repository (COMMITS commits,
# default 3,000), each branch adding its own small file and every other one
# also rewriting shared/conflict.txt. Each round pushes over HTTP one commit to
# main that alternately rewrites shared/conflict.txt (half of the pull
# requests become conflicting) and restores it (all mergeable again), and
# measures:
#  - the `git push` itself, against the same push to a copy of the
#    repository (same branches) without pull requests, alternating;
#  - the time from the end of the push until every open pull request's check
#    was computed against the new main (pull_request.checked_base in the
#    database, polled every 20 ms; the API does not show the checked base),
#    then that GET /pulls?state=open&limit=50 pages show the expected
#    mergeable flags (250 false / 250 true, or all true).
# Usage: [ROUNDS=5] [REPO_CACHE=dir] bash bench/pull-check.sh [prs] [commits]
set -euo pipefail
cd "$(dirname "$0")/.."
PRS=${1:-500}
COMMITS=${2:-3000}
ROUNDS=${ROUNDS:-5}
command -v sqlite3 >/dev/null || { echo "sqlite3 is required (apt-get install sqlite3)"; exit 1; }
WORK=$(mktemp -d)
. bench/lib/cairn.sh
trap cairn_cleanup EXIT
cairn_setup
cairn_start
cairn_token

SRC=$(genrepo "$COMMITS")
git clone -q --bare --no-local "$SRC" "$WORK/src.git"
main=$(git -C "$WORK/src.git" rev-parse refs/heads/main)
{
  printf 'commit refs/heads/main\nmark :1\ncommitter bench <bench@example.com> 1700000000 +0000\ndata 9\nshared 1\nfrom %s\n' "$main"
  printf 'M 100644 inline shared/conflict.txt\ndata 9\noriginal\n\n'
  for i in $(seq "$PRS"); do
    b="pr-$i"
    printf 'commit refs/heads/%s\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s\nfrom :1\n' \
      "$b" $((1700000000 + i)) ${#b} "$b"
    printf 'M 100644 inline prs/%s.txt\ndata %d\nchange %s\n' "$b" $((${#b} + 8)) "$b"
    if [ $((i % 2)) = 0 ]; then
      printf 'M 100644 inline shared/conflict.txt\ndata %d\nbranch %s\n' $((${#b} + 8)) "$b"
    fi
    echo
  done
} | git -C "$WORK/src.git" fast-import --quiet
id=$(new_repo prs)
nopr=$(new_repo nopr)
t=$(date +%s%N)
git -C "$WORK/src.git" push -q --mirror "$GITURL/root/prs.git"
git -C "$WORK/src.git" push -q --mirror "$GITURL/root/nopr.git"
echo "pushed $PRS branches to two repositories in $(ms "$t") ms" >&2
t=$(date +%s%N)
seq "$PRS" | xargs -P 4 -I{} curl -sf -o /dev/null "${H[@]}" -H 'Content-Type: application/json' \
  -X POST "$URL/api/v1/repos/root/prs/pulls" -d '{"head":"pr-{}","base":"main","title":"pull request {}"}'
CREATE=$(ms "$t")
FIRST=$(wait_checked "$id")
echo "created $PRS pull requests in $CREATE ms (4 in parallel); all checked $FIRST ms later" >&2

git clone -q "$GITURL/root/prs.git" "$WORK/c-prs"
git clone -q "$GITURL/root/nopr.git" "$WORK/c-nopr"
# flags counts the open pull requests the API shows as mergeable / not.
flags() {
  local page yes=0 no=0 out
  for page in $(seq $(((PRS + 49) / 50))); do
    out=$(api GET "/api/v1/repos/root/prs/pulls?state=open&limit=50&page=$page")
    yes=$((yes + $(grep -o '"mergeable":true' <<<"$out" | wc -l)))
    no=$((no + $(grep -o '"mergeable":false' <<<"$out" | wc -l)))
  done
  echo "$yes $no"
}
push_nopr=() push_prs=() checked=() seen=()
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then content="main $r"; want="$((PRS - PRS / 2)) $((PRS / 2))"; else content=original; want="$PRS 0"; fi
  for c in c-nopr c-prs; do
    echo "$content" >"$WORK/$c/shared/conflict.txt"
    git -C "$WORK/$c" commit -qam "round $r" --date "@$((1700100000 + r)) +0000"
  done
  order=(c-nopr c-prs)
  [ $((r % 2)) = 0 ] && order=(c-prs c-nopr)
  for c in "${order[@]}"; do
    t=$(date +%s%N)
    git -C "$WORK/$c" push -q origin main
    d=$(awk -v ns=$(($(date +%s%N) - t)) 'BEGIN {printf "%.1f", ns / 1e6}')
    if [ "$c" = c-prs ]; then
      push_prs+=("$d")
      new=$(git -C "$WORK/$c" rev-parse HEAD)
      checked+=("$(wait_checked "$id" "$new" 120)")
    else
      push_nopr+=("$d")
    fi
  done
  got=$(flags)
  seen+=("$got")
  [ "$got" = "$want" ] || { echo "round $r: mergeable true/false = $got, want $want"; exit 1; }
done
# Where a slower push comes from: a push to a branch no pull request uses
# (no check is queued) against the same push to the copy, and the files in
# each repository directory (every push walks them to record the size).
side_nopr=() side_prs=()
for r in 1 2 3; do
  for c in c-nopr c-prs; do
    git -C "$WORK/$c" checkout -q -B "side-$r" main~1
    echo "side $r" >"$WORK/$c/side.txt"
    git -C "$WORK/$c" add side.txt && git -C "$WORK/$c" commit -qm "side $r" --date "@$((1700200000 + r)) +0000"
    t=$(date +%s%N)
    git -C "$WORK/$c" push -q origin "side-$r"
    d=$(awk -v ns=$(($(date +%s%N) - t)) 'BEGIN {printf "%.1f", ns / 1e6}')
    if [ "$c" = c-prs ]; then side_prs+=("$d"); else side_nopr+=("$d"); fi
  done
done
FILES_PRS=$(find "$(repo_path "$id")" -type f | wc -l) FILES_NOPR=$(find "$(repo_path "$nopr")" -type f | wc -l)
echo "push without pull requests (ms): ${push_nopr[*]}" >&2
echo "push with $PRS open pull requests (ms): ${push_prs[*]}" >&2
echo "all checks up to date after (ms): ${checked[*]}" >&2
echo "mergeable true/false per round: ${seen[*]}" >&2
PN=$(median "${push_nopr[@]}") PP=$(median "${push_prs[@]}") CK=$(median "${checked[@]}")
MAXCK=$(printf '%s\n' "${checked[@]}" | sort -n | tail -1)
printf '\n%s open pull requests, %s-commit repository, %s rounds (medians; checks: median and worst)\n' "$PRS" "$COMMITS" "$ROUNDS"
printf '\n| measure | value |\n|---|---|\n'
printf '| git push to main, no pull requests (ms) | %s |\n' "$PN"
printf '| git push to main, %s open pull requests (ms) | %s |\n' "$PRS" "$PP"
printf '| push ratio | %s |\n' "$(ratio "$PP" "$PN")"
printf '| push to all %s checks up to date (ms) | %s (worst %s) |\n' "$PRS" "$CK" "$MAXCK"
printf '| creating %s pull requests through the API, 4 in parallel (ms) | %s |\n' "$PRS" "$CREATE"
printf '| first checks of all %s after creation (ms after the last) | %s |\n' "$PRS" "$FIRST"
printf '| push to a new side branch, no pull requests / %s open (ms) | %s / %s |\n' "$PRS" "$(median "${side_nopr[@]}")" "$(median "${side_prs[@]}")"
printf '| files in the repository directory, no pull requests / %s open | %s / %s |\n' "$PRS" "$FILES_NOPR" "$FILES_PRS"

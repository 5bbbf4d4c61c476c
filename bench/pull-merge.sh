#!/usr/bin/env bash
# Merge benchmark (issue 12, target 1): POST /repos/{o}/{r}/pulls/{n}/merge
# with Do=merge and Do=squash, end to end (curl's time_total), against the
# bare git commands a merge needs on an identical copy of the repository:
# `git merge-tree --write-tree main <branch>`, `git commit-tree` (two
# parents for a merge, one for a squash) and `git update-ref` with the old
# value. The repositories are those bench/git.sh generates (3,000 and 15,000
# commits by default; bench/lib/genrepo.sh). N pull requests per style, each
# adding a small file on its own branch made from main; they are merged one
# after another, so from the second on each is a real three-way merge. Before
# each API merge the background checks of the other pull requests (main
# moved) have finished, so the merge meets an up-to-date check and has the
# machine to itself; the floor does the same merge on its copy after them.
# Usage: [N=25] [REPO_CACHE=dir] bash bench/pull-merge.sh [commits...]
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(3000 15000)
N=${N:-25}
command -v sqlite3 >/dev/null || { echo "sqlite3 is required (apt-get install sqlite3)"; exit 1; }
WORK=$(mktemp -d)
. bench/lib/cairn.sh
trap cairn_cleanup EXIT
cairn_setup
cairn_start
cairn_token
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

declare -A RES
for C in "${SIZES[@]}"; do
  SRC=$(genrepo "$C")
  name="r$C"
  id=$(new_repo "$name")
  git clone -q --bare --no-local "$SRC" "$WORK/$name-src.git"
  main=$(git -C "$WORK/$name-src.git" rev-parse refs/heads/main)
  # One commit per branch, adding a small file next to the existing ones.
  for style in merge squash; do
    for i in $(seq "$N"); do
      b="p$style-$i"
      body=$(printf 'change %s\nline two of %s\nline three\n' "$b" "$b")
      printf 'commit refs/heads/%s\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s\nfrom %s\nM 100644 inline src/pkg%02d/%s.txt\ndata %d\n%s\n\n' \
        "$b" $((1700000000 + i)) ${#b} "$b" "$main" $((i % 31)) "$b" $((${#body} + 1)) "$body"
    done
  done | git -C "$WORK/$name-src.git" fast-import --quiet
  git -C "$WORK/$name-src.git" push -q --mirror "$GITURL/root/$name.git"
  declare -A NUM=()
  for style in merge squash; do
    for i in $(seq "$N"); do
      n=$(api POST "/api/v1/repos/root/$name/pulls" "{\"head\":\"p$style-$i\",\"base\":\"main\",\"title\":\"p$style-$i\"}" |
        sed -E 's/.*"number":([0-9]+),.*/\1/')
      NUM[$style-$i]=$n
    done
  done
  wait_checked "$id" >/dev/null
  # The floor's copy: the served repository as it is now.
  FLOOR="$WORK/$name-floor.git"
  cp -a "$(repo_path "$id")" "$FLOOR"
  for style in merge squash; do
    api=() floor=() ratios=()
    for i in $(seq "$N"); do
      wait_checked "$id" >/dev/null
      out=$(curl -s -o "$WORK/resp" -w '%{http_code} %{time_total}' "${H[@]}" -H 'Content-Type: application/json' \
        -X POST "$URL/api/v1/repos/root/$name/pulls/${NUM[$style-$i]}/merge" -d "{\"Do\":\"$style\"}")
      [ "${out%% *}" = 200 ] || { echo "merge of $style-$i: $out $(cat "$WORK/resp")"; exit 1; }
      a=$(awk -v s="${out#* }" 'BEGIN {printf "%.2f", s * 1000}')
      wait_checked "$id" >/dev/null # the other pull requests, main moved
      old=$(git -C "$FLOOR" rev-parse refs/heads/main)
      t=$(date +%s%N)
      tree=$(git -C "$FLOOR" merge-tree --write-tree refs/heads/main "refs/heads/p$style-$i")
      if [ "$style" = merge ]; then
        c=$(echo "Merge p$style-$i" | git -C "$FLOOR" commit-tree "$tree" -p "$old" -p "refs/heads/p$style-$i")
      else
        c=$(echo "Squash p$style-$i" | git -C "$FLOOR" commit-tree "$tree" -p "$old")
      fi
      git -C "$FLOOR" update-ref refs/heads/main "$c" "$old"
      f=$(awk -v ns=$(($(date +%s%N) - t)) 'BEGIN {printf "%.2f", ns / 1e6}')
      api+=("$a") floor+=("$f") ratios+=("$(ratio "$a" "$f")")
    done
    # Both sides made the same trees.
    [ "$(git -C "$FLOOR" rev-parse 'refs/heads/main^{tree}')" = "$(git -C "$(repo_path "$id")" rev-parse 'refs/heads/main^{tree}')" ] ||
      { echo "the floor and Cairn disagree on the merged tree"; exit 1; }
    RES[$C-$style]="$(median "${floor[@]}") $(median "${api[@]}") $(median "${ratios[@]}")"
    echo "$C commits, $style (ms): API ${api[*]}; floor ${floor[*]}" >&2
  done
  rm -rf "$WORK/$name-src.git" "$FLOOR"
done

printf '\n%s merges per style and size; times are medians (ms), ratio = median of the per-merge ratios\n' "$N"
printf '\n| repository | style | bare git (ms) | API merge (ms) | ratio | API vs %s commits |\n|---|---|---|---|---|---|\n' "${SIZES[0]}"
for C in "${SIZES[@]}"; do
  for style in merge squash; do
    read -r f a r <<<"${RES[$C-$style]}"
    read -r _ a0 _ <<<"${RES[${SIZES[0]}-$style]}"
    printf '| %s commits | %s | %s | %s | %s | %s |\n' "$C" "$style" "$f" "$a" "$r" "$(ratio "$a" "$a0")"
  done
done

#!/usr/bin/env bash
# Git transport benchmark (issue 3): clone over HTTP and SSH against
# `git clone --no-local` from the same bare repository on disk (the floor), and
# `git push --mirror` of the whole history into an empty repository against a
# local `git push --mirror` into a bare repository without hooks. Also reports
# the server's peak RSS. Usage: [ROUNDS=7] bash bench/git.sh [commits] [branches] [tags]
set -euo pipefail
cd "$(dirname "$0")/.."
COMMITS=${1:-3000}
BRANCHES=${2:-40}
TAGS=${3:-34}
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/cairn" ./cmd/cairn
HTTP_PORT=$((20000 + RANDOM % 20000))
SSH_PORT=$((HTTP_PORT + 1))
export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$HTTP_PORT" CAIRN_SSH_ADDR="127.0.0.1:$SSH_PORT" \
  CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com
URL="http://127.0.0.1:$HTTP_PORT"
export GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1 HOME="$WORK/home"
mkdir -p "$HOME"
git config --global user.name bench && git config --global user.email bench@example.com

echo "generating a repository with $COMMITS commits, $BRANCHES branches, $TAGS tags..."
bash bench/lib/genrepo.sh "$WORK/src.git" "$COMMITS" "$BRANCHES" "$TAGS"
REFS=$(git -C "$WORK/src.git" for-each-ref | wc -l)
SIZE=$(du -sh "$WORK/src.git" | cut -f1)
echo "source: $REFS refs, $SIZE on disk"

ssh-keygen -q -t ed25519 -N '' -f "$WORK/key"
export GIT_SSH_COMMAND="ssh ${SSH_OPTS:-} -i $WORK/key -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p $SSH_PORT"

"$WORK/cairn" serve >"$WORK/log" 2>&1 &
PID=$!
until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.01; done
AUTH="root:root-password"
curl -sf -u "$AUTH" -H 'Content-Type: application/json' -X POST "$URL/api/v1/user/keys" \
  -d "{\"title\":\"bench\",\"key\":\"$(cat "$WORK/key.pub")\"}" >/dev/null

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
peak_rss() { awk '/VmHWM/ {printf "%.1f", $2/1024}' /proc/$PID/status; }

ROUNDS=${ROUNDS:-7}
push_floor=(); push_cairn=()
for i in $(seq "$ROUNDS"); do
  git init -q --bare "$WORK/floor-$i.git"
  t=$(date +%s%N); git -C "$WORK/src.git" push -q --mirror "$WORK/floor-$i.git"; push_floor+=("$(ms "$t")")
  curl -sf -u "$AUTH" -H 'Content-Type: application/json' -X POST "$URL/api/v1/user/repos" -d "{\"name\":\"push$i\"}" >/dev/null
  t=$(date +%s%N); git -C "$WORK/src.git" push -q --mirror "http://$AUTH@127.0.0.1:$HTTP_PORT/root/push$i.git"; push_cairn+=("$(ms "$t")")
done

# The floor clones the very bare repository Cairn serves, straight from disk.
REPO_ID=$(curl -sf -u "$AUTH" "$URL/api/v1/repos/root/push1" | sed -E 's/^\{"id":([0-9]+),.*/\1/')
SERVED="$CAIRN_DATA_DIR/repositories/$REPO_ID.git"
clone_floor=(); clone_http=(); clone_ssh=()
for i in $(seq "$ROUNDS"); do
  t=$(date +%s%N); git clone -q --no-local --mirror "$SERVED" "$WORK/cf-$i.git"; clone_floor+=("$(ms "$t")")
  t=$(date +%s%N); git clone -q --mirror "http://127.0.0.1:$HTTP_PORT/root/push1.git" "$WORK/ch-$i.git"; clone_http+=("$(ms "$t")")
  t=$(date +%s%N); git clone -q --mirror "ssh://git@127.0.0.1:$SSH_PORT/root/push1.git" "$WORK/cs-$i.git"; clone_ssh+=("$(ms "$t")")
  [ "$i" = 1 ] || rm -rf "$WORK/cf-$i.git" "$WORK/ch-$i.git" "$WORK/cs-$i.git"
done
[ "$(git -C "$WORK/ch-1.git" for-each-ref | wc -l)" = "$REFS" ] || { echo "HTTP clone has the wrong refs"; exit 1; }
[ "$(git -C "$WORK/cs-1.git" for-each-ref | wc -l)" = "$REFS" ] || { echo "SSH clone has the wrong refs"; exit 1; }

# An SSH connection that authenticates, runs nothing and closes: the cost of
# the handshake a fetch pays before any git traffic.
t=$(date +%s%N)
for i in $(seq 20); do $GIT_SSH_COMMAND git@127.0.0.1 >/dev/null 2>&1 || true; done
handshake=$(( ($(date +%s%N) - t) / 20000000 ))

# Each round runs the floor and Cairn back to back; the ratio is the median
# of the rounds' ratios, so load that drifts during the run cancels out.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
paired() { # paired <name of the Cairn times> <name of the floor times>
  local -n c=$1 f=$2; local r=() i
  for i in "${!c[@]}"; do r+=("$(ratio "${c[$i]}" "${f[$i]}")"); done
  median "${r[@]}" | awk '{printf "%.2f", $1}'
}
row() { # row <operation> <name of the Cairn times> <name of the floor times>
  local -n ct=$2 ft=$3
  printf '| %s | %s | %s | %s |\n' "$1" "$(median "${ft[@]}")" "$(median "${ct[@]}")" "$(paired "$2" "$3")"
}
printf '\n%s rounds; times are medians, the ratio is the median of the rounds'"'"' ratios\n' "$ROUNDS"
printf '\n| operation | floor (ms) | Cairn (ms) | ratio |\n|---|---|---|---|\n'
row "clone over HTTP" clone_http clone_floor
row "clone over SSH" clone_ssh clone_floor
row "push --mirror ($REFS refs) over HTTP" push_cairn push_floor
printf '| SSH connection (handshake, no command) | | %s | |\n' "$handshake"
printf '\nper round (ms): clone floor %s; HTTP %s; SSH %s; push floor %s; push Cairn %s\n' \
  "${clone_floor[*]}" "${clone_http[*]}" "${clone_ssh[*]}" "${push_floor[*]}" "${push_cairn[*]}"
printf '\nserver peak RSS: %s MB (repository on disk: %s)\n' "$(peak_rss)" "$SIZE"

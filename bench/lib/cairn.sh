# Helpers the pull request benchmarks source (bash bench/pull-*.sh): build
# and run a server on a random port with an admin from environment variables
# in a temporary directory, a token, medians, and the mergeability state read
# from the SQLite database (read-only, as the product exposes no "checked
# base"). Callers set WORK (mktemp -d) and a trap that calls cairn_cleanup.
# shellcheck shell=bash

# cairn_setup builds the binary (or copies CAIRN_BIN, e.g. a build with
# pprof) and sets the environment, URL, AUTH and DBFILE.
cairn_setup() {
  if [ -n "${CAIRN_BIN:-}" ]; then cp "$CAIRN_BIN" "$WORK/cairn"; else go build -o "$WORK/cairn" ./cmd/cairn; fi
  PORT=$((20000 + RANDOM % 20000))
  export CAIRN_DATA_DIR="$WORK/data" CAIRN_HTTP_ADDR="127.0.0.1:$PORT" CAIRN_SSH_ADDR=off \
    CAIRN_ADMIN_USERNAME=root CAIRN_ADMIN_PASSWORD=root-password CAIRN_ADMIN_EMAIL=root@example.com \
    CAIRN_DATABASE_URL=
  export GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1 HOME="$WORK/home"
  mkdir -p "$HOME"
  git config --global user.name bench && git config --global user.email bench@example.com
  URL="http://127.0.0.1:$PORT"
  AUTH="root:root-password"
  GITURL="http://$AUTH@127.0.0.1:$PORT"
  DBFILE="$CAIRN_DATA_DIR/cairn.db"
  PID=
}

# cairn_start runs the server (extra environment as arguments) and sets PID.
cairn_start() {
  env "$@" "$WORK/cairn" serve >>"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$URL/api/healthz" >/dev/null 2>&1; do sleep 0.01; done
}
cairn_stop() { [ -n "$PID" ] && { kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; }; PID=; }
cairn_cleanup() { [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }

# cairn_token creates a token with every scope and sets TOKEN and H (curl header arguments).
cairn_token() {
  TOKEN=$(curl -sf -u "$AUTH" -H 'Content-Type: application/json' -X POST "$URL/api/v1/users/root/tokens" \
    -d "{\"name\":\"bench$RANDOM\",\"scopes\":[\"all\"]}" | sed -E 's/.*"sha1":"([0-9a-f]+)".*/\1/')
  H=(-H "Authorization: token $TOKEN")
}

# api METHOD PATH [JSON]: a request with the token; prints the body, fails on HTTP errors.
api() {
  if [ $# -ge 3 ]; then
    curl -sf "${H[@]}" -H 'Content-Type: application/json' -X "$1" "$URL$2" -d "$3"
  else
    curl -sf "${H[@]}" -X "$1" "$URL$2"
  fi
}

# new_repo NAME: creates an empty repository of root and prints its id.
new_repo() { api POST /api/v1/user/repos "{\"name\":\"$1\"}" | sed -E 's/^\{"id":([0-9]+),.*/\1/'; }
repo_path() { echo "$CAIRN_DATA_DIR/repositories/$1.git"; }

# genrepo COMMITS: path of the bench/git.sh repository with COMMITS commits,
# generated once per REPO_CACHE directory (default: inside WORK).
genrepo() {
  local dir=${REPO_CACHE:-$WORK/cache}
  mkdir -p "$dir"
  local out="$dir/gen-$1-40-34.git"
  if [ ! -d "$out" ]; then
    echo "generating a repository with $1 commits (bench/lib/genrepo.sh)..." >&2
    bash bench/lib/genrepo.sh "$out.tmp" "$1" 40 34 >&2
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# sql QUERY: one read-only query on the SQLite database.
sql() { sqlite3 -readonly -cmd '.timeout 10000' "$DBFILE" "$1"; }

# unchecked REPO_ID [BASE_SHA]: open pull requests of the repository whose
# check is pending, or (with BASE_SHA) not yet computed against that base.
unchecked() {
  local q="SELECT COUNT(*) FROM pull_request p JOIN issue i ON i.id = p.issue_id WHERE p.base_repo_id = $1 AND p.has_merged = 0 AND i.is_closed = 0 AND (p.status = 1"
  [ -n "${2:-}" ] && q+=" OR p.checked_base <> '$2'"
  sql "$q)"
}

# wait_checked REPO_ID [BASE_SHA] [TIMEOUT_S]: polls every 20 ms until unchecked is 0; prints the milliseconds waited.
wait_checked() {
  local t0 n; t0=$(date +%s%N)
  while :; do
    n=$(unchecked "$1" "${2:-}")
    [ "$n" = 0 ] && break
    if [ $(( ($(date +%s%N) - t0) / 1000000000 )) -ge "${3:-600}" ]; then echo "timeout: $n unchecked" >&2; return 1; fi
    sleep 0.02
  done
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
peak_rss() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$PID/status"; }
cur_rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$PID/status"; }

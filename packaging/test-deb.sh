#!/usr/bin/env bash
# Builds the Debian package, installs it with dpkg, starts `cairn serve` as the
# systemd unit would (user, environment, working directory: no systemd runs
# here), checks that it answers and created its first administrator, then
# purges the package and checks that nothing is left. Needs root; safe to run
# again (a cairn package left installed by an interrupted run is purged first).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "test-deb: must run as root (dpkg -i)" >&2
	exit 1
fi
start=$(date +%s)
version=$(make -s print-version)
arch=$(dpkg --print-architecture)
deb=dist/cairn_${version}_${arch}.deb
unit=/lib/systemd/system/cairn.service
log=$(mktemp)
pid=

fail() {
	echo "test-deb: FAIL: $*" >&2
	if [ -s "$log" ]; then
		echo "--- cairn serve output:" >&2
		cat "$log" >&2
	fi
	exit 1
}

cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	if dpkg-query -W -f='${Status}' cairn 2>/dev/null | grep -qv 'not-installed'; then
		dpkg --purge cairn >/dev/null || true
	fi
	rm -f "$log"
}
trap cleanup EXIT

if dpkg-query -W -f='${Status}' cairn 2>/dev/null | grep -qv 'not-installed'; then
	echo "test-deb: purging a cairn package left installed"
	dpkg --purge cairn
fi
for path in /usr/bin/cairn /etc/cairn /var/lib/cairn "$unit"; do
	[ ! -e "$path" ] || fail "$path exists before the package is installed"
done
if getent passwd cairn >/dev/null; then
	fail "a user cairn exists before the package is installed"
fi

make deb DEB_ARCH="$arch"
dpkg -i "$deb"

# What the package installed.
out=$(/usr/bin/cairn --version)
echo "$out"
case "$out" in
"cairn $version (Gitea API "*"+cairn.$version)"*) ;;
*) fail "cairn --version printed: $out" ;;
esac
echo "$out" | sed -n 2p | grep -q '^commit ' || fail "cairn --version names no commit"
getent passwd cairn | grep -q ':/var/lib/cairn:/usr/sbin/nologin$' || fail "user cairn: $(getent passwd cairn)"
[ "$(stat -c '%U:%G %a' /var/lib/cairn)" = "cairn:cairn 750" ] || fail "/var/lib/cairn is $(stat -c '%U:%G %a' /var/lib/cairn)"
[ "$(stat -c '%U:%G %a' /etc/cairn/cairn.ini)" = "root:cairn 640" ] || fail "/etc/cairn/cairn.ini is $(stat -c '%U:%G %a' /etc/cairn/cairn.ini)"
dpkg-query -W -f='${Conffiles}\n' cairn | grep -q '^ /etc/cairn/cairn.ini ' || fail "/etc/cairn/cairn.ini is not a conffile"
[ -f "$unit" ] || fail "$unit missing"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" || fail "systemd-analyze verify $unit"
fi

# Start the unit's command with the unit's user, environment and directory.
user=$(sed -n 's/^User=//p' "$unit")
workdir=$(sed -n 's/^WorkingDirectory=//p' "$unit")
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
unit_umask=$(sed -n 's/^UMask=//p' "$unit")
mapfile -t unit_env < <(sed -n 's/^Environment=//p' "$unit")
[ "$user" = cairn ] && [ "$exec_start" = "/usr/bin/cairn serve" ] || fail "unit runs '$exec_start' as '$user'"
free_port() {
	local p
	for p in $(shuf -i 20000-59999 -n 50); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	fail "no free port"
}
http_port=$(free_port)
ssh_port=$(free_port)
[ "$http_port" != "$ssh_port" ] || ssh_port=$(free_port)
(
	cd "$workdir"
	umask "${unit_umask:-0022}"
	# shellcheck disable=SC2086 # ExecStart is split into words, as systemd does
	exec setpriv --reuid="$user" --regid="$user" --init-groups \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/var/lib/cairn USER="$user" LOGNAME="$user" \
		"${unit_env[@]}" CAIRN_HTTP_ADDR="127.0.0.1:$http_port" CAIRN_SSH_ADDR="127.0.0.1:$ssh_port" \
		$exec_start
) >"$log" 2>&1 &
pid=$!
ok=
for _ in $(seq 1 150); do
	if curl -fsS "http://127.0.0.1:$http_port/api/healthz" >/dev/null 2>&1; then
		ok=1
		break
	fi
	kill -0 "$pid" 2>/dev/null || fail "cairn serve exited"
	sleep 0.2
done
[ -n "$ok" ] || fail "no answer from /api/healthz within 30 s"
for _ in $(seq 1 25); do
	grep -q '^Created the first administrator "cairn-admin" with the one-time password ' "$log" && break
	sleep 0.2
done
grep -q '^Created the first administrator "cairn-admin" with the one-time password ' "$log" || fail "no first-administrator line"
setpriv --reuid="$user" --regid="$user" --init-groups env -i PATH=/usr/bin:/bin HOME=/var/lib/cairn "${unit_env[@]}" \
	/usr/bin/cairn admin user list 2>/dev/null | grep -q cairn-admin || fail "admin user list as $user does not see cairn-admin"
curl -fsS "http://127.0.0.1:$http_port/api/v1/version" | grep -q "\"1.23.0+cairn.$version\"" || fail "GET /api/v1/version"
[ "$(stat -c '%U %a' /var/lib/cairn/cairn.db)" = "cairn 640" ] || fail "/var/lib/cairn/cairn.db is $(stat -c '%U %a' /var/lib/cairn/cairn.db)"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" = 0 ] || fail "cairn serve exited with $status after SIGTERM"

# Installing again (as an upgrade does) keeps the data, an edited
# configuration and its permissions.
echo "; edited by test-deb" >>/etc/cairn/cairn.ini
dpkg -i "$deb"
tail -n1 /etc/cairn/cairn.ini | grep -q '^; edited by test-deb$' || fail "reinstalling replaced the edited /etc/cairn/cairn.ini"
[ "$(stat -c '%U:%G %a' /etc/cairn/cairn.ini)" = "root:cairn 640" ] || fail "after reinstalling /etc/cairn/cairn.ini is $(stat -c '%U:%G %a' /etc/cairn/cairn.ini)"
[ -f /var/lib/cairn/cairn.db ] || fail "reinstalling lost /var/lib/cairn/cairn.db"

dpkg --purge cairn
for path in /usr/bin/cairn /etc/cairn /var/lib/cairn "$unit"; do
	[ ! -e "$path" ] || fail "$path left after purge"
done
! getent passwd cairn >/dev/null || fail "user cairn left after purge"
! getent group cairn >/dev/null || fail "group cairn left after purge"
echo "test-deb: ok ($(($(date +%s) - start)) s)"

package repo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// migrateTimeout bounds the clone of a migration and the fetch of a mirror sync.
const migrateTimeout = 30 * time.Minute

// minMirrorInterval is the shortest periodic sync interval of a mirror.
const minMirrorInterval = 10 * time.Minute

// credentialsFile holds, inside a mirror's bare directory and readable only by
// Cairn, the credentials its syncs send. They are never stored in the
// database, in the git configuration or on a command line.
const credentialsFile = "cairn-mirror-credentials.json"

// MigrateOptions describes a migration (a copy, or a pull mirror) of a
// remote repository.
type MigrateOptions struct {
	// CloneAddr is an http(s):// or git:// URL, or an absolute local path
	// (file:// URLs included) for site administrators when
	// [security] IMPORT_LOCAL_PATHS is on.
	CloneAddr    string
	AuthUsername string
	AuthPassword string
	AuthToken    string
	Name         string
	Description  string
	Private      bool
	Mirror       bool
	// MirrorInterval is a Go duration of at least 10m, "0" to sync only on
	// demand, or empty for [repository] MIRROR_INTERVAL.
	MirrorInterval string
}

// Remote-address refusals, with Gitea's messages.
func errDisallowedHost() error { return errs.Invalid("You can not import from disallowed hosts.") }

func errLocalForbidden() error {
	return errs.Invalid("You are not allowed to import local repositories.")
}

func errLocalInvalid() error {
	return errs.Invalid("Invalid local path, it does not exist or not a directory.")
}

func errInvalidURL(host string) error {
	return errs.Invalid("migration/cloning from '%s' is not allowed: the provided url is invalid", host)
}

func errInvalidProtocol(host string) error {
	return errs.Invalid("migration/cloning from '%s' is not allowed: the provided url protocol is not allowed", host)
}

// remote is a validated migration source.
type remote struct {
	// local is the absolute path of a repository on the server's disk.
	local string
	// url is the address without credentials.
	url      *url.URL
	username string
	password string
}

// display is the address shown as original_url: never with credentials.
func (rm *remote) display() string {
	if rm.local != "" {
		return rm.local
	}
	return rm.url.String()
}

// parseRemote reads a clone address and credentials. Local paths need a site
// administrator and [security] IMPORT_LOCAL_PATHS.
func (s *Service) parseRemote(doer *user.User, addr, username, password, token string) (*remote, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return nil, errs.InvalidField("clone_addr", "[CloneAddr]: Required")
	}
	lower := strings.ToLower(addr)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "git://") {
		u, err := url.Parse(addr)
		if err != nil || u.Host == "" || u.Opaque != "" {
			return nil, errInvalidURL(addr)
		}
		if strings.Contains(lower, "%0d") || strings.Contains(lower, "%0a") || strings.ContainsAny(addr, "\r\n\x00") {
			return nil, errInvalidURL(u.Host)
		}
		rm := &remote{url: u}
		if u.User != nil {
			rm.username = u.User.Username()
			rm.password, _ = u.User.Password()
			u.User = nil
		}
		if username != "" || password != "" {
			rm.username, rm.password = username, password
		}
		if token != "" && rm.password == "" {
			rm.password = token
			if rm.username == "" {
				rm.username = "oauth2"
			}
		}
		u.Fragment, u.RawFragment = "", ""
		if u.Scheme == "git" && (rm.username != "" || rm.password != "") {
			return nil, errs.InvalidField("clone_addr", "git:// addresses do not take credentials")
		}
		return rm, nil
	}
	if strings.HasPrefix(lower, "file://") {
		u, err := url.Parse(addr)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return nil, errLocalInvalid()
		}
		addr = u.Path
	} else if strings.Contains(addr, "://") {
		host := addr
		if u, err := url.Parse(addr); err == nil {
			host = u.Host
		}
		return nil, errInvalidProtocol(host)
	}
	if doer == nil || !doer.IsAdmin || !s.cfg.Security.ImportLocalPaths {
		return nil, errLocalForbidden()
	}
	p, err := checkLocalRepository(addr)
	if err != nil {
		return nil, err
	}
	return &remote{local: p}, nil
}

// checkLocalRepository accepts an absolute, clean path without symbolic
// links that is a git repository (bare, or with a .git directory), and
// returns the git directory to clone from.
func checkLocalRepository(p string) (string, error) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0) {
		return "", errLocalInvalid()
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || real != p {
		return "", errLocalInvalid()
	}
	isDir := func(q string) bool {
		fi, err := os.Lstat(q)
		return err == nil && fi.IsDir()
	}
	if !isDir(p) {
		return "", errLocalInvalid()
	}
	gitDir := p
	if isDir(filepath.Join(p, ".git")) {
		gitDir = filepath.Join(p, ".git")
	}
	fi, err := os.Lstat(filepath.Join(gitDir, "HEAD"))
	if err != nil || !fi.Mode().IsRegular() || !isDir(filepath.Join(gitDir, "objects")) || !isDir(filepath.Join(gitDir, "refs")) {
		return "", errs.Invalid("Invalid local path: %s is not a git repository.", p)
	}
	return p, nil
}

// hostPolicy decides which network addresses migrations and mirrors may
// reach: [migrations] ALLOWED_DOMAINS / BLOCKED_DOMAINS (comma lists of host
// globs, IP addresses, CIDR ranges, or the words loopback, private, external
// and *), and no loopback, private, link-local, unspecified or multicast
// address unless ALLOW_LOCALNETWORKS.
type hostPolicy struct {
	allowLocal bool
	allowed    []string
	blocked    []string
	lookup     func(ctx context.Context, host string) ([]net.IP, error)
}

func (s *Service) hostPolicy() *hostPolicy {
	return &hostPolicy{
		allowLocal: s.cfg.Migrations.AllowLocalNetworks,
		allowed:    s.cfg.Migrations.AllowedDomains,
		blocked:    s.cfg.Migrations.BlockedDomains,
		lookup: func(ctx context.Context, host string) ([]net.IP, error) {
			addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
			out := make([]net.IP, 0, len(addrs))
			for _, a := range addrs {
				out = append(out, a.IP)
			}
			return out, err
		},
	}
}

// specialNets are ranges that are never the public internet.
var specialNets = func() []*net.IPNet {
	var out []*net.IPNet
	for _, c := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "198.18.0.0/15", "240.0.0.0/4", "64:ff9b:1::/48", "2001:db8::/32"} {
		_, n, _ := net.ParseCIDR(c)
		out = append(out, n)
	}
	return out
}()

// isLocalIP reports addresses that are not public unicast: loopback,
// private, link-local, unspecified, multicast and reserved ranges.
func isLocalIP(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsGlobalUnicast() {
		return true
	}
	for _, n := range specialNets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// matchIP reports whether an entry of a domain list names ip.
func matchIP(entry string, ip net.IP) bool {
	switch strings.ToLower(entry) {
	case "*":
		return true
	case "loopback":
		return ip.IsLoopback()
	case "private":
		return isLocalIP(ip) && !ip.IsLoopback()
	case "external":
		return !isLocalIP(ip)
	}
	if _, n, err := net.ParseCIDR(entry); err == nil {
		return n.Contains(ip)
	}
	if e := net.ParseIP(entry); e != nil {
		return e.Equal(ip)
	}
	return false
}

// matchHost reports whether an entry of a domain list names host: a glob
// where '*' stands for any characters within one label ("*.example.com").
func matchHost(entry, host string) bool {
	if entry == "*" {
		return true
	}
	if strings.Contains(entry, "/") || net.ParseIP(entry) != nil {
		return false
	}
	pat := strings.ReplaceAll(strings.ToLower(entry), ".", "/")
	ok, err := path.Match(pat, strings.ReplaceAll(strings.ToLower(host), ".", "/"))
	return err == nil && ok
}

func listMatches(list []string, host string, ips []net.IP) bool {
	for _, e := range list {
		if matchHost(e, host) {
			return true
		}
		for _, ip := range ips {
			if matchIP(e, ip) {
				return true
			}
		}
	}
	return false
}

// check validates a network address before any connection is made: scheme,
// host lists, and every address the host resolves to. It returns the
// address to connect to (the first one).
func (p *hostPolicy) check(ctx context.Context, u *url.URL) (net.IP, error) {
	switch u.Scheme {
	case "http", "https", "git":
	default:
		return nil, errInvalidProtocol(u.Host)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return nil, errInvalidURL(u.Host)
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else if numericHost(host) {
		// "2130706433", "0x7f.1": IP addresses in forms that curl and the
		// resolver may read differently; never a real host name.
		return nil, errInvalidURL(u.Host)
	} else {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		var err error
		if ips, err = p.lookup(lctx, host); err != nil || len(ips) == 0 {
			return nil, errInvalidURL(u.Host)
		}
	}
	if len(p.allowed) > 0 && !listMatches(p.allowed, host, ips) {
		return nil, errDisallowedHost()
	}
	if listMatches(p.blocked, host, ips) {
		return nil, errDisallowedHost()
	}
	for _, ip := range ips {
		if err := p.checkIP(ip); err != nil {
			return nil, err
		}
	}
	return ips[0], nil
}

// numericHost reports a host whose last label is a number (no top-level
// domain is): an IP address written in a form other than the usual one.
func numericHost(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	if strings.HasPrefix(last, "0x") {
		return true
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkIP is the check made on the address of every connection.
func (p *hostPolicy) checkIP(ip net.IP) error {
	if ip == nil {
		return errDisallowedHost()
	}
	if !p.allowLocal && isLocalIP(ip) {
		return errDisallowedHost()
	}
	for _, e := range p.blocked {
		if matchIP(e, ip) {
			return errDisallowedHost()
		}
	}
	return nil
}

// resolveRedirects follows the HTTP redirects a git client would meet on
// an http(s) address, checking every hop (host lists on each address,
// IPs on each connection), and returns the repository address they lead to.
// git itself is then run with redirects off and the host pinned.
func (p *hostPolicy) resolveRedirects(ctx context.Context, u *url.URL) (*url.URL, error) {
	dialer := &net.Dialer{Timeout: 15 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return errDisallowedHost()
		}
		return p.checkIP(net.ParseIP(host))
	}}
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, TLSHandshakeTimeout: 15 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errs.Invalid("stopped after 10 redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errInvalidProtocol(req.URL.Host)
			}
			_, err := p.check(req.Context(), req.URL)
			return err
		},
	}
	defer client.CloseIdleConnections()
	probe := *u
	probe.Path = strings.TrimSuffix(u.Path, "/") + "/info/refs"
	probe.RawPath = ""
	probe.RawQuery = "service=git-upload-pack"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe.String(), nil)
	if err != nil {
		return nil, errInvalidURL(u.Host)
	}
	req.Header.Set("User-Agent", "git/2.0 (Cairn migration)")
	resp, err := client.Do(req)
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, errs.Invalid("Migration failed: %s.", strings.ReplaceAll(err.Error(), probe.String(), u.String()))
	}
	_, _ = io.CopyN(io.Discard, resp.Body, 4096)
	resp.Body.Close()
	final := *resp.Request.URL
	if final.String() == probe.String() {
		return u, nil
	}
	base, ok := strings.CutSuffix(final.Path, "/info/refs")
	if !ok {
		return nil, errs.Invalid("Migration failed: %s redirected to an address that is not a git repository.", u.Host)
	}
	final.Path, final.RawPath, final.RawQuery, final.User = base, "", "", nil
	return &final, nil
}

// gitRemote prepares a network or local address for a git clone or fetch:
// the URL git is given, and its environment (allowed protocols, redirects
// off, the checked address pinned, credentials as a header).
func (s *Service) gitRemote(ctx context.Context, rm *remote) (string, []string, *url.URL, error) {
	if rm.local != "" {
		if !s.cfg.Security.ImportLocalPaths {
			return "", nil, nil, errLocalForbidden()
		}
		p, err := checkLocalRepository(rm.local)
		if err != nil {
			return "", nil, nil, err
		}
		return p, []string{"GIT_ALLOW_PROTOCOL=file"}, nil, nil
	}
	pol := s.hostPolicy()
	u := rm.url
	if _, err := pol.check(ctx, u); err != nil {
		return "", nil, nil, err
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		var err error
		if u, err = pol.resolveRedirects(ctx, u); err != nil {
			return "", nil, nil, err
		}
	}
	ip, err := pol.check(ctx, u)
	if err != nil {
		return "", nil, nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "git": "9418"}[u.Scheme]
	}
	addr := ip.String()
	if ip.To4() == nil {
		addr = "[" + addr + "]"
	}
	var cfg [][2]string
	target := *u
	switch u.Scheme {
	case "git":
		// git:// has no name-based pinning: connect to the checked address.
		target.Host = net.JoinHostPort(ip.String(), port)
	default:
		cfg = append(cfg, [2]string{"http.followRedirects", "false"})
		if net.ParseIP(u.Hostname()) == nil {
			cfg = append(cfg, [2]string{"http.curloptResolve", u.Hostname() + ":" + port + ":" + addr})
		}
		if rm.username != "" || rm.password != "" {
			cred := base64.StdEncoding.EncodeToString([]byte(rm.username + ":" + rm.password))
			cfg = append(cfg, [2]string{"http.extraHeader", "Authorization: Basic " + cred})
		}
	}
	cfg = append(cfg, [2]string{"credential.helper", ""})
	env := []string{"GIT_ALLOW_PROTOCOL=" + u.Scheme, "GIT_CONFIG_COUNT=" + strconv.Itoa(len(cfg))}
	for i, kv := range cfg {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return target.String(), env, u, nil
}

// mirrorInterval parses a mirror interval; empty means the site default.
func (s *Service) mirrorInterval(raw string) (time.Duration, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = s.cfg.Repository.MirrorInterval
		if d, err := time.ParseDuration(raw); err == nil && (d == 0 || d >= minMirrorInterval) {
			return d, nil
		}
		return 8 * time.Hour, nil
	}
	if raw == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d < 0 || (d != 0 && d < minMirrorInterval) {
		return 0, errs.InvalidField("mirror_interval", "invalid mirror interval %q: a duration of at least 10m, or 0 to disable", raw)
	}
	return d, nil
}

// Migrate copies a remote repository into a new repository of owner: a
// one-off copy of its branches and tags, or, with Mirror, a read-only pull
// mirror of all its refs that syncs on an interval and on demand. The
// request's Private and Mirror mean exactly that ([repository]
// FORCE_PRIVATE still makes it private). The caller checked that doer may
// create repositories for owner. A failed migration leaves nothing behind.
func (s *Service) Migrate(ctx context.Context, doer, owner *user.User, o MigrateOptions) (*Repository, error) {
	if err := ValidateName(o.Name); err != nil {
		return nil, err
	}
	rm, err := s.parseRemote(doer, o.CloneAddr, o.AuthUsername, o.AuthPassword, o.AuthToken)
	if err != nil {
		return nil, err
	}
	var interval time.Duration
	if o.Mirror {
		if interval, err = s.mirrorInterval(o.MirrorInterval); err != nil {
			return nil, err
		}
	}
	// Refuse a disallowed address before anything is created.
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), migrateTimeout)
	defer cancel()
	src, env, final, err := s.gitRemote(gctx, rm)
	if err != nil {
		return nil, err
	}
	if final != nil {
		rm.url = final
	}
	r, err := s.Create(ctx, doer, owner, CreateOptions{
		Name: o.Name, Description: o.Description, Private: o.Private, IsMirror: o.Mirror,
		OriginalURL: rm.display(), Status: StatusMigrating,
	})
	if err != nil {
		return nil, err
	}
	dst := s.Path(r)
	if err := os.RemoveAll(dst); err != nil {
		return nil, s.abandon(ctx, r, err)
	}
	cmd := s.Git.Command("clone", "--quiet", "--template=")
	if o.Mirror {
		cmd.Args("--mirror")
	} else {
		cmd.Args("--bare")
	}
	if rm.local != "" {
		cmd.Args("--no-local")
	}
	if err := cmd.Env(env...).EndOfOptions().Values(src, dst).Run(gctx); err != nil {
		return nil, s.abandon(ctx, r, migrationError(err, rm))
	}
	if o.Mirror {
		// The remote stays configured without credentials; syncs pass the
		// checked address explicitly.
		if err := s.Git.Command("config", "remote.origin.url").Values(rm.display()).Repo(dst).Run(gctx); err != nil {
			return nil, s.abandon(ctx, r, err)
		}
		if err := writeCredentials(dst, rm); err != nil {
			return nil, s.abandon(ctx, r, err)
		}
	} else if err := s.Git.Command("remote", "remove", "origin").Repo(dst).Run(gctx); err != nil {
		return nil, s.abandon(ctx, r, err)
	}
	if err := s.finishCopy(gctx, r, ""); err != nil {
		return nil, s.abandon(ctx, r, err)
	}
	if o.Mirror {
		now := time.Now()
		next := int64(0)
		if interval > 0 {
			next = now.Add(interval).Unix()
		}
		if _, err := s.db.Insert(ctx, `INSERT INTO mirror (repo_id, remote_url, interval_seconds, enable_prune, updated_unix, next_update_unix, last_error)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, rm.display(), int64(interval/time.Second), true, now.Unix(), next, ""); err != nil {
			return nil, s.abandon(ctx, r, err)
		}
	}
	return s.GetByID(ctx, r.ID)
}

// migrationError turns a failed clone or fetch into a 422 in Gitea's words,
// with any credential removed.
func migrationError(err error, rm *remote) error {
	msg := err.Error()
	for _, secret := range []string{rm.password, base64.StdEncoding.EncodeToString([]byte(rm.username + ":" + rm.password))} {
		if len(secret) >= 3 {
			msg = strings.ReplaceAll(msg, secret, "***")
		}
	}
	for _, s := range []string{"Authentication failed", "could not read Username", "HTTP Basic: Access denied", "The requested URL returned error: 401", "The requested URL returned error: 403"} {
		if strings.Contains(msg, s) {
			return errs.Invalid("Authentication failed: %s.", msg)
		}
	}
	return errs.Invalid("Migration failed: %s.", msg)
}

// savedCredentials is the content of credentialsFile.
type savedCredentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

func writeCredentials(dir string, rm *remote) error {
	if rm.username == "" && rm.password == "" {
		return nil
	}
	b, _ := json.Marshal(savedCredentials{Username: rm.username, Password: rm.password})
	return os.WriteFile(filepath.Join(dir, credentialsFile), b, 0o600)
}

func readCredentials(dir string) (savedCredentials, error) {
	var c savedCredentials
	b, err := os.ReadFile(filepath.Join(dir, credentialsFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("mirror credentials: %w", err)
	}
	return c, nil
}

// Package git is Cairn's typed wrapper over the real git binary.
//
// Every git process is started with exec.CommandContext, a clean environment
// (no system config, no terminal prompts, a HOME chosen by the operator,
// LC_ALL=C), its standard error captured into the returned error, and its
// output streamed where it can be large.
//
// Arguments are built with Cmd, which separates trusted arguments (literals in
// Cairn's own code, of type Arg) from values that may come from users
// (references, revisions, URLs, paths). User values can only be added through
// methods that reject a leading '-' and NUL bytes, and paths only after "--",
// so no user value can ever be read as an option.
//
// The repository operations are methods of Git; each takes a context and the
// path of a (usually bare) repository.
package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Errors returned by the operations of this package, possibly wrapped together
// with the *Error of the failed git process. Test with errors.Is.
var (
	// ErrNotFound reports a missing repository, reference, object or path.
	ErrNotFound = errors.New("git: not found")
	// ErrAlreadyExists reports a reference or path that exists already.
	ErrAlreadyExists = errors.New("git: already exists")
	// ErrConflict reports a reference that moved concurrently, or a change
	// that does not apply to the current state (expected SHA mismatch).
	ErrConflict = errors.New("git: conflict")
	// ErrInvalidArgument reports a value rejected before running git: a
	// reference name, revision, path, URL or option value that is unsafe or
	// malformed.
	ErrInvalidArgument = errors.New("git: invalid argument")
)

// stderrLimit is how much of a process's standard error is kept (the tail).
const stderrLimit = 64 << 10

// Options configures a Git.
type Options struct {
	// Binary is the git executable, a path or a name looked up in PATH.
	// Default "git".
	Binary string
	// HomeDir is HOME for every git process; the global configuration is
	// read from there. When empty, HOME is not set and the global
	// configuration is disabled.
	HomeDir string
	// PathEnv is PATH for git processes (git needs it to find its helpers
	// and hooks their programs). Default: the PATH of the current process.
	PathEnv string
	// Env holds extra KEY=VALUE pairs added to every git process. A
	// GIT_CONFIG_COUNT list in it is merged with Cairn's own (see
	// Cmd.Env).
	Env []string
	// TempDir is where temporary index files are created. Default
	// os.TempDir().
	TempDir string
	// Now returns the current time, used for commits and tags whose
	// signatures carry no time. Default time.Now.
	Now func() time.Time
}

// Git runs git commands. It holds no mutable state and is safe for
// concurrent use.
type Git struct {
	binary  string
	home    string
	pathEnv string
	env     []string
	config  []configEntry
	tempDir string
	now     func() time.Time
	// packed keeps recently read packed-refs files parsed (RefTips).
	packed *packedRefsCache
}

// New checks the options, locates the git binary and returns a Git.
func New(opts Options) (*Git, error) {
	bin := opts.Binary
	if bin == "" {
		bin = "git"
	}
	resolved, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("git: locating binary %q: %w", bin, err)
	}
	for _, kv := range opts.Env {
		if !strings.Contains(kv, "=") || strings.ContainsRune(kv, 0) {
			return nil, fmt.Errorf("%w: environment entry %q", ErrInvalidArgument, kv)
		}
	}
	env, config, err := splitConfigEnv(opts.Env)
	if err != nil {
		return nil, err
	}
	g := &Git{
		binary:  resolved,
		home:    opts.HomeDir,
		pathEnv: opts.PathEnv,
		env:     env,
		config:  config,
		tempDir: opts.TempDir,
		now:     opts.Now,
		packed:  newPackedRefsCache(64),
	}
	if g.pathEnv == "" {
		g.pathEnv = os.Getenv("PATH")
	}
	if g.tempDir == "" {
		g.tempDir = os.TempDir()
	}
	if g.now == nil {
		g.now = time.Now
	}
	return g, nil
}

// configEntry is one configuration value passed to git through the
// GIT_CONFIG_COUNT list of its environment.
type configEntry struct{ key, value string }

// protectConfig is the configuration every git process gets: git refuses
// paths that name .git (or a .gitmodules symbolic link) on HFS+ or NTFS
// when it writes an index (update-index, read-tree, apply), whatever the
// platform Cairn runs on.
func protectConfig() []configEntry {
	return []configEntry{{"core.protectHFS", "true"}, {"core.protectNTFS", "true"}}
}

// receiveConfig makes receive-pack check every pushed object (git fsck's
// rules) and refuse, besides what fsck counts as errors (malformed objects,
// .gitmodules attacks), the tree entries it only warns about by default
// that matter for safety: ".git" in any form git recognizes, ".", "..",
// empty names and names with a slash. The checks of author and committer
// lines that real old histories fail (bad time zones, zero-padded dates,
// malformed e-mail addresses) are lowered to warnings, so that such
// histories can still be pushed or mirrored; git prints them to the client.
func receiveConfig() []configEntry {
	cfg := []configEntry{{"receive.fsckObjects", "true"}}
	for _, id := range []string{"hasDotgit", "hasDot", "hasDotdot", "emptyName", "fullPathname"} {
		cfg = append(cfg, configEntry{"receive.fsck." + id, "error"})
	}
	for _, id := range []string{"badTimezone", "zeroPaddedDate", "badDate", "badDateOverflow", "badEmail", "badName",
		"missingEmail", "missingNameBeforeEmail", "missingSpaceBeforeDate", "missingSpaceBeforeEmail"} {
		cfg = append(cfg, configEntry{"receive.fsck." + id, "warn"})
	}
	return cfg
}

// splitConfigEnv takes the GIT_CONFIG_COUNT list (GIT_CONFIG_COUNT=n and
// GIT_CONFIG_KEY_i, GIT_CONFIG_VALUE_i for i < n) out of one set of
// environment entries and returns the other entries and the list. Numbered
// entries beyond n are dropped, as git ignores them.
func splitConfigEnv(kv []string) ([]string, []configEntry, error) {
	var rest []string
	count := 0
	keys, values := map[string]string{}, map[string]string{}
	for _, e := range kv {
		k, v, _ := strings.Cut(e, "=")
		if i, ok := strings.CutPrefix(k, "GIT_CONFIG_KEY_"); ok {
			keys[i] = v
		} else if i, ok := strings.CutPrefix(k, "GIT_CONFIG_VALUE_"); ok {
			values[i] = v
		} else if k == "GIT_CONFIG_COUNT" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, nil, fmt.Errorf("%w: environment entry %q", ErrInvalidArgument, e)
			}
			count = n
		} else {
			rest = append(rest, e)
		}
	}
	var config []configEntry
	for i := 0; i < count; i++ {
		key, okKey := keys[strconv.Itoa(i)]
		value, okValue := values[strconv.Itoa(i)]
		if !okKey || !okValue || key == "" {
			return nil, nil, fmt.Errorf("%w: environment lacks GIT_CONFIG_KEY_%d or GIT_CONFIG_VALUE_%d", ErrInvalidArgument, i, i)
		}
		config = append(config, configEntry{key, value})
	}
	return rest, config, nil
}

// configEnv renders configuration values as one GIT_CONFIG_COUNT list.
func configEnv(config []configEntry) []string {
	env := make([]string, 0, 1+2*len(config))
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(config)))
	for i, c := range config {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+c.key, "GIT_CONFIG_VALUE_"+n+"="+c.value)
	}
	return env
}

// baseEnv is the environment every git process starts from.
func (g *Git) baseEnv() []string {
	env := []string{
		"PATH=" + g.pathEnv,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		// Replacement objects could make stored history look different
		// from what was pushed; a forge shows the real objects.
		"GIT_NO_REPLACE_OBJECTS=1",
	}
	if g.home != "" {
		env = append(env, "HOME="+g.home)
	} else {
		env = append(env, "GIT_CONFIG_GLOBAL="+os.DevNull)
	}
	return append(env, g.env...)
}

// Error is the failure of one git process.
type Error struct {
	// Args are the arguments of the process (without the binary).
	Args []string
	// ExitCode is the exit status, or -1 when the process did not exit
	// normally (not started, killed).
	ExitCode int
	// Stderr is the tail of the process's standard error.
	Stderr string
	// Err is the underlying error from os/exec or the context.
	Err error
}

// Error describes the failed command with the last lines of its stderr.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("git")
	if sub := e.subcommand(); sub != "" {
		b.WriteString(" " + sub)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if msg := strings.TrimSpace(e.Stderr); msg != "" {
		if len(msg) > 1024 {
			msg = "…" + msg[len(msg)-1024:]
		}
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// subcommand returns the first argument that is not a global option.
func (e *Error) subcommand() string {
	for i := 0; i < len(e.Args); i++ {
		a := e.Args[i]
		if a == "-c" {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	buf   []byte
	limit int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.limit {
		t.buf = append(t.buf[:0], p[len(p)-t.limit:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) String() string { return string(t.buf) }

// absRepo returns the absolute form of a repository path.
func absRepo(repoPath string) (string, error) {
	if repoPath == "" || strings.ContainsRune(repoPath, 0) {
		return "", fmt.Errorf("%w: repository path %q", ErrInvalidArgument, repoPath)
	}
	return filepath.Abs(repoPath)
}

// stderrHas reports whether err is a git *Error whose stderr contains any of
// the given substrings.
func stderrHas(err error, subs ...string) bool {
	var ge *Error
	if !errors.As(err, &ge) {
		return false
	}
	for _, s := range subs {
		if strings.Contains(ge.Stderr, s) {
			return true
		}
	}
	return false
}

// exitCode returns the exit status of a git *Error, or -1.
func exitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// ctxErr prefers the context's error when the context has ended, so callers
// see context.Canceled / DeadlineExceeded rather than "signal: killed".
func ctxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ce := ctx.Err(); ce != nil && !errors.Is(err, ce) {
		return fmt.Errorf("%w: %w", ce, err)
	}
	return err
}

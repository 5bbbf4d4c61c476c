package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// waitDelay bounds how long a finished (or killed) process may keep its
// standard streams' copying goroutines alive.
const waitDelay = 30 * time.Second

// Arg is a trusted command-line argument: a literal written in Cairn's code.
// Untyped string constants convert to Arg implicitly; a variable of type
// string does not, so user input cannot become an Arg by accident. Never
// convert user input to Arg: use Cmd.Values, Cmd.Option or Cmd.Paths.
type Arg string

// Cmd builds and runs one git command. Methods record the first invalid
// argument; Run, Output and Stream then fail with ErrInvalidArgument without
// starting a process.
type Cmd struct {
	g        *Git
	globals  []string
	args     []string
	paths    []string
	hasPaths bool
	eoo      bool
	dir      string
	env      []string
	config   []configEntry
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	err      error
}

// Command starts a command line with a subcommand and trusted arguments.
func (g *Git) Command(sub Arg, args ...Arg) *Cmd {
	c := &Cmd{g: g}
	if sub == "" || strings.HasPrefix(string(sub), "-") {
		c.fail("subcommand %q", sub)
	}
	c.args = append(c.args, string(sub))
	return c.Args(args...)
}

// repoCommand is Command run inside a repository: its directory and GIT_DIR
// are the repository, so git never searches parent directories.
func (g *Git) repoCommand(repoPath string, sub Arg, args ...Arg) *Cmd {
	return g.Command(sub, args...).Repo(repoPath)
}

// fail records the first invalid argument.
func (c *Cmd) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
	}
}

// Args appends trusted arguments.
func (c *Cmd) Args(args ...Arg) *Cmd {
	for _, a := range args {
		if strings.ContainsRune(string(a), 0) {
			c.fail("argument contains NUL")
			continue
		}
		c.args = append(c.args, string(a))
	}
	return c
}

// Option appends "flag=value" where flag is a trusted long option such as
// "--prefix" and value may come from a user: attached to its flag it cannot
// be read as another option. The value must not contain NUL.
func (c *Cmd) Option(flag Arg, value string) *Cmd {
	f := string(flag)
	if !strings.HasPrefix(f, "--") || strings.Contains(f, "=") {
		c.fail("option flag %q", f)
		return c
	}
	if strings.ContainsRune(value, 0) {
		c.fail("value of %s contains NUL", f)
		return c
	}
	c.args = append(c.args, f+"="+value)
	return c
}

// EndOfOptions appends "--end-of-options" (once): git reads every later
// argument as a non-option. Use it before Values wherever the subcommand
// supports it.
func (c *Cmd) EndOfOptions() *Cmd {
	if !c.eoo {
		c.eoo = true
		c.args = append(c.args, "--end-of-options")
	}
	return c
}

// Values appends user-supplied values (references, revisions, URLs, object
// names). Each must be non-empty, must not start with '-' and must not
// contain NUL.
func (c *Cmd) Values(values ...string) *Cmd {
	for _, v := range values {
		switch {
		case v == "":
			c.fail("empty value")
		case strings.HasPrefix(v, "-"):
			c.fail("value %q starts with '-'", v)
		case strings.ContainsRune(v, 0):
			c.fail("value contains NUL")
		default:
			c.args = append(c.args, v)
			continue
		}
		return c
	}
	return c
}

// Paths appends user-supplied paths after "--". Paths are always placed last,
// and read literally (no pathspec magic or globbing). Each must be non-empty
// and free of NUL; a leading '-' is allowed since nothing after "--" is an
// option. Calling Paths with no arguments still appends "--".
func (c *Cmd) Paths(paths ...string) *Cmd {
	c.hasPaths = true
	for _, p := range paths {
		if p == "" || strings.ContainsRune(p, 0) {
			c.fail("path %q", p)
			return c
		}
		c.paths = append(c.paths, p)
	}
	return c
}

// Config sets a configuration value for this command only ("-c key=value").
// The key is trusted; the value must not contain NUL or a newline.
func (c *Cmd) Config(key Arg, value string) *Cmd {
	k := string(key)
	if k == "" || strings.HasPrefix(k, "-") || strings.ContainsAny(k, "=\x00\n") {
		c.fail("config key %q", k)
		return c
	}
	if strings.ContainsAny(value, "\x00\n") {
		c.fail("config value for %s", k)
		return c
	}
	c.globals = append(c.globals, "-c", k+"="+value)
	return c
}

// Dir sets the working directory.
func (c *Cmd) Dir(dir string) *Cmd {
	c.dir = dir
	return c
}

// Repo runs the command in the repository at repoPath: it becomes the
// working directory and GIT_DIR, so git never discovers another repository
// in a parent directory.
func (c *Cmd) Repo(repoPath string) *Cmd {
	abs, err := absRepo(repoPath)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return c
	}
	c.dir = abs
	c.env = append(c.env, "GIT_DIR="+abs)
	return c
}

// Env adds KEY=VALUE pairs to the command's environment (after the base
// environment, so they win). A GIT_CONFIG_COUNT list among them
// (GIT_CONFIG_COUNT=n, GIT_CONFIG_KEY_i, GIT_CONFIG_VALUE_i, numbered from
// 0 in each call) is appended to the configuration the process gets from
// elsewhere (Cairn's own, Options.Env, earlier calls) as one list, so no
// call overwrites another's entries.
func (c *Cmd) Env(kv ...string) *Cmd {
	for _, e := range kv {
		if !strings.Contains(e, "=") || strings.ContainsRune(e, 0) {
			c.fail("environment entry %q", e)
			return c
		}
	}
	env, config, err := splitConfigEnv(kv)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return c
	}
	c.env = append(c.env, env...)
	c.config = append(c.config, config...)
	return c
}

// Stdin sets the standard input.
func (c *Cmd) Stdin(r io.Reader) *Cmd {
	c.stdin = r
	return c
}

// Stdout sets where standard output goes (Run only).
func (c *Cmd) Stdout(w io.Writer) *Cmd {
	c.stdout = w
	return c
}

// Stderr additionally copies standard error to w; it is captured for the
// returned error either way.
func (c *Cmd) Stderr(w io.Writer) *Cmd {
	c.stderr = w
	return c
}

// argv returns the arguments after the binary.
func (c *Cmd) argv() []string {
	argv := make([]string, 0, len(c.globals)+len(c.args)+len(c.paths)+2)
	argv = append(argv, c.globals...)
	if c.hasPaths {
		argv = append(argv, "--literal-pathspecs")
	}
	argv = append(argv, c.args...)
	if c.hasPaths {
		argv = append(argv, "--")
		argv = append(argv, c.paths...)
	}
	return argv
}

// String returns the command line, for logs.
func (c *Cmd) String() string {
	return "git " + strings.Join(c.argv(), " ")
}

// build prepares the process. The caller sets Stdout when streaming.
func (c *Cmd) build(ctx context.Context) (*exec.Cmd, *tailBuffer, error) {
	if c.err != nil {
		return nil, nil, c.err
	}
	cmd := exec.CommandContext(ctx, c.g.binary, c.argv()...)
	config := append(append(protectConfig(), c.g.config...), c.config...)
	cmd.Env = append(append(c.g.baseEnv(), c.env...), configEnv(config)...)
	cmd.Dir = c.dir
	cmd.Stdin = c.stdin
	cmd.Stdout = c.stdout
	tail := &tailBuffer{limit: stderrLimit}
	if c.stderr != nil {
		cmd.Stderr = io.MultiWriter(tail, c.stderr)
	} else {
		cmd.Stderr = tail
	}
	cmd.WaitDelay = waitDelay
	return cmd, tail, nil
}

// wrap turns a process error into an *Error (and ErrNotFound when the
// working directory, i.e. the repository, does not exist).
func (c *Cmd) wrap(ctx context.Context, err error, tail *tailBuffer) error {
	if err == nil {
		return nil
	}
	ge := &Error{Args: c.argv(), ExitCode: -1, Err: err}
	if tail != nil {
		ge.Stderr = tail.String()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ge.ExitCode = ee.ExitCode()
	}
	if ge.ExitCode == -1 && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrNotFound, ge)
	}
	return ctxErr(ctx, ge)
}

// Run runs the command to completion.
func (c *Cmd) Run(ctx context.Context) error {
	cmd, tail, err := c.build(ctx)
	if err != nil {
		return err
	}
	return c.wrap(ctx, cmd.Run(), tail)
}

// Output runs the command and returns its standard output. Use it only for
// commands whose output is known to be small.
func (c *Cmd) Output(ctx context.Context) ([]byte, error) {
	var out bytes.Buffer
	c.stdout = &out
	err := c.Run(ctx)
	return out.Bytes(), err
}

// Stream starts the command and returns its standard output. Reading to the
// end reports the command's failure, if any, instead of io.EOF. Close must be
// called; closing before the end stops the process and reports no error.
func (c *Cmd) Stream(ctx context.Context) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancel(ctx)
	c.stdout = nil
	cmd, tail, err := c.build(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, c.wrap(ctx, err, tail)
	}
	return &stream{c: c, ctx: ctx, cmd: cmd, pipe: pipe, cancel: cancel, tail: tail}, nil
}

// stream is the reader returned by Cmd.Stream.
type stream struct {
	c      *Cmd
	ctx    context.Context
	cmd    *exec.Cmd
	pipe   io.ReadCloser
	cancel context.CancelFunc
	tail   *tailBuffer

	mu      sync.Mutex
	done    bool
	waitErr error
}

// wait waits for the process once and remembers the result.
func (s *stream) wait() error {
	if !s.done {
		s.done = true
		s.waitErr = s.c.wrap(s.ctx, s.cmd.Wait(), s.tail)
		s.cancel()
	}
	return s.waitErr
}

func (s *stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		if s.waitErr != nil {
			return 0, s.waitErr
		}
		return 0, io.EOF
	}
	n, err := s.pipe.Read(p)
	if err == io.EOF {
		if werr := s.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (s *stream) Close() error {
	// Cancel before taking the lock, so a Read blocked in another goroutine
	// returns. After a complete read this is a no-op; before it, the
	// process is stopped and its error is of no interest.
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.wait()
	return nil
}

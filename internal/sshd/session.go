package sshd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Messages shown to clients.
const (
	msgNoShell   = "Cairn does not provide shell access."
	msgNotFound  = "Repository not found or you do not have access."
	msgArchived  = "The repository is archived and read-only."
	msgMirror    = "The repository is a mirror and read-only."
	msgNoPush    = "You do not have permission to push to this repository."
	msgReadOnly  = "This deploy key is read-only: it cannot push."
	msgAnonymous = "Anonymous SSH access is read-only: this SSH key is not registered with Cairn. Add it to your account (and select it with ssh -i KEY -o IdentitiesOnly=yes) to push."
	msgNoSignIn  = "The account that owns this SSH key is not allowed to sign in."
	msgInternal  = "Cairn: internal error, please try again later."
)

// caller is who authenticated on a connection.
type caller struct {
	kind        string
	userID      int64
	userName    string
	fingerprint string
}

func callerOf(p *ssh.Permissions) caller {
	if p == nil {
		return caller{}
	}
	id, _ := strconv.ParseInt(p.Extensions[extUserID], 10, 64)
	return caller{kind: p.Extensions[extKind], userID: id, userName: p.Extensions[extUserName], fingerprint: p.Extensions[extFingerprint]}
}

// serveSession answers a session's requests: GIT_PROTOCOL in the
// environment, then one exec (or shell) request. Requests keep being
// answered while the command runs, so the connection never stalls.
func (s *Server) serveSession(c *conn, perms *ssh.Permissions, ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	who := callerOf(perms)
	var protocol string
	started := false
	done := make(chan struct{})
	// A session that asks for nothing is closed after the handshake timeout.
	wait := time.AfterFunc(s.opts.HandshakeTimeout, func() { _ = ch.Close() })
	defer wait.Stop()
	quit := s.quit
	for {
		var req *ssh.Request
		var ok bool
		select {
		case req, ok = <-reqs:
		case <-done:
			// Whatever the client still asks gets no; the channel is closed.
			go ssh.DiscardRequests(reqs)
			return
		case <-c.ctx.Done():
			ok = false
		case <-quit:
			// Shutting down: a session still waiting for its command ends
			// now; one running git finishes within the grace period.
			if !started {
				go ssh.DiscardRequests(reqs)
				return
			}
			quit = nil
			continue
		}
		if !ok {
			if started {
				<-done // the process ends with the connection's context
			}
			return
		}
		switch {
		case req.Type == "env" && !started:
			var kv struct{ Name, Value string }
			if ssh.Unmarshal(req.Payload, &kv) == nil && kv.Name == "GIT_PROTOCOL" {
				protocol = kv.Value
				_ = req.Reply(true, nil)
				continue
			}
			_ = req.Reply(false, nil)
		case (req.Type == "exec" || req.Type == "shell") && !started:
			var line string
			if req.Type == "exec" {
				var p struct{ Command string }
				if ssh.Unmarshal(req.Payload, &p) != nil {
					_ = req.Reply(false, nil)
					continue
				}
				line = p.Command
			}
			started = true
			wait.Stop()
			_ = req.Reply(true, nil)
			go func() {
				defer close(done)
				start := time.Now()
				var refusal string
				code := s.run(c, who, ch, line, protocol, req.Type == "shell", &refusal)
				s.logSession(c, who, line, code, refusal, time.Since(start))
				_ = ch.CloseWrite()
				_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{code}))
				_ = ch.Close()
			}()
		default:
			// pty-req, subsystem, x11-req, agent forwarding, signals...
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
}

// logSession writes the session's log line: who, the command, its exit
// status and duration; a refused push is a warning.
func (s *Server) logSession(c *conn, who caller, line string, code uint32, refusal string, d time.Duration) {
	level, msg := slog.LevelInfo, "ssh session"
	if refusal != "" && isPush(line) {
		level, msg = slog.LevelWarn, "refused push"
	}
	if len(line) > 256 {
		line = line[:256] + "…"
	}
	attrs := []slog.Attr{
		slog.String("transport", "ssh"),
		slog.String("user", who.userName),
		slog.String("key", who.kind),
		slog.String("fingerprint", who.fingerprint),
		slog.String("command", line),
		slog.Int("exit", int(code)),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("remote", c.nc.RemoteAddr().String()),
	}
	if refusal != "" {
		attrs = append(attrs, slog.String("reason", refusal))
	}
	slog.LogAttrs(context.Background(), level, msg, attrs...)
}

// isPush reports whether a command line asks for git-receive-pack.
func isPush(line string) bool {
	cmd, err := parseCommand(line)
	return err == nil && cmd.svc == git.ReceivePack
}

// run executes one command line and returns its exit status; a command
// refused for a reason the client is told sets *refusal to it.
func (s *Server) run(c *conn, who caller, ch ssh.Channel, line, protocol string, shell bool, refusal *string) uint32 {
	say := func(msg string) uint32 {
		*refusal = msg
		fmt.Fprintln(ch.Stderr(), msg)
		return 1
	}
	if shell {
		return say(s.greeting(c.ctx, who) + msgNoShell)
	}
	cmd, err := parseCommand(line)
	var bad *badPathError
	switch {
	case errors.As(err, &bad):
		return say(fmt.Sprintf("Cairn: invalid repository path %q: use owner/repository.git.", bad.path))
	case err != nil:
		return say(msgNoShell + " Only git-upload-pack, git-receive-pack and git-upload-archive are served.")
	}
	rp, env, denied, err := s.authorize(c.ctx, who, cmd)
	if err != nil {
		if c.ctx.Err() == nil {
			slog.Error("ssh authorize", "err", err)
		}
		return say(msgInternal)
	}
	if denied != "" {
		return say(denied)
	}
	// A push that may only update refs/for/ is counted once it passed the gate.
	pullsOnly := cmd.svc == git.ReceivePack && isPullsOnly(env)
	if !pullsOnly {
		s.opts.Metrics.GitOperation(string(cmd.svc), "ssh")
	}
	opts := git.ServiceOptions{Protocol: protocol, Env: env, Stderr: ch.Stderr()}
	ctx := c.ctx
	if cmd.svc == git.ReceivePack {
		// A push runs to its end even when the client goes away: its input
		// then ends (an incomplete pack changes nothing), and a complete one
		// is applied and recorded by the hooks instead of being killed
		// half-way. Only a forced shutdown stops it.
		ctx = s.hard
		opts.Stdout, opts.Stderr = &lenientWriter{w: ch}, &lenientWriter{w: ch.Stderr()}
	} else {
		opts.Stdout = downloadWriter(ch, c.client, c.nc)
	}
	var refused chan string
	if pullsOnly {
		refused = make(chan string, 1)
	}
	code := s.runGit(ctx, ch, s.opts.Repos.Path(rp), cmd.svc, opts, refused)
	select {
	case msg := <-refused:
		return say(msg)
	default:
	}
	if pullsOnly {
		s.opts.Metrics.GitOperation(string(cmd.svc), "ssh")
	}
	return code
}

// lenientWriter passes writes on until the first failure and then drops
// them, so a process whose client left is not killed by a broken pipe.
type lenientWriter struct {
	w      io.Writer
	failed bool
}

func (l *lenientWriter) Write(p []byte) (int, error) {
	if !l.failed {
		if _, err := l.w.Write(p); err != nil {
			l.failed = true
		}
	}
	return len(p), nil
}

// greeting starts the no-shell message with who the caller is.
func (s *Server) greeting(ctx context.Context, who caller) string {
	switch who.kind {
	case kindUser:
		if u, err := s.opts.Users.Store.GetByID(ctx, who.userID); err == nil {
			return "Hi " + u.Name + "! You have successfully authenticated, but "
		}
	case kindDeploy:
		return "Hi! You have authenticated with a deploy key, but "
	case kindAnonymous:
		return "Hi! You are connected anonymously, but "
	}
	return ""
}

// authorize decides whether who may run cmd. It returns the repository and
// the environment of the git process, or a message refusing the command.
// Unknown repositories and repositories the caller cannot read get the same
// message, so private repositories stay hidden.
func (s *Server) authorize(ctx context.Context, who caller, cmd command) (*repo.Repository, []string, string, error) {
	write := cmd.svc == git.ReceivePack
	rp, err := s.opts.Repos.Get(ctx, cmd.owner, cmd.name)
	if errs.IsNotFound(err) {
		return nil, nil, msgNotFound, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	if !rp.HasUnit(repo.UnitCode) {
		return nil, nil, msgNotFound, nil
	}
	readOnlyRepo := func() string {
		if rp.IsArchived {
			return msgArchived
		}
		if rp.IsMirror {
			return msgMirror
		}
		return ""
	}
	switch who.kind {
	case kindDeploy:
		dk, err := s.opts.Repos.DeployKeyFor(ctx, rp.ID, who.fingerprint)
		if errs.IsNotFound(err) {
			return nil, nil, msgNotFound, nil
		}
		if err != nil {
			return nil, nil, "", err
		}
		if !write {
			return rp, nil, "", nil
		}
		if msg := readOnlyRepo(); msg != "" {
			return nil, nil, msg, nil
		}
		if dk.ReadOnly {
			return nil, nil, msgReadOnly, nil
		}
		// A deploy key pushes on behalf of the repository's owner; the
		// hooks also get the key's id to tell the two apart.
		return rp, s.opts.Hooks.Env(rp.ID, rp.OwnerID, dk.ID), "", nil
	case kindUser, kindAnonymous:
		var doer *user.User
		if who.kind == kindUser {
			u, err := s.opts.Users.Store.GetByID(ctx, who.userID)
			if err != nil && !errs.IsNotFound(err) {
				return nil, nil, "", err
			}
			if err != nil || !u.CanSignIn() {
				return nil, nil, msgNoSignIn, nil
			}
			doer = u
		}
		owner, err := s.opts.Users.Store.GetByID(ctx, rp.OwnerID)
		if err != nil {
			return nil, nil, "", err
		}
		perm, err := s.opts.Access.RepoPermission(ctx, doer, rp, owner)
		if err != nil {
			return nil, nil, "", err
		}
		if !perm.CanRead(repo.UnitCode) {
			return nil, nil, msgNotFound, nil
		}
		if !write {
			return rp, nil, "", nil
		}
		if doer == nil {
			return nil, nil, msgAnonymous, nil
		}
		if !perm.CanWrite(repo.UnitCode) {
			if msg := readOnlyRepo(); msg != "" {
				return nil, nil, msg, nil
			}
			// Readers may still push to refs/for/ to open pull requests
			// (AGit), as in Gitea; the pre-receive hook refuses the rest.
			if rp.HasUnit(repo.UnitPulls) && perm.CanRead(repo.UnitPulls) {
				return rp, s.opts.Hooks.EnvPullsOnly(rp.ID, doer.ID), "", nil
			}
			return nil, nil, msgNoPush, nil
		}
		return rp, s.opts.Hooks.Env(rp.ID, doer.ID, 0), "", nil
	}
	return nil, nil, msgNotFound, nil
}

// runGit runs the service with the channel as its standard input and
// returns the process's exit status (opts carries the output streams).
// Standard input goes through an OS pipe fed from the channel, so the
// process's end never waits on a client that keeps its side open.
//
// With refused set, the push may only update refs/for/: its command list is
// checked first (gatedStdin) and a refusal is sent there.
func (s *Server) runGit(ctx context.Context, ch ssh.Channel, path string, svc git.Service, opts git.ServiceOptions, refused chan<- string) uint32 {
	pr, pw, err := os.Pipe()
	if err != nil {
		slog.Error("ssh: pipe", "err", err)
		fmt.Fprintln(ch.Stderr(), msgInternal)
		return 1
	}
	go func() {
		// Ends at the client's EOF, or when the process is gone (the
		// write fails) or the channel closes.
		if refused != nil {
			gatedStdin(pw, ch, refused)
			return
		}
		_, _ = io.Copy(pw, ch)
		_ = pw.Close()
	}()
	opts.Stdin = pr
	err = s.opts.Git.RunService(ctx, path, svc, opts)
	_ = pr.Close()
	if err == nil {
		return 0
	}
	var ge *git.Error
	if errors.As(err, &ge) && ge.ExitCode > 0 {
		if ctx.Err() == nil {
			slog.Debug("ssh git", "service", svc, "exit", ge.ExitCode, "err", err)
		}
		return uint32(ge.ExitCode)
	}
	if ctx.Err() == nil {
		slog.Warn("ssh git", "service", svc, "err", err)
	}
	return 1
}

package sshd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// fixture is an SSH server on SQLite with one user, "alice", owning the
// empty public repository alice/r, and a registered key.
type fixture struct {
	t      *testing.T
	srv    *Server
	addr   string
	key    ssh.Signer // alice's key
	served chan error
}

func newFixture(t *testing.T, mod func(*Options)) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg, err := config.Load(func(k string) string {
		if k == "CAIRN_DATA_DIR" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	users := user.NewService(d, user.Options{MinPasswordLength: 1})
	g, err := git.New(git.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	repos := repo.NewService(d, g, users, cfg, nil)
	hk, err := hooks.NewServer(repos, dir, "/bin/false", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	alice, err := users.Create(ctx, user.CreateOptions{Name: "alice", Email: "alice@example.com", Password: "pw-alice-1", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repos.Create(ctx, alice, alice, repo.CreateOptions{Name: "r"}); err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.AddKey(ctx, alice.ID, "k", string(ssh.MarshalAuthorizedKey(signer.PublicKey()))); err != nil {
		t.Fatal(err)
	}
	o := Options{Users: users, Repos: repos, Access: access.NewChecker(d), Hooks: hk, Git: g, DataDir: dir}
	if mod != nil {
		mod(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, srv: srv, addr: l.Addr().String(), key: signer, served: make(chan error, 1)}
	go func() { f.served <- srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return f
}

func (f *fixture) dial(key ssh.Signer) (*ssh.Client, error) {
	return ssh.Dial("tcp", f.addr, &ssh.ClientConfig{
		User: "git", Auth: []ssh.AuthMethod{ssh.PublicKeys(key)},
		HostKeyCallback: ssh.FixedHostKey(f.srv.HostKey()), Timeout: 5 * time.Second,
	})
}

func (f *fixture) mustDial() *ssh.Client {
	f.t.Helper()
	c, err := f.dial(f.key)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	return c
}

// uploadPack starts git-upload-pack on alice/r and reads the (empty)
// advertisement; the process then waits for the client's request.
func (f *fixture) uploadPack(c *ssh.Client) (*ssh.Session, io.WriteCloser) {
	f.t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		f.t.Fatal(err)
	}
	stdin, _ := sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	if err := sess.Start("git-upload-pack 'alice/r.git'"); err != nil {
		f.t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "0000" {
		f.t.Fatalf("advertisement %q, %v", buf, err)
	}
	return sess, stdin
}

func randomKey(t *testing.T) ssh.Signer {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestServeGitAndRefusals(t *testing.T) {
	f := newFixture(t, nil)
	c := f.mustDial()
	sess, stdin := f.uploadPack(c)
	_, _ = stdin.Write([]byte("0000"))
	_ = stdin.Close()
	if err := sess.Wait(); err != nil {
		t.Fatalf("upload-pack: %v", err)
	}

	for cmd, want := range map[string]string{
		"id":                               msgNoShell,
		"git-upload-pack 'alice/nope.git'": msgNotFound,
		"git-upload-pack 'a/../../x'":      "invalid repository path",
	} {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		sess.Stderr = &stderr
		err = sess.Run(cmd)
		var ee *ssh.ExitError
		if !errors.As(err, &ee) || ee.ExitStatus() != 1 || !strings.Contains(stderr.String(), want) {
			t.Fatalf("%q: err %v, stderr %q", cmd, err, stderr.String())
		}
	}

	// Environment other than GIT_PROTOCOL, terminals and forwarding are refused.
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Setenv("LD_PRELOAD", "/tmp/x.so"); err == nil {
		t.Fatal("LD_PRELOAD was accepted")
	}
	if err := sess.Setenv("GIT_PROTOCOL", "version=2"); err != nil {
		t.Fatalf("GIT_PROTOCOL refused: %v", err)
	}
	if err := sess.RequestPty("xterm", 40, 80, ssh.TerminalModes{}); err == nil {
		t.Fatal("a pty was granted")
	}
	sess.Close()
	if _, err := c.Dial("tcp", "127.0.0.1:1"); err == nil {
		t.Fatal("port forwarding was accepted")
	}
	if _, _, err := c.SendRequest("tcpip-forward", true, ssh.Marshal(struct {
		Addr string
		Port uint32
	}{"127.0.0.1", 0})); err != nil {
		t.Fatalf("global request: %v", err)
	}

	// Unknown keys do not get in.
	if _, err := f.dial(randomKey(t)); err == nil {
		t.Fatal("an unknown key was accepted")
	}
}

func TestAnonymousCloneReadsPublicOnly(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AnonymousClone = true })
	c, err := f.dial(randomKey(t))
	if err != nil {
		t.Fatalf("anonymous key refused: %v", err)
	}
	defer c.Close()
	sess, stdin := f.uploadPack(c)
	_, _ = stdin.Write([]byte("0000"))
	_ = stdin.Close()
	if err := sess.Wait(); err != nil {
		t.Fatal(err)
	}
	sess, err = c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sess.Stderr = &stderr
	if err := sess.Run("git-receive-pack 'alice/r.git'"); err == nil || !strings.Contains(stderr.String(), "Anonymous SSH access is read-only") {
		t.Fatalf("anonymous push: %v %q", err, stderr.String())
	}
}

func TestShutdownWaitsForRunningCommands(t *testing.T) {
	f := newFixture(t, nil)
	c := f.mustDial()
	idle := f.mustDial() // a connection without sessions is closed at once
	sess, stdin := f.uploadPack(c)
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- f.srv.Shutdown(ctx)
	}()
	idleDone := make(chan struct{})
	go func() { _ = idle.Wait(); close(idleDone) }()
	select {
	case <-idleDone:
	case <-time.After(5 * time.Second):
		t.Fatal("a connection without sessions was not closed at shutdown")
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned while a command was running: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := net.DialTimeout("tcp", f.addr, time.Second); err == nil {
		t.Fatal("the listener still accepts during shutdown")
	}
	_, _ = stdin.Write([]byte("0000"))
	_ = stdin.Close()
	if err := sess.Wait(); err != nil {
		t.Fatalf("the running command did not finish cleanly: %v", err)
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown did not return after the last command ended")
	}
	if err := <-f.served; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Serve returned %v, want net.ErrClosed", err)
	}
}

func TestShutdownCutsCommandsAtDeadline(t *testing.T) {
	f := newFixture(t, nil)
	c := f.mustDial()
	sess, _ := f.uploadPack(c)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := f.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Shutdown took %v after its deadline", d)
	}
	if err := sess.Wait(); err == nil {
		t.Fatal("a cut command reported success")
	}
}

func TestConnectionLimitAndIdleTimeout(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.MaxConnections = 1
		o.IdleTimeout = 300 * time.Millisecond
	})
	c := f.mustDial()
	if _, err := f.dial(f.key); err == nil {
		t.Fatal("a connection over the limit was served")
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("an idle connection was not closed")
	}
	// The slot is free again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c2, err := f.dial(f.key)
		if err == nil {
			c2.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection after the idle one closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestInterruptedPushEnds: a push whose client vanishes mid-pack ends by
// itself (its input ends) and changes no reference.
func TestInterruptedPushEnds(t *testing.T) {
	f := newFixture(t, nil)
	c := f.mustDial()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	if err := sess.Start("git-receive-pack 'alice/r.git'"); err != nil {
		t.Fatal(err)
	}
	// Read the advertisement up to its flush packet.
	for {
		var n [4]byte
		if _, err := io.ReadFull(stdout, n[:]); err != nil {
			t.Fatalf("advertisement: %v", err)
		}
		if string(n[:]) == "0000" {
			break
		}
		var size int
		if _, err := fmt.Sscanf(string(n[:]), "%04x", &size); err != nil || size < 4 {
			t.Fatalf("bad pkt-line length %q", n)
		}
		if _, err := io.CopyN(io.Discard, stdout, int64(size-4)); err != nil {
			t.Fatal(err)
		}
	}
	line := strings.Repeat("0", 40) + " " + strings.Repeat("1", 40) + " refs/heads/main\x00report-status\n"
	_, _ = fmt.Fprintf(stdin, "%04x%s0000PACK\x00\x00\x00\x02\x00\x00\x00\x05", len(line)+4, line)
	time.Sleep(100 * time.Millisecond)
	c.Close() // the client vanishes mid-pack

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil {
		t.Fatalf("the interrupted push did not end by itself: %v", err)
	}
	r, err := f.srv.opts.Repos.Get(context.Background(), "alice", "r")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "--git-dir", f.srv.opts.Repos.Path(r), "for-each-ref").CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("references after an interrupted push: %q %v", out, err)
	}
}

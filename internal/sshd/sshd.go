// Package sshd is Cairn's built-in SSH server. It serves git only
// (git-upload-pack, git-receive-pack, git-upload-archive) to three kinds of
// callers, all authenticated by public key: account keys (the account's
// access applies), deploy keys (one repository each, read-only or
// read-write) and, when [server] SSH_ANONYMOUS_CLONE is on, any other key as
// an anonymous reader of public repositories. There is no shell, no
// terminal, no forwarding and no environment besides GIT_PROTOCOL.
package sshd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/observe"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Options are the services and limits of the server.
type Options struct {
	Users  *user.Service
	Repos  *repo.Service
	Access *access.Checker
	Hooks  *hooks.Server
	Git    *git.Git
	// DataDir holds the host key, in <DataDir>/ssh.
	DataDir string
	// AnonymousClone lets keys that belong to nobody read public
	// repositories ([server] SSH_ANONYMOUS_CLONE).
	AnonymousClone bool
	// MaxConnections bounds open connections; more are closed at once
	// (default 256).
	MaxConnections int
	// MaxSessions bounds the sessions of one connection (default 10).
	MaxSessions int
	// HandshakeTimeout bounds key exchange and authentication, and the wait
	// for a session's command (default 30s).
	HandshakeTimeout time.Duration
	// IdleTimeout closes a connection that has had no session for this long
	// (default 5 minutes).
	IdleTimeout time.Duration
	// Metrics counts sessions and git operations; nil counts nothing.
	Metrics *observe.Metrics
}

// Server is the SSH server. It implements the server package's Listener.
type Server struct {
	opts    Options
	config  *ssh.ServerConfig
	hostKey ssh.Signer
	slots   chan struct{}
	// hard ends when Shutdown gives up waiting: it bounds pushes, which
	// outlive their connection.
	hard     context.Context
	hardStop context.CancelFunc
	// quit is closed when Shutdown starts: sessions still waiting for their
	// command end then.
	quit chan struct{}

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	byAddr    map[string]*conn
	wg        sync.WaitGroup
}

// conn is one client connection.
type conn struct {
	nc       net.Conn
	client   string          // the client's version string, set after the handshake
	ctx      context.Context // ends when the connection ends or is cut
	cancel   context.CancelFunc
	sessions sync.WaitGroup

	mu         sync.Mutex
	open       int // open session channels
	idle       *time.Timer
	bannerSent bool
}

// Permission extensions set at authentication.
const (
	extKind        = "cairn-kind" // kindUser, kindDeploy or kindAnonymous
	extUserID      = "cairn-user-id"
	extFingerprint = "cairn-fingerprint"
	extUserName    = "cairn-user-name" // for the session log

	kindUser      = "user"
	kindDeploy    = "deploy"
	kindAnonymous = "anonymous"
)

// New creates the server and loads (or, the first time, generates) its host
// key from <DataDir>/ssh.
func New(o Options) (*Server, error) {
	if o.MaxConnections <= 0 {
		o.MaxConnections = 256
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 10
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	signer, err := LoadHostKey(filepath.Join(o.DataDir, "ssh"))
	if err != nil {
		return nil, err
	}
	hard, hardStop := context.WithCancel(context.Background())
	s := &Server{
		opts: o, hostKey: signer, slots: make(chan struct{}, o.MaxConnections),
		hard: hard, hardStop: hardStop, quit: make(chan struct{}),
		listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{}, byAddr: map[string]*conn{},
	}
	s.config = &ssh.ServerConfig{
		ServerVersion:     "SSH-2.0-Cairn",
		PublicKeyCallback: s.authenticate,
	}
	s.config.AddHostKey(signer)
	return s, nil
}

// HostKey returns the server's public host key.
func (s *Server) HostKey() ssh.PublicKey { return s.hostKey.PublicKey() }

// Serve accepts connections on l until l is closed or Shutdown is called; it
// then returns net.ErrClosed.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = l.Close()
		return net.ErrClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosing() || errors.Is(err, net.ErrClosed) {
				return net.ErrClosed
			}
			if retryable(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				slog.Warn("ssh accept", "err", err, "retry_in", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		select {
		case s.slots <- struct{}{}:
		default:
			slog.Warn("ssh: too many connections, closing a new one", "remote", nc.RemoteAddr().String(), "max", s.opts.MaxConnections)
			_ = nc.Close()
			continue
		}
		c := s.track(quickAck(nc))
		if c == nil {
			<-s.slots
			continue
		}
		go func() {
			defer func() { <-s.slots }()
			s.serveConn(c)
		}()
	}
}

// retryable reports accept errors worth retrying (timeouts, running out of
// file descriptors and the like).
func retryable(err error) bool {
	var t interface {
		Timeout() bool
		Temporary() bool
	}
	return errors.As(err, &t) && (t.Timeout() || t.Temporary())
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// track registers a new connection; nil when the server is shutting down.
func (s *Server) track(nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{nc: nc, ctx: ctx, cancel: cancel}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		cancel()
		_ = nc.Close()
		return nil
	}
	s.conns[c] = struct{}{}
	s.byAddr[nc.RemoteAddr().String()] = c
	s.wg.Add(1)
	return c
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.byAddr[c.nc.RemoteAddr().String()] == c {
		delete(s.byAddr, c.nc.RemoteAddr().String())
	}
	s.mu.Unlock()
	s.wg.Done()
}

// close cuts the connection: running fetches and archives are stopped
// (pushes run to their end, see Server.run).
func (c *conn) close() {
	c.cancel()
	_ = c.nc.Close()
}

// serveConn runs the handshake and then the connection's sessions.
func (s *Server) serveConn(c *conn) {
	defer s.untrack(c)
	defer c.close()
	_ = c.nc.SetDeadline(time.Now().Add(s.opts.HandshakeTimeout))
	sc, chans, reqs, err := ssh.NewServerConn(c.nc, s.config)
	if err != nil {
		slog.Debug("ssh handshake", "remote", c.nc.RemoteAddr().String(), "err", err)
		return
	}
	_ = c.nc.SetDeadline(time.Time{})
	c.client = string(sc.ClientVersion())
	go ssh.DiscardRequests(reqs) // no global requests: no forwarding; keepalives get a reply
	c.mu.Lock()
	c.idle = time.AfterFunc(s.opts.IdleTimeout, c.close)
	c.mu.Unlock()
	for nch := range chans {
		if nch.ChannelType() != "session" {
			_ = nch.Reject(ssh.Prohibited, "Cairn serves git commands only: no forwarding.")
			continue
		}
		if s.isClosing() {
			_ = nch.Reject(ssh.ResourceShortage, "Cairn is shutting down.")
			continue
		}
		c.mu.Lock()
		if c.open >= s.opts.MaxSessions {
			c.mu.Unlock()
			_ = nch.Reject(ssh.ResourceShortage, "too many sessions on this connection")
			continue
		}
		c.open++
		c.idle.Stop()
		c.mu.Unlock()
		ch, chReqs, err := nch.Accept()
		if err != nil {
			s.sessionDone(c)
			continue
		}
		c.sessions.Add(1)
		go func() {
			defer c.sessions.Done()
			defer s.sessionDone(c)
			defer s.opts.Metrics.SSHSession()()
			s.serveSession(c, sc.Permissions, ch, chReqs)
		}()
	}
	// The client went away (or the connection was cut): stop what runs.
	c.cancel()
	c.sessions.Wait()
	c.mu.Lock()
	c.idle.Stop()
	c.mu.Unlock()
}

// sessionDone counts a closed session; an idle connection is closed after
// IdleTimeout, or at once while shutting down.
func (s *Server) sessionDone(c *conn) {
	closing := s.isClosing()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open--
	if c.open == 0 {
		if closing {
			go c.close()
			return
		}
		c.idle.Reset(s.opts.IdleTimeout)
	}
}

// Shutdown stops accepting connections, closes idle ones and waits for
// running git commands to finish; when ctx ends first, it cuts the rest
// (stopping their git processes) and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		close(s.quit)
	}
	s.closing = true
	for l := range s.listeners {
		_ = l.Close()
	}
	for c := range s.conns {
		c.mu.Lock()
		if c.open == 0 {
			go c.close()
		}
		c.mu.Unlock()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.hardStop()
	s.mu.Lock()
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}

// authenticate is the public key callback: an account's key, a deploy key,
// or (with anonymous clone on) any key as anonymous. A refused key gets a
// banner saying why, once per connection.
func (s *Server) authenticate(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.HandshakeTimeout)
	defer cancel()
	fp := ssh.FingerprintSHA256(key)
	perms := func(kind string, uid int64, name string) *ssh.Permissions {
		return &ssh.Permissions{Extensions: map[string]string{extKind: kind, extFingerprint: fp, extUserID: strconv.FormatInt(uid, 10), extUserName: name}}
	}
	k, err := s.opts.Users.GetKeyByFingerprint(ctx, fp)
	switch {
	case err == nil:
		u, err := s.opts.Users.Store.GetByID(ctx, k.OwnerID)
		if err != nil && !errs.IsNotFound(err) {
			slog.Error("ssh auth: load key owner", "err", err)
			return nil, err
		}
		if err != nil || !u.CanSignIn() {
			return nil, s.refuse(meta, "Cairn: the account that owns this SSH key is not allowed to sign in.")
		}
		return perms(kindUser, u.ID, u.Name), nil
	case !errs.IsNotFound(err):
		slog.Error("ssh auth: look up key", "err", err)
		return nil, err
	}
	deploy, err := s.opts.Repos.IsDeployKey(ctx, fp)
	if err != nil {
		slog.Error("ssh auth: look up deploy key", "err", err)
		return nil, err
	}
	if deploy {
		return perms(kindDeploy, 0, ""), nil
	}
	if s.opts.AnonymousClone {
		return perms(kindAnonymous, 0, ""), nil
	}
	return nil, s.refuse(meta, fmt.Sprintf("Cairn: this SSH key (%s) is not registered. Add it to your account or as a deploy key of a repository.", fp))
}

// refuse returns an authentication error that shows msg to the client the
// first time on a connection.
func (s *Server) refuse(meta ssh.ConnMetadata, msg string) error {
	err := errors.New("ssh: key refused")
	s.mu.Lock()
	c := s.byAddr[meta.RemoteAddr().String()]
	s.mu.Unlock()
	if c == nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bannerSent {
		return err
	}
	c.bannerSent = true
	return &ssh.BannerError{Err: err, Message: msg + "\r\n"}
}

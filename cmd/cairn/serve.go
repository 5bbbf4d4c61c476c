package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/observe"
	"github.com/cairn-forge/cairn/internal/server"
	"github.com/cairn-forge/cairn/internal/user"
)

// serve runs the server until ctx ends, then shuts it down gracefully;
// closing force cuts the grace period short.
func serve(ctx context.Context, stdout io.Writer, getenv func(string) string, force <-chan struct{}) error {
	started := time.Now() // quarantine directories older than this were left by an earlier process
	a, err := open(ctx, getenv, true)
	if err != nil {
		return err
	}
	defer a.close()
	// Only serve writes the hook scripts, naming its own binary.
	if err := a.hooks.Install(); err != nil {
		return fmt.Errorf("hook scripts: %w", err)
	}
	if err := ensureAdmin(ctx, a, stdout, getenv, false); err != nil {
		return err
	}
	var workers []server.Worker
	for _, w := range a.workers() {
		workers = append(workers, w)
	}
	workers = append(workers, func(ctx context.Context) {
		a.repos.RunQuarantineSweeper(ctx, started, 10*time.Minute, a.cfg.Repository.QuarantineMaxAge)
	})
	a.logger = slog.Default() // built from [log] before open, in main
	if a.cfg.Metrics.Enabled {
		a.metrics = observe.NewMetrics(a.db.PoolStats)
		a.metrics.AddQueue(a.queue.Counts)
	}
	// The health check needs the directory before the first repository.
	if err := os.MkdirAll(a.cfg.RepositoryRoot(), 0o750); err != nil {
		return fmt.Errorf("repositories directory: %w", err)
	}
	sshSrv, err := a.sshServer()
	if err != nil {
		return err
	}
	s := &server.Server{
		HTTPAddr:        a.cfg.HTTPAddr,
		Handler:         a.handler(),
		SSHAddr:         a.cfg.SSHAddr,
		Workers:         workers,
		ShutdownTimeout: a.cfg.Server.ShutdownTimeout,
		Force:           force,
		Ready: func(httpAddr, sshAddr string) {
			slog.Info("cairn is serving", "http", httpAddr, "ssh", sshAddr, "root_url", a.cfg.RootURL,
				"data", a.cfg.DataDir, "database", a.db.Dialect.String())
			if err := ensureAdmin(ctx, a, stdout, getenv, true); err != nil {
				slog.Error("cannot create the first administrator; the next start tries again", "err", err)
			}
		},
	}
	if sshSrv != nil {
		s.SSH = sshSrv // only when enabled: a nil *sshd.Server would make a non-nil Listener
	}
	// Hooks reach the server on a loopback listener of their own, which stays
	// open until the last transfer of a shutdown has ended.
	if s.Internal, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return fmt.Errorf("hook listener: %w", err)
	}
	if err := a.hooks.SetAddr(s.Internal.Addr().String()); err != nil {
		s.Internal.Close()
		return err
	}
	s.InternalHandler = observe.Middleware(a.logger, a.metrics, nil)(observe.Route("/api/internal/hook/", a.hooks))
	return s.Run(ctx)
}

// ensureAdmin gives an instance without any administrator its first one.
// With CAIRN_ADMIN_PASSWORD set, it is made from CAIRN_ADMIN_USERNAME/
// PASSWORD/EMAIL before the server listens (listening false). Otherwise
// "cairn-admin" gets a one-time password, printed once with the command that
// sets a usable one; that happens only once the listeners are up (listening
// true, from Ready), so a start that fails does not consume the password.
func ensureAdmin(ctx context.Context, a *app, stdout io.Writer, getenv func(string) string, listening bool) error {
	name, pw, email := getenv("CAIRN_ADMIN_USERNAME"), getenv("CAIRN_ADMIN_PASSWORD"), getenv("CAIRN_ADMIN_EMAIL")
	if (pw == "") != listening {
		return nil
	}
	n, err := a.users.CountAdmins(ctx)
	if err != nil || n > 0 {
		return err
	}
	mustChange := false
	if name == "" {
		name = "cairn-admin"
	}
	if email == "" {
		email = name + "@localhost.localdomain"
	}
	if pw == "" {
		buf := make([]byte, 18)
		if _, err := rand.Read(buf); err != nil {
			return err
		}
		pw = base64.RawURLEncoding.EncodeToString(buf)
		mustChange = true
	}
	u, err := a.users.Create(ctx, user.CreateOptions{Name: name, Email: email, Password: pw, IsAdmin: true, Active: true, MustChangePassword: mustChange})
	if err != nil {
		return fmt.Errorf("create first admin: %w", err)
	}
	if !mustChange {
		fmt.Fprintf(stdout, "Created the first administrator %q.\n", u.Name)
		return nil
	}
	instance := "--data-dir " + shellWord(a.cfg.DataDir)
	if a.cfg.ConfigFile != filepath.Join(a.cfg.DataDir, "cairn.ini") {
		instance = "--config " + shellWord(a.cfg.ConfigFile) + " " + instance
	}
	fmt.Fprintf(stdout, "Created the first administrator %q with the one-time password %s (it must be changed before the account can be used).\n"+
		"Sign in at %suser/login and choose a new password, or set one (read from standard input) with:\n"+
		"  cairn %s admin user change-password --username %s --password-stdin\n"+
		"in the same environment as this server (CAIRN_DATABASE_URL and other CAIRN_* settings).\n", u.Name, pw, a.cfg.RootURL, instance, shellWord(u.Name))
	return nil
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

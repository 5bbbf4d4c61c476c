package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/cairn-forge/cairn/internal/server"
	"github.com/cairn-forge/cairn/internal/user"
)

func serve(ctx context.Context, stdout io.Writer, getenv func(string) string) error {
	started := time.Now() // quarantine directories older than this were left by an earlier process
	a, err := open(ctx, getenv)
	if err != nil {
		return err
	}
	defer a.close()
	if err := ensureAdmin(ctx, a, stdout, getenv); err != nil {
		return err
	}
	var workers []server.Worker
	for _, w := range a.workers() {
		workers = append(workers, w)
	}
	workers = append(workers, func(ctx context.Context) {
		a.repos.RunQuarantineSweeper(ctx, started, 10*time.Minute, a.cfg.Repository.QuarantineMaxAge)
	})
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
		Ready: func(httpAddr, sshAddr string) {
			slog.Info("cairn is serving", "http", httpAddr, "ssh", sshAddr, "root_url", a.cfg.RootURL,
				"data", a.cfg.DataDir, "database", a.db.Dialect.String())
		},
	}
	if sshSrv != nil {
		s.SSH = sshSrv // only when enabled: a nil *sshd.Server would make a non-nil Listener
	}
	return s.Run(ctx)
}

// ensureAdmin gives an instance without any administrator its first one:
// from CAIRN_ADMIN_USERNAME/PASSWORD/EMAIL when set, otherwise "cairn-admin"
// with a one-time password printed once, to be changed at first sign-in.
func ensureAdmin(ctx context.Context, a *app, stdout io.Writer, getenv func(string) string) error {
	n, err := a.users.CountAdmins(ctx)
	if err != nil || n > 0 {
		return err
	}
	name, pw, email := getenv("CAIRN_ADMIN_USERNAME"), getenv("CAIRN_ADMIN_PASSWORD"), getenv("CAIRN_ADMIN_EMAIL")
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
	if mustChange {
		fmt.Fprintf(stdout, "Created the first administrator %q with the one-time password %s (it must be changed at first sign-in).\n", u.Name, pw)
	} else {
		fmt.Fprintf(stdout, "Created the first administrator %q.\n", u.Name)
	}
	return nil
}

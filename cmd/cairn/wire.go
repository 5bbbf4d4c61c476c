package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	v1 "github.com/cairn-forge/cairn/internal/api/v1"
	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// app is every service of one instance, built once and handed down.
type app struct {
	cfg    *config.Config
	db     *db.DB
	users  *user.Service
	tokens *auth.Tokens
	authn  *auth.Authenticator
	access *access.Checker
	orgs   *org.Service
}

// open loads the settings, connects and migrates the database and builds the services.
func open(ctx context.Context, getenv func(string) string) (*app, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		d.Close()
		return nil, err
	}
	a := &app{cfg: cfg, db: d}
	a.users = user.NewService(d, user.Options{MinPasswordLength: cfg.Security.MinPasswordLength})
	a.tokens = auth.NewTokens(d)
	a.authn = auth.NewAuthenticator(a.users, a.tokens)
	a.access = access.NewChecker(d)
	a.orgs = org.NewService(d, a.users)
	a.users.AddDeleteHook(a.orgs.UserDeleteHook())
	return a, nil
}

func (a *app) close() { a.db.Close() }

// handler is the top-level HTTP router: health, API, API document, avatars.
func (a *app) handler() http.Handler {
	api := v1.New(v1.Deps{
		Config: a.cfg, DB: a.db, Users: a.users, Tokens: a.tokens, Authn: a.authn, Access: a.access, Orgs: a.orgs,
		Version: version,
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"pass"}` + "\n"))
	})
	mux.Handle("/api/", api)
	mux.HandleFunc("GET /swagger.v1.json", api.ServeSwagger)
	mux.HandleFunc("GET /avatars/{name}", avatar.Handler)
	return mux
}

// workers are the background tasks of a running server.
func (a *app) workers() []func(context.Context) {
	every := time.Duration(a.cfg.API.TokenLastUsedFlushEvery) * time.Second
	if every <= 0 {
		every = 10 * time.Second
	}
	return []func(context.Context){
		func(ctx context.Context) { a.tokens.RunLastUsedFlusher(ctx, every) },
	}
}

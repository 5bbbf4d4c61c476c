package main

import (
	"context"
	"fmt"

	"github.com/cairn-forge/cairn/internal/db/migrations"
)

const migrateAbout = `Applies the database migrations this binary knows and the database lacks,
as 'cairn serve' does at start. Admin commands refuse a database at another
level; run this after upgrading the binary when the server is not started first.`

// migrateCmd is `cairn migrate`.
func migrateCmd(ctx context.Context, args []string, e adminEnv) error {
	fs := newFlagSet("cairn migrate")
	inst := addInstanceFlags(fs)
	if done, err := parseFlags(fs, args, e.stdout, "cairn migrate", migrateAbout); done || err != nil {
		return err
	}
	e.getenv = inst.getenv(e.getenv)
	if _, err := checkInstance(ctx, e); err != nil {
		return err
	}
	a, err := open(ctx, e.getenv, true)
	if err != nil {
		return err
	}
	defer a.close()
	latest := 0
	for _, m := range migrations.All() {
		latest = max(latest, m.Version)
	}
	fmt.Fprintf(e.stdout, "the database is at migration level %d\n", latest)
	return nil
}

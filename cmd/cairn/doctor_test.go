package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/hooks"
)

func TestScriptBinary(t *testing.T) {
	for _, exe := range []string{"/usr/bin/cairn", "/opt/it's here/cairn", "/a b/c"} {
		got, ok := scriptBinary(hooks.Script(exe, "pre-receive"))
		if !ok || got != exe {
			t.Errorf("scriptBinary(Script(%q)) = %q, %v", exe, got, ok)
		}
	}
	if _, ok := scriptBinary("#!/bin/sh\nexit 0\n"); ok {
		t.Error("a script without written= names a binary")
	}
}

func TestHookProblem(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "cairn")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"good", write("good", hooks.Script(exe, "pre-receive"), 0o755), ""},
		{"missing", filepath.Join(dir, "nothing"), "missing"},
		{"not executable", write("noexec", hooks.Script(exe, "pre-receive"), 0o644), "not executable"},
		{"edited", write("edited", hooks.Script(exe, "pre-receive")+"echo hi\n", 0o755), "not the script"},
		{"other hook's text", write("other", hooks.Script(exe, "post-receive"), 0o755), "not the script"},
		{"binary gone", write("gone", hooks.Script(filepath.Join(dir, "deleted"), "pre-receive"), 0o755), "does not exist"},
	} {
		got := hookProblem(c.path, "pre-receive")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: hookProblem = %q, want %q", c.name, got, c.want)
		}
	}
	data := write("data", "x", 0o644)
	if got := hookProblem(write("names-data", hooks.Script(data, "pre-receive"), 0o755), "pre-receive"); !strings.Contains(got, "not an executable") {
		t.Errorf("a script naming a plain file: %q", got)
	}
}

func TestSelectChecks(t *testing.T) {
	all := doctorChecks()
	got, err := selectChecks(all, []string{"locks, hooks", "db-version"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.name)
	}
	if strings.Join(names, " ") != "db-version hooks locks" {
		t.Errorf("selected %v, want the listed order", names)
	}
	if _, err := selectChecks(all, []string{"locks,nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown check: %v", err)
	}
	if got, _ := selectChecks(all, nil); len(got) != len(all) {
		t.Errorf("no --run selects %d checks", len(got))
	}
}

func TestDoctorDatabaseChecks(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	run := &doctorRun{db: d}
	if r := checkDBVersion(ctx, run); r.err != nil || r.remaining != 0 {
		t.Fatalf("db-version on a migrated database: %+v", r)
	}
	if r := checkDBIntegrity(ctx, run); r.err != nil || r.remaining != 0 {
		t.Fatalf("db-integrity on an empty database: %+v", r)
	}
	// An issue whose repository is gone, and a token whose account is gone.
	for _, q := range []string{
		"INSERT INTO issue (repo_id, idx, poster_id, title, created_unix, updated_unix) VALUES (42, 1, 1, 't', 0, 0)",
		"INSERT INTO access_token (uid, name, token_hash, token_last_eight, scope, created_unix, updated_unix) VALUES (7, 'n', 'h', 'e', 'all', 0, 0)",
	} {
		if _, err := d.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	r := checkDBIntegrity(ctx, run)
	if r.err != nil || r.remaining != 2 || !strings.Contains(strings.Join(r.details, "\n"), "issues whose repository is gone") ||
		!strings.Contains(strings.Join(r.details, "\n"), "access tokens whose account is gone") {
		t.Errorf("db-integrity with orphans: %+v", r)
	}
	// A migration this binary does not know, and one it knows that is missing.
	last := migrations.All()[len(migrations.All())-1].Version
	if _, err := d.Exec(ctx, "INSERT INTO schema_migration (version, name, applied_unix) VALUES (?, 'future', 0)", last+1); err != nil {
		t.Fatal(err)
	}
	r = checkDBVersion(ctx, run)
	if r.remaining != 1 || !strings.Contains(strings.Join(r.details, "\n"), "newer") {
		t.Errorf("db-version with a newer database: %+v", r)
	}
	if _, err := d.Exec(ctx, "DELETE FROM schema_migration WHERE version IN (?, ?)", last+1, last); err != nil {
		t.Fatal(err)
	}
	r = checkDBVersion(ctx, run)
	if r.remaining != 1 || !strings.Contains(strings.Join(r.details, "\n"), "older") || !strings.Contains(strings.Join(r.details, "\n"), fmt.Sprint(last)) {
		t.Errorf("db-version with an older database: %+v", r)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Minute: "1h30m", time.Minute: "1m", 90 * time.Second: "1m30s", 2*time.Hour + 5*time.Second: "2h0m5s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

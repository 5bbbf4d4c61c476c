package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
)

// doctorCheck is one check of `cairn doctor`.
type doctorCheck struct {
	name  string
	about string
	run   func(ctx context.Context, d *doctorRun) doctorResult
}

// doctorRun is what every check gets: the instance, and whether to repair.
type doctorRun struct {
	cfg        *config.Config
	db         *db.DB
	fix        bool
	staleAfter time.Duration
	now        time.Time
	stderr     io.Writer
}

// cutoff is the time before which quarantine and lock files count as stale.
func (d *doctorRun) cutoff() time.Time { return d.now.Add(-d.staleAfter) }

// doctorResult is the outcome of one check: problems still there, what was
// repaired, and lines that explain either.
type doctorResult struct {
	remaining int
	fixed     int
	summary   string // what is wrong (or, with remaining == 0, what was done)
	details   []string
	err       error // the check itself could not run
}

// doctorChecks lists the checks in the order they run.
func doctorChecks() []doctorCheck {
	return []doctorCheck{
		{"db-version", "the database's migration level is this binary's (no fix: 'cairn serve' migrates an older database)", checkDBVersion},
		{"db-integrity", "SQLite's integrity_check, and rows that point at missing rows (repositories without owner, issues without repository, ...); no fix", checkDBIntegrity},
		{"hooks", "the hook scripts in <data>/hooks exist, are executable and name an existing binary (fix: write them again naming this binary)", checkHooks},
		{"repo-dirs", "every <repositories>/<id>.git directory has a repository row (fix: move it into <data>/lost+found)", checkRepoDirs},
		{"repo-rows", "every repository row has its directory (no fix: restore it from a backup, or delete the repository)", checkRepoRows},
		{"quarantine", "no push quarantine directory is older than --stale-after (fix: remove them)", checkQuarantine},
		{"locks", "no git lock file (refs/**/*.lock, packed-refs.lock, config.lock, ...) is older than --stale-after (fix: remove them)", checkLocks},
	}
}

const doctorAbout = `Checks the instance and reports one line per check: OK, or how many problems
and which. The exit status is 1 while a problem remains. With --fix the safe
repairs are made and reported; what needs a decision is only described, with
what to do. Safe while 'cairn serve' runs: quarantine directories and lock files
count as stale only when untouched for --stale-after (never less than a minute),
and a directory without a repository row is moved into <data>/lost+found, never
deleted. The database is not migrated.`

func doctor(ctx context.Context, args []string, e adminEnv) error {
	fs := newFlagSet("cairn doctor")
	inst := addInstanceFlags(fs)
	fix := fs.Bool("fix", false, "make the safe repairs")
	list := fs.Bool("list", false, "list the checks and exit")
	var only multiFlag
	fs.Var(&only, "run", "run only the check `NAME` (repeatable, or comma-separated)")
	staleAfter := fs.Duration("stale-after", time.Hour, "`AGE` (e.g. 30m, 2h; at least 1m) from which untouched quarantine directories and lock files are stale")
	synopsis := "cairn doctor [--fix] [--run NAME]... [--stale-after 1h] [--list]"
	if done, err := parseFlags(fs, args, e.stdout, synopsis, doctorAbout); done || err != nil {
		return err
	}
	checks := doctorChecks()
	if *list {
		for _, c := range checks {
			fmt.Fprintf(e.stdout, "%-14s %s\n", c.name, c.about)
		}
		return nil
	}
	if *staleAfter < time.Minute {
		return usageError{"--stale-after must be at least 1m: younger files may belong to a push that is running"}
	}
	selected, err := selectChecks(checks, only)
	if err != nil {
		return err
	}
	e.getenv = inst.getenv(e.getenv)
	cfg, err := checkInstance(ctx, e)
	if err != nil {
		return err
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return err
	}
	defer d.Close()
	run := &doctorRun{cfg: cfg, db: d, fix: *fix, staleAfter: *staleAfter, now: time.Now(), stderr: e.stderr}
	failed := 0
	for _, c := range selected {
		res := c.run(ctx, run)
		printDoctorResult(e.stdout, c.name, res)
		if res.err != nil || res.remaining > 0 {
			failed++
		}
	}
	if failed > 0 {
		if !*fix {
			return fmt.Errorf("%d of %d checks found problems (run 'cairn doctor --fix' for the safe repairs)", failed, len(selected))
		}
		return fmt.Errorf("%d of %d checks still find problems", failed, len(selected))
	}
	return nil
}

// selectChecks returns the checks named by --run (all without it).
func selectChecks(all []doctorCheck, names []string) ([]doctorCheck, error) {
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			if part = strings.TrimSpace(part); part != "" {
				want[part] = true
			}
		}
	}
	var out []doctorCheck
	for _, c := range all {
		if want[c.name] {
			out = append(out, c)
			delete(want, c.name)
		}
	}
	if len(want) > 0 {
		var unknown []string
		for n := range want {
			unknown = append(unknown, n)
		}
		sort.Strings(unknown)
		return nil, usageError{fmt.Sprintf("unknown check %s (run 'cairn doctor --list')", strings.Join(unknown, ", "))}
	}
	return out, nil
}

// printDoctorResult writes one line for a check, then its details indented.
func printDoctorResult(w io.Writer, name string, r doctorResult) {
	switch {
	case r.err != nil:
		fmt.Fprintf(w, "[ERROR] %s: the check failed: %v\n", name, r.err)
	case r.remaining > 0:
		fmt.Fprintf(w, "[FAIL]  %s: %s\n", name, r.summary)
	case r.fixed > 0:
		fmt.Fprintf(w, "[FIXED] %s: %s\n", name, r.summary)
	default:
		fmt.Fprintf(w, "[OK]    %s\n", name)
	}
	for _, l := range r.details {
		fmt.Fprintf(w, "        %s\n", l)
	}
}

// shortDuration is d without trailing zero units: "1h", "1h30m", "90s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func checkDBVersion(ctx context.Context, d *doctorRun) doctorResult {
	pending, newer, err := d.db.MigrationState(ctx, migrations.All())
	if err != nil {
		return doctorResult{err: err}
	}
	latest := 0
	for _, m := range migrations.All() {
		latest = max(latest, m.Version)
	}
	var missing, unknown []string
	for _, m := range pending {
		missing = append(missing, fmt.Sprintf("%d (%s)", m.Version, m.Name))
	}
	for _, v := range newer {
		unknown = append(unknown, fmt.Sprint(v))
	}
	var res doctorResult
	if len(unknown) > 0 {
		res.remaining++
		res.details = append(res.details, fmt.Sprintf("the database is newer than this binary (level %d): it has migrations %s, which a newer Cairn applied; run that version", latest, strings.Join(unknown, ", ")))
	}
	if len(missing) > 0 {
		res.remaining++
		res.details = append(res.details, fmt.Sprintf("the database is older than this binary: migrations %s are not applied; 'cairn serve' with this binary applies them at start", strings.Join(missing, ", ")))
	}
	if res.remaining > 0 {
		res.summary = "the database's migration level differs from this binary's"
	}
	return res
}

// dbOrphanChecks are rows that point at a row that is gone: each query counts them.
func dbOrphanChecks() []struct{ what, query string } {
	return []struct{ what, query string }{
		{"repositories whose owner is gone", "SELECT COUNT(*) FROM repository r WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = r.owner_id)"},
		{"issues whose repository is gone", "SELECT COUNT(*) FROM issue i WHERE NOT EXISTS (SELECT 1 FROM repository r WHERE r.id = i.repo_id)"},
		{"comments whose issue is gone", "SELECT COUNT(*) FROM comment c WHERE NOT EXISTS (SELECT 1 FROM issue i WHERE i.id = c.issue_id)"},
		{"access tokens whose account is gone", "SELECT COUNT(*) FROM access_token t WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.uid)"},
		{"security keys whose account is gone", "SELECT COUNT(*) FROM webauthn_credential k WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.user_id)"},
		{"organization memberships whose account or organization is gone", "SELECT COUNT(*) FROM org_user m WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = m.uid) OR NOT EXISTS (SELECT 1 FROM users o WHERE o.id = m.org_id)"},
		{"team memberships whose team or account is gone", "SELECT COUNT(*) FROM team_user m WHERE NOT EXISTS (SELECT 1 FROM team t WHERE t.id = m.team_id) OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = m.uid)"},
		{"team repositories whose team or repository is gone", "SELECT COUNT(*) FROM team_repo m WHERE NOT EXISTS (SELECT 1 FROM team t WHERE t.id = m.team_id) OR NOT EXISTS (SELECT 1 FROM repository r WHERE r.id = m.repo_id)"},
		{"collaborations whose repository or account is gone", "SELECT COUNT(*) FROM collaboration c WHERE NOT EXISTS (SELECT 1 FROM repository r WHERE r.id = c.repo_id) OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = c.user_id)"},
	}
}

func checkDBIntegrity(ctx context.Context, d *doctorRun) doctorResult {
	var res doctorResult
	if d.db.Dialect == db.SQLite {
		// No table declares foreign keys, so foreign_key_check would find
		// nothing: the queries below check those links instead.
		rows, err := d.db.Query(ctx, "PRAGMA integrity_check")
		if err != nil {
			return doctorResult{err: err}
		}
		var msgs []string
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				rows.Close()
				return doctorResult{err: err}
			}
			if m != "ok" {
				msgs = append(msgs, m)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return doctorResult{err: err}
		}
		if len(msgs) > 0 {
			res.remaining += len(msgs)
			res.details = append(res.details, "SQLite integrity_check: "+strings.Join(msgs, "; "),
				"restore the database from a backup, or try the sqlite3 shell's .recover on a copy while Cairn is stopped")
		}
	}
	for _, c := range dbOrphanChecks() {
		n, err := d.db.Count(ctx, c.query)
		if err != nil {
			return doctorResult{err: fmt.Errorf("%s: %w", c.what, err)}
		}
		if n > 0 {
			res.remaining += int(n)
			res.details = append(res.details, fmt.Sprintf("%d %s", n, c.what))
		}
	}
	if res.remaining > 0 {
		res.summary = plural(res.remaining, "inconsistency", "inconsistencies") + " in the database (not repaired automatically: the rows may still be wanted)"
	}
	return res
}

func checkHooks(ctx context.Context, d *doctorRun) doctorResult {
	exe, err := os.Executable()
	if err != nil {
		return doctorResult{err: err}
	}
	// The scripts Cairn writes, as this binary would write them.
	tmp, err := os.MkdirTemp("", "cairn-doctor-")
	if err != nil {
		return doctorResult{err: err}
	}
	defer os.RemoveAll(tmp)
	if err := hooks.WriteScripts(tmp, exe); err != nil {
		return doctorResult{err: err}
	}
	entries, err := os.ReadDir(filepath.Join(tmp, "hooks"))
	if err != nil {
		return doctorResult{err: err}
	}
	dir := filepath.Join(d.cfg.DataDir, "hooks")
	var problems []string
	for _, en := range entries {
		name := en.Name()
		if p := hookProblem(filepath.Join(dir, name), name); p != "" {
			problems = append(problems, name+": "+p)
		}
	}
	if len(problems) == 0 {
		return doctorResult{}
	}
	res := doctorResult{details: problems}
	if !d.fix {
		res.remaining = len(problems)
		res.summary = plural(len(problems), "hook script is", "hook scripts are") + " wrong (pushes may fail)"
		return res
	}
	if err := hooks.WriteScripts(d.cfg.DataDir, exe); err != nil {
		res.remaining = len(problems)
		res.summary = "cannot write the hook scripts again: " + err.Error()
		return res
	}
	for _, en := range entries { // WriteScripts keeps a script whose text is right
		p := filepath.Join(dir, en.Name())
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o111 != 0o111 {
			if err := os.Chmod(p, 0o755); err != nil {
				res.remaining++
				res.details = append(res.details, err.Error())
			}
		}
	}
	if res.remaining > 0 {
		res.summary = "the hook scripts could not all be repaired"
		return res
	}
	res.fixed = len(problems)
	for i, p := range res.details {
		res.details[i] = "was " + p
	}
	res.summary = fmt.Sprintf("wrote the hook scripts in %s again, naming %s", dir, exe)
	if strings.HasPrefix(exe, filepath.Clean(os.TempDir())+string(filepath.Separator)) {
		fmt.Fprintf(d.stderr, "cairn: warning: %s is in a temporary directory (go run?); pushes fail once it is removed\n", exe)
	}
	return res
}

// hookProblem returns what is wrong with the hook script at path, or "".
func hookProblem(path, name string) string {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "missing"
	}
	if err != nil {
		return err.Error()
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return "not executable"
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	bin, ok := scriptBinary(string(text))
	if !ok || hooks.Script(bin, name) != string(text) {
		return "not the script Cairn writes (changed by hand, or from another version)"
	}
	bfi, err := os.Stat(bin)
	switch {
	case err != nil:
		return "names " + bin + ", which does not exist"
	case !bfi.Mode().IsRegular() || bfi.Mode().Perm()&0o111 == 0:
		return "names " + bin + ", which is not an executable file"
	}
	return ""
}

// scriptBinary returns the binary a hook script was written with: the
// single-quoted value of its "written=" line.
func scriptBinary(text string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		v, ok := strings.CutPrefix(line, "written=")
		if !ok {
			continue
		}
		if len(v) < 2 || v[0] != '\'' || v[len(v)-1] != '\'' {
			return "", false
		}
		return strings.ReplaceAll(v[1:len(v)-1], `'\''`, `'`), true
	}
	return "", false
}

// repoRowIDs returns the ids of every repository row.
func repoRowIDs(ctx context.Context, d *db.DB) (map[int64]bool, error) {
	rows, err := d.Query(ctx, "SELECT id FROM repository")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

func checkRepoDirs(ctx context.Context, d *doctorRun) doctorResult {
	root := d.cfg.RepositoryRoot()
	// Directories first: a repository's directory is made after its row is
	// committed, so one listed here without a row has truly lost it.
	dirs, err := repo.DirIDs(root)
	if err != nil {
		return doctorResult{err: err}
	}
	ids, err := repoRowIDs(ctx, d.db)
	if err != nil {
		return doctorResult{err: err}
	}
	var stray []int64
	for id := range dirs {
		if !ids[id] {
			stray = append(stray, id)
		}
	}
	sort.Slice(stray, func(i, j int) bool { return stray[i] < stray[j] })
	if len(stray) == 0 {
		return doctorResult{}
	}
	var res doctorResult
	lostFound := filepath.Join(d.cfg.DataDir, "lost+found")
	for _, id := range stray {
		if !d.fix {
			res.remaining++
			res.details = append(res.details, dirs[id]+": no repository has id "+fmt.Sprint(id))
			continue
		}
		dst, err := repo.MoveAside(dirs[id], lostFound, d.now)
		if err != nil {
			res.remaining++
			res.details = append(res.details, fmt.Sprintf("%s: cannot move it aside: %v", dirs[id], err))
			continue
		}
		res.fixed++
		res.details = append(res.details, fmt.Sprintf("moved %s to %s", dirs[id], dst))
	}
	switch {
	case res.remaining > 0:
		res.summary = plural(res.remaining, "repository directory has", "repository directories have") + " no repository row"
		if !d.fix {
			res.details = append(res.details, "--fix moves them into "+lostFound+" (a new repository could otherwise get the id and the old content)")
		}
	default:
		res.summary = "moved " + plural(res.fixed, "directory", "directories") + " without a repository row into " + lostFound
	}
	return res
}

func checkRepoRows(ctx context.Context, d *doctorRun) doctorResult {
	rows, err := d.db.Query(ctx, `SELECT r.id, r.status, COALESCE(u.name, ''), r.name
		FROM repository r LEFT JOIN users u ON u.id = r.owner_id ORDER BY r.id`)
	if err != nil {
		return doctorResult{err: err}
	}
	type row struct {
		id          int64
		status      int
		owner, name string
	}
	var missing []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.status, &r.owner, &r.name); err != nil {
			rows.Close()
			return doctorResult{err: err}
		}
		if r.status == repo.StatusMigrating {
			continue // a migration is filling the directory
		}
		if _, err := os.Lstat(filepath.Join(d.cfg.RepositoryRoot(), fmt.Sprintf("%d.git", r.id))); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return doctorResult{err: err}
	}
	var res doctorResult
	for _, r := range missing {
		// A repository deleted meanwhile loses its row before its directory.
		err := d.db.QueryRow(ctx, "SELECT id FROM repository WHERE id = ?", r.id).Scan(new(int64))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return doctorResult{err: err}
		}
		res.remaining++
		res.details = append(res.details, fmt.Sprintf("%s/%s (id %d): %s is missing", r.owner, r.name, r.id,
			filepath.Join(d.cfg.RepositoryRoot(), fmt.Sprintf("%d.git", r.id))))
	}
	if res.remaining > 0 {
		res.summary = plural(res.remaining, "repository has", "repositories have") + " no directory (no automatic repair)"
		res.details = append(res.details, "restore each directory from a backup to the path shown, or delete the repository "+
			"(DELETE /api/v1/repos/{owner}/{repo} as an administrator) to drop its rows, issues included")
	}
	return res
}

func checkQuarantine(ctx context.Context, d *doctorRun) doctorResult {
	root := d.cfg.RepositoryRoot()
	stale, err := repo.StaleQuarantine(ctx, root, d.cutoff())
	if err != nil {
		return doctorResult{err: err}
	}
	if len(stale) == 0 {
		return doctorResult{}
	}
	if !d.fix {
		return doctorResult{remaining: len(stale), details: stale,
			summary: plural(len(stale), "push quarantine directory", "push quarantine directories") + " untouched for " + shortDuration(d.staleAfter) + " (left by a killed push)"}
	}
	swept, err := repo.SweepStaleQuarantine(ctx, root, d.cutoff())
	if err != nil {
		return doctorResult{err: err, fixed: swept.Dirs}
	}
	var removed []string
	for _, p := range stale {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			removed = append(removed, "removed "+p)
		}
	}
	res := doctorResult{fixed: swept.Dirs, details: removed,
		summary: fmt.Sprintf("removed %s (%d bytes)", plural(swept.Dirs, "stale push quarantine directory", "stale push quarantine directories"), swept.Bytes)}
	left, err := repo.StaleQuarantine(ctx, root, d.cutoff())
	if err != nil {
		return doctorResult{err: err}
	}
	if len(left) > 0 {
		res.remaining = len(left)
		res.details = left
		res.summary = plural(len(left), "stale push quarantine directory", "stale push quarantine directories") + " could not be removed (see the log lines above)"
	}
	return res
}

func checkLocks(ctx context.Context, d *doctorRun) doctorResult {
	stale, err := repo.StaleLocks(ctx, d.cfg.RepositoryRoot(), d.cutoff())
	if err != nil {
		return doctorResult{err: err}
	}
	if len(stale) == 0 {
		return doctorResult{}
	}
	if !d.fix {
		return doctorResult{remaining: len(stale), details: stale,
			summary: plural(len(stale), "git lock file", "git lock files") + " untouched for " + shortDuration(d.staleAfter) + " (git refuses to update what they lock)"}
	}
	var res doctorResult
	for _, p := range stale {
		removed, err := repo.RemoveStaleLock(p, d.cutoff())
		switch {
		case err != nil:
			res.remaining++
			res.details = append(res.details, fmt.Sprintf("%s: %v", p, err))
		case removed:
			res.fixed++
			res.details = append(res.details, "removed "+p)
		}
	}
	if res.remaining > 0 {
		res.summary = plural(res.remaining, "stale lock file", "stale lock files") + " could not be removed"
	} else {
		res.summary = "removed " + plural(res.fixed, "stale lock file", "stale lock files")
	}
	return res
}

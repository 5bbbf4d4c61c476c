package repo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepQuarantine builds repositories whose files were all written now,
// sweeps with a cutoff an hour ahead (so "now" is stale) and marks as fresh
// what is dated two hours ahead.
func TestSweepQuarantine(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repositories")
	outside := filepath.Join(base, "outside")
	now := time.Now()
	cutoff := now.Add(time.Hour)
	future := now.Add(2*time.Hour + 123*time.Nanosecond)

	mkfile := func(p string, size int) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	touch := func(p string) {
		t.Helper()
		if err := os.Chtimes(p, future, future); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(target, link string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	objects := filepath.Join(root, "1.git", "objects")

	// Outside the repositories, recently modified: reached only through links.
	outFile := mkfile(filepath.Join(outside, "precious", "data"), 10)
	touch(outFile)
	touch(filepath.Join(outside, "precious"))
	outStale := mkfile(filepath.Join(outside, "repo.git", "objects", "tmp_objdir-incoming-Linked", "pack", "tmp_pack_x"), 10)

	// Removed: stale quarantines, current and older names.
	mkfile(filepath.Join(objects, "tmp_objdir-incoming-Stale1", "pack", "tmp_pack_AbCdEf"), 1000)
	mkfile(filepath.Join(objects, "tmp_objdir-incoming-Stale1", "ab", "cdef01"), 24)
	mkfile(filepath.Join(objects, "incoming-0ld0ne", "pack", "tmp_idx_x"), 100)
	mkfile(filepath.Join(objects, "tmp_objdir-bulk-fsync-Xy12Zw", "12", "3456"), 6)
	if err := os.MkdirAll(filepath.Join(objects, "tmp_objdir-remerge-diff-Empty0"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Removed, with the link in it, but not what the link points to.
	mkfile(filepath.Join(objects, "tmp_objdir-incoming-Links1", "pack", "p"), 50)
	symlink(filepath.Join(outside, "precious"), filepath.Join(objects, "tmp_objdir-incoming-Links1", "out"))
	symlink(outFile, filepath.Join(objects, "tmp_objdir-incoming-Links1", "pack", "f"))

	// Kept: fresh directory, fresh nested file under old directories.
	fresh := filepath.Join(objects, "tmp_objdir-incoming-Fresh1")
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	touch(fresh)
	nested := mkfile(filepath.Join(objects, "tmp_objdir-incoming-Nest01", "a", "b", "c", "tmp_pack_q"), 7)
	touch(nested)
	// Kept: not quarantine directories.
	kept := []string{
		mkfile(filepath.Join(objects, "tmp_objdir-incoming-AFile1"), 3), // a file
		mkfile(filepath.Join(objects, "tmp_objdir-incoming-TooLong7", "x"), 3),
		mkfile(filepath.Join(objects, "tmp_objdir-incoming-Short", "x"), 3),
		mkfile(filepath.Join(objects, "incoming", "x"), 3),
		mkfile(filepath.Join(objects, "pack", "pack-1.pack"), 3),
		mkfile(filepath.Join(objects, "ab", "cdef"), 3),
		mkfile(filepath.Join(objects, "info", "packs"), 3),
		mkfile(filepath.Join(root, "1.git", "tmp_objdir-incoming-NotObj", "x"), 3),
		mkfile(filepath.Join(root, "notarepo", "objects", "tmp_objdir-incoming-Abcdef", "x"), 3),
		mkfile(filepath.Join(root, "4.git.tmp", "objects", "tmp_objdir-incoming-Abcdef", "x"), 3),
		outFile, outStale,
	}
	// Kept: a quarantine that is a link, a repository that is a link, an
	// objects directory that is a link.
	symlink(filepath.Join(outside, "precious"), filepath.Join(objects, "tmp_objdir-incoming-Lnkdir"))
	symlink(filepath.Join(outside, "repo.git"), filepath.Join(root, "2.git"))
	if err := os.MkdirAll(filepath.Join(root, "3.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(filepath.Join(outside, "repo.git", "objects"), filepath.Join(root, "3.git", "objects"))

	res, err := sweepQuarantine(context.Background(), root, cutoff)
	if err != nil {
		t.Fatal(err)
	}
	if want := (QuarantineSweep{Dirs: 5, Bytes: 1000 + 24 + 100 + 6 + 50}); res != want {
		t.Errorf("sweep = %+v, want %+v", res, want)
	}
	for _, gone := range []string{"tmp_objdir-incoming-Stale1", "incoming-0ld0ne", "tmp_objdir-bulk-fsync-Xy12Zw",
		"tmp_objdir-remerge-diff-Empty0", "tmp_objdir-incoming-Links1"} {
		if _, err := os.Lstat(filepath.Join(objects, gone)); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v)", gone, err)
		}
	}
	for _, p := range append(kept, fresh, nested, filepath.Join(objects, "tmp_objdir-incoming-Lnkdir"), filepath.Join(root, "2.git")) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}

	// A second sweep finds nothing; a sweep after the fresh ones aged
	// removes them.
	if res, err := sweepQuarantine(context.Background(), root, cutoff); err != nil || res.Dirs != 0 {
		t.Errorf("second sweep = %+v, %v", res, err)
	}
	if res, err := sweepQuarantine(context.Background(), root, future.Add(time.Second)); err != nil || res.Dirs != 2 || res.Bytes != 7 {
		t.Errorf("late sweep = %+v, %v", res, err)
	}
	if _, err := os.Lstat(outFile); err != nil {
		t.Errorf("outside file removed: %v", err)
	}
}

func TestSweepQuarantineStops(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "7.git", "objects", "tmp_objdir-incoming-Abc123")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sweepQuarantine(ctx, root, time.Now().Add(time.Hour)); err == nil {
		t.Error("a cancelled sweep reported no error")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a cancelled sweep removed %s", dir)
	}
	// No repositories directory yet: nothing to do.
	if res, err := sweepQuarantine(context.Background(), filepath.Join(root, "none"), time.Now()); err != nil || res.Dirs != 0 {
		t.Errorf("missing root: %+v, %v", res, err)
	}
}

// TestRunQuarantineSweeperStartUp checks the start-up sweep: what was left
// before the process started goes, what was written since stays.
func TestRunQuarantineSweeperStartUp(t *testing.T) {
	root := t.TempDir()
	started := time.Now()
	old := filepath.Join(root, "1.git", "objects", "tmp_objdir-incoming-Before")
	young := filepath.Join(root, "1.git", "objects", "tmp_objdir-incoming-After1")
	for _, d := range []string{old, young} {
		if err := os.MkdirAll(filepath.Join(d, "pack"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before, after := started.Add(-time.Minute+5*time.Nanosecond), started.Add(time.Millisecond)
	for _, c := range []struct {
		dir string
		at  time.Time
	}{{old, before}, {young, after}} {
		for _, p := range []string{filepath.Join(c.dir, "pack"), c.dir} {
			if err := os.Chtimes(p, c.at, c.at); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := &Service{root: root}
	s.RunQuarantineSweeper(context.Background(), started, time.Hour, 0) // maxAge 0: returns after the start-up sweep
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("left by the previous process, still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("written since the start, removed: %v", err)
	}
}

func TestModifiedSince(t *testing.T) {
	cutoff := time.Date(2025, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	for _, c := range []struct {
		mtime time.Time
		want  bool
	}{
		{cutoff, true},
		{cutoff.Add(time.Nanosecond), true},
		{cutoff.Add(-time.Nanosecond), false},
		{cutoff.Add(-time.Hour), false},
		// Whole seconds: maybe a coarse file system, up to two seconds later.
		{time.Date(2025, 1, 2, 3, 4, 4, 0, time.UTC), true},
		{time.Date(2025, 1, 2, 3, 4, 3, 0, time.UTC), false},
	} {
		if got := modifiedSince(c.mtime, cutoff); got != c.want {
			t.Errorf("modifiedSince(%v) = %v, want %v", c.mtime, got, c.want)
		}
	}
}

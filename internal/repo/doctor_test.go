package repo

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestStaleLocks(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	files := map[string]bool{ // path under root -> stale lock expected
		"1.git/refs/heads/main.lock":        true,
		"1.git/refs/heads/feature/x.lock":   true,
		"1.git/refs/tags/v1.lock":           true,
		"1.git/packed-refs.lock":            true,
		"1.git/config.lock":                 true,
		"1.git/index.lock":                  true,
		"1.git/objects/pack/tmp.lock":       false, // not a lock git takes on refs
		"1.git/refs/heads/main":             false, // not a lock
		"2.git/refs/heads/fresh.lock":       false, // recent
		"notarepo/refs/heads/x.lock":        false, // not <id>.git
		"3.git/description.lock":            false, // not one of git's lock files
		"4.git/refs/heads/deep/er/and.lock": true,
	}
	for rel := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rel, "fresh") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A link named like a lock is never listed (nor followed).
	if err := os.Symlink(filepath.Join(root, "1.git/config.lock"), filepath.Join(root, "1.git/refs/heads/link.lock")); err != nil {
		t.Fatal(err)
	}
	cutoff := time.Now().Add(-time.Hour)
	got, err := StaleLocks(context.Background(), root, cutoff)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rel, stale := range files {
		if stale {
			want = append(want, filepath.Join(root, rel))
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("StaleLocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A lock touched since it was listed stays.
	p := filepath.Join(root, "1.git/refs/heads/main.lock")
	if err := os.Chtimes(p, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveStaleLock(p, cutoff); err != nil || removed {
		t.Errorf("RemoveStaleLock of a fresh lock: %v, %v", removed, err)
	}
	p = filepath.Join(root, "1.git/packed-refs.lock")
	if removed, err := RemoveStaleLock(p, cutoff); err != nil || !removed {
		t.Errorf("RemoveStaleLock of a stale lock: %v, %v", removed, err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("the stale lock is still there")
	}
	if removed, err := RemoveStaleLock(p, cutoff); err != nil || removed {
		t.Errorf("RemoveStaleLock of a missing lock: %v, %v", removed, err)
	}
}

func TestDirIDsAndMoveAside(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"1.git", "17.git", "x.git", "2.git.old"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "3.git"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ids, err := DirIDs(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[1] != filepath.Join(root, "1.git") || ids[17] != filepath.Join(root, "17.git") {
		t.Errorf("DirIDs = %v", ids)
	}
	if ids, err := DirIDs(filepath.Join(root, "none")); err != nil || len(ids) != 0 {
		t.Errorf("DirIDs of a missing root: %v, %v", ids, err)
	}
	lost := filepath.Join(t.TempDir(), "lost+found")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.WriteFile(filepath.Join(root, "17.git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := MoveAside(filepath.Join(root, "17.git"), lost, now)
	if err != nil || first != filepath.Join(lost, "17.git.20260102T030405Z") {
		t.Fatalf("MoveAside = %q, %v", first, err)
	}
	if _, err := os.Stat(filepath.Join(first, "HEAD")); err != nil {
		t.Errorf("moved without its content: %v", err)
	}
	// The same name at the same time again is not overwritten.
	if err := os.MkdirAll(filepath.Join(root, "17.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	second, err := MoveAside(filepath.Join(root, "17.git"), lost, now)
	if err != nil || second == first {
		t.Fatalf("second MoveAside = %q, %v", second, err)
	}
	if _, err := os.Stat(filepath.Join(first, "HEAD")); err != nil {
		t.Errorf("the first one was overwritten: %v", err)
	}
}

func TestStaleQuarantine(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	stale := filepath.Join(root, "5.git", "objects", "tmp_objdir-incoming-a1B2c3")
	fresh := filepath.Join(root, "5.git", "objects", "tmp_objdir-incoming-zzZZ99")
	for _, d := range []string{stale, fresh} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	got, err := StaleQuarantine(context.Background(), root, time.Now().Add(-time.Hour))
	if err != nil || len(got) != 1 || got[0] != stale {
		t.Fatalf("StaleQuarantine = %v, %v", got, err)
	}
	res, err := SweepStaleQuarantine(context.Background(), root, time.Now().Add(-time.Hour))
	if err != nil || res.Dirs != 1 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh quarantine went: %v", err)
	}
}

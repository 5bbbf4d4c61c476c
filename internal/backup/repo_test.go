package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/git"
)

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestRepoRoundTrip dumps a repository holding packed and loose objects as
// files and restores it: every recorded ref resolves and fsck is clean.
func TestRepoRoundTrip(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	g, err := git.New(git.Options{TempDir: root})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "src", "7.git")
	work := filepath.Join(root, "work")
	runGit(t, root, "init", "-q", "--bare", src)
	runGit(t, root, "init", "-q", work)
	for i, f := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(work, f), bytes.Repeat([]byte(f), 1000*(i+1)), 0o644)
		runGit(t, work, "add", ".")
		runGit(t, work, "commit", "-q", "-m", f)
		runGit(t, work, "push", "-q", src, "HEAD:refs/heads/main")
		if i == 1 {
			runGit(t, src, "repack", "-a", "-d", "-q") // a pack, then loose objects
		}
	}
	runGit(t, work, "tag", "-a", "v1", "-m", "v1")
	runGit(t, work, "push", "-q", src, "v1", "HEAD~1:refs/heads/side")

	inst := Instance{Git: g, Paths: Paths{Repos: filepath.Join(root, "src"), TempDir: root}, Log: io.Discard}
	var buf bytes.Buffer
	a := newArchive(&buf)
	if err := dumpRepo(ctx, inst, a, 7); err != nil {
		t.Fatal(err)
	}
	a.tw.Close()
	tr := tar.NewReader(&buf)
	var names []string
	dst := filepath.Join(root, "dst", "7.git")
	os.MkdirAll(filepath.Dir(dst), 0o750)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		file := strings.TrimPrefix(hdr.Name, "repositories/7.git/")
		names = append(names, file)
		if err := restoreRepoEntry(ctx, inst, dst, file, tr); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	var packs, loose int
	for _, n := range names {
		switch {
		case isPack(n):
			packs++
		case isLoose(n):
			loose++
		}
	}
	if packs < 2 || loose == 0 || names[len(names)-1] != "refs" {
		t.Errorf("archive entries %q: want a pack, its index, loose objects and refs last", names)
	}
	runGit(t, dst, "fsck", "--strict", "--no-dangling")
	if want, got := runGit(t, src, "for-each-ref"), runGit(t, dst, "for-each-ref"); got != want {
		t.Errorf("refs after restore:\n%s\nwant\n%s", got, want)
	}
}

// TestRepoAlternatesPacked checks that a repository borrowing objects
// (alternates) is packed with pack-objects rather than copied as files.
func TestRepoAlternatesPacked(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	g, err := git.New(git.Options{TempDir: root})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(root, "base.git")
	work := filepath.Join(root, "work")
	runGit(t, root, "init", "-q", "--bare", base)
	runGit(t, root, "init", "-q", work)
	os.WriteFile(filepath.Join(work, "f"), []byte("x"), 0o644)
	runGit(t, work, "add", ".")
	runGit(t, work, "commit", "-q", "-m", "x")
	runGit(t, work, "push", "-q", base, "HEAD:refs/heads/main")
	fork := filepath.Join(root, "repos", "3.git")
	runGit(t, root, "clone", "-q", "--bare", "--shared", base, fork)
	inst := Instance{Git: g, Paths: Paths{Repos: filepath.Join(root, "repos"), TempDir: root}, Log: io.Discard}
	var buf bytes.Buffer
	a := newArchive(&buf)
	if err := dumpRepo(ctx, inst, a, 3); err != nil {
		t.Fatal(err)
	}
	a.tw.Close()
	tr := tar.NewReader(&buf)
	found := false
	for {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		found = found || strings.HasSuffix(hdr.Name, "/objects.pack")
	}
	if !found {
		t.Error("a repository with alternates was not packed")
	}
}

// TestRepoChecker checks restored repositories in the background: whole
// ones pass, and one whose ref names a missing object fails the restore.
func TestRepoChecker(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	g, err := git.New(git.Options{TempDir: root})
	if err != nil {
		t.Fatal(err)
	}
	repos := filepath.Join(root, "repos")
	work := filepath.Join(root, "work")
	runGit(t, root, "init", "-q", work)
	os.WriteFile(filepath.Join(work, "f"), []byte("x"), 0o644)
	runGit(t, work, "add", "f")
	runGit(t, work, "commit", "-q", "-m", "x")
	for _, id := range []string{"1.git", "2.git"} {
		runGit(t, root, "clone", "-q", "--bare", work, filepath.Join(repos, id))
	}
	inst := Instance{Git: g, Paths: Paths{Repos: repos}}

	c := newRepoChecker(ctx, inst)
	c.add("1.git")
	c.add("2.git")
	if err := c.wait(); err != nil {
		t.Fatalf("whole repositories: %v", err)
	}
	c.stop()

	// 2.git's branch now names a commit it lacks.
	if err := os.WriteFile(filepath.Join(repos, "2.git", "packed-refs"), []byte("1111111111111111111111111111111111111111 refs/heads/gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = newRepoChecker(ctx, inst)
	defer c.stop()
	c.add("1.git")
	c.add("2.git")
	if err := c.wait(); err == nil || !strings.Contains(err.Error(), "repository 2.git") {
		t.Fatalf("a repository missing an object passed: %v", err)
	}
}

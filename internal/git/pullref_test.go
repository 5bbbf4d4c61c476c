package git

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefTips: tips read from loose and packed refs agree with git, for
// both object formats; missing refs are left out; bad names are refused.
func TestRefTips(t *testing.T) {
	g := newTestGit(t)
	for _, format := range []string{"sha1", "sha256"} {
		repo := initRepo(t, g, format)
		first := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("a.txt", "a")}})
		second := commitFiles(t, g, repo, CommitFilesOptions{Branch: "topic", StartPoint: first, Changes: []FileChange{create("b.txt", "b")}})
		if err := g.ForceRef(t.Context(), repo, "refs/pull/1/head", second); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"refs/heads/main": first, "refs/heads/topic": second, "refs/pull/1/head": second}
		refs := []string{"refs/heads/main", "refs/heads/topic", "refs/pull/1/head", "refs/heads/gone", "refs/heads/main/deeper"}
		check := func(when string) {
			t.Helper()
			got, err := g.RefTips(t.Context(), repo, refs)
			if err != nil {
				t.Fatalf("%s %s: %v", format, when, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s %s: %v", format, when, got)
			}
			for r, sha := range want {
				if got[r] != sha {
					t.Fatalf("%s %s: %s = %q, want %q", format, when, r, got[r], sha)
				}
			}
		}
		check("loose")
		if out, err := exec.Command("git", "-C", repo, "pack-refs", "--all").CombinedOutput(); err != nil {
			t.Fatalf("pack-refs: %v %s", err, out)
		}
		check("packed")
		// A loose ref written after packing wins over the packed one.
		third := commitFiles(t, g, repo, CommitFilesOptions{Branch: "topic", Changes: []FileChange{create("c.txt", "c")}})
		want["refs/heads/topic"] = third
		check("loose over packed")
		// Packed again (the cached parse of the old file is replaced), then
		// a packed ref deleted: the new packed-refs is read.
		if out, err := exec.Command("git", "-C", repo, "pack-refs", "--all").CombinedOutput(); err != nil {
			t.Fatalf("pack-refs: %v %s", err, out)
		}
		check("packed again")
		if out, err := exec.Command("git", "-C", repo, "update-ref", "-d", "refs/pull/1/head").CombinedOutput(); err != nil {
			t.Fatalf("update-ref -d: %v %s", err, out)
		}
		delete(want, "refs/pull/1/head")
		check("after deleting a packed ref")
	}
	for _, bad := range []string{"HEAD", "refs/../config", "refs/heads/-x/../../x", "heads/main"} {
		if _, err := g.RefTips(t.Context(), initRepo(t, g, "sha1"), []string{bad}); err == nil {
			t.Errorf("RefTips(%q) accepted", bad)
		}
	}
}

// TestPackedRefsCacheBound: the cache keeps at most its bound of files,
// dropping the least recently used.
func TestPackedRefsCacheBound(t *testing.T) {
	dir := t.TempDir()
	c := newPackedRefsCache(2)
	path := func(i int) string { return filepath.Join(dir, fmt.Sprintf("packed-%d", i)) }
	sha := strings.Repeat("a", 40)
	for i := range 3 {
		if err := os.WriteFile(path(i), []byte("# pack-refs with: peeled fully-peeled sorted\n"+sha+" refs/heads/b"+fmt.Sprint(i)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{0, 1, 0, 2} { // 1 is the least recently used when 2 comes
		refs, err := c.get(path(i))
		if err != nil || refs["refs/heads/b"+fmt.Sprint(i)] != sha {
			t.Fatalf("get(%d) = %v, %v", i, refs, err)
		}
	}
	if len(c.entries) != 2 || c.entries[path(1)] != nil || c.entries[path(0)] == nil {
		t.Fatalf("cache holds %v", c.entries)
	}
	if refs, err := c.get(filepath.Join(dir, "missing")); refs != nil || err != nil {
		t.Fatalf("missing file: %v %v", refs, err)
	}
}

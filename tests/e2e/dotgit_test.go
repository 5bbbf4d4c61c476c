package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
)

// dotGitLookalikes are paths whose first component git takes for ".git" on
// HFS+ or NTFS.
var dotGitLookalikes = []string{".git\u200c/config", ".g\u200cit/config", "\ufeff.git/config", ".GIT/config",
	"git~1/config", "GIT~1./config", ".git. /config", ".git::$INDEX_ALLOCATION/config", `a\.git\config`}

// TestDotGitContents: the contents API (one file, several files, renames,
// patches) refuses paths that name .git on some file system, and symbolic
// links named like .gitmodules, with 422 and a message saying what is
// wrong; the branch does not move.
func TestDotGitContents(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "proj", false, true)
	head := func() string {
		t.Helper()
		var b struct {
			Commit struct {
				ID string `json:"id"`
			} `json:"commit"`
		}
		s.API("GET", "repos/alice/proj/branches/main", alice.Token, nil).Decode(t, &b)
		return b.Commit.ID
	}
	before := head()
	for _, p := range dotGitLookalikes {
		var segs []string
		for _, seg := range strings.Split(p, "/") {
			segs = append(segs, url.PathEscape(seg))
		}
		r := s.API("POST", "repos/alice/proj/contents/"+strings.Join(segs, "/"), alice.Token, map[string]any{"content": b64("x")})
		wantStatus(t, r, http.StatusUnprocessableEntity, "names the .git directory", "create "+p)
		r = s.API("POST", "repos/alice/proj/contents", alice.Token, map[string]any{"files": []map[string]any{
			{"operation": "create", "path": "fine.txt", "content": b64("x")},
			{"operation": "create", "path": p, "content": b64("x")},
		}})
		wantStatus(t, r, http.StatusUnprocessableEntity, "names the .git directory", "change files with "+p)
	}
	r := s.API("POST", "repos/alice/proj/contents/git~1/config", alice.Token, map[string]any{"content": b64("x")})
	wantStatus(t, r, http.StatusUnprocessableEntity, "path contains a malformed path component [path: git~1/config]: it names the .git directory (an NTFS short name)", "git~1")

	// A symbolic link (pushed) may not be renamed to a .gitmodules look-alike.
	work := t.TempDir()
	gdGit(t, work, nil, "clone", "-q", contentsCloneURL(s, alice, "alice", "proj"), ".")
	gdGit(t, work, nil, "-c", "core.symlinks=true", "update-index", "--add", "--cacheinfo",
		"120000,"+gdGitStdin(t, work, "README.md", "hash-object", "-w", "--stdin")+",link")
	gdGit(t, work, nil, "commit", "-q", "-m", "a link")
	gdGit(t, work, nil, "push", "-q", "origin", "HEAD:main")
	var link struct {
		SHA string `json:"sha"`
	}
	s.API("GET", "repos/alice/proj/contents/link", alice.Token, nil).Decode(t, &link)
	before = head()
	for _, name := range []string{".gitmodules", ".GITMODULES", "gitmod~1", ".gitmodules\u200c"} {
		r = s.API("PUT", "repos/alice/proj/contents/"+url.PathEscape(name), alice.Token,
			map[string]any{"content": b64("README.md"), "from_path": "link", "sha": link.SHA})
		wantStatus(t, r, http.StatusUnprocessableEntity, "symbolic link named like .gitmodules", "rename the link to "+name)
	}

	// Patches: a look-alike path, and a symbolic link named .gitmodules,
	// which git apply refuses itself.
	for _, patch := range []string{
		"diff --git a/.git\u200c/config b/.git\u200c/config\nnew file mode 100644\n--- /dev/null\n+++ b/.git\u200c/config\n@@ -0,0 +1 @@\n+x\n",
		"diff --git a/README.md b/git~1/config\nsimilarity index 100%\nrename from README.md\nrename to git~1/config\n",
	} {
		r = s.API("POST", "repos/alice/proj/diffpatch", alice.Token, map[string]any{"content": patch})
		wantStatus(t, r, http.StatusUnprocessableEntity, "names the .git directory", "patch")
	}
	r = s.API("POST", "repos/alice/proj/diffpatch", alice.Token, map[string]any{"content": "diff --git a/.gitmodules b/.gitmodules\n" +
		"new file mode 120000\n--- /dev/null\n+++ b/.gitmodules\n@@ -0,0 +1 @@\n+README.md\n\\ No newline at end of file\n"})
	wantStatus(t, r, http.StatusUnprocessableEntity, ".gitmodules", "patch adding a .gitmodules link")
	if head() != before {
		t.Fatal("a refused change moved the branch")
	}

	// Legitimate names next to them still work.
	for _, p := range []string{".github/workflows/ci.yml", ".gitignore", "git~2/x", ".gitx", "my.git", "docs/.gitmodules"} {
		r = s.API("POST", "repos/alice/proj/contents/"+p, alice.Token, map[string]any{"content": b64("x")})
		wantStatus(t, r, http.StatusCreated, "", "create "+p)
	}
}

// TestDotGitPush: receive-pack checks pushed objects, so trees with .git
// look-alikes and other unsafe entries are refused with a message the
// client prints, and the branch stays; a normal push, and history with
// cosmetic flaws of old repositories (a bad time zone), are accepted.
func TestDotGitPush(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "proj", false, true)
	work := t.TempDir()
	gdGit(t, work, nil, "clone", "-q", contentsCloneURL(s, alice, "alice", "proj"), ".")
	tip := gdGit(t, work, nil, "rev-parse", "HEAD")
	blob := gdGitStdin(t, work, "[core]\n\tfsmonitor = evil\n", "hash-object", "-w", "--stdin")
	mktree := func(entries ...string) string {
		return gdGitStdin(t, work, strings.Join(entries, ""), "mktree", "-z")
	}
	commit := func(tree string) string {
		return gdGit(t, work, nil, "commit-tree", tree, "-p", tip, "-m", "change")
	}
	remoteMain := func() string {
		out := gdGit(t, work, nil, "ls-remote", "origin", "refs/heads/main")
		return strings.Fields(out)[0]
	}
	sub := mktree(fmt.Sprintf("100644 blob %s\tconfig\x00", blob))
	dir := func(name string) string { return fmt.Sprintf("040000 tree %s\t%s\x00", sub, name) }
	file := func(mode, name string) string { return fmt.Sprintf("%s blob %s\t%s\x00", mode, blob, name) }
	refused := []struct{ what, tree, msg string }{
		{".GIT/config", mktree(dir(".GIT")), "hasDotgit"},
		{"git~1/config", mktree(dir("git~1")), "hasDotgit"},
		{".git\u200c/config", mktree(dir(".git\u200c")), "hasDotgit"},
		{"nested .git. ", mktree(fmt.Sprintf("040000 tree %s\tsrc\x00", mktree(dir(".git. ")))), "hasDotgit"},
		{"..", mktree(dir("..")), "hasDotdot"},
		{".gitmodules symbolic link", mktree(file("120000", ".gitmodules")), "gitmodulesSymlink"},
	}
	for _, tt := range refused {
		c := commit(tt.tree)
		cmd := exec.Command("git", "push", "origin", c+":refs/heads/main")
		cmd.Dir, cmd.Env = work, gdEnv(work)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("push of %s accepted:\n%s", tt.what, out)
		} else if !strings.Contains(string(out), tt.msg) {
			t.Errorf("push of %s: the client's output does not name %s:\n%s", tt.what, tt.msg, out)
		}
		if got := remoteMain(); got != tip {
			t.Fatalf("push of %s moved main to %s", tt.what, got)
		}
	}

	// A commit with a malformed time zone, as real old histories have, is
	// accepted (git warns), and so is an ordinary one.
	tree := gdGit(t, work, nil, "rev-parse", "HEAD^{tree}")
	odd := fmt.Sprintf("tree %s\nparent %s\nauthor Old <old@example.com> 1136214245 +01\ncommitter Old <old@example.com> 1136214245 +01\n\nold\n", tree, tip)
	oddSHA := gdGitStdin(t, work, odd, "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
	gdGit(t, work, nil, "push", "-q", "origin", oddSHA+":refs/heads/old")
	gdGit(t, work, nil, "commit", "-q", "--allow-empty", "-m", "ordinary")
	gdGit(t, work, nil, "push", "-q", "origin", "HEAD:main")
	if got, want := remoteMain(), gdGit(t, work, nil, "rev-parse", "HEAD"); got != want {
		t.Fatalf("main = %s after a normal push, want %s", got, want)
	}
}

// TestDotGitTemplate: a repository made from a template gets the same path
// checks as other writes: a template whose tree (brought in by a migration,
// which does not check objects) has a .git look-alike is refused, and no
// repository is left behind.
func TestDotGitTemplate(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_SECURITY_IMPORT_LOCAL_PATHS=true"))
	src := t.TempDir()
	gdGit(t, src, nil, "init", "-q", "-b", "main")
	gdGit(t, src, nil, "commit", "-q", "--allow-empty", "-m", "first")
	blob := gdGitStdin(t, src, "x\n", "hash-object", "-w", "--stdin")
	sub := gdGitStdin(t, src, fmt.Sprintf("100644 blob %s\tconfig\x00", blob), "mktree", "-z")
	tree := gdGitStdin(t, src, fmt.Sprintf("100644 blob %s\tREADME\x00040000 tree %s\tgit~1\x00", blob, sub), "mktree", "-z")
	gdGit(t, src, nil, "update-ref", "refs/heads/main", gdGit(t, src, nil, "commit-tree", tree, "-p", "HEAD", "-m", "bad"))

	r := s.API("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "tmpl"})
	wantStatus(t, r, http.StatusCreated, "", "migrate")
	wantStatus(t, s.API("PATCH", "repos/root/tmpl", s.AdminTok, map[string]any{"template": true}), http.StatusOK, "", "make template")
	r = s.API("POST", "repos/root/tmpl/generate", s.AdminTok, map[string]any{"owner": "root", "name": "gen", "git_content": true})
	wantStatus(t, r, http.StatusUnprocessableEntity, `path "git~1/config" names the .git directory (an NTFS short name)`, "generate")
	wantStatus(t, s.API("GET", "repos/root/gen", s.AdminTok, nil), http.StatusNotFound, "", "the refused repository")
	// Without the git content the template is usable.
	r = s.API("POST", "repos/root/tmpl/generate", s.AdminTok, map[string]any{"owner": "root", "name": "gen", "topics": true})
	wantStatus(t, r, http.StatusCreated, "", "generate without git content")
}

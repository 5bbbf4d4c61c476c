package e2e

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// webCodeFiles are the files pushed on top of the initial commit.
var webCodeFiles = map[string]string{
	"README.md":          "# Hello Cairn\n\nSome **bold** text and <script>alert(1)</script>.\n",
	"main.go":            "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
	"docs/guide.md":      "# The Guide\n\nRead *this*.\n",
	"page.html":          "<html><script>alert(document.cookie)</script></html>\n",
	"<script>x.txt":      "escaped name\n",
	"notes/plain.txt":    "line one\nline two\n",
	"img/logo.png":       "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\nIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82",
	"bin/data.bin":       "\x00\x01\x02binary\x00data\xff",
	"sub/dir/deep.rs":    "fn main() { let x = 1; }\n",
	"docs/.hidden/x.txt": "hidden\n",
}

// webCodeRepo pushes a history to owner/name (an auto-initialized
// repository): the files above ("Add code files"), a change of main.go
// ("Change greeting"), a branch feature/x with one more commit ("Feature
// work"), a branch many with 55 empty commits, and an annotated tag v1.0.
// It returns the work tree and the SHA of "Change greeting".
func webCodeRepo(t *testing.T, s *Server, owner *User, name string) (string, string) {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	remote := contentsCloneURL(s, owner, owner.Name, name)
	contentsGit(t, filepath.Dir(work), "clone", "-q", remote, work)
	for p, content := range webCodeFiles {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	contentsGit(t, work, "add", "-A")
	contentsGit(t, work, "commit", "-qm", "Add code files")
	if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(strings.Replace(webCodeFiles["main.go"], `"hello"`, `"hello, world"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	contentsGit(t, work, "commit", "-qam", "Change greeting\n\nA longer explanation.")
	changed := strings.TrimSpace(contentsGit(t, work, "rev-parse", "HEAD"))
	contentsGit(t, work, "tag", "-a", "v1.0", "-m", "Version one")
	contentsGit(t, work, "checkout", "-qb", "feature/x")
	if err := os.WriteFile(filepath.Join(work, "feature.txt"), []byte("feature\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	contentsGit(t, work, "add", "feature.txt")
	contentsGit(t, work, "commit", "-qm", "Feature work")
	contentsGit(t, work, "checkout", "-qb", "many", "main")
	for i := 1; i <= 55; i++ {
		contentsGit(t, work, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("empty number %d.", i))
	}
	contentsGit(t, work, "checkout", "-q", "main")
	contentsGit(t, work, "push", "-q", "origin", "main", "feature/x", "many", "v1.0")
	return work, changed
}

// TestWebCodePages browses a public repository: home, trees, files, raw
// files, blame, history, commits, diffs, branches, tags, comparisons and
// archives, with their real content.
func TestWebCodePages(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "code", false, true)
	work, changed := webCodeRepo(t, s, alice, "code")
	w := s.Web(t)

	t.Run("home", func(t *testing.T) {
		p := w.Get("alice/code")
		p.MustContain(t, http.StatusOK, "main.go", `href="/alice/code/src/branch/main/docs"`, "Change greeting", "Add code files",
			"<h1", "Hello Cairn", "<strong>bold</strong>", s.URL+"alice/code.git", "Go", "Rust", `class="lang-bar"`,
			"&lt;script&gt;x.txt", "Branch: <strong>main</strong>", "feature/x", "v1.0")
		// The README's script is removed by the sanitizer; the file name is escaped.
		if strings.Contains(p.Body, "<script>") {
			t.Fatalf("unescaped script on the home page: %s", p.Body)
		}
		// Each entry shows its own last commit: README.md and main.go differ.
		row := regexp.MustCompile(`(?s)<td class="entry file"><a href="/alice/code/src/branch/main/main.go">main.go</a></td>\s*<td><a class="muted" href="/alice/code/commit/([0-9a-f]+)">Change greeting</a>`)
		if m := row.FindStringSubmatch(p.Body); m == nil || m[1] != changed {
			t.Fatalf("main.go's last commit is not %s: %s", changed, p.Body)
		}
		if !regexp.MustCompile(`(?s)README.md</a></td>\s*<td><a class="muted" href="/alice/code/commit/[0-9a-f]+">Add code files</a>`).MatchString(p.Body) {
			t.Fatalf("README.md's last commit: %s", p.Body)
		}
		// The newest commit of the tree heads the listing.
		if !strings.Contains(p.Body, `<div class="latest-commit row"><a class="mono" href="/alice/code/commit/`+changed+`">`) {
			t.Fatalf("latest commit is not %s: %s", changed, p.Body)
		}
		// Warm (cached) answer is the same page.
		again := w.Get("alice/code")
		if again.Status != http.StatusOK || !strings.Contains(again.Body, "Change greeting") {
			t.Fatalf("warm home: %d", again.Status)
		}
		r := w.Get("alice/code.git")
		if r.Status != http.StatusMovedPermanently || r.Location != "/alice/code" {
			t.Fatalf("/alice/code.git: %d %q", r.Status, r.Location)
		}
	})

	t.Run("directories", func(t *testing.T) {
		w.Get("alice/code/src/branch/main/docs").MustContain(t, http.StatusOK, "guide.md", "Add code files", `<a href="/alice/code/src/branch/main">code</a>`)
		w.Get("alice/code/src/branch/main/sub/dir").MustContain(t, http.StatusOK, "deep.rs", `<a href="/alice/code/src/branch/main/sub">sub</a>`)
		w.Get("alice/code/src/branch/main/nope").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/src/branch/nope/main.go").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/src/branch/main/.git/config").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/src/branch/main/%2e%2e/%2e%2e/x").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/src/commit/"+changed+"/docs").MustContain(t, http.StatusOK, "guide.md")
		w.Get("alice/code/src/commit/"+changed[:10]).MustContain(t, http.StatusOK, "main.go", "Commit: <strong>"+changed[:10]+"</strong>")
		w.Get("alice/code/src/tag/v1.0").MustContain(t, http.StatusOK, "main.go", "Tag: <strong>v1.0</strong>")
		// Legacy addresses redirect to the ones that say the kind.
		if p := w.Get("alice/code/src/main/docs"); p.Status != http.StatusMovedPermanently || p.Location != "/alice/code/src/branch/main/docs" {
			t.Fatalf("legacy src: %d %q", p.Status, p.Location)
		}
		if p := w.Get("alice/code/src/v1.0/main.go"); p.Status != http.StatusMovedPermanently || p.Location != "/alice/code/src/tag/v1.0/main.go" {
			t.Fatalf("legacy tag: %d %q", p.Status, p.Location)
		}
	})

	t.Run("files", func(t *testing.T) {
		p := w.Get("alice/code/src/branch/main/main.go")
		p.MustContain(t, http.StatusOK, `<tr id="L1"><td class="num"><a href="#L1">1</a></td>`, `<span class="kd">func</span>`,
			`<span class="kn">package</span>`, `hello, world`, "7 lines", "Change greeting", `href="/alice/code/raw/branch/main/main.go"`,
			`href="/alice/code/blame/branch/main/main.go"`)
		w.Get("alice/code/src/branch/main/sub/dir/deep.rs").MustContain(t, http.StatusOK, `<span class="k">fn</span>`)
		// Markdown is rendered, with a link to the source, which has lines.
		md := w.Get("alice/code/src/branch/main/docs/guide.md")
		md.MustContain(t, http.StatusOK, "The Guide</h1>", "<em>this</em>", `href="/alice/code/src/branch/main/docs/guide.md?display=source"`)
		w.Get("alice/code/src/branch/main/docs/guide.md?display=source").MustContain(t, http.StatusOK, `id="L3"`, "*this*", "Rendered")
		w.Get("alice/code/src/branch/main/img/logo.png").MustContain(t, http.StatusOK, `<img src="/alice/code/raw/branch/main/img/logo.png"`)
		w.Get("alice/code/src/branch/main/bin/data.bin").MustContain(t, http.StatusOK, "This is a binary file", `href="/alice/code/raw/branch/main/bin/data.bin"`)
		html := w.Get("alice/code/src/branch/main/page.html")
		html.MustContain(t, http.StatusOK, "cookie", `class="nt"`)
		if strings.Contains(html.Body, "<script>alert") {
			t.Fatal("page.html's script is on the page")
		}
		w.Get("alice/code/src/branch/main/%3Cscript%3Ex.txt").MustContain(t, http.StatusOK, "&lt;script&gt;x.txt", "escaped name")
	})

	t.Run("raw", func(t *testing.T) {
		for _, tc := range []struct{ path, file, typ string }{
			{"raw/branch/main/main.go", "", "text/plain; charset=utf-8"},
			{"raw/branch/main/img/logo.png", "img/logo.png", "image/png"},
			{"media/branch/main/img/logo.png", "img/logo.png", "image/png"},
			{"raw/branch/main/bin/data.bin", "bin/data.bin", "application/octet-stream"},
			{"raw/branch/main/page.html", "page.html", "text/plain; charset=utf-8"},
			{"raw/tag/v1.0/notes/plain.txt", "notes/plain.txt", "text/plain; charset=utf-8"},
			{"raw/commit/" + changed + "/docs/guide.md", "docs/guide.md", "text/plain; charset=utf-8"},
		} {
			p := w.Get("alice/code/" + tc.path)
			if p.Status != http.StatusOK {
				t.Fatalf("%s: %d", tc.path, p.Status)
			}
			want := strings.Replace(webCodeFiles["main.go"], `"hello"`, `"hello, world"`, 1)
			if tc.file != "" {
				want = webCodeFiles[tc.file]
			}
			if p.Body != want {
				t.Errorf("%s: %q, want %q", tc.path, p.Body, want)
			}
			if got := p.Header.Get("Content-Type"); got != tc.typ {
				t.Errorf("%s: Content-Type %q, want %q", tc.path, got, tc.typ)
			}
			if csp := p.Header.Get("Content-Security-Policy"); csp != "default-src 'none'; sandbox" || p.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: CSP %q, nosniff %q", tc.path, csp, p.Header.Get("X-Content-Type-Options"))
			}
		}
		if cd := w.Get("alice/code/raw/branch/main/bin/data.bin").Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") {
			t.Errorf("binary download: %q", cd)
		}
		w.Get("alice/code/raw/branch/main/docs").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/raw/branch/main/none.txt").MustContain(t, http.StatusNotFound)
		if p := w.Get("alice/code/raw/main/main.go"); p.Status != http.StatusMovedPermanently || p.Location != "/alice/code/raw/branch/main/main.go" {
			t.Errorf("legacy raw: %d %q", p.Status, p.Location)
		}
	})

	t.Run("blame", func(t *testing.T) {
		p := w.Get("alice/code/blame/branch/main/main.go")
		p.MustContain(t, http.StatusOK, `<span class="blame-author">Local</span>`, "Change greeting", "Add code files",
			`href="/alice/code/commit/`+changed+`"`, `<span class="kd">func</span>`, `id="L7"`)
		w.Get("alice/code/blame/branch/main/bin/data.bin").MustContain(t, http.StatusOK, "binary file")
		w.Get("alice/code/blame/branch/main/docs").MustContain(t, http.StatusNotFound)
	})

	t.Run("history", func(t *testing.T) {
		p := w.Get("alice/code/commits/branch/main")
		p.MustContain(t, http.StatusOK, "3 commits", "Change greeting", "Add code files", "Initial commit")
		file := w.Get("alice/code/commits/branch/main/main.go")
		file.MustContain(t, http.StatusOK, "2 commits", "Change greeting", "Add code files")
		if strings.Contains(file.Body, "Initial commit") {
			t.Error("the history of main.go lists the initial commit")
		}
		first := w.Get("alice/code/commits/branch/many")
		first.MustContain(t, http.StatusOK, "58 commits", "empty number 55.", "Page 1 of 2", `href="/alice/code/commits/branch/many?page=2"`)
		if strings.Contains(first.Body, "empty number 5.") {
			t.Error("page 1 lists an old commit")
		}
		second := w.Get("alice/code/commits/branch/many?page=2")
		second.MustContain(t, http.StatusOK, "empty number 5.", "Initial commit", "Page 2 of 2")
		if strings.Contains(second.Body, "empty number 55.") {
			t.Error("page 2 lists a new commit")
		}
		w.Get("alice/code/commits/tag/v1.0").MustContain(t, http.StatusOK, "Change greeting")
		w.Get("alice/code/commits/branch/main/nothing-here").MustContain(t, http.StatusNotFound)
	})

	t.Run("commit", func(t *testing.T) {
		p := w.Get("alice/code/commit/" + changed)
		p.MustContain(t, http.StatusOK, "Change greeting", "A longer explanation.", "Local", changed,
			"1 changed file with", "1 additions", "1 deletions", `class="del"`, `class="add"`,
			"-\tfmt.Println(&#34;hello&#34;)", "&#43;\tfmt.Println(&#34;hello, world&#34;)", "@@ -3,5 &#43;3,5 @@ package main",
			`href="/alice/code/commit/`+changed+`.diff"`)
		split := w.Get("alice/code/commit/" + changed[:12] + "?style=split")
		split.MustContain(t, http.StatusOK, `class="code diff split"`, `class="line del"`, `class="line add"`)
		diff := w.Get("alice/code/commit/" + changed + ".diff")
		if diff.Status != http.StatusOK || !strings.HasPrefix(diff.Body, "diff --git a/main.go b/main.go\n") ||
			!strings.Contains(diff.Body, "+\tfmt.Println(\"hello, world\")\n") || !strings.HasPrefix(diff.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf(".diff: %d %q", diff.Status, diff.Body)
		}
		patch := w.Get("alice/code/commit/" + changed + ".patch")
		if patch.Status != http.StatusOK || !strings.HasPrefix(patch.Body, "From "+changed) || !strings.Contains(patch.Body, "Subject: [PATCH] Change greeting") {
			t.Fatalf(".patch: %d %q", patch.Status, patch.Body)
		}
		// The first commit of the files: additions of new files, the binary one not shown.
		parent := strings.TrimSpace(contentsGit(t, work, "rev-parse", changed+"^"))
		w.Get("alice/code/commit/"+parent).MustContain(t, http.StatusOK, "&lt;script&gt;x.txt", `class="badge diff-added"`,
			"Binary file not shown.", "&#43;escaped name")
		w.Get("alice/code/commit/"+strings.Repeat("0", 40)).MustContain(t, http.StatusNotFound)
		w.Get("alice/code/commit/main").MustContain(t, http.StatusNotFound)
	})

	t.Run("branch with a slash", func(t *testing.T) {
		w.Get("alice/code/src/branch/feature/x").MustContain(t, http.StatusOK, "feature.txt", "Branch: <strong>feature/x</strong>")
		w.Get("alice/code/src/branch/feature/x/feature.txt").MustContain(t, http.StatusOK, "feature.txt", ">feature</td>")
		if p := w.Get("alice/code/raw/branch/feature/x/feature.txt"); p.Status != http.StatusOK || p.Body != "feature\n" {
			t.Fatalf("raw on feature/x: %d %q", p.Status, p.Body)
		}
		w.Get("alice/code/commits/branch/feature/x").MustContain(t, http.StatusOK, "Feature work", "4 commits")
	})

	t.Run("branches and tags", func(t *testing.T) {
		// The counts of commits ahead finish in the background when they
		// take longer than the page waits: a later visit shows them.
		p := w.Get("alice/code/branches")
		for i := 0; i < 50 && !(strings.Contains(p.Body, "1 ahead") && strings.Contains(p.Body, "55 ahead")); i++ {
			time.Sleep(100 * time.Millisecond)
			p = w.Get("alice/code/branches")
		}
		p.MustContain(t, http.StatusOK, "3 branches", `href="/alice/code/src/branch/feature/x"`, "feature/x", "default", "Feature work",
			"1 ahead", "55 ahead", `href="/alice/code/compare/main...feature/x"`)
		tags := w.Get("alice/code/tags")
		tags.MustContain(t, http.StatusOK, "1 tag", "v1.0", "Version one", "Change greeting", `href="/alice/code/archive/v1.0.zip"`)
	})

	t.Run("compare", func(t *testing.T) {
		p := w.Get("alice/code/compare/main...feature/x")
		p.MustContain(t, http.StatusOK, "1 commit", "Feature work", "feature.txt", "&#43;feature", `class="badge diff-added"`)
		w.Get("alice/code/compare/main...main").MustContain(t, http.StatusOK, "These branches are equal")
		w.Get("alice/code/compare/feature/x...main").MustContain(t, http.StatusOK, "These branches are equal")
		w.Get("alice/code/compare/main...nope").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/compare/someone:main...feature/x").MustContain(t, http.StatusNotFound)
	})

	t.Run("archives", func(t *testing.T) {
		p := w.Get("alice/code/archive/main.zip")
		if p.Status != http.StatusOK || p.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("zip: %d %v", p.Status, p.Header)
		}
		zr, err := zip.NewReader(bytes.NewReader([]byte(p.Body)), int64(len(p.Body)))
		if err != nil {
			t.Fatalf("zip: %v", err)
		}
		found := false
		for _, f := range zr.File {
			if f.Name == "code/main.go" {
				rc, _ := f.Open()
				b, _ := io.ReadAll(rc)
				rc.Close()
				found = strings.Contains(string(b), "hello, world")
			}
		}
		if !found {
			t.Fatal("the zip has no code/main.go with the new greeting")
		}
		tgz := w.Get("alice/code/archive/feature/x.tar.gz")
		if tgz.Status != http.StatusOK || !strings.Contains(tgz.Header.Get("Content-Disposition"), "code-feature-x.tar.gz") {
			t.Fatalf("tar.gz: %d %v", tgz.Status, tgz.Header)
		}
		if _, err := gzip.NewReader(bytes.NewReader([]byte(tgz.Body))); err != nil {
			t.Fatalf("tar.gz: %v", err)
		}
		w.Get("alice/code/archive/nope.zip").MustContain(t, http.StatusNotFound)
		w.Get("alice/code/archive/main.rar").MustContain(t, http.StatusNotFound)
	})
}

// TestWebCodeEmptyRepository shows the clone instructions of a repository
// without commits.
func TestWebCodeEmptyRepository(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "blank", false, false)
	w := s.Web(t)
	w.Get("alice/blank").MustContain(t, http.StatusOK, "This repository is empty", "git remote add origin "+s.URL+"alice/blank.git")
	w.Get("alice/blank/src/branch/main").MustContain(t, http.StatusNotFound)
	w.Get("alice/blank/branches").MustContain(t, http.StatusOK, "0 branches")
}

// TestWebCodePermissions: a private repository's code pages answer 404 to
// a signed-out visitor and to a stranger, 200 to its owner and to a
// collaborator; a public repository's to everyone.
func TestWebCodePermissions(t *testing.T) {
	s := StartServer(t)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	contentsRepo(t, s, alice, "secret", true, true)
	contentsRepo(t, s, alice, "open", false, true)
	if r := s.API("PUT", "repos/alice/secret/collaborators/carol", alice.Token, map[string]any{"permission": "read"}); r.Status != http.StatusNoContent {
		t.Fatalf("add collaborator: %d %s", r.Status, r.Body)
	}
	_, secretSHA := webCodeRepo(t, s, alice, "secret")
	sha := strings.TrimSpace(secretSHA)

	pages := func(repo string) []string {
		base := "alice/" + repo
		return []string{base, base + "/src/branch/main", base + "/src/branch/main/main.go", base + "/raw/branch/main/main.go",
			base + "/media/branch/main/main.go", base + "/blame/branch/main/main.go", base + "/commits/branch/main",
			base + "/branches", base + "/tags", base + "/compare/main...feature/x", base + "/archive/main.zip"}
	}
	secretPages := append(pages("secret"), "alice/secret/commit/"+sha, "alice/secret/commit/"+sha+".diff",
		"alice/secret/commit/"+sha+".patch", "alice/secret/src/main/main.go")

	anon := s.Web(t)
	stranger := s.Web(t)
	stranger.SignIn(bob.Name, bob.Password)
	owner := s.Web(t)
	owner.SignIn(alice.Name, alice.Password)
	collab := s.Web(t)
	collab.SignIn(carol.Name, carol.Password)

	for _, path := range secretPages {
		for who, w := range map[string]*Web{"signed out": anon, "stranger": stranger} {
			p := w.Get(path)
			if p.Status != http.StatusNotFound {
				t.Errorf("%s on %s: %d, want 404", who, path, p.Status)
			}
			if strings.Contains(p.Body, "package main") || strings.Contains(p.Body, "Change greeting") {
				t.Errorf("%s on %s: the page leaks the repository's content", who, path)
			}
		}
		want := http.StatusOK
		if strings.HasSuffix(path, "/src/main/main.go") {
			want = http.StatusMovedPermanently
		}
		for who, w := range map[string]*Web{"owner": owner, "collaborator": collab} {
			if p := w.Get(path); p.Status != want {
				t.Errorf("%s on %s: %d, want %d", who, path, p.Status, want)
			}
		}
	}
	for _, path := range []string{"alice/open", "alice/open/src/branch/main/README.md", "alice/open/raw/branch/main/README.md",
		"alice/open/commits/branch/main", "alice/open/branches", "alice/open/tags"} {
		for who, w := range map[string]*Web{"signed out": anon, "stranger": stranger, "owner": owner} {
			if p := w.Get(path); p.Status != http.StatusOK {
				t.Errorf("%s on %s: %d, want 200", who, path, p.Status)
			}
		}
	}
}

// TestWebCodeBrowser loads the code pages in a real browser: they render
// with the stylesheet (no inline styles or scripts refused by the CSP) and
// pass axe-core's checks.
func TestWebCodeBrowser(t *testing.T) {
	ctx := NewBrowser(t)
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "code", false, true)
	_, changed := webCodeRepo(t, s, alice, "code")
	for _, pg := range []struct{ name, path, ready string }{
		{"home", "alice/code", "table.files"},
		{"file", "alice/code/src/branch/main/main.go", "table.code.hl"},
		{"markdown", "alice/code/src/branch/main/docs/guide.md", ".file-view .markdown"},
		{"blame", "alice/code/blame/branch/main/main.go", "table.blame"},
		{"commits", "alice/code/commits/branch/many", "table.commits"},
		{"commit", "alice/code/commit/" + changed, "table.diff"},
		{"commit split", "alice/code/commit/" + changed + "?style=split", "table.diff.split"},
		{"branches", "alice/code/branches", "table.branches"},
		{"tags", "alice/code/tags", "table.tags"},
		{"compare", "alice/code/compare/main...feature/x", "table.diff"},
	} {
		Do(t, ctx, pg.name, chromedp.Navigate(s.URL+pg.path), chromedp.WaitVisible(chromedp.CSS(pg.ready)))
		Screenshot(t, ctx, pg.name)
		CheckAccessibility(t, ctx, pg.name+" page")
	}
	// The highlighting comes from the stylesheet: a keyword is colored.
	Do(t, ctx, "file again", chromedp.Navigate(s.URL+"alice/code/src/branch/main/main.go"), chromedp.WaitVisible(chromedp.CSS("table.code.hl")))
	color, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("table.hl span.kd")).color`))
	if err != nil || color == "" || color == "rgb(31, 35, 40)" {
		t.Fatalf("a keyword's color: %q %v", color, err)
	}
}

package e2e

import (
	"bytes"
	"encoding/base64"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var editorLastCommit = regexp.MustCompile(`name="last_commit" value="([0-9a-f]*)"`)

// editorLast is the last_commit field of an editor form page.
func editorLast(t *testing.T, p *Page) string {
	t.Helper()
	m := editorLastCommit.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no last_commit field: %.2000s", p.Body)
	}
	return m[1]
}

// editorContent reads path on ref through the contents API; ok is false
// when the file does not exist.
func editorContent(t *testing.T, s *Server, tok, repo, path, ref string) (string, bool) {
	t.Helper()
	r := s.API("GET", "repos/"+repo+"/contents/"+path+"?ref="+url.QueryEscape(ref), tok, nil)
	if r.Status == http.StatusNotFound {
		return "", false
	}
	if r.Status != http.StatusOK {
		t.Fatalf("contents %s: %d %s", path, r.Status, r.Body)
	}
	var c struct {
		Content string `json:"content"`
	}
	r.Decode(t, &c)
	b, err := base64.StdEncoding.DecodeString(c.Content)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// editorBranchTip is the commit of a branch, from the API.
func editorBranchTip(t *testing.T, s *Server, tok, repo, branch string) string {
	t.Helper()
	var b struct {
		Commit struct {
			ID string `json:"id"`
		} `json:"commit"`
	}
	r := s.API("GET", "repos/"+repo+"/branches/"+branch, tok, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("branch %s: %d %s", branch, r.Status, r.Body)
	}
	r.Decode(t, &b)
	return b.Commit.ID
}

// editorUpload posts a multipart form with the files in the field "files",
// with the CSRF token of the last page w loaded.
func editorUpload(t *testing.T, w *Web, path string, fields url.Values, files map[string]string) *Page {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if fields.Get("_csrf") == "" {
		fields.Set("_csrf", w.csrf)
	}
	for k, vs := range fields {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	// The files go in name order, as a browser sends them in the order
	// chosen: the default summary lists them in that order.
	for _, name := range slices.Sorted(maps.Keys(files)) {
		content := files[name]
		fw, err := mw.CreateFormFile("files", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write([]byte(content))
	}
	_ = mw.Close()
	req, err := http.NewRequest("POST", w.s.URL+strings.TrimPrefix(path, "/"), &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return w.do(req)
}

// editorClone clones owner/name and returns the work tree.
func editorClone(t *testing.T, s *Server, u *User, owner, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	contentsGit(t, filepath.Dir(dir), "clone", "-q", contentsCloneURL(s, u, owner, name), dir)
	return dir
}

// TestWebEditorFiles creates, edits, renames, deletes and uploads files
// through the forms, and checks each result through the contents API and a
// clone; names and contents are escaped on the pages.
func TestWebEditorFiles(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)

	// The directory view offers the forms to a writer.
	w.Get("alice/proj/src/branch/main").MustContain(t, http.StatusOK,
		`href="/alice/proj/_new/main">New file</a>`, `href="/alice/proj/_upload/main">Upload files</a>`)

	// Create.
	form := w.Get("alice/proj/_new/main")
	form.MustContain(t, http.StatusOK, "New file", `name="tree_path"`, `name="content"`, `name="commit_summary"`,
		`value="commit-to-new-branch"`, `name="new_branch_name" class="mono" value="alice-patch-1"`)
	tip := editorBranchTip(t, s, alice.Token, "alice/proj", "main")
	if got := editorLast(t, form); got != tip {
		t.Fatalf("last_commit = %q, want %q", got, tip)
	}
	p := w.Post("alice/proj/_new/main", url.Values{"tree_path": {"docs/hello.txt"}, "content": {"Hello\r\nworld\r\n"},
		"commit_summary": {"Add a greeting"}, "commit_message": {"With a longer\r\nexplanation."},
		"commit_choice": {"direct"}, "last_commit": {tip}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/src/branch/main/docs/hello.txt" {
		t.Fatalf("create: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if got, ok := editorContent(t, s, alice.Token, "alice/proj", "docs/hello.txt", "main"); !ok || got != "Hello\nworld\n" {
		t.Fatalf("created content = %q, %v", got, ok)
	}
	view := w.Get("alice/proj/src/branch/main/docs/hello.txt")
	view.MustContain(t, http.StatusOK, "Your change was committed to main.",
		`href="/alice/proj/_edit/main/docs/hello.txt">Edit</a>`, `href="/alice/proj/_delete/main/docs/hello.txt">Delete</a>`)
	w.Get("alice/proj/src/branch/main/docs").MustContain(t, http.StatusOK, `href="/alice/proj/_new/main/docs">New file</a>`)

	// Edit: the text area holds the file.
	form = w.Get("alice/proj/_edit/main/docs/hello.txt")
	form.MustContain(t, http.StatusOK, "Edit", `value="docs/hello.txt"`, ">\nHello\nworld\n</textarea>")
	p = w.Post("alice/proj/_edit/main/docs/hello.txt", url.Values{"tree_path": {"docs/hello.txt"}, "content": {"Hello\r\nthere <script>\r\n"},
		"commit_choice": {"direct"}, "last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/src/branch/main/docs/hello.txt" {
		t.Fatalf("edit: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "docs/hello.txt", "main"); got != "Hello\nthere <script>\n" {
		t.Fatalf("edited content = %q", got)
	}
	form = w.Get("alice/proj/_edit/main/docs/hello.txt")
	form.MustContain(t, http.StatusOK, "there &lt;script&gt;")
	if strings.Contains(form.Body, "there <script>") {
		t.Fatal("file content not escaped in the text area")
	}
	// Nothing changed: refused on the form.
	w.Post("alice/proj/_edit/main/docs/hello.txt", url.Values{"tree_path": {"docs/hello.txt"}, "content": {"Hello\r\nthere <script>\r\n"},
		"commit_choice": {"direct"}, "last_commit": {editorLast(t, form)}}).
		MustContain(t, http.StatusUnprocessableEntity, "The file is unchanged")
	// Rename with a new path.
	p = w.Post("alice/proj/_edit/main/docs/hello.txt", url.Values{"tree_path": {"docs/renamed.txt"}, "content": {"Renamed\r\n"},
		"commit_choice": {"direct"}, "last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/src/branch/main/docs/renamed.txt" {
		t.Fatalf("rename: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if _, ok := editorContent(t, s, alice.Token, "alice/proj", "docs/hello.txt", "main"); ok {
		t.Fatal("the old path still exists after the rename")
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "docs/renamed.txt", "main"); got != "Renamed\n" {
		t.Fatalf("renamed content = %q", got)
	}

	// Binary and missing files are not edited.
	w.Get("alice/proj/_edit/main/docs/missing.txt").MustContain(t, http.StatusNotFound)
	w.Get("alice/proj/_edit/main/docs").MustContain(t, http.StatusNotFound)
	w.Get("alice/proj/_edit/nobranch/README.md").MustContain(t, http.StatusNotFound)

	// Upload two files into docs/ and replace README.md at the root.
	form = w.Get("alice/proj/_upload/main/docs")
	form.MustContain(t, http.StatusOK, "Upload files", `enctype="multipart/form-data"`, `name="files"`)
	p = editorUpload(t, w, "alice/proj/_upload/main/docs", url.Values{"commit_choice": {"direct"}, "last_commit": {editorLast(t, form)}},
		map[string]string{"a.txt": "file a\n", "b.bin": "\x00\x01binary\xff"})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/src/branch/main/docs" {
		t.Fatalf("upload: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "docs/a.txt", "main"); got != "file a\n" {
		t.Fatalf("uploaded a.txt = %q", got)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "docs/b.bin", "main"); got != "\x00\x01binary\xff" {
		t.Fatalf("uploaded b.bin = %q", got)
	}
	w.Get("alice/proj/_edit/main/docs/b.bin").MustContain(t, http.StatusUnprocessableEntity, "binary file")
	form = w.Get("alice/proj/_upload/main")
	p = editorUpload(t, w, "alice/proj/_upload/main", url.Values{"commit_summary": {"Replace the README"}, "commit_choice": {"direct"},
		"last_commit": {editorLast(t, form)}}, map[string]string{"README.md": "# Replaced\n"})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("upload over README.md: %d %.1500s", p.Status, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "README.md", "main"); got != "# Replaced\n" {
		t.Fatalf("replaced README.md = %q", got)
	}
	// No file: refused, nothing committed.
	form = w.Get("alice/proj/_upload/main")
	before := editorBranchTip(t, s, alice.Token, "alice/proj", "main")
	editorUpload(t, w, "alice/proj/_upload/main", url.Values{"commit_choice": {"direct"}, "last_commit": {editorLast(t, form)}}, nil).
		MustContain(t, http.StatusUnprocessableEntity, "Choose at least one file")
	if editorBranchTip(t, s, alice.Token, "alice/proj", "main") != before {
		t.Fatal("a refused upload moved the branch")
	}

	// Delete: docs/renamed.txt, then the directory view is shown.
	w.Get("alice/proj/_delete/main/docs/renamed.txt").MustContain(t, http.StatusOK, "Delete", "docs/renamed.txt", "Delete file")
	p = w.Post("alice/proj/_delete/main/docs/renamed.txt", url.Values{"commit_summary": {"Remove renamed"},
		"commit_choice": {"direct"}, "last_commit": {editorBranchTip(t, s, alice.Token, "alice/proj", "main")}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/src/branch/main/docs" {
		t.Fatalf("delete: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if _, ok := editorContent(t, s, alice.Token, "alice/proj", "docs/renamed.txt", "main"); ok {
		t.Fatal("deleted file still exists")
	}

	// An escaped file name.
	form = w.Get("alice/proj/_new/main")
	p = w.Post("alice/proj/_new/main", url.Values{"tree_path": {"<b>x</b>.txt"}, "content": {"<i>tag</i>\n"},
		"commit_choice": {"direct"}, "last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("create <b>x</b>.txt: %d %.1500s", p.Status, p.Body)
	}
	escaped := w.Get(strings.TrimPrefix(p.Location, "/"))
	escaped.MustContain(t, http.StatusOK, "&lt;b&gt;x&lt;/b&gt;.txt", "_edit/main/%3Cb%3Ex%3C/b%3E.txt")
	for _, page := range []*Page{escaped, w.Get("alice/proj/_edit/main/%3Cb%3Ex%3C/b%3E.txt"), w.Get("alice/proj/_delete/main/%3Cb%3Ex%3C/b%3E.txt")} {
		page.MustContain(t, http.StatusOK, "&lt;b&gt;x&lt;/b&gt;.txt")
		if strings.Contains(page.Body, "<b>x</b>") || strings.Contains(page.Body, "<i>tag</i>") {
			t.Fatalf("unescaped name or content: %.3000s", page.Body)
		}
	}
	// A name that is no valid path is refused on the form.
	form = w.Get("alice/proj/_new/main")
	w.Post("alice/proj/_new/main", url.Values{"tree_path": {".git/config"}, "content": {"x"}, "commit_choice": {"direct"},
		"last_commit": {editorLast(t, form)}}).MustContain(t, http.StatusUnprocessableEntity, "malformed path")
	w.Post("alice/proj/_new/main", url.Values{"tree_path": {"README.md"}, "content": {"again"}, "commit_choice": {"direct"},
		"last_commit": {editorLast(t, form)}}).MustContain(t, http.StatusUnprocessableEntity, "README.md already exists", ">\nagain</textarea>")

	// The clone has it all, with the messages and the author.
	work := editorClone(t, s, alice, "alice", "proj")
	for name, want := range map[string]string{"docs/a.txt": "file a\n", "README.md": "# Replaced\n", "<b>x</b>.txt": "<i>tag</i>\n"} {
		got, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Fatalf("clone %s = %q, %v", name, got, err)
		}
	}
	for _, gone := range []string{"docs/hello.txt", "docs/renamed.txt"} {
		if _, err := os.Stat(filepath.Join(work, filepath.FromSlash(gone))); !os.IsNotExist(err) {
			t.Fatalf("%s exists in the clone", gone)
		}
	}
	log := contentsGit(t, work, "log", "--format=%an|%s|%b")
	for _, want := range []string{"alice|Add a greeting|With a longer\nexplanation.", "alice|Update docs/hello.txt|",
		"alice|Rename docs/hello.txt to docs/renamed.txt|", "alice|Add docs/a.txt, docs/b.bin|", "alice|Replace the README|", "alice|Remove renamed|"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %q:\n%s", want, log)
		}
	}

	// The first file of an empty repository.
	contentsRepo(t, s, alice, "empty", false, false)
	w.Get("alice/empty").MustContain(t, http.StatusOK, `href="/alice/empty/_new/main">New file</a>`)
	form = w.Get("alice/empty/_new/main")
	form.MustContain(t, http.StatusOK, "New file")
	if strings.Contains(form.Body, "commit-to-new-branch") {
		t.Fatal("an empty repository offers a new branch")
	}
	p = w.Post("alice/empty/_new/main", url.Values{"tree_path": {"first.txt"}, "content": {"first\n"}, "commit_choice": {"direct"},
		"last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/empty/src/branch/main/first.txt" {
		t.Fatalf("first file: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/empty", "first.txt", "main"); got != "first\n" {
		t.Fatalf("first file = %q", got)
	}
	w.Get("alice/empty").MustContain(t, http.StatusOK, "first.txt")
}

// TestWebEditorNewBranchAndStale commits to a new branch (and lands on the
// comparison), and refuses a change to a file that changed since the form
// was opened without changing anything.
func TestWebEditorNewBranchAndStale(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	mustStatus(t, s.API("POST", "repos/alice/proj/contents/notes.txt", alice.Token, map[string]any{"content": b64("one\n")}),
		http.StatusCreated, "notes.txt")
	mainTip := editorBranchTip(t, s, alice.Token, "alice/proj", "main")

	form := w.Get("alice/proj/_edit/main/notes.txt")
	form.MustContain(t, http.StatusOK, `value="alice-patch-1"`)
	p := w.Post("alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"two\n"},
		"commit_summary": {"Propose two"}, "commit_choice": {"commit-to-new-branch"}, "new_branch_name": {"alice-patch-1"},
		"last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/compare/main...alice-patch-1" {
		t.Fatalf("new branch: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "notes.txt", "alice-patch-1"); got != "two\n" {
		t.Fatalf("new branch content = %q", got)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "notes.txt", "main"); got != "one\n" {
		t.Fatalf("main changed: %q", got)
	}
	if editorBranchTip(t, s, alice.Token, "alice/proj", "main") != mainTip {
		t.Fatal("main moved")
	}
	w.Get(strings.TrimPrefix(p.Location, "/")).MustContain(t, http.StatusOK, "Propose two", "notes.txt")
	// The next suggestion skips the taken name; a taken name is refused.
	form = w.Get("alice/proj/_edit/main/notes.txt")
	form.MustContain(t, http.StatusOK, `value="alice-patch-2"`)
	w.Post("alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"three\n"},
		"commit_choice": {"commit-to-new-branch"}, "new_branch_name": {"alice-patch-1"}, "last_commit": {editorLast(t, form)}}).
		MustContain(t, http.StatusUnprocessableEntity, "branch already exists", ">\nthree\n</textarea>")
	// A new branch name with a slash works in the addresses too.
	p = w.Post("alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"four\n"},
		"commit_choice": {"commit-to-new-branch"}, "new_branch_name": {"fix/four"}, "last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/compare/main...fix/four" {
		t.Fatalf("new branch fix/four: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	w.Get("alice/proj/_edit/fix/four/notes.txt").MustContain(t, http.StatusOK, "on branch fix/four", ">\nfour\n</textarea>")

	// Stale: the file changes (through the API) after the form was opened.
	form = w.Get("alice/proj/_edit/main/notes.txt")
	opened := editorLast(t, form)
	var cur struct {
		SHA string `json:"sha"`
	}
	s.API("GET", "repos/alice/proj/contents/notes.txt", alice.Token, nil).Decode(t, &cur)
	mustStatus(t, s.API("PUT", "repos/alice/proj/contents/notes.txt", alice.Token, map[string]any{"content": b64("api\n"), "sha": cur.SHA}),
		http.StatusOK, "API update")
	moved := editorBranchTip(t, s, alice.Token, "alice/proj", "main")
	for _, post := range []struct {
		path string
		form url.Values
	}{
		{"alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"my words\n"}, "commit_choice": {"direct"}, "last_commit": {opened}}},
		{"alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"my words\n"}, "commit_choice": {"commit-to-new-branch"},
			"new_branch_name": {"stale-branch"}, "last_commit": {opened}}},
		{"alice/proj/_delete/main/notes.txt", url.Values{"commit_choice": {"direct"}, "last_commit": {opened}}},
	} {
		p := w.Post(post.path, post.form)
		p.MustContain(t, http.StatusConflict, "has changed since you opened it")
		if post.form.Get("content") != "" && !strings.Contains(p.Body, ">\nmy words\n</textarea>") {
			t.Fatalf("the text was not kept: %.3000s", p.Body)
		}
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "notes.txt", "main"); got != "api\n" {
		t.Fatalf("a stale edit changed the file: %q", got)
	}
	if editorBranchTip(t, s, alice.Token, "alice/proj", "main") != moved {
		t.Fatal("a stale edit moved main")
	}
	if r := s.API("GET", "repos/alice/proj/branches/stale-branch", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("stale-branch was created: %d", r.Status)
	}
	// A change to another file since opening does not block the edit.
	form = w.Get("alice/proj/_edit/main/notes.txt")
	opened = editorLast(t, form)
	mustStatus(t, s.API("POST", "repos/alice/proj/contents/other.txt", alice.Token, map[string]any{"content": b64("other\n")}),
		http.StatusCreated, "other.txt")
	p = w.Post("alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"mine\n"}, "commit_choice": {"direct"}, "last_commit": {opened}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("edit after an unrelated change: %d %.1500s", p.Status, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "notes.txt", "main"); got != "mine\n" {
		t.Fatalf("notes.txt = %q", got)
	}
	if got, ok := editorContent(t, s, alice.Token, "alice/proj", "other.txt", "main"); !ok || got != "other\n" {
		t.Fatalf("other.txt = %q %v", got, ok)
	}
	// A forged last_commit is refused.
	w.Post("alice/proj/_edit/main/notes.txt", url.Values{"tree_path": {"notes.txt"}, "content": {"x\n"}, "commit_choice": {"direct"},
		"last_commit": {strings.Repeat("ab", 20)}}).MustContain(t, http.StatusUnprocessableEntity, "is unknown")
}

// TestWebEditorPermissions: only writers of the code may change files; a
// reader gets 403, a stranger (or a signed-out visitor) 404 on a private
// repository; archived repositories refuse everyone.
func TestWebEditorPermissions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	dave := s.CreateUser("dave")
	createRepo(t, s, alice, "secret", true)
	createRepo(t, s, alice, "open", false)
	for _, repo := range []string{"secret", "open"} {
		addCollaborator(t, s, alice, repo, "bob", "read")
		addCollaborator(t, s, alice, repo, "dave", "write")
	}
	tip := editorBranchTip(t, s, alice.Token, "alice/secret", "main")

	bw := s.Web(t)
	bw.SignIn(bob.Name, bob.Password)
	cw := s.Web(t)
	cw.SignIn(carol.Name, carol.Password)
	anon := s.Web(t)
	pages := []string{"_new/main", "_edit/main/README.md", "_delete/main/README.md", "_upload/main"}

	// The file view offers no edit link to a reader.
	view := bw.Get("alice/secret/src/branch/main/README.md")
	view.MustContain(t, http.StatusOK, "README.md")
	if strings.Contains(view.Body, "/_edit/") || strings.Contains(view.Body, "/_delete/") {
		t.Fatalf("a reader sees edit links: %.2000s", view.Body)
	}
	if d := bw.Get("alice/secret/src/branch/main"); strings.Contains(d.Body, "/_new/") || strings.Contains(d.Body, "/_upload/") {
		t.Fatal("a reader sees the new-file links")
	}
	for _, pg := range pages {
		bw.Get("alice/secret/"+pg).MustContain(t, http.StatusForbidden, "write access")
		bw.Get("alice/open/"+pg).MustContain(t, http.StatusForbidden, "write access")
		cw.Get("alice/secret/"+pg).MustContain(t, http.StatusNotFound)
		cw.Get("alice/open/"+pg).MustContain(t, http.StatusForbidden)
		anon.Get("alice/secret/"+pg).MustContain(t, http.StatusNotFound)
		if p := anon.Get("alice/open/" + pg); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
			t.Fatalf("signed out %s: %d %q", pg, p.Status, p.Location)
		}
	}
	// Posts: the reader is refused (with a valid CSRF token), the stranger
	// does not find the repository; nothing changes.
	bw.Get("alice/secret/src/branch/main")
	cw.Get("alice/open")
	post := func() url.Values {
		return url.Values{"tree_path": {"x.txt"}, "content": {"x"}, "commit_choice": {"direct"}, "last_commit": {tip}}
	}
	bw.Post("alice/secret/_new/main", post()).MustContain(t, http.StatusForbidden)
	cw.Post("alice/secret/_new/main", post()).MustContain(t, http.StatusNotFound)
	bw.Post("alice/secret/_delete/main/README.md", url.Values{"commit_choice": {"direct"}, "last_commit": {tip}}).MustContain(t, http.StatusForbidden)
	if editorBranchTip(t, s, alice.Token, "alice/secret", "main") != tip {
		t.Fatal("a refused post changed the repository")
	}

	// A write collaborator edits.
	dw := s.Web(t)
	dw.SignIn(dave.Name, dave.Password)
	dw.Get("alice/secret/src/branch/main/README.md").MustContain(t, http.StatusOK, `href="/alice/secret/_edit/main/README.md">Edit</a>`)
	form := dw.Get("alice/secret/_new/main")
	form.MustContain(t, http.StatusOK, `value="dave-patch-1"`)
	p := dw.Post("alice/secret/_new/main", url.Values{"tree_path": {"dave.txt"}, "content": {"dave\n"}, "commit_choice": {"direct"},
		"last_commit": {editorLast(t, form)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("write collaborator: %d %.1500s", p.Status, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/secret", "dave.txt", "main"); got != "dave\n" {
		t.Fatalf("dave.txt = %q", got)
	}

	// Archived: refused, even for the owner; no links.
	mustStatus(t, s.API("PATCH", "repos/alice/open", alice.Token, map[string]any{"archived": true}), http.StatusOK, "archive")
	aw := s.Web(t)
	aw.SignIn(alice.Name, alice.Password)
	for _, pg := range pages {
		aw.Get("alice/open/"+pg).MustContain(t, http.StatusForbidden, "archived")
	}
	if v := aw.Get("alice/open/src/branch/main/README.md"); strings.Contains(v.Body, "/_edit/") {
		t.Fatal("an archived repository offers editing")
	}
}

// TestWebEditorRules: branch protection refuses web edits like pushes, and
// the form shows the rule's message with the visitor's text kept.
func TestWebEditorRules(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	mustStatus(t, s.API("POST", "repos/alice/proj/branch_protections", alice.Token, map[string]any{
		"rule_name": "main", "enable_push": true, "protected_file_patterns": "secret/**"}), http.StatusCreated, "file rule")

	// A protected file is refused; others pass.
	form := w.Get("alice/proj/_new/main")
	tip := editorLast(t, form)
	p := w.Post("alice/proj/_new/main", url.Values{"tree_path": {"secret/key.txt"}, "content": {"my <secret> text\r\n"},
		"commit_summary": {"Add the key"}, "commit_choice": {"direct"}, "last_commit": {tip}})
	p.MustContain(t, http.StatusForbidden, "branch main is protected from changing file secret/key.txt",
		">\nmy &lt;secret&gt; text\n</textarea>", `value="secret/key.txt"`, `value="Add the key"`)
	if editorBranchTip(t, s, alice.Token, "alice/proj", "main") != tip {
		t.Fatal("a refused change moved main")
	}
	if _, ok := editorContent(t, s, alice.Token, "alice/proj", "secret/key.txt", "main"); ok {
		t.Fatal("the protected file was written")
	}
	p = w.Post("alice/proj/_new/main", url.Values{"tree_path": {"open.txt"}, "content": {"open\n"}, "commit_choice": {"direct"}, "last_commit": {tip}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("unprotected file: %d %.1500s", p.Status, p.Body)
	}

	// Pushing disabled: every direct change is refused, an upload too; a
	// new branch is not protected and takes the change.
	mustStatus(t, s.API("PATCH", "repos/alice/proj/branch_protections/main", alice.Token, map[string]any{
		"enable_push": false, "protected_file_patterns": ""}), http.StatusOK, "disable push")
	form = w.Get("alice/proj/_edit/main/open.txt")
	tip = editorLast(t, form)
	p = w.Post("alice/proj/_edit/main/open.txt", url.Values{"tree_path": {"open.txt"}, "content": {"my edit\r\n"},
		"commit_message": {"Why I edit"}, "commit_choice": {"direct"}, "last_commit": {tip}})
	p.MustContain(t, http.StatusForbidden, "Not allowed to push to protected branch main", ">\nmy edit\n</textarea>", ">\nWhy I edit</textarea>")
	w.Post("alice/proj/_delete/main/open.txt", url.Values{"commit_choice": {"direct"}, "last_commit": {tip}}).
		MustContain(t, http.StatusForbidden, "Not allowed to push to protected branch main")
	form = w.Get("alice/proj/_upload/main")
	editorUpload(t, w, "alice/proj/_upload/main", url.Values{"commit_choice": {"direct"}, "last_commit": {tip}}, map[string]string{"up.txt": "up\n"}).
		MustContain(t, http.StatusForbidden, "Not allowed to push to protected branch main")
	if editorBranchTip(t, s, alice.Token, "alice/proj", "main") != tip {
		t.Fatal("a refused change moved main")
	}
	p = w.Post("alice/proj/_edit/main/open.txt", url.Values{"tree_path": {"open.txt"}, "content": {"my edit\r\n"},
		"commit_choice": {"commit-to-new-branch"}, "new_branch_name": {"proposal"}, "last_commit": {tip}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/compare/main...proposal" {
		t.Fatalf("new branch past the rule: %d %q %.1500s", p.Status, p.Location, p.Body)
	}
	if got, _ := editorContent(t, s, alice.Token, "alice/proj", "open.txt", "proposal"); got != "my edit\n" {
		t.Fatalf("proposal content = %q", got)
	}
}

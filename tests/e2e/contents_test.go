package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// contentsRepo creates a repository for u (no initial commit unless init).
func contentsRepo(t *testing.T, s *Server, u *User, name string, private, init bool) {
	t.Helper()
	resp := s.Do("POST", "api/v1/user/repos", Token(u.Token), JSON(map[string]any{"name": name, "private": private, "auto_init": init}))
	if resp.Status != 201 {
		t.Fatalf("create repo %s: %d %s", name, resp.Status, resp.Body)
	}
}

// contentsGit runs git in dir and returns its output.
func contentsGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_AUTHOR_NAME=Local", "GIT_AUTHOR_EMAIL=local@example.com", "GIT_COMMITTER_NAME=Local", "GIT_COMMITTER_EMAIL=local@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// cloneURL is the HTTP clone address of owner/name with u's token.
func contentsCloneURL(s *Server, u *User, owner, name string) string {
	base, _ := url.Parse(s.URL)
	base.User = url.UserPassword(u.Name, u.Token)
	return base.String() + owner + "/" + name + ".git"
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// wantStatus fails unless resp has the status and, when msg is set, an error message containing it.
func wantStatus(t *testing.T, resp *Response, status int, msg, what string) {
	t.Helper()
	if resp.Status != status {
		t.Fatalf("%s: status %d, want %d: %s", what, resp.Status, status, resp.Body)
	}
	if msg != "" {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(resp.Body, &e)
		if !strings.Contains(e.Message, msg) {
			t.Fatalf("%s: message %q does not contain %q", what, e.Message, msg)
		}
	}
}

func TestContentsRoundTripSDK(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "proj", false, false)
	c := s.Client(alice.Token)

	// An empty repository lists nothing, and its first file creates the default branch.
	list, _, err := c.ListContents("alice", "proj", "", "")
	if err != nil || len(list) != 0 {
		t.Fatalf("empty listing: %v %v", list, err)
	}
	fr, resp, err := c.CreateFile("alice", "proj", "README.md", gitea.CreateFileOptions{Content: b64("hello\n")})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v", err)
	}
	if fr.Content == nil || fr.Content.Path != "README.md" || fr.Content.Type != "file" || fr.Content.Size != 6 ||
		fr.Content.Content == nil || *fr.Content.Content != b64("hello\n") || *fr.Content.Encoding != "base64" {
		t.Fatalf("created content %+v", fr.Content)
	}
	if fr.Commit == nil || fr.Commit.Message != "Add README.md\n" || fr.Commit.Author.Name != "alice" ||
		fr.Commit.Author.Email != "alice@example.com" || fr.Commit.Committer.Email != "alice@example.com" || len(fr.Commit.Parents) != 0 {
		t.Fatalf("created commit %+v", fr.Commit)
	}
	if fr.Verification == nil || fr.Verification.Verified {
		t.Fatalf("verification %+v", fr.Verification)
	}
	first := fr.Commit.SHA
	repo, _, err := c.GetRepo("alice", "proj")
	if err != nil || repo.Empty || repo.DefaultBranch != "main" {
		t.Fatalf("repository after the first file: empty=%v branch=%q %v", repo.Empty, repo.DefaultBranch, err)
	}

	got, _, err := c.GetContents("alice", "proj", "", "README.md")
	if err != nil {
		t.Fatal(err)
	}
	if *got.Content != b64("hello\n") || got.SHA != fr.Content.SHA || got.LastCommitSha == nil || *got.LastCommitSha != first ||
		*got.DownloadURL != s.URL+"alice/proj/raw/branch/main/README.md" || *got.HTMLURL != s.URL+"alice/proj/src/branch/main/README.md" ||
		*got.URL != s.URL+"api/v1/repos/alice/proj/contents/README.md?ref=main" || *got.GitURL != s.URL+"api/v1/repos/alice/proj/git/blobs/"+got.SHA ||
		got.Links == nil || *got.Links.Self != *got.URL {
		t.Fatalf("contents %+v", got)
	}
	raw, _, err := c.GetFile("alice", "proj", "main", "README.md")
	if err != nil || string(raw) != "hello\n" {
		t.Fatalf("raw: %q %v", raw, err)
	}

	// Update needs the current SHA; a stale one is refused.
	up, resp, err := c.UpdateFile("alice", "proj", "README.md", gitea.UpdateFileOptions{SHA: got.SHA, Content: b64("v2\n"),
		FileOptions: gitea.FileOptions{Message: "Second", Author: gitea.Identity{Name: "Bob Builder", Email: "bob@example.com"}}})
	if err != nil || resp.StatusCode != 200 || *up.Content.Content != b64("v2\n") || up.Commit.Message != "Second\n" ||
		up.Commit.Author.Name != "Bob Builder" || up.Commit.Parents[0].SHA != first {
		t.Fatalf("update: %v %+v", err, up)
	}
	_, resp, err = c.UpdateFile("alice", "proj", "README.md", gitea.UpdateFileOptions{SHA: got.SHA, Content: b64("v3\n")})
	if err == nil || resp.StatusCode != 422 || !strings.Contains(err.Error(), "sha does not match") {
		t.Fatalf("stale update: %v %v", resp, err)
	}
	// Moving with from_path.
	mv, _, err := c.UpdateFile("alice", "proj", "docs/README.md", gitea.UpdateFileOptions{SHA: up.Content.SHA, FromPath: "README.md", Content: b64("moved\n")})
	if err != nil || mv.Content.Path != "docs/README.md" {
		t.Fatalf("move: %v", err)
	}
	if _, resp, _ := c.GetContents("alice", "proj", "", "README.md"); resp.StatusCode != 404 {
		t.Fatalf("old path after move: %d", resp.StatusCode)
	}

	// A binary file keeps its bytes through base64 and raw.
	rnd := rand.New(rand.NewSource(1))
	bin := make([]byte, 70000)
	rnd.Read(bin)
	bin[0], bin[1] = 0, 0
	if _, _, err := c.CreateFile("alice", "proj", "data/blob.bin", gitea.CreateFileOptions{Content: base64.StdEncoding.EncodeToString(bin)}); err != nil {
		t.Fatal(err)
	}
	gb, _, err := c.GetContents("alice", "proj", "main", "data/blob.bin")
	if err != nil {
		t.Fatal(err)
	}
	if dec, err := base64.StdEncoding.DecodeString(*gb.Content); err != nil || !bytes.Equal(dec, bin) || gb.Size != int64(len(bin)) {
		t.Fatalf("binary via contents: %v, %d bytes", err, gb.Size)
	}
	rb := s.Do("GET", "api/v1/repos/alice/proj/raw/data/blob.bin?ref=main", Token(alice.Token))
	if rb.Status != 200 || !bytes.Equal(rb.Body, bin) || rb.Header.Get("Content-Type") != "application/octet-stream" ||
		rb.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(rb.Header.Get("Content-Security-Policy"), "sandbox") ||
		!strings.HasPrefix(rb.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("raw binary: %d %v", rb.Status, rb.Header)
	}
	// ETag revalidation.
	if r2 := s.Do("GET", "api/v1/repos/alice/proj/raw/data/blob.bin", Token(alice.Token), Header("If-None-Match", rb.Header.Get("ETag"))); r2.Status != 304 {
		t.Fatalf("If-None-Match: %d", r2.Status)
	}
	// Media serves the blob too (no LFS).
	if md := s.Do("GET", "api/v1/repos/alice/proj/media/data/blob.bin", Token(alice.Token)); md.Status != 200 || !bytes.Equal(md.Body, bin) {
		t.Fatalf("media: %d", md.Status)
	}

	// Multi-file change in one commit; a deleted file's entry is null.
	var blobSHA = gb.SHA
	cf := s.Do("POST", "api/v1/repos/alice/proj/contents", Token(alice.Token), JSON(map[string]any{
		"message": "Several",
		"files": []map[string]any{
			{"operation": "create", "path": "web/index.html", "content": b64("<html><script>alert(1)</script></html>")},
			{"operation": "create", "path": "web/pixel.png", "content": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="},
			{"operation": "delete", "path": "data/blob.bin", "sha": blobSHA},
			{"operation": "update", "path": "docs/README.md", "sha": mv.Content.SHA, "content": b64("multi\n")},
		},
	}))
	if cf.Status != 201 {
		t.Fatalf("change files: %d %s", cf.Status, cf.Body)
	}
	var files struct {
		Files  []*gitea.ContentsResponse `json:"files"`
		Commit *gitea.FileCommitResponse `json:"commit"`
	}
	cf.Decode(t, &files)
	if len(files.Files) != 4 || files.Files[2] != nil || files.Files[0].Path != "web/index.html" || *files.Files[3].Content != b64("multi\n") ||
		files.Commit.Message != "Several\n" {
		t.Fatalf("files response %s", cf.Body)
	}
	// Raw content types never let a browser run a file.
	for path, want := range map[string]string{"web/index.html": "text/plain; charset=utf-8", "web/pixel.png": "image/png", "docs/README.md": "text/plain; charset=utf-8"} {
		r := s.Do("GET", "api/v1/repos/alice/proj/raw/"+path, Token(alice.Token))
		if r.Status != 200 || r.Header.Get("Content-Type") != want {
			t.Fatalf("raw %s: %d %q", path, r.Status, r.Header.Get("Content-Type"))
		}
	}

	// Directory listing.
	dir, _, err := c.ListContents("alice", "proj", "main", "web")
	if err != nil || len(dir) != 2 || dir[0].Name != "index.html" || dir[0].Type != "file" || dir[0].Content != nil ||
		dir[0].LastCommitSha == nil || *dir[0].LastCommitSha != files.Commit.SHA {
		t.Fatalf("listing: %v %+v", err, dir)
	}
	root, _, err := c.ListContents("alice", "proj", "", "")
	if err != nil || len(root) != 2 || root[0].Name != "docs" || root[0].Type != "dir" || root[1].Name != "web" {
		t.Fatalf("root listing: %v %+v", err, root)
	}

	// A new branch from main; main is left alone.
	nb, _, err := c.CreateFile("alice", "proj", "feature.txt", gitea.CreateFileOptions{Content: b64("f"),
		FileOptions: gitea.FileOptions{BranchName: "main", NewBranchName: "feature/one"}})
	if err != nil || nb.Commit.Parents[0].SHA != files.Commit.SHA || !strings.Contains(*nb.Content.URL, "ref=feature%2Fone") {
		t.Fatalf("new branch: %v %+v", err, nb)
	}
	if _, resp, _ := c.GetContents("alice", "proj", "main", "feature.txt"); resp.StatusCode != 404 {
		t.Fatalf("feature.txt on main: %d", resp.StatusCode)
	}
	if _, _, err := c.GetContents("alice", "proj", "feature/one", "feature.txt"); err != nil {
		t.Fatalf("feature.txt on its branch: %v", err)
	}
	if old, _, err := c.GetContents("alice", "proj", first, "README.md"); err != nil || *old.Content != b64("hello\n") {
		t.Fatalf("read at a commit: %v", err)
	}

	// Delete.
	idx := files.Files[0]
	if resp, err := c.DeleteFile("alice", "proj", "web/index.html", gitea.DeleteFileOptions{SHA: idx.SHA}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("delete: %v", err)
	}
	if _, resp, _ := c.GetContents("alice", "proj", "", "web/index.html"); resp.StatusCode != 404 {
		t.Fatalf("deleted file: %d", resp.StatusCode)
	}

	// The history, as a clone sees it: every commit authored by the caller
	// unless an identity was given.
	dirClone := t.TempDir()
	contentsGit(t, dirClone, "clone", "-q", contentsCloneURL(s, alice, "alice", "proj"), "c")
	log := contentsGit(t, filepath.Join(dirClone, "c"), "log", "--format=%an <%ae>|%cn <%ce>|%s", "main")
	wantLog := "alice <alice@example.com>|alice <alice@example.com>|Delete web/index.html\n" +
		"alice <alice@example.com>|alice <alice@example.com>|Several\n" +
		"alice <alice@example.com>|alice <alice@example.com>|Add data/blob.bin\n" +
		"alice <alice@example.com>|alice <alice@example.com>|Update docs/README.md\n" +
		"Bob Builder <bob@example.com>|Bob Builder <bob@example.com>|Second\n" +
		"alice <alice@example.com>|alice <alice@example.com>|Add README.md\n"
	if log != wantLog {
		t.Fatalf("git log:\n%s\nwant:\n%s", log, wantLog)
	}
	if b, err := os.ReadFile(filepath.Join(dirClone, "c", "docs", "README.md")); err != nil || string(b) != "multi\n" {
		t.Fatalf("cloned file: %q %v", b, err)
	}
	if fsck := contentsGit(t, filepath.Join(dirClone, "c"), "fsck", "--no-progress"); strings.Contains(fsck, "error") {
		t.Fatalf("fsck: %s", fsck)
	}
}

func TestContentsSymlinksSubmodulesAndRefs(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "mixed", false, false)
	c := s.Client(alice.Token)

	// Push a tree with a symbolic link, a submodule and a tag.
	work := t.TempDir()
	contentsGit(t, work, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".gitmodules"), []byte("[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	contentsGit(t, work, "add", "README.md", "link", ".gitmodules")
	contentsGit(t, work, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,lib")
	contentsGit(t, work, "commit", "-q", "-m", "tree")
	contentsGit(t, work, "tag", "v1")
	contentsGit(t, work, "push", "-q", contentsCloneURL(s, alice, "alice", "mixed"), "main", "v1")

	link, _, err := c.GetContents("alice", "mixed", "", "link")
	if err != nil || link.Type != "symlink" || link.Target == nil || *link.Target != "README.md" || link.Content != nil || link.DownloadURL == nil {
		t.Fatalf("symlink: %v %+v", err, link)
	}
	sub, _, err := c.GetContents("alice", "mixed", "", "lib")
	if err != nil || sub.Type != "submodule" || sub.SubmoduleGitURL == nil || *sub.SubmoduleGitURL != "https://example.com/lib.git" ||
		sub.HTMLURL != nil || sub.SHA != "1111111111111111111111111111111111111111" {
		t.Fatalf("submodule: %v %+v", err, sub)
	}
	if r := s.Do("GET", "api/v1/repos/alice/mixed/raw/link", Token(alice.Token)); r.Status != 200 || string(r.Body) != "README.md" ||
		r.Header.Get("X-Gitea-Object-Type") != "symlink" {
		t.Fatalf("raw symlink: %d %q", r.Status, r.Body)
	}
	if r := s.Do("GET", "api/v1/repos/alice/mixed/raw/lib", Token(alice.Token)); r.Status != 404 {
		t.Fatalf("raw submodule: %d", r.Status)
	}

	// Tags and legacy "{ref}/{path}" raw URLs.
	tagged, _, err := c.GetContents("alice", "mixed", "v1", "README.md")
	if err != nil || !strings.Contains(*tagged.HTMLURL, "/src/tag/v1/README.md") {
		t.Fatalf("by tag: %v %+v", err, tagged)
	}
	for _, p := range []string{"raw/main/README.md", "raw/v1/README.md", "raw/README.md", "raw/README.md?ref=v1"} {
		if r := s.Do("GET", "api/v1/repos/alice/mixed/"+p); r.Status != 200 || string(r.Body) != "readme\n" {
			t.Fatalf("GET %s: %d %q", p, r.Status, r.Body)
		}
	}
	if r := s.Do("GET", "api/v1/repos/alice/mixed/contents/README.md?ref=main~1"); r.Status != 404 {
		t.Fatalf("revision expression as ref: %d", r.Status)
	}

	// A file with spaces, unicode and an escaped slash in its URL.
	if _, _, err := c.CreateFile("alice", "mixed", "dir with space/ünï côde.txt", gitea.CreateFileOptions{Content: b64("u")}); err != nil {
		t.Fatal(err)
	}
	if r := s.Do("GET", "api/v1/repos/alice/mixed/contents/dir%20with%20space%2F%C3%BCn%C3%AF%20c%C3%B4de.txt"); r.Status != 200 {
		t.Fatalf("escaped path: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", "api/v1/repos/alice/mixed/raw/dir%20with%20space/%C3%BCn%C3%AF%20c%C3%B4de.txt"); r.Status != 200 || string(r.Body) != "u" {
		t.Fatalf("escaped raw path: %d %s", r.Status, r.Body)
	}
}

func TestContentsSizeLimits(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_API_DEFAULT_MAX_BLOB_SIZE=1024"))
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "big", false, true)
	c := s.Client(alice.Token)

	small := strings.Repeat("s", 1024)
	large := strings.Repeat("L", 5000)
	for name, content := range map[string]string{"small.txt": small, "large.txt": large} {
		fr, _, err := c.CreateFile("alice", "big", name, gitea.CreateFileOptions{Content: b64(content)})
		if err != nil {
			t.Fatal(err)
		}
		if (fr.Content.Content != nil) != (name == "small.txt") {
			t.Fatalf("%s: content in the create answer: %v", name, fr.Content.Content != nil)
		}
	}
	sm, _, err := c.GetContents("alice", "big", "", "small.txt")
	if err != nil || sm.Content == nil || *sm.Content != b64(small) {
		t.Fatalf("small file: %v", err)
	}
	lg := s.Do("GET", "api/v1/repos/alice/big/contents/large.txt", Token(alice.Token))
	var raw map[string]any
	lg.Decode(t, &raw)
	if lg.Status != 200 || raw["content"] != nil || raw["encoding"] != nil || raw["size"].(float64) != 5000 || raw["sha"] == "" {
		t.Fatalf("large file: %d %s", lg.Status, lg.Body)
	}
	if r := s.Do("GET", "api/v1/repos/alice/big/raw/large.txt", Token(alice.Token)); r.Status != 200 || string(r.Body) != large {
		t.Fatalf("raw large file: %d, %d bytes", r.Status, len(r.Body))
	}

	// A request body over the JSON limit (8 MiB) is refused with 413.
	huge := s.Do("POST", "api/v1/repos/alice/big/contents/huge.bin", Token(alice.Token),
		RawBody(`{"content":"`+strings.Repeat("A", 9<<20)+`"}`))
	wantStatus(t, huge, 413, "larger than", "huge body")
}

func TestContentsLargeFileStreamed(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "big", false, true)
	c := s.Client(alice.Token)
	data := make([]byte, 5<<20)
	rand.New(rand.NewSource(2)).Read(data)
	if _, _, err := c.CreateFile("alice", "big", "five.bin", gitea.CreateFileOptions{Content: base64.StdEncoding.EncodeToString(data)}); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.GetContents("alice", "big", "", "five.bin")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := base64.StdEncoding.DecodeString(*got.Content)
	if err != nil || !bytes.Equal(dec, data) || *got.Encoding != "base64" || got.Size != int64(len(data)) {
		t.Fatalf("5 MiB file: %v, %d bytes", err, len(dec))
	}
}

func TestContentsBadInput(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "proj", false, false)
	tok := Token(alice.Token)
	base := "api/v1/repos/alice/proj/"
	create := s.Do("POST", base+"contents/a.txt", tok, JSON(map[string]any{"content": b64("a")}))
	wantStatus(t, create, 201, "", "create a.txt")
	var fr gitea.FileResponse
	create.Decode(t, &fr)
	sha := fr.Content.SHA
	tip := fr.Commit.SHA

	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
		msg                string
	}{
		{"dot git in URL", "POST", "contents/.git/config", map[string]any{"content": b64("x")}, 422, "malformed path"},
		{"dot git case", "POST", "contents/sub/.Git/hooks/pre-receive", map[string]any{"content": b64("x")}, 422, "malformed path"},
		{"traversal in files", "POST", "contents", map[string]any{"files": []map[string]any{{"operation": "create", "path": "../../x", "content": b64("x")}}}, 422, "malformed path"},
		{"absolute in files", "POST", "contents", map[string]any{"files": []map[string]any{{"operation": "create", "path": "/etc/passwd", "content": b64("x")}}}, 422, "malformed path"},
		{"traversal in from_path", "PUT", "contents/b.txt", map[string]any{"sha": sha, "from_path": "../a.txt", "content": b64("x")}, 422, "malformed path"},
		{"dot git in from_path", "PUT", "contents/b.txt", map[string]any{"sha": sha, "from_path": ".git/HEAD", "content": b64("x")}, 422, "malformed path"},
		{"bad base64", "POST", "contents/b.txt", map[string]any{"content": "not base64!"}, 422, "base64"},
		{"exists", "POST", "contents/a.txt", map[string]any{"content": b64("x")}, 422, "repository file already exists"},
		{"update without sha", "PUT", "contents/a.txt", map[string]any{"content": b64("x")}, 422, "[Sha]: Required"},
		{"update stale sha", "PUT", "contents/a.txt", map[string]any{"sha": tip, "content": b64("x")}, 422, "sha does not match"},
		{"update missing", "PUT", "contents/nope.txt", map[string]any{"sha": sha, "content": b64("x")}, 404, "repository file does not exist"},
		{"delete without sha", "DELETE", "contents/a.txt", map[string]any{}, 422, "[Sha]: Required"},
		{"delete missing", "DELETE", "contents/nope.txt", map[string]any{"sha": sha}, 404, "does not exist"},
		{"missing branch", "POST", "contents/b.txt", map[string]any{"content": b64("x"), "branch": "nope"}, 404, "branch does not exist"},
		{"option-like branch", "POST", "contents/b.txt", map[string]any{"content": b64("x"), "branch": "--upload-pack=x"}, 422, "invalid branch name"},
		{"new branch same as branch", "POST", "contents/b.txt", map[string]any{"content": b64("x"), "new_branch": "main"}, 201, ""},
		{"file in the way", "POST", "contents/a.txt/b.txt", map[string]any{"content": b64("x")}, 422, "in the way"},
		{"unknown operation", "POST", "contents", map[string]any{"files": []map[string]any{{"operation": "rename", "path": "x"}}}, 422, "[Operation]"},
		{"no files", "POST", "contents", map[string]any{"files": []any{}}, 422, "[Files]: Required"},
		{"bad JSON", "POST", "contents/b.txt", "{", 422, "invalid JSON"},
		{"bad identity", "POST", "contents/c.txt", map[string]any{"content": b64("x"), "author": map[string]any{"name": "x", "email": "x>\ny"}}, 422, "[Author.Email]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := []RequestOption{tok}
			if b, ok := tt.body.(string); ok {
				opts = append(opts, RawBody(b))
			} else {
				opts = append(opts, JSON(tt.body))
			}
			wantStatus(t, s.Do(tt.method, base+tt.path, opts...), tt.status, tt.msg, tt.name)
		})
	}
	// A new branch is created once; naming it again is refused.
	wantStatus(t, s.Do("POST", base+"contents/d.txt", tok, JSON(map[string]any{"content": b64("x"), "new_branch": "exists-not-yet"})), 201, "", "new branch")
	wantStatus(t, s.Do("POST", base+"contents/e.txt", tok, JSON(map[string]any{"content": b64("x"), "new_branch": "exists-not-yet"})), 422, "branch already exists", "existing new branch")

	// Reads: what cannot exist is not found.
	for _, p := range []string{"contents/.git/config", "contents/nope", "raw/.git/config", "raw/nope", "media/nope", "raw/a.txt?ref=nope", "contents/a.txt?ref=-x", "raw/"} {
		if r := s.Do("GET", base+p, tok); r.Status != 404 {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Body)
		}
	}
	if r := s.Do("GET", base+"raw/a.txt", tok); r.Status != 200 {
		t.Fatalf("raw a.txt: %d", r.Status)
	}
	// Nothing above reached outside the repository or changed history beyond the accepted writes.
	dir := t.TempDir()
	contentsGit(t, dir, "clone", "-q", contentsCloneURL(s, alice, "alice", "proj"), "c")
	if out := contentsGit(t, filepath.Join(dir, "c"), "ls-tree", "-r", "--name-only", "HEAD"); out != "a.txt\nb.txt\n" {
		t.Fatalf("tree after bad input:\n%s", out)
	}
}

func TestContentsConcurrentUpdates(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "race", false, false)
	c := s.Client(alice.Token)
	fr, _, err := c.CreateFile("alice", "race", "f.txt", gitea.CreateFileOptions{Content: b64("0")})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	statuses := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := s.Do("PUT", "api/v1/repos/alice/race/contents/f.txt", Token(alice.Token),
				JSON(map[string]any{"sha": fr.Content.SHA, "content": b64(fmt.Sprint(i + 1))}))
			statuses[i], bodies[i] = r.Status, string(r.Body)
		}(i)
	}
	wg.Wait()
	won := -1
	for i, st := range statuses {
		switch {
		case st == 200 && won < 0:
			won = i
		case st == 200:
			t.Fatalf("two updates with the same sha succeeded (%d and %d)", won, i)
		case (st == 422 && strings.Contains(bodies[i], "sha does not match")) || st == 409:
		default:
			t.Fatalf("loser %d: %d %s", i, st, bodies[i])
		}
	}
	if won < 0 {
		t.Fatalf("no update succeeded: %v", statuses)
	}
	got, _, err := c.GetFile("alice", "race", "main", "f.txt")
	if err != nil || string(got) != fmt.Sprint(won+1) {
		t.Fatalf("file is %q, winner wrote %d", got, won+1)
	}
	dir := t.TempDir()
	contentsGit(t, dir, "clone", "-q", contentsCloneURL(s, alice, "alice", "race"), "c")
	if out := contentsGit(t, filepath.Join(dir, "c"), "rev-list", "--count", "HEAD"); strings.TrimSpace(out) != "2" {
		t.Fatalf("commits after the race: %s", out)
	}
}

func TestContentsArchivedRefusesWrites(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	contentsRepo(t, s, alice, "old", false, false)
	c := s.Client(alice.Token)
	fr, _, err := c.CreateFile("alice", "old", "a.txt", gitea.CreateFileOptions{Content: b64("a")})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, s.Do("PATCH", "api/v1/repos/alice/old", Token(alice.Token), JSON(map[string]any{"archived": true})), 200, "", "archive")
	base := "api/v1/repos/alice/old/"
	for _, w := range []struct {
		method, path string
		body         map[string]any
	}{
		{"POST", "contents/b.txt", map[string]any{"content": b64("b")}},
		{"PUT", "contents/a.txt", map[string]any{"sha": fr.Content.SHA, "content": b64("b")}},
		{"DELETE", "contents/a.txt", map[string]any{"sha": fr.Content.SHA}},
		{"POST", "contents", map[string]any{"files": []map[string]any{{"operation": "create", "path": "c", "content": b64("c")}}}},
	} {
		wantStatus(t, s.Do(w.method, base+w.path, Token(alice.Token), JSON(w.body)), 403, "archived", w.method+" "+w.path)
	}
	// Reading still works, and nothing changed.
	got, _, err := c.GetContents("alice", "old", "", "a.txt")
	if err != nil || got.LastCommitSha == nil || *got.LastCommitSha != fr.Commit.SHA {
		t.Fatalf("read archived: %v", err)
	}
	// Unarchived, the repository takes changes again.
	wantStatus(t, s.Do("PATCH", "api/v1/repos/alice/old", Token(alice.Token), JSON(map[string]any{"archived": false})), 200, "", "unarchive")
	wantStatus(t, s.Do("POST", base+"contents/b.txt", Token(alice.Token), JSON(map[string]any{"content": b64("b")})), 201, "", "write after unarchive")
}

func TestContentsPermissionMatrix(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	reader := s.CreateUser("reader")
	writer := s.CreateUser("writer")
	stranger := s.CreateUser("stranger")
	restricted := s.CreateUser("restricted", "restricted")
	admin := s.CreateUser("siteadmin", "admin")
	k.createOrg(owner, "acme", "public")
	for _, rp := range []struct {
		name    string
		private bool
	}{{"pub", false}, {"priv", true}} {
		k.expect(k.do("POST", "orgs/acme/repos", owner.Token, map[string]any{"name": rp.name, "private": rp.private}), 201, "create "+rp.name)
	}
	readers := k.createTeam(owner, "acme", map[string]any{"name": "readers", "permission": "read", "includes_all_repositories": true, "units": []string{"repo.code"}})
	writers := k.createTeam(owner, "acme", map[string]any{"name": "writers", "permission": "write", "includes_all_repositories": true, "units": []string{"repo.code"}})
	k.addToTeam(owner, readers.ID, "reader")
	k.addToTeam(owner, writers.ID, "writer")
	readOnlyTok := s.CreateToken("writer", writer.Password, "ro", "read:repository")

	// Every repository gets a file to read, update and delete.
	shas := map[string]string{}
	for _, name := range []string{"pub", "priv"} {
		r := s.Do("POST", "api/v1/repos/acme/"+name+"/contents/f.txt", Token(owner.Token), JSON(map[string]any{"content": b64("f")}))
		wantStatus(t, r, 201, "", "seed "+name)
		var fr gitea.FileResponse
		r.Decode(t, &fr)
		shas[name] = fr.Content.SHA
	}

	type caller struct {
		name string
		tok  string
	}
	callers := []caller{{"anonymous", ""}, {"stranger", stranger.Token}, {"restricted", restricted.Token}, {"reader", reader.Token},
		{"writer", writer.Token}, {"read-only token", readOnlyTok}, {"admin", admin.Token}, {"owner", owner.Token}}
	// Expected status of a read and of a write, per caller and repository.
	read := map[string]map[string]int{
		"pub":  {"anonymous": 200, "stranger": 200, "restricted": 404, "reader": 200, "writer": 200, "read-only token": 200, "admin": 200, "owner": 200},
		"priv": {"anonymous": 404, "stranger": 404, "restricted": 404, "reader": 200, "writer": 200, "read-only token": 200, "admin": 200, "owner": 200},
	}
	write := map[string]map[string]int{
		"pub":  {"anonymous": 401, "stranger": 403, "restricted": 404, "reader": 403, "writer": 0, "read-only token": 403, "admin": 0, "owner": 0},
		"priv": {"anonymous": 404, "stranger": 404, "restricted": 404, "reader": 403, "writer": 0, "read-only token": 403, "admin": 0, "owner": 0},
	}
	for _, name := range []string{"pub", "priv"} {
		base := "api/v1/repos/acme/" + name + "/"
		for _, cl := range callers {
			for _, p := range []string{"contents", "contents/f.txt", "raw/f.txt", "media/f.txt", "raw/main/f.txt"} {
				if r := s.Do("GET", base+p, Token(cl.tok)); r.Status != read[name][cl.name] {
					t.Errorf("%s GET %s%s: %d, want %d", cl.name, base, p, r.Status, read[name][cl.name])
				}
			}
			// A write either succeeds (and is undone by the next ones) or is refused as expected.
			want := write[name][cl.name]
			file := "w-" + strings.ReplaceAll(cl.name, " ", "-") + ".txt"
			steps := []struct {
				method, path string
				body         map[string]any
				ok           int
			}{
				{"POST", "contents/" + file, map[string]any{"content": b64("1")}, 201},
				{"POST", "contents", map[string]any{"files": []map[string]any{{"operation": "create", "path": "multi-" + file, "content": b64("1")}}}, 201},
				{"PUT", "contents/f.txt", map[string]any{"sha": shas[name], "content": b64("f")}, 200},
				{"DELETE", "contents/multi-" + file, nil, 200},
			}
			for _, st := range steps {
				body := st.body
				if st.method == "DELETE" {
					if want != 0 {
						body = map[string]any{"sha": shas[name]}
					} else {
						got, _, err := s.Client(owner.Token).GetContents("acme", name, "", "multi-"+file)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						body = map[string]any{"sha": got.SHA}
					}
				}
				r := s.Do(st.method, base+st.path, Token(cl.tok), JSON(body))
				exp := want
				if exp == 0 {
					exp = st.ok
				}
				if r.Status != exp {
					t.Errorf("%s %s %s%s: %d, want %d: %s", cl.name, st.method, base, st.path, r.Status, exp, r.Body)
				}
				if exp == 200 && st.method == "PUT" {
					var fr gitea.FileResponse
					r.Decode(t, &fr)
					shas[name] = fr.Content.SHA
				}
			}
		}
	}
}

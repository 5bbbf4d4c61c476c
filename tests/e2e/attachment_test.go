package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// upload posts an attachment upload (see Server.Upload).
func (k *actKit) upload(path, tok, field, filename string, content []byte, filler int) *Response {
	k.t.Helper()
	return k.s.Upload(path, tok, field, filename, content, filler)
}

type attachmentJSON struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	Size          int64  `json:"size"`
	DownloadCount int64  `json:"download_count"`
	UUID          string `json:"uuid"`
	URL           string `json:"browser_download_url"`
}

func (k *actKit) attachments(path, tok string) []attachmentJSON {
	k.t.Helper()
	var list []attachmentJSON
	k.must(k.do("GET", path, tok, nil), 200, "list attachments").Decode(k.t, &list)
	return list
}

// storedFiles counts the attachment files on disk (temporary files included).
func (k *actKit) storedFiles() int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(k.s.DataDir, "attachments"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// download fetches a browser_download_url with the given request options.
func (k *actKit) download(url string, opts ...RequestOption) *Response {
	k.t.Helper()
	if !strings.HasPrefix(url, k.s.URL+"attachments/") {
		k.t.Fatalf("browser_download_url %q is not under %sattachments/", url, k.s.URL)
	}
	return k.s.Do("GET", strings.TrimPrefix(url, k.s.URL), opts...)
}

func TestAttachmentLifecycle(t *testing.T) {
	k := newActKit(t)
	s := k.s
	assets := "api/v1/repos/acme/pub/issues/1/assets"

	// Upload through the SDK (the issue's poster).
	oc := s.Client(k.owner.Token)
	at, resp, err := oc.CreateIssueAttachment("acme", "pub", 1, strings.NewReader("release notes\n"), "notes.txt")
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("upload: %v %v", err, resp)
	}
	if at.Name != "notes.txt" || at.Size != 14 || at.UUID == "" || at.DownloadURL != s.URL+"attachments/"+at.UUID {
		t.Fatalf("attachment = %+v", at)
	}
	// ?name= overrides the file name.
	var named attachmentJSON
	k.must(k.upload(assets+"?name=renamed.txt", k.writer.Token, "attachment", "orig.txt", []byte("x"), 0), 201, "upload with name").Decode(t, &named)
	if named.Name != "renamed.txt" {
		t.Fatalf("name override: %q", named.Name)
	}
	list, _, err := s.Client("").ListIssueAttachments("acme", "pub", 1)
	if err != nil || len(list) != 2 || list[0].ID != at.ID {
		t.Fatalf("list: %v %+v", err, list)
	}
	// The issue shows its assets.
	var is struct {
		Assets []attachmentJSON `json:"assets"`
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1", "", nil), 200, "get issue").Decode(t, &is)
	if len(is.Assets) != 2 {
		t.Fatalf("issue assets = %+v", is.Assets)
	}
	got, _, err := s.Client("").GetIssueAttachment("acme", "pub", 1, at.ID)
	if err != nil || got.Name != "notes.txt" {
		t.Fatalf("get: %v %+v", err, got)
	}

	// Download: as an attachment, counted.
	dl := k.download(at.DownloadURL)
	if dl.Status != 200 || string(dl.Body) != "release notes\n" {
		t.Fatalf("download: %d %q", dl.Status, dl.Body)
	}
	if cd := dl.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, "notes.txt") {
		t.Fatalf("Content-Disposition = %q", cd)
	}
	if ct := dl.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" || dl.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("Content-Type = %q, nosniff = %q", ct, dl.Header.Get("X-Content-Type-Options"))
	}
	k.download(at.DownloadURL, Token(k.reader.Token))
	got, _, _ = s.Client("").GetIssueAttachment("acme", "pub", 1, at.ID)
	if got.DownloadCount != 2 {
		t.Fatalf("download_count = %d, want 2", got.DownloadCount)
	}

	// Rename (201, as Gitea), then delete (204): the file goes too.
	renamed, resp, err := oc.EditIssueAttachment("acme", "pub", 1, at.ID, gitea.EditAttachmentOptions{Name: "changelog.md"})
	if err != nil || resp.StatusCode != 201 || renamed.Name != "changelog.md" {
		t.Fatalf("rename: %v %v %+v", err, resp, renamed)
	}
	if files := k.storedFiles(); files != 2 {
		t.Fatalf("%d files stored, want 2", files)
	}
	if r, err := oc.DeleteIssueAttachment("acme", "pub", 1, at.ID); err != nil || r.StatusCode != 204 {
		t.Fatalf("delete: %v %v", err, r)
	}
	k.must(k.do("GET", fmt.Sprintf("%s/%d", assets, at.ID), "", nil), 404, "deleted attachment")
	if r := k.download(at.DownloadURL); r.Status != 404 {
		t.Fatalf("download of deleted attachment: %d", r.Status)
	}
	if files := k.storedFiles(); files != 1 {
		t.Fatalf("%d files stored after delete, want 1", files)
	}

	// Comment attachments: the comment's poster or a writer.
	cid := k.comment(k.reader, "pub", 1, "see attached")
	cassets := fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d/assets", cid)
	var ca attachmentJSON
	k.must(k.upload(cassets, k.reader.Token, "attachment", "log.txt", []byte("stack trace"), 0), 201, "comment poster uploads").Decode(t, &ca)
	k.must(k.upload(cassets, k.writer.Token, "attachment", "more.txt", []byte("more"), 0), 201, "writer uploads to a comment")
	k.wantError(k.upload(cassets, k.stranger.Token, "attachment", "x.txt", []byte("x"), 0), 403, "permission", "stranger uploads to a comment")
	if n := len(k.attachments(cassets, "")); n != 2 {
		t.Fatalf("comment assets = %d", n)
	}
	var cm struct {
		Assets []attachmentJSON `json:"assets"`
	}
	k.must(k.do("GET", fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d", cid), "", nil), 200, "get comment").Decode(t, &cm)
	if len(cm.Assets) != 2 {
		t.Fatalf("comment shows %d assets", len(cm.Assets))
	}
	// A comment's attachment is not one of the issue's, and the reverse.
	k.must(k.do("GET", fmt.Sprintf("%s/%d", assets, ca.ID), "", nil), 404, "comment attachment through the issue")
	k.must(k.do("GET", fmt.Sprintf("%s/%d", cassets, named.ID), "", nil), 404, "issue attachment through the comment")
	k.must(k.do("PATCH", fmt.Sprintf("%s/%d", cassets, ca.ID), k.writer.Token, map[string]any{"name": "trace.txt"}), 201, "writer renames")
	k.must(k.do("DELETE", fmt.Sprintf("%s/%d", cassets, ca.ID), k.stranger.Token, nil), 403, "stranger deletes")
	k.must(k.do("DELETE", fmt.Sprintf("%s/%d", cassets, ca.ID), k.reader.Token, nil), 204, "poster deletes")
}

// TestAttachmentFilesGoWithTheirOwners checks that deleting a comment, an
// issue or a repository removes its attachments, rows and files, and leaves
// the attachments of everything else alone.
func TestAttachmentFilesGoWithTheirOwners(t *testing.T) {
	k := newActKit(t)
	up := func(path, name string) attachmentJSON {
		t.Helper()
		var a attachmentJSON
		k.must(k.upload(path, k.owner.Token, "attachment", name, []byte("content of "+name), 0), 201, "upload "+name).Decode(t, &a)
		return a
	}
	second := k.issue(k.owner, "pub", "second issue")
	cid := k.comment(k.owner, "pub", 1, "with a file")
	kept := up("api/v1/repos/acme/pub/issues/1/assets", "kept.txt")
	commentFile := up(fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d/assets", cid), "comment.txt")
	issueFile := up(fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/assets", second), "issue.txt")
	privFile := up("api/v1/repos/acme/priv/issues/1/assets", "priv.txt")
	if n := k.storedFiles(); n != 4 {
		t.Fatalf("%d files stored, want 4", n)
	}
	gone := func(a attachmentJSON, files int) {
		t.Helper()
		if r := k.download(a.URL, Token(k.owner.Token)); r.Status != 404 {
			t.Fatalf("download of %s after its owner was deleted: %d", a.Name, r.Status)
		}
		if n := k.storedFiles(); n != files {
			t.Fatalf("%d files stored after %s went, want %d", n, a.Name, files)
		}
	}
	k.must(k.do("DELETE", fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d", cid), k.owner.Token, nil), 204, "delete comment")
	gone(commentFile, 3)
	k.must(k.do("DELETE", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d", second), k.owner.Token, nil), 204, "delete issue")
	gone(issueFile, 2)
	k.must(k.do("DELETE", "api/v1/repos/acme/priv", k.owner.Token, nil), 204, "delete repository")
	gone(privFile, 1)
	if r := k.download(kept.URL); r.Status != 200 || string(r.Body) != "content of kept.txt" {
		t.Fatalf("an unrelated attachment: %d %q", r.Status, r.Body)
	}
}

func TestAttachmentDownloadPermissions(t *testing.T) {
	k := newActKit(t)
	var at attachmentJSON
	k.must(k.upload("api/v1/repos/acme/priv/issues/1/assets", k.owner.Token, "attachment", "secret.txt", []byte("top secret"), 0), 201, "upload").Decode(t, &at)
	for _, c := range []struct {
		name string
		opt  RequestOption
		want int
	}{
		{"signed out", Token(""), 404},
		{"stranger token", Token(k.stranger.Token), 404},
		{"stranger password", Basic("stranger", k.stranger.Password), 404},
		{"restricted", Token(k.restrict.Token), 404},
		{"reader token", Token(k.reader.Token), 200},
		{"reader password", Basic("reader", k.reader.Password), 200},
		{"site admin", Token(k.admin.Token), 200},
		{"wrong password", Basic("reader", "nope"), 401},
	} {
		r := k.download(at.URL, c.opt)
		if r.Status != c.want {
			t.Errorf("%s: %d, want %d (%s)", c.name, r.Status, c.want, r.Body)
		}
		if r.Status != 200 && strings.Contains(string(r.Body), "top secret") {
			t.Errorf("%s: content leaked", c.name)
		}
	}
	// A token limited to public repositories cannot fetch it, nor can a token without the issue scope.
	pub := k.s.CreateToken("reader", k.reader.Password, "public-only", "read:issue", "public-only")
	if r := k.download(at.URL, Token(pub)); r.Status != 404 {
		t.Errorf("public-only token: %d", r.Status)
	}
	noIssue := k.s.CreateToken("reader", k.reader.Password, "no-issue", "read:repository")
	if r := k.download(at.URL, Token(noIssue)); r.Status != 403 {
		t.Errorf("token without the issue scope: %d", r.Status)
	}
	// Unknown and malformed UUIDs.
	for _, p := range []string{"attachments/00000000-0000-4000-8000-000000000000", "attachments/..%2F..%2Fcairn.db", "attachments/-rf"} {
		if r := k.s.Do("GET", p, Token(k.admin.Token)); r.Status != 404 {
			t.Errorf("GET %s: %d", p, r.Status)
		}
	}
	// HTML is never served as HTML, even under a name the types allow.
	var page attachmentJSON
	k.must(k.upload("api/v1/repos/acme/pub/issues/1/assets", k.owner.Token, "attachment", "page.txt",
		[]byte("<!DOCTYPE html><html><script>alert(1)</script></html>"), 0), 201, "upload html").Decode(t, &page)
	r := k.download(page.URL)
	if ct := r.Header.Get("Content-Type"); strings.Contains(ct, "html") || r.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("HTML served as %q (disposition %q)", ct, r.Header.Get("Content-Disposition"))
	}
}

func TestAttachmentLimits(t *testing.T) {
	k := newActKit(t, WithEnv("CAIRN_ATTACHMENT_MAX_SIZE=1"))
	assets := "api/v1/repos/acme/pub/issues/1/assets"
	mib := 1 << 20

	// Exactly the limit is fine; one byte more is refused with 413 and leaves nothing.
	k.must(k.upload(assets, k.owner.Token, "attachment", "exact.txt", bytes.Repeat([]byte("a"), mib), 0), 201, "upload at the limit")
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "big.txt", bytes.Repeat([]byte("a"), mib+1), 0), 413, "exceeds limit", "one byte over")
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "huge.txt", bytes.Repeat([]byte("a"), 3*mib), 0), 413, "exceeds limit", "far over")
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "late.txt", []byte("a"), 3*mib), 413, "exceeds limit", "body over the limit before the file")
	// Forbidden types: 422, nothing kept.
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "run.exe", []byte("MZ\x90\x00\x03"), 0), 422, "not allowed", "forbidden extension")
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "page.html", []byte("<html></html>"), 0), 422, "not allowed", "html")
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "", []byte("x"), 0), 422, "Name", "no file name")
	k.wantError(k.upload(assets, k.owner.Token, "", "", nil, 10), 422, "Attachment", "no file field")
	k.wantError(k.upload(assets, k.owner.Token, "file", "a.txt", []byte("x"), 0), 422, "Attachment", "file in another field")
	k.wantError(k.do("POST", assets, k.owner.Token, map[string]any{"attachment": "x"}), 422, "multipart", "JSON body")
	if list := k.attachments(assets, ""); len(list) != 1 || list[0].Name != "exact.txt" {
		t.Fatalf("attachments after refusals: %+v", list)
	}
	if n := k.storedFiles(); n != 1 {
		t.Fatalf("%d files on disk after refused uploads, want 1", n)
	}
	// Renaming to a forbidden extension is refused and changes nothing.
	list := k.attachments(assets, "")
	k.wantError(k.do("PATCH", fmt.Sprintf("%s/%d", assets, list[0].ID), k.owner.Token, map[string]any{"name": "exact.exe"}), 422, "not allowed", "rename to .exe")
	k.wantError(k.do("PATCH", fmt.Sprintf("%s/%d", assets, list[0].ID), k.owner.Token, map[string]any{"name": 3}), 422, "Name", "rename with a number")
	if l := k.attachments(assets, ""); l[0].Name != "exact.txt" {
		t.Fatalf("refused rename changed the name to %q", l[0].Name)
	}
	k.must(k.do("GET", assets+"/999999", "", nil), 404, "unknown attachment")
	k.must(k.do("GET", "api/v1/repos/acme/pub/issues/42/assets", "", nil), 404, "unknown issue")
}

func TestAttachmentTypesByMIME(t *testing.T) {
	k := newActKit(t, WithEnv("CAIRN_ATTACHMENT_ALLOWED_TYPES=image/*,.log"))
	assets := "api/v1/repos/acme/pub/issues/1/assets"
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	var img attachmentJSON
	k.must(k.upload(assets, k.owner.Token, "attachment", "shot.bin", png, 0), 201, "PNG content under any name").Decode(t, &img)
	k.must(k.upload(assets, k.owner.Token, "attachment", "server.log", []byte("plain text"), 0), 201, "allowed extension")
	k.wantError(k.upload(assets, k.owner.Token, "attachment", "fake.png", []byte("just text"), 0), 422, "not allowed", "text named .png")
	if r := k.download(img.URL); r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("image served as %q", r.Header.Get("Content-Type"))
	}

	all := newActKit(t, WithEnv("CAIRN_ATTACHMENT_ALLOWED_TYPES=*/*"))
	all.must(all.upload(assets, all.owner.Token, "attachment", "tool.exe", []byte("MZ\x90\x00"), 0), 201, "*/* allows everything")
	off := newActKit(t, WithEnv("CAIRN_ATTACHMENT_ENABLED=false"))
	off.must(off.do("GET", assets, off.owner.Token, nil), 404, "attachments disabled: list")
	off.must(off.upload(assets, off.owner.Token, "attachment", "a.txt", []byte("a"), 0), 404, "attachments disabled: upload")
}

func TestAttachmentQueryCount(t *testing.T) {
	k := newActKit(t)
	assets := "api/v1/repos/acme/pub/issues/1/assets"
	k.must(k.upload(assets, k.owner.Token, "attachment", "a.txt", []byte("a"), 0), 201, "upload")
	small := k.do("GET", assets, "", nil).Header.Get("X-Cairn-Query-Count")
	for i := 0; i < 5; i++ {
		k.must(k.upload(assets, k.owner.Token, "attachment", fmt.Sprintf("f%d.txt", i), []byte("a"), 0), 201, "upload")
	}
	if large := k.do("GET", assets, "", nil).Header.Get("X-Cairn-Query-Count"); small == "" || small != large {
		t.Fatalf("query count grows with the list: %s vs %s", small, large)
	}
}

func TestAttachmentPermissions(t *testing.T) {
	k := newActKit(t)
	ids := map[string]int64{}
	for _, repo := range []string{"pub", "priv"} {
		var at attachmentJSON
		k.must(k.upload("api/v1/repos/acme/"+repo+"/issues/1/assets", k.owner.Token, "attachment", "seed.txt", []byte("seed"), 0), 201, "seed").Decode(t, &at)
		ids[repo] = at.ID
	}
	read := map[string][2]int{"signed out": {200, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200}, "site admin": {200, 200}}
	// Changing: the issue's poster (owner) or writers; readers and strangers are refused.
	change := func(ok int) map[string][2]int {
		return map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {ok, ok}, "site admin": {ok, ok}}
	}
	k.runMatrix([]matrixCase{
		{"GET", "api/v1/repos/acme/%s/issues/1/assets", nil, read},
	})
	for _, repo := range []string{"pub", "priv"} {
		i := 0
		if repo == "priv" {
			i = 1
		}
		one := fmt.Sprintf("api/v1/repos/acme/%s/issues/1/assets/%d", repo, ids[repo])
		for _, who := range k.callers() {
			if r := k.do("GET", one, who.tok, nil); r.Status != read[who.name][i] {
				t.Errorf("GET %s as %s: %d, want %d", one, who.name, r.Status, read[who.name][i])
			}
			if r := k.do("PATCH", one, who.tok, map[string]any{"name": "seed.txt"}); r.Status != change(201)[who.name][i] {
				t.Errorf("PATCH %s as %s: %d, want %d", one, who.name, r.Status, change(201)[who.name][i])
			}
			if r := k.upload(fmt.Sprintf("api/v1/repos/acme/%s/issues/1/assets", repo), who.tok, "attachment", "m.txt", []byte("m"), 0); r.Status != change(201)[who.name][i] {
				t.Errorf("POST assets of %s as %s: %d, want %d", repo, who.name, r.Status, change(201)[who.name][i])
			}
		}
		// Deletion, last: refused callers first, then a writer.
		for _, who := range k.callers() {
			if who.name == "writer" || who.name == "site admin" {
				continue
			}
			if r := k.do("DELETE", one, who.tok, nil); r.Status != change(204)[who.name][i] {
				t.Errorf("DELETE %s as %s: %d, want %d", one, who.name, r.Status, change(204)[who.name][i])
			}
		}
		k.must(k.do("DELETE", one, k.writer.Token, nil), 204, "writer deletes")
	}
	// Comment attachments: the comment's poster (owner) or writers.
	for i, repo := range []string{"pub", "priv"} {
		cid := k.comment(k.owner, repo, 1, "with a file")
		cassets := fmt.Sprintf("api/v1/repos/acme/%s/issues/comments/%d/assets", repo, cid)
		var at attachmentJSON
		k.must(k.upload(cassets, k.owner.Token, "attachment", "c.txt", []byte("c"), 0), 201, "seed comment attachment").Decode(t, &at)
		one := fmt.Sprintf("%s/%d", cassets, at.ID)
		for _, who := range k.callers() {
			if r := k.do("GET", cassets, who.tok, nil); r.Status != read[who.name][i] {
				t.Errorf("GET %s as %s: %d, want %d", cassets, who.name, r.Status, read[who.name][i])
			}
			if r := k.do("GET", one, who.tok, nil); r.Status != read[who.name][i] {
				t.Errorf("GET %s as %s: %d, want %d", one, who.name, r.Status, read[who.name][i])
			}
			if r := k.upload(cassets, who.tok, "attachment", "m.txt", []byte("m"), 0); r.Status != change(201)[who.name][i] {
				t.Errorf("POST %s as %s: %d, want %d", cassets, who.name, r.Status, change(201)[who.name][i])
			}
			if r := k.do("PATCH", one, who.tok, map[string]any{"name": "c.txt"}); r.Status != change(201)[who.name][i] {
				t.Errorf("PATCH %s as %s: %d, want %d", one, who.name, r.Status, change(201)[who.name][i])
			}
			if who.name != "writer" && who.name != "site admin" {
				if r := k.do("DELETE", one, who.tok, nil); r.Status != change(204)[who.name][i] {
					t.Errorf("DELETE %s as %s: %d, want %d", one, who.name, r.Status, change(204)[who.name][i])
				}
			}
		}
		k.must(k.do("DELETE", one, k.admin.Token, nil), 204, "site admin deletes")
	}
	// A reader may change the attachments of an issue they opened.
	idx := k.issue(k.reader, "pub", "reader's issue")
	k.must(k.upload(fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/assets", idx), k.reader.Token, "attachment", "mine.txt", []byte("m"), 0), 201, "poster uploads")
	if _, err := os.Stat(filepath.Join(k.s.DataDir, "attachments")); err != nil {
		t.Fatalf("attachments are not under the data dir: %v", err)
	}
}

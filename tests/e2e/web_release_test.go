package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// webPostFiles sends a multipart form (fields and files) to path with the
// CSRF token of the last page w loaded.
func webPostFiles(t *testing.T, w *Web, path string, fields url.Values, field string, files map[string][]byte) *Page {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if fields.Get("_csrf") == "" {
		fields.Set("_csrf", w.csrf)
	}
	for k, vs := range fields {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, data := range files {
		part, err := mw.CreateFormFile(field, name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = part.Write(data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", w.s.URL+strings.TrimPrefix(path, "/"), &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return w.do(req)
}

// mustLack fails the test when the page holds any of subs.
func (p *Page) mustLack(t *testing.T, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(p.Body, s) {
			t.Fatalf("page holds %q: %.3000s", s, p.Body)
		}
	}
}

// TestWebReleaseCreateWithAsset: a writer creates a release with an asset
// through the form; the API shows both, the list renders the notes and
// links the asset, and the download serves it.
func TestWebReleaseCreateWithAsset(t *testing.T) {
	k := newActKit(t)
	w := k.s.Web(t)
	w.SignIn(k.writer.Name, k.writer.Password)
	w.Get("acme/pub/releases/new").MustContain(t, 200, `name="tag_name"`, `enctype="multipart/form-data"`, `<option value="main">`)
	asset := []byte("binary tool contents \x00\x01")
	p := webPostFiles(t, w, "acme/pub/releases/new", url.Values{"tag_name": {"v1.0"}, "tag_target": {"main"},
		"title": {"Web One"}, "content": {"Some **bold** notes <script>alert(1)</script>"}}, "attachment",
		map[string][]byte{"tool.bin": asset})
	if p.Status != http.StatusSeeOther || p.Location != "/acme/pub/releases/tag/v1.0" {
		t.Fatalf("create: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	var rel releaseJSON
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases/tags/v1.0", k.reader.Token, nil), 200, "release in the API").Decode(t, &rel)
	if rel.Draft || len(rel.Assets) != 1 || rel.Assets[0].Name != "tool.bin" || rel.Assets[0].Size != int64(len(asset)) {
		t.Fatalf("API release: %+v", rel)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v1.0", k.reader.Token, nil), 200, "tag created with the release")

	page := w.Get("acme/pub/releases/tag/v1.0")
	page.MustContain(t, 200, "Release v1.0 saved.", "Web One", "<strong>bold</strong>", `href="/acme/pub/releases/download/v1.0/tool.bin"`, "tool.bin", `href="/acme/pub/archive/v1.0.zip"`, "Assets (3)")
	page.mustLack(t, "<script>alert(1)")
	list := k.s.Web(t).Get("acme/pub/releases") // signed out, public repository
	list.MustContain(t, 200, "Web One", "tool.bin")
	list.mustLack(t, "New release")
	dl := k.s.Do("GET", "acme/pub/releases/download/v1.0/tool.bin")
	if dl.Status != 200 || !bytes.Equal(dl.Body, asset) {
		t.Fatalf("download: %d %q", dl.Status, dl.Body)
	}

	// A second release of the same tag is refused on the form.
	w.Get("acme/pub/releases/new")
	dup := w.Post("acme/pub/releases/new", url.Values{"tag_name": {"v1.0"}, "title": {"again"}})
	dup.MustContain(t, http.StatusConflict, "already exists", `value="again"`)
}

// TestWebReleaseDraftsAndPermissions: drafts are seen by writers only,
// readers and strangers cannot create, private repositories are hidden.
func TestWebReleaseDraftsAndPermissions(t *testing.T) {
	k := newActKit(t)
	writer := k.s.Web(t)
	writer.SignIn(k.writer.Name, k.writer.Password)
	writer.Get("acme/pub/releases/new")
	p := writer.Post("acme/pub/releases/new", url.Values{"tag_name": {"v2.0"}, "title": {"Secret draft"}, "draft": {"on"}, "prerelease": {"on"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("draft: %d %.2000s", p.Status, p.Body)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v2.0", k.writer.Token, nil), 404, "a draft creates no tag")
	writer.Get("acme/pub/releases").MustContain(t, 200, "Secret draft", "Draft", "Pre-release")

	reader := k.s.Web(t)
	reader.SignIn(k.reader.Name, k.reader.Password)
	reader.Get("acme/pub/releases").mustLack(t, "Secret draft")
	if p := reader.Get("acme/pub/releases/tag/v2.0"); p.Status != 404 {
		t.Fatalf("reader sees the draft: %d", p.Status)
	}
	var list []releaseJSON
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases", k.reader.Token, nil), 200, "reader list").Decode(t, &list)
	if len(list) != 0 {
		t.Fatalf("reader's API list: %+v", list)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases", k.writer.Token, nil), 200, "writer list").Decode(t, &list)
	if len(list) != 1 || !list[0].Draft {
		t.Fatalf("writer's API list: %+v", list)
	}

	// Readers may not create, edit or delete.
	reader.Get("acme/pub/releases").MustContain(t, 200)
	if p := reader.Get("acme/pub/releases/new"); p.Status != 403 {
		t.Fatalf("reader's form: %d", p.Status)
	}
	if p := reader.Post("acme/pub/releases/new", url.Values{"tag_name": {"v3.0"}}); p.Status != 403 {
		t.Fatalf("reader creates: %d", p.Status)
	}
	if p := reader.Post("acme/pub/releases/delete", url.Values{"id": {"1"}}); p.Status != 403 {
		t.Fatalf("reader deletes: %d", p.Status)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases/tags/v3.0", k.owner.Token, nil), 404, "no release from the reader")
	// Signed out: the form sends to the sign-in page.
	anon := k.s.Web(t)
	if p := anon.Get("acme/pub/releases/new"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
		t.Fatalf("signed-out form: %d %q", p.Status, p.Location)
	}

	// The private repository: 404 to strangers and signed-out visitors,
	// shown to readers.
	k.must(k.do("POST", "api/v1/repos/acme/priv/releases", k.owner.Token, map[string]any{"tag_name": "p1", "name": "Private one"}), 201, "private release")
	stranger := k.s.Web(t)
	stranger.SignIn(k.stranger.Name, k.stranger.Password)
	for _, path := range []string{"acme/priv/releases", "acme/priv/releases/tag/p1", "acme/priv/releases/new"} {
		for who, c := range map[string]*Web{"stranger": stranger, "anonymous": anon} {
			if p := c.Get(path); p.Status != 404 || strings.Contains(p.Body, "Private one") {
				t.Fatalf("%s GET %s: %d", who, path, p.Status)
			}
		}
	}
	reader.Get("acme/priv/releases").MustContain(t, 200, "Private one")
	reader.Get("acme/priv/releases/tag/p1").MustContain(t, 200, "Private one")
}

// TestWebReleaseEditPublishAndDelete: publishing a draft creates its tag,
// assets are added and deleted on the edit form, tag protection refusals
// are shown on the form, and deleting keeps the tag.
func TestWebReleaseEditPublishAndDelete(t *testing.T) {
	k := newActKit(t)
	w := k.s.Web(t)
	w.SignIn(k.writer.Name, k.writer.Password)
	w.Get("acme/pub/releases/new")
	if p := w.Post("acme/pub/releases/new", url.Values{"tag_name": {"v5.0"}, "title": {"Five"}, "draft": {"on"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("draft: %d %.2000s", p.Status, p.Body)
	}
	w.Get("acme/pub/releases/edit/v5.0").MustContain(t, 200, `value="Five"`, "No assets.", `name="draft" value="on" checked`)
	p := webPostFiles(t, w, "acme/pub/releases/edit/v5.0", url.Values{"tag_name": {"v5.0"}, "tag_target": {"main"},
		"title": {"Five, published"}, "content": {"now out"}}, "attachment", map[string][]byte{"five.txt": []byte("five")})
	if p.Status != http.StatusSeeOther || p.Location != "/acme/pub/releases/tag/v5.0" {
		t.Fatalf("publish: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	var rel releaseJSON
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases/tags/v5.0", k.reader.Token, nil), 200, "published").Decode(t, &rel)
	if rel.Draft || len(rel.Assets) != 1 || rel.Assets[0].Name != "five.txt" {
		t.Fatalf("published release: %+v", rel)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v5.0", k.reader.Token, nil), 200, "publishing created the tag")

	// Deleting the asset from the edit form.
	edit := w.Get("acme/pub/releases/edit/v5.0")
	edit.MustContain(t, 200, "five.txt", `action="/acme/pub/releases/assets/delete"`)
	p = w.Post("acme/pub/releases/assets/delete", url.Values{"release": {strconv.FormatInt(rel.ID, 10)}, "id": {strconv.FormatInt(rel.Assets[0].ID, 10)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("delete asset: %d %.2000s", p.Status, p.Body)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases/tags/v5.0", k.reader.Token, nil), 200, "after asset delete").Decode(t, &rel)
	if len(rel.Assets) != 0 {
		t.Fatalf("asset kept: %+v", rel.Assets)
	}

	// Tag protection refuses the writer a protected tag: shown on the form.
	k.must(k.do("POST", "api/v1/repos/acme/pub/tag_protections", k.owner.Token, map[string]any{"name_pattern": "v9*",
		"whitelist_usernames": []string{k.owner.Name}}), 201, "tag rule")
	w.Get("acme/pub/releases/new")
	p = w.Post("acme/pub/releases/new", url.Values{"tag_name": {"v9.0"}, "title": {"Nine"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "flash-error", "protected tag", `value="Nine"`)
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases/tags/v9.0", k.owner.Token, nil), 404, "refused release")
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v9.0", k.owner.Token, nil), 404, "refused tag")

	// Deleting the release keeps its tag.
	w.Get("acme/pub/releases")
	if p := w.Post("acme/pub/releases/delete", url.Values{"id": {strconv.FormatInt(rel.ID, 10)}}); p.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d %.2000s", p.Status, p.Body)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/releases/tags/v5.0", k.owner.Token, nil), 404, "deleted release")
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v5.0", k.owner.Token, nil), 200, "tag kept")
	w.Get("acme/pub/releases").MustContain(t, 200, "There are no releases yet.")
}

package e2e

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

type releaseJSON struct {
	ID      int64            `json:"id"`
	TagName string           `json:"tag_name"`
	Draft   bool             `json:"draft"`
	Assets  []attachmentJSON `json:"assets"`
	Tarball string           `json:"tarball_url"`
	Zipball string           `json:"zipball_url"`
}

func ptr[T any](v T) *T { return &v }

// TestReleaseSDK walks the Go SDK's release and asset calls.
func TestReleaseSDK(t *testing.T) {
	k := newActKit(t)
	c := k.s.Client(k.owner.Token)
	rel, resp, err := c.CreateRelease("acme", "pub", gitea.CreateReleaseOption{TagName: "v1.0", Title: "One", Note: "first"})
	if err != nil || resp.StatusCode != 201 || rel.TagName != "v1.0" || rel.Target != "main" || rel.IsDraft {
		t.Fatalf("create: %v %+v", err, rel)
	}
	if !strings.HasSuffix(rel.TarURL, "/acme/pub/archive/v1.0.tar.gz") || !strings.HasSuffix(rel.ZipURL, "/acme/pub/archive/v1.0.zip") {
		t.Fatalf("archive urls %q %q", rel.TarURL, rel.ZipURL)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v1.0", k.owner.Token, nil), 200, "tag created with the release")
	if _, resp, _ := c.CreateRelease("acme", "pub", gitea.CreateReleaseOption{TagName: "v1.0", Title: "dup"}); resp == nil || resp.StatusCode != 409 {
		t.Fatalf("second release of v1.0: %v", resp)
	}
	pre, _, err := c.CreateRelease("acme", "pub", gitea.CreateReleaseOption{TagName: "v2.0-rc", Title: "rc", IsPrerelease: true})
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := c.ListReleases("acme", "pub", gitea.ListReleasesOptions{})
	if err != nil || len(list) != 2 || list[0].ID != pre.ID {
		t.Fatalf("list: %v %d", err, len(list))
	}
	list, _, _ = c.ListReleases("acme", "pub", gitea.ListReleasesOptions{IsPreRelease: ptr(false)})
	if len(list) != 1 || list[0].ID != rel.ID {
		t.Fatalf("list non-prereleases: %d", len(list))
	}
	if got, _, err := c.GetRelease("acme", "pub", rel.ID); err != nil || got.Title != "One" {
		t.Fatalf("get: %v", err)
	}
	if got, _, err := c.GetReleaseByTag("acme", "pub", "v2.0-rc"); err != nil || got.ID != pre.ID {
		t.Fatalf("get by tag: %v", err)
	}
	if got, _, err := c.GetLatestRelease("acme", "pub"); err != nil || got.ID != rel.ID {
		t.Fatalf("latest: %v %+v", err, got)
	}
	ed, _, err := c.EditRelease("acme", "pub", rel.ID, gitea.EditReleaseOption{Note: "edited", IsPrerelease: ptr(true)})
	if err != nil || ed.Title != "One" || ed.Note != "edited" || !ed.IsPrerelease {
		t.Fatalf("edit: %v %+v", err, ed)
	}
	if _, resp, _ := c.GetLatestRelease("acme", "pub"); resp == nil || resp.StatusCode != 404 {
		t.Fatalf("latest without published releases: %v", resp)
	}

	at, resp, err := c.CreateReleaseAttachment("acme", "pub", rel.ID, bytes.NewReader([]byte("binary data")), "tool.bin")
	if err != nil || resp.StatusCode != 201 || at.Name != "tool.bin" || at.Size != 11 {
		t.Fatalf("upload: %v %+v", err, at)
	}
	ats, _, err := c.ListReleaseAttachments("acme", "pub", rel.ID, gitea.ListReleaseAttachmentsOptions{})
	if err != nil || len(ats) != 1 {
		t.Fatalf("list assets: %v %d", err, len(ats))
	}
	if got, _, err := c.GetReleaseAttachment("acme", "pub", rel.ID, at.ID); err != nil || got.UUID != at.UUID {
		t.Fatalf("get asset: %v", err)
	}
	if got, _, err := c.EditReleaseAttachment("acme", "pub", rel.ID, at.ID, gitea.EditAttachmentOptions{Name: "tool-linux.bin"}); err != nil || got.Name != "tool-linux.bin" {
		t.Fatalf("rename asset: %v", err)
	}
	dl := k.download(at.DownloadURL, Token(k.reader.Token))
	if dl.Status != 200 || string(dl.Body) != "binary data" {
		t.Fatalf("download: %d %s", dl.Status, dl.Body)
	}
	if got, _, _ := c.GetReleaseAttachment("acme", "pub", rel.ID, at.ID); got.DownloadCount != 1 {
		t.Fatalf("download count %d", got.DownloadCount)
	}
	// Gitea's web address of the asset, by tag and name.
	if r := k.s.Do("GET", "acme/pub/releases/download/v1.0/tool-linux.bin"); r.Status != 200 || string(r.Body) != "binary data" ||
		!strings.Contains(r.Header.Get("Content-Disposition"), "tool-linux.bin") {
		t.Fatalf("download by tag and name: %d %s %q", r.Status, r.Body, r.Header.Get("Content-Disposition"))
	}
	for _, p := range []string{"acme/pub/releases/download/v1.0/other.bin", "acme/pub/releases/download/v9/tool-linux.bin",
		"acme/nope/releases/download/v1.0/tool-linux.bin"} {
		if r := k.s.Do("GET", p); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", p, r.Status)
		}
	}
	if got, _, _ := c.GetReleaseAttachment("acme", "pub", rel.ID, at.ID); got.DownloadCount != 2 {
		t.Fatalf("download count after the web download %d", got.DownloadCount)
	}
	if got, _, _ := c.GetRelease("acme", "pub", rel.ID); len(got.Attachments) != 1 {
		t.Fatalf("release assets %d", len(got.Attachments))
	}
	if _, err := c.DeleteReleaseAttachment("acme", "pub", rel.ID, at.ID); err != nil {
		t.Fatal(err)
	}
	if k.storedFiles() != 0 {
		t.Fatalf("asset file left: %d", k.storedFiles())
	}
	if _, err := c.DeleteRelease("acme", "pub", rel.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteReleaseByTag("acme", "pub", "v2.0-rc"); err != nil {
		t.Fatal(err)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v1.0", k.owner.Token, nil), 200, "tag kept after deleting its release")
	if _, resp, _ := c.GetRelease("acme", "pub", rel.ID); resp == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted release: %v", resp)
	}
	// The tag's row is a tag-only release again: a new release on it works.
	if _, resp, err := c.CreateRelease("acme", "pub", gitea.CreateReleaseOption{TagName: "v1.0", Title: "again"}); err != nil || resp.StatusCode != 201 {
		t.Fatalf("release on a tag whose release was deleted: %v", err)
	}
}

// TestReleaseDraftsHidden: drafts exist only for writers of the releases
// unit, on every route.
func TestReleaseDraftsHidden(t *testing.T) {
	k := newActKit(t)
	var d releaseJSON
	k.must(k.do("POST", "api/v1/repos/acme/pub/releases", k.writer.Token, map[string]any{"tag_name": "v3", "draft": true, "name": "draft"}), 201, "create draft").Decode(t, &d)
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v3", k.owner.Token, nil), 404, "a draft creates no tag")
	up := k.upload(fmt.Sprintf("api/v1/repos/acme/pub/releases/%d/assets", d.ID), k.writer.Token, "attachment", "a.txt", []byte("hello"), 0)
	k.must(up, 201, "upload to draft")
	var at attachmentJSON
	up.Decode(t, &at)
	base := "api/v1/repos/acme/pub/releases"
	for _, tok := range []string{k.reader.Token, k.stranger.Token, ""} {
		var list []releaseJSON
		k.must(k.do("GET", base, tok, nil), 200, "list").Decode(t, &list)
		if len(list) != 0 {
			t.Fatalf("a reader sees drafts in the list")
		}
		k.must(k.do("GET", base+"?draft=true", tok, nil), 200, "list drafts").Decode(t, &list)
		if len(list) != 0 {
			t.Fatalf("a reader sees drafts with draft=true")
		}
		for _, p := range []string{fmt.Sprint(d.ID), "tags/v3", "latest", fmt.Sprintf("%d/assets", d.ID), fmt.Sprintf("%d/assets/%d", d.ID, at.ID)} {
			k.must(k.do("GET", base+"/"+p, tok, nil), 404, "reader GET "+p)
		}
		var opts []RequestOption
		if tok != "" {
			opts = append(opts, Token(tok))
		}
		if r := k.download(at.URL, opts...); r.Status != 404 {
			t.Fatalf("reader downloads a draft's asset: %d", r.Status)
		}
		if r := k.s.Do("GET", "acme/pub/releases/download/v3/a.txt", opts...); r.Status != 404 {
			t.Fatalf("reader downloads a draft's asset by tag and name: %d", r.Status)
		}
	}
	if r := k.s.Do("GET", "acme/pub/releases/download/v3/a.txt", Token(k.writer.Token)); r.Status != 200 || string(r.Body) != "hello" {
		t.Fatalf("writer downloads a draft's asset by tag and name: %d %s", r.Status, r.Body)
	}
	var list []releaseJSON
	k.must(k.do("GET", base, k.writer.Token, nil), 200, "writer list").Decode(t, &list)
	if len(list) != 1 || !list[0].Draft || len(list[0].Assets) != 1 {
		t.Fatalf("writer list %+v", list)
	}
	k.must(k.do("GET", base+"/tags/v3", k.writer.Token, nil), 200, "writer by tag")
	if r := k.download(at.URL, Token(k.writer.Token)); r.Status != 200 {
		t.Fatalf("writer download %d", r.Status)
	}
	// Publishing creates the tag; readers then see it.
	var pub releaseJSON
	k.must(k.do("PATCH", fmt.Sprintf("%s/%d", base, d.ID), k.writer.Token, map[string]any{"draft": false}), 200, "publish").Decode(t, &pub)
	if pub.Draft {
		t.Fatal("still a draft")
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/tags/v3", k.owner.Token, nil), 200, "publishing creates the tag")
	k.must(k.do("GET", base+"/latest", k.reader.Token, nil), 200, "reader latest")
	if r := k.download(at.URL, Token(k.reader.Token)); r.Status != 200 {
		t.Fatalf("reader download after publishing %d", r.Status)
	}
	var repo struct {
		Releases int `json:"release_counter"`
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub", k.owner.Token, nil), 200, "repo").Decode(t, &repo)
	if repo.Releases != 1 {
		t.Fatalf("release_counter %d", repo.Releases)
	}
	// Readers cannot write.
	k.must(k.do("POST", base, k.reader.Token, map[string]any{"tag_name": "v4"}), 403, "reader create")
	k.must(k.do("DELETE", fmt.Sprintf("%s/%d", base, d.ID), k.reader.Token, nil), 403, "reader delete")
}

// TestReleaseBadInput: names git cannot have, asset names with paths,
// oversized assets, per_page.
func TestReleaseBadInput(t *testing.T) {
	k := newActKit(t, WithEnv("CAIRN_REPOSITORY_RELEASE_FILE_MAX_SIZE=1"))
	base := "api/v1/repos/acme/pub/releases"
	for _, tag := range []string{"-rf", "a..b", "bad tag", "x~1", ""} {
		k.must(k.do("POST", base, k.owner.Token, map[string]any{"tag_name": tag}), 422, "tag "+tag)
	}
	k.must(k.do("POST", base, k.owner.Token, map[string]any{"tag_name": "v9", "target_commitish": "nope"}), 404, "missing target")
	var rel releaseJSON
	k.must(k.do("POST", base, k.owner.Token, map[string]any{"tag_name": "v1"}), 201, "create").Decode(t, &rel)
	assets := fmt.Sprintf("%s/%d/assets", base, rel.ID)
	k.must(k.s.Do("POST", assets+"?name=../x.bin", Token(k.owner.Token), RawBody("x")), 422, "name with ..")
	k.must(k.s.Do("POST", assets+"?name=a%2Fb.bin", Token(k.owner.Token), RawBody("x")), 422, "name with /")
	k.must(k.s.Do("POST", assets+"?name=raw.bin", Token(k.owner.Token), RawBody("raw body")), 201, "raw upload")
	big := bytes.Repeat([]byte("z"), 1<<20+10)
	k.must(k.upload(assets, k.owner.Token, "attachment", "big.bin", big, 0), 413, "oversized asset")
	if n := k.storedFiles(); n != 1 {
		t.Fatalf("files after refused upload: %d", n)
	}
	for i := 2; i <= 4; i++ {
		k.must(k.do("POST", base, k.owner.Token, map[string]any{"tag_name": fmt.Sprintf("v%d", i)}), 201, "create")
	}
	r := k.must(k.do("GET", base+"?per_page=2", k.owner.Token, nil), 200, "per_page")
	var list []releaseJSON
	r.Decode(t, &list)
	if len(list) != 2 || r.Header.Get("X-Total-Count") != "4" || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("per_page=2: %d releases, total %q, link %q", len(list), r.Header.Get("X-Total-Count"), r.Header.Get("Link"))
	}
	k.must(k.do("GET", base+"?limit=3&page=2", k.owner.Token, nil), 200, "limit").Decode(t, &list)
	if len(list) != 1 {
		t.Fatalf("page 2 of 3: %d", len(list))
	}
}

// TestReleaseTagsPushed: tags pushed with git are tag-only rows; deleting a
// tag drops its tag-only row and turns its release into a draft.
func TestReleaseTagsPushed(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	k.create(alice.Token, "user/repos", map[string]any{"name": "proj"})
	work := k.workTree(map[string]string{"README.md": "hi\n"})
	k.mustGit(work, "tag", "v1")
	k.mustGit(work, "tag", "v2")
	remote := k.url(alice.Name, alice.Password, "alice/proj")
	k.mustGit(work, "push", "-q", remote, "main", "v1", "v2")
	head := k.mustGit(work, "rev-parse", "HEAD")
	base := "repos/alice/proj/releases"
	var list []releaseJSON
	k.api("GET", base, alice.Token, nil).Decode(t, &list)
	if len(list) != 0 {
		t.Fatalf("tag-only rows are listed: %d", len(list))
	}
	k.want(k.api("GET", base+"/tags/v1", alice.Token, nil), 404, "", "tag-only row by tag")
	// A release on a pushed tag takes its row and keeps the tag where it is.
	var rel struct {
		ID     int64  `json:"id"`
		Target string `json:"target_commitish"`
		Draft  bool   `json:"draft"`
	}
	resp := k.api("POST", base, alice.Token, map[string]any{"tag_name": "v1", "target_commitish": "main"})
	k.want(resp, 201, "", "release on pushed tag")
	resp.Decode(t, &rel)
	if k.mustGit(work, "ls-remote", remote, "refs/tags/v1") == "" || !strings.HasPrefix(k.mustGit(work, "ls-remote", remote, "refs/tags/v1"), head) {
		t.Fatal("tag moved")
	}
	// Deleting the tag by push: the release becomes a draft, v2's row goes.
	k.mustGit(work, "push", "-q", remote, ":v1", ":v2")
	var got struct {
		Draft bool `json:"draft"`
	}
	k.api("GET", fmt.Sprintf("%s/%d", base, rel.ID), alice.Token, nil).Decode(t, &got)
	if !got.Draft {
		t.Fatal("release of a deleted tag is not a draft")
	}
	var repo struct {
		Releases int `json:"release_counter"`
	}
	k.api("GET", "repos/alice/proj", alice.Token, nil).Decode(t, &repo)
	if repo.Releases != 0 {
		t.Fatalf("release_counter %d", repo.Releases)
	}
	// Publishing it again recreates the tag, which the tag API then refuses
	// to delete (409, as Gitea) until the release is gone.
	k.want(k.api("PATCH", fmt.Sprintf("%s/%d", base, rel.ID), alice.Token, map[string]any{"draft": false}), 200, "", "republish")
	k.want(k.api("GET", "repos/alice/proj/tags/v1", alice.Token, nil), 200, "", "tag recreated")
	k.want(k.api("DELETE", "repos/alice/proj/tags/v1", alice.Token, nil), 409, "", "delete tag of a release")
	k.want(k.api("DELETE", fmt.Sprintf("%s/%d", base, rel.ID), alice.Token, nil), 204, "", "delete release")
	k.want(k.api("DELETE", "repos/alice/proj/tags/v1", alice.Token, nil), 204, "", "delete tag")
	k.want(k.api("POST", base, alice.Token, map[string]any{"tag_name": "v1", "draft": true}), 201, "", "tag-only row gone with the tag")
	// v2 has no row any more: a draft on v2 then its publication work.
	k.want(k.api("POST", base, alice.Token, map[string]any{"tag_name": "v2", "draft": true}), 201, "", "draft on deleted tag")
	// Renaming a release's tag to a pushed tag takes that tag's row.
	k.mustGit(work, "tag", "v5")
	k.mustGit(work, "push", "-q", remote, "v5")
	var d2 struct {
		ID int64 `json:"id"`
	}
	k.api("POST", base, alice.Token, map[string]any{"tag_name": "v4", "draft": true}).Decode(t, &d2)
	k.want(k.api("PATCH", fmt.Sprintf("%s/%d", base, d2.ID), alice.Token, map[string]any{"tag_name": "v5", "draft": false}), 200, "", "retag onto pushed tag")
	k.want(k.api("GET", base+"/tags/v5", alice.Token, nil), 200, "", "release of v5")
	// Deleting the repository removes its releases.
	k.want(k.api("DELETE", "repos/alice/proj", alice.Token, nil), 204, "", "delete repo")
}

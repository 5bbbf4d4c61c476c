package e2e

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// pngOf draws a w×h PNG.
func pngOf(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// avatarFiles counts the uploaded avatar files on disk.
func avatarFiles(s *Server) int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(s.DataDir, "avatars"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestAvatars: users, organization owners and repository administrators
// upload avatars (cropped and scaled to 512×512 PNG, served publicly) and
// go back to the default; bad images and other callers are refused.
func TestAvatars(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	avatarOf := func(path, tok string) string {
		t.Helper()
		var v struct {
			AvatarURL string `json:"avatar_url"`
		}
		r := s.Do("GET", path, Token(tok))
		mustStatus(t, r, http.StatusOK, "get "+path)
		r.Decode(t, &v)
		return v.AvatarURL
	}
	fetch := func(u string) *Response {
		t.Helper()
		if !strings.HasPrefix(u, s.URL) {
			t.Fatalf("avatar URL %q is not on the server", u)
		}
		return s.Do("GET", strings.TrimPrefix(u, s.URL))
	}

	// The default avatar, then an upload (a wide image is cropped square).
	def := avatarOf("api/v1/users/alice", "")
	if !strings.HasSuffix(def, "avatars/alice") {
		t.Fatalf("default avatar = %q", def)
	}
	mustStatus(t, s.Do("POST", "api/v1/user/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 900, 300)})), http.StatusNoContent, "upload")
	custom := avatarOf("api/v1/users/alice", "")
	if custom == def || !strings.Contains(custom, "avatars/custom/") {
		t.Fatalf("avatar after upload = %q", custom)
	}
	r := fetch(custom)
	mustStatus(t, r, http.StatusOK, "fetch avatar")
	img, err := png.Decode(bytes.NewReader(r.Body))
	if err != nil || img.Bounds().Dx() != 512 || img.Bounds().Dy() != 512 || r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("stored avatar: %v %v %q", err, img, r.Header.Get("Content-Type"))
	}
	// A new upload replaces the file.
	mustStatus(t, s.Do("POST", "api/v1/user/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 64, 64)})), http.StatusNoContent, "second upload")
	if n := avatarFiles(s); n != 1 {
		t.Fatalf("%d avatar files after replacing, want 1", n)
	}
	mustStatus(t, fetch(custom), http.StatusNotFound, "replaced avatar")

	// Bad images change nothing.
	now := avatarOf("api/v1/users/alice", "")
	for what, img := range map[string]string{
		"not base64":   "%%%",
		"not an image": base64.StdEncoding.EncodeToString([]byte("hello")),
		"too wide":     pngOf(t, 5000, 10),
		"empty":        "",
	} {
		r := s.Do("POST", "api/v1/user/avatar", Token(alice.Token), JSON(map[string]any{"image": img}))
		if r.Status != http.StatusBadRequest && r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d %s", what, r.Status, r.Body)
		}
	}
	if avatarOf("api/v1/users/alice", "") != now {
		t.Fatal("a refused upload changed the avatar")
	}
	mustStatus(t, s.Do("POST", "api/v1/user/avatar", JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusUnauthorized, "signed out")
	mustStatus(t, s.Do("DELETE", "api/v1/user/avatar", Token(alice.Token)), http.StatusNoContent, "delete")
	if avatarOf("api/v1/users/alice", "") != def || avatarFiles(s) != 0 {
		t.Fatal("the default avatar did not come back")
	}

	// Organizations: owners only.
	mustStatus(t, s.Do("POST", "api/v1/orgs", Token(alice.Token), JSON(map[string]any{"username": "acme"})), http.StatusCreated, "org")
	mustStatus(t, s.Do("POST", "api/v1/orgs/acme/avatar", Token(bob.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusForbidden, "non-owner")
	mustStatus(t, s.Do("POST", "api/v1/orgs/acme/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "owner")
	if u := avatarOf("api/v1/orgs/acme", ""); !strings.Contains(u, "avatars/custom/") {
		t.Fatalf("org avatar = %q", u)
	}
	mustStatus(t, s.Do("DELETE", "api/v1/orgs/acme/avatar", Token(alice.Token)), http.StatusNoContent, "org delete")

	// Repositories: administrators only; none by default.
	createRepo(t, s, alice, "proj", false)
	if u := avatarOf("api/v1/repos/alice/proj", ""); u != "" {
		t.Fatalf("repository avatar by default = %q", u)
	}
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/avatar", Token(bob.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusForbidden, "reader")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "admin")
	u := avatarOf("api/v1/repos/alice/proj", "")
	mustStatus(t, fetch(u), http.StatusOK, "repository avatar")
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj/avatar", Token(alice.Token)), http.StatusNoContent, "repository delete")
	if u := avatarOf("api/v1/repos/alice/proj", ""); u != "" {
		t.Fatalf("repository avatar after delete = %q", u)
	}
	mustStatus(t, s.Do("GET", "avatars/custom/..%2f..%2fcairn.db"), http.StatusNotFound, "traversal")

	// Deleting the repository, the organization or the account removes its avatar.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "repository again")
	mustStatus(t, s.Do("POST", "api/v1/orgs/acme/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "org again")
	mustStatus(t, s.Do("POST", "api/v1/user/avatar", Token(bob.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "bob")
	if n := avatarFiles(s); n != 3 {
		t.Fatalf("%d avatar files, want 3", n)
	}
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj", Token(alice.Token)), http.StatusNoContent, "delete repository")
	mustStatus(t, s.Do("DELETE", "api/v1/orgs/acme", Token(alice.Token)), http.StatusNoContent, "delete org")
	mustStatus(t, s.Do("DELETE", "api/v1/admin/users/bob", Token(s.AdminTok)), http.StatusNoContent, "delete bob")
	if n := avatarFiles(s); n != 0 {
		t.Fatalf("%d avatar files left after the deletions", n)
	}

	// Purging an account deletes the organizations it alone owns, with their avatars.
	carol := s.CreateUser("carol")
	mustStatus(t, s.Do("POST", "api/v1/orgs", Token(carol.Token), JSON(map[string]any{"username": "solo"})), http.StatusCreated, "solo org")
	mustStatus(t, s.Do("POST", "api/v1/orgs/solo/avatar", Token(carol.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "solo avatar")
	mustStatus(t, s.Do("POST", "api/v1/user/avatar", Token(carol.Token), JSON(map[string]any{"image": pngOf(t, 8, 8)})), http.StatusNoContent, "carol avatar")
	if n := avatarFiles(s); n != 2 {
		t.Fatalf("%d avatar files, want 2", n)
	}
	mustStatus(t, s.Do("DELETE", "api/v1/admin/users/carol?purge=true", Token(s.AdminTok)), http.StatusNoContent, "purge carol")
	mustStatus(t, s.Do("GET", "api/v1/orgs/solo"), http.StatusNotFound, "purged org")
	if n := avatarFiles(s); n != 0 {
		t.Fatalf("%d avatar files left after the purge", n)
	}
}

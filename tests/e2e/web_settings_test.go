package e2e

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// peopleUpload posts a multipart form with one file in field to path with
// the CSRF token of the last page w loaded.
func peopleUpload(t *testing.T, w *Web, path, field, filename string, content []byte) *Page {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("_csrf", w.csrf)
	part, err := mw.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(content)
	_ = mw.Close()
	req, err := http.NewRequest("POST", w.s.URL+strings.TrimPrefix(path, "/"), &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return w.do(req)
}

// apiJSON decodes the JSON answer of an API GET that must succeed.
func apiJSON(t *testing.T, s *Server, path, tok string, v any) {
	t.Helper()
	r := s.API("GET", path, tok, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// mustRedirect fails unless p is a 303 to location.
func mustRedirect(t *testing.T, p *Page, location string) {
	t.Helper()
	if p.Status != http.StatusSeeOther || p.Location != location {
		t.Fatalf("got %d to %q, want 303 to %q: %.2000s", p.Status, p.Location, location, p.Body)
	}
}

// TestWebCreateRepoAndOrg creates repositories and organizations through
// the forms: they are real (API, git clone), the API's rules apply.
func TestWebCreateRepoAndOrg(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice := s.CreateUser("walice")
	bob := s.CreateUser("wbob")
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)

	t.Run("signed out is sent to sign in", func(t *testing.T) {
		p := s.Web(t).Get("/repo/create")
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
			t.Fatalf("signed out: %d %q", p.Status, p.Location)
		}
	})

	t.Run("repository with initial files", func(t *testing.T) {
		w.Get("/repo/create").MustContain(t, http.StatusOK, "New repository", `name="repo_name"`, `value="MIT"`, `value="Go"`)
		p := w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(alice.ID, 10)}, "repo_name": {"webmade"},
			"description": {"made on the web"}, "private": {"on"}, "auto_init": {"on"}, "readme": {"Default"},
			"gitignores": {"Go"}, "license": {"MIT"}, "default_branch": {"trunk"}})
		mustRedirect(t, p, "/walice/webmade")
		var got struct {
			Private       bool   `json:"private"`
			Description   string `json:"description"`
			DefaultBranch string `json:"default_branch"`
			Empty         bool   `json:"empty"`
		}
		apiJSON(t, s, "repos/walice/webmade", alice.Token, &got)
		if !got.Private || got.Description != "made on the web" || got.DefaultBranch != "trunk" || got.Empty {
			t.Fatalf("repository: %+v", got)
		}
		dir, ok := k.clone(alice, "walice/webmade")
		if !ok {
			t.Fatal("git clone refused")
		}
		for _, f := range []string{"README.md", "LICENSE", ".gitignore"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Fatalf("clone lacks %s: %v", f, err)
			}
		}
		if branch := k.mustGit(dir, "rev-parse", "--abbrev-ref", "HEAD"); branch != "trunk" {
			t.Fatalf("branch %q", branch)
		}
		// Strangers do not see it.
		if st, _ := k.get(bob.Token, "walice/webmade"); st != http.StatusNotFound {
			t.Fatalf("stranger sees the private repository: %d", st)
		}
	})

	t.Run("refusals keep the form", func(t *testing.T) {
		w.Get("/repo/create")
		p := w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(alice.ID, 10)}, "repo_name": {"webmade"}, "description": {"again"}})
		p.MustContain(t, http.StatusUnprocessableEntity, "already exists", `value="webmade"`, "again")
		p = w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(alice.ID, 10)}, "repo_name": {"bad name!"}})
		p.MustContain(t, http.StatusUnprocessableEntity, `value="bad name!"`)
		p = w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(alice.ID, 10)}, "repo_name": {"badlicense"}, "auto_init": {"on"}, "license": {"NoSuchLicense"}})
		p.MustContain(t, http.StatusUnprocessableEntity, "NoSuchLicense")
		// Someone else's account is no owner to create in.
		p = w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(bob.ID, 10)}, "repo_name": {"intruder"}})
		if p.Status != http.StatusNotFound {
			t.Fatalf("creating for another user: %d", p.Status)
		}
		if st, _ := k.get(s.AdminTok, "wbob/intruder"); st != http.StatusNotFound {
			t.Fatal("repository created for another user")
		}
		// Without the CSRF token nothing happens.
		p = w.Post("/repo/create", url.Values{"_csrf": {"forged"}, "repo_name": {"forged"}})
		if p.Status != http.StatusBadRequest {
			t.Fatalf("forged token: %d", p.Status)
		}
	})

	t.Run("creation limit", func(t *testing.T) {
		k.want(k.do("PATCH", "admin/users/wbob", s.AdminTok, map[string]any{"login_name": "wbob", "source_id": 0, "max_repo_creation": 1}), 200, "", "limit")
		wb := s.Web(t)
		wb.SignIn(bob.Name, bob.Password)
		wb.Get("/repo/create")
		mustRedirect(t, wb.Post("/repo/create", url.Values{"repo_name": {"first"}}), "/wbob/first")
		wb.Post("/repo/create", url.Values{"repo_name": {"second"}}).MustContain(t, http.StatusForbidden, "maximum number of repositories")
	})

	t.Run("organization and a repository in it", func(t *testing.T) {
		w.Get("/org/create").MustContain(t, http.StatusOK, "New organization", `name="org_name"`)
		mustRedirect(t, w.Post("/org/create", url.Values{"org_name": {"webcorp"}, "visibility": {"private"}}), "/webcorp")
		var o struct {
			ID         int64  `json:"id"`
			Visibility string `json:"visibility"`
		}
		apiJSON(t, s, "orgs/webcorp", alice.Token, &o)
		if o.Visibility != "private" {
			t.Fatalf("org: %+v", o)
		}
		w.Get("/repo/create?org="+strconv.FormatInt(o.ID, 10)).MustContain(t, http.StatusOK,
			`<option value="`+strconv.FormatInt(o.ID, 10)+`" selected>webcorp</option>`)
		mustRedirect(t, w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(o.ID, 10)}, "repo_name": {"orgmade"}}), "/webcorp/orgmade")
		if st, _ := k.get(alice.Token, "webcorp/orgmade"); st != http.StatusOK {
			t.Fatalf("org repository: %d", st)
		}
		// A user outside the organization cannot create in it.
		wb := s.Web(t)
		wb.SignIn(bob.Name, bob.Password)
		wb.Get("/repo/create")
		if p := wb.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(o.ID, 10)}, "repo_name": {"sneaky"}}); p.Status != http.StatusNotFound {
			t.Fatalf("outsider creating in a private org: %d", p.Status)
		}
		mustRedirect(t, wb.Post("/org/create", url.Values{"org_name": {"bobcorp"}, "visibility": {"public"}}), "/bobcorp")
		// A member without a team that may create repositories is refused.
		var team struct {
			ID int64 `json:"id"`
		}
		r := s.API("POST", "orgs/bobcorp/teams", bob.Token, map[string]any{"name": "readers", "permission": "read", "units": []string{"repo.code"}})
		mustStatus(t, r, 201, "team")
		r.Decode(t, &team)
		mustStatus(t, s.API("PUT", "teams/"+strconv.FormatInt(team.ID, 10)+"/members/walice", bob.Token, nil), 204, "member")
		var bc struct {
			ID int64 `json:"id"`
		}
		apiJSON(t, s, "orgs/bobcorp", bob.Token, &bc)
		p := w.Get("/repo/create")
		peopleLack(t, p, ">bobcorp<")
		w.Post("/repo/create", url.Values{"uid": {strconv.FormatInt(bc.ID, 10)}, "repo_name": {"nope"}}).
			MustContain(t, http.StatusForbidden, "You may not create repositories in bobcorp.")
	})

	t.Run("organization names are checked", func(t *testing.T) {
		w.Get("/org/create")
		w.Post("/org/create", url.Values{"org_name": {"walice"}, "visibility": {"public"}}).MustContain(t, http.StatusUnprocessableEntity, `value="walice"`)
		w.Post("/org/create", url.Values{"org_name": {"neworg"}, "visibility": {"secret"}}).MustContain(t, http.StatusUnprocessableEntity, "Choose public, limited or private.")
		rs := s.CreateUser("wrestricted", "restricted")
		wr := s.Web(t)
		wr.SignIn(rs.Name, rs.Password)
		wr.Get("/org/create").MustContain(t, http.StatusForbidden, "You may not create organizations.")
	})
}

// TestWebUserSettings: the profile, password, sessions, e-mail addresses,
// keys and tokens pages change what the API sees.
func TestWebUserSettings(t *testing.T) {
	s := StartServer(t)
	carol := s.CreateUser("wcarol")

	t.Run("signed out is sent to sign in", func(t *testing.T) {
		for _, path := range []string{"/user/settings", "/user/settings/account", "/user/settings/keys", "/user/settings/applications"} {
			p := s.Web(t).Get(path)
			if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
				t.Fatalf("%s signed out: %d %q", path, p.Status, p.Location)
			}
		}
	})

	w := s.Web(t)
	w.SignIn(carol.Name, carol.Password)

	t.Run("profile", func(t *testing.T) {
		w.Get("/user/settings").MustContain(t, http.StatusOK, "Profile", `name="full_name"`)
		p := w.Post("/user/settings", url.Values{"full_name": {"Carol <b>Web</b>"}, "description": {"hello"},
			"website": {"https://carol.example.com"}, "location": {"Lisbon"}, "visibility": {"limited"}, "keep_email_private": {"on"}})
		mustRedirect(t, p, "/user/settings")
		w.Get("/user/settings").MustContain(t, http.StatusOK, "Your profile has been updated.", `value="Carol &lt;b&gt;Web&lt;/b&gt;"`)
		var u struct {
			FullName   string `json:"full_name"`
			Website    string `json:"website"`
			Location   string `json:"location"`
			Desc       string `json:"description"`
			Visibility string `json:"visibility"`
		}
		apiJSON(t, s, "user", carol.Token, &u)
		if u.FullName != "Carol <b>Web</b>" || u.Website != "https://carol.example.com" || u.Location != "Lisbon" || u.Desc != "hello" || u.Visibility != "limited" {
			t.Fatalf("API user: %+v", u)
		}
		var set struct {
			HideEmail bool `json:"hide_email"`
		}
		apiJSON(t, s, "user/settings", carol.Token, &set)
		if !set.HideEmail {
			t.Fatal("e-mail not hidden")
		}
		// Limited: signed-out visitors no longer see the profile.
		s.Web(t).Get("/wcarol").MustContain(t, http.StatusNotFound)
		w.Get("/wcarol").MustContain(t, http.StatusOK, "Carol &lt;b&gt;Web&lt;/b&gt;", "Lisbon")
		// The API's rules apply.
		w.Get("/user/settings")
		w.Post("/user/settings", url.Values{"website": {"javascript:alert(1)"}, "visibility": {"public"}}).
			MustContain(t, http.StatusUnprocessableEntity, "Website")
		w.Post("/user/settings", url.Values{"location": {strings.Repeat("x", 51)}, "visibility": {"public"}}).
			MustContain(t, http.StatusUnprocessableEntity, "too long")
	})

	t.Run("avatar", func(t *testing.T) {
		img, _ := base64.StdEncoding.DecodeString(pngOf(t, 64, 64))
		w.Get("/user/settings")
		mustRedirect(t, peopleUpload(t, w, "/user/settings/avatar", "avatar", "me.png", img), "/user/settings")
		p := w.Get("/user/settings")
		p.MustContain(t, http.StatusOK, "Your avatar has been changed.", "/avatars/custom/")
		m := regexp.MustCompile(`/avatars/custom/[^"]+`).FindString(p.Body)
		if r := s.Do("GET", strings.TrimPrefix(m, "/")); r.Status != http.StatusOK {
			t.Fatalf("avatar file %s: %d", m, r.Status)
		}
		mustRedirect(t, peopleUpload(t, w, "/user/settings/avatar", "avatar", "bad.png", []byte("not an image")), "/user/settings")
		w.Get("/user/settings").MustContain(t, http.StatusOK, "flash-error")
		mustRedirect(t, w.Post("/user/settings/avatar/delete", nil), "/user/settings")
		peopleLack(t, w.Get("/user/settings"), "/avatars/custom/")
	})

	t.Run("e-mail addresses", func(t *testing.T) {
		w.Get("/user/settings/account").MustContain(t, http.StatusOK, "wcarol@example.com")
		mustRedirect(t, w.Post("/user/settings/account/email", url.Values{"email": {"carol2@example.com"}}), "/user/settings/account")
		w.Get("/user/settings/account").MustContain(t, http.StatusOK, "carol2@example.com")
		w.Post("/user/settings/account/email", url.Values{"email": {adminEmail}}).MustContain(t, http.StatusUnprocessableEntity)
		mustRedirect(t, w.Post("/user/settings/account/email", url.Values{"action": {"primary"}, "email": {"carol2@example.com"}}), "/user/settings/account")
		var emails []struct {
			Email   string `json:"email"`
			Primary bool   `json:"primary"`
		}
		apiJSON(t, s, "user/emails", carol.Token, &emails)
		if len(emails) != 2 || emails[0].Email != "carol2@example.com" || !emails[0].Primary {
			t.Fatalf("emails: %+v", emails)
		}
		w.Get("/user/settings/account")
		mustRedirect(t, w.Post("/user/settings/account/email/delete", url.Values{"email": {"wcarol@example.com"}}), "/user/settings/account")
		apiJSON(t, s, "user/emails", carol.Token, &emails)
		if len(emails) != 1 {
			t.Fatalf("emails after delete: %+v", emails)
		}
		// The primary address cannot go.
		w.Get("/user/settings/account")
		w.Post("/user/settings/account/email/delete", url.Values{"email": {"carol2@example.com"}}).MustContain(t, http.StatusUnprocessableEntity, "primary")
	})

	t.Run("SSH and GPG keys", func(t *testing.T) {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		sshPub, _ := ssh.NewPublicKey(pub)
		line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub)))
		w.Get("/user/settings/keys").MustContain(t, http.StatusOK, "You have no SSH keys.")
		mustRedirect(t, w.Post("/user/settings/keys", url.Values{"type": {"ssh"}, "title": {"laptop"}, "content": {line}}), "/user/settings/keys")
		w.Get("/user/settings/keys").MustContain(t, http.StatusOK, "laptop", pageText(ssh.FingerprintSHA256(sshPub)))
		var keys []struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
			Key   string `json:"key"`
		}
		apiJSON(t, s, "user/keys", carol.Token, &keys)
		if len(keys) != 1 || keys[0].Title != "laptop" || !strings.Contains(keys[0].Key, strings.Fields(line)[1]) {
			t.Fatalf("API keys: %+v", keys)
		}
		w.Post("/user/settings/keys", url.Values{"type": {"ssh"}, "title": {"junk"}, "content": {"ssh-ed25519 AAAAnotakey"}}).
			MustContain(t, http.StatusUnprocessableEntity, "junk", "key")
		// Another user's key id is not found.
		other := s.CreateUser("wdave")
		r := s.API("POST", "user/keys", other.Token, map[string]any{"title": "dave", "key": func() string {
			p2, _, _ := ed25519.GenerateKey(rand.Reader)
			k2, _ := ssh.NewPublicKey(p2)
			return string(ssh.MarshalAuthorizedKey(k2))
		}()})
		mustStatus(t, r, 201, "dave key")
		var dk struct {
			ID int64 `json:"id"`
		}
		r.Decode(t, &dk)
		w.Get("/user/settings/keys")
		w.Post("/user/settings/keys/delete", url.Values{"type": {"ssh"}, "id": {strconv.FormatInt(dk.ID, 10)}}).MustContain(t, http.StatusNotFound)
		mustStatus(t, s.API("GET", "user/keys/"+strconv.FormatInt(dk.ID, 10), other.Token, nil), 200, "dave's key stays")
		mustRedirect(t, w.Post("/user/settings/keys/delete", url.Values{"type": {"ssh"}, "id": {strconv.FormatInt(keys[0].ID, 10)}}), "/user/settings/keys")
		apiJSON(t, s, "user/keys", carol.Token, &keys)
		if len(keys) != 0 {
			t.Fatalf("key not deleted: %+v", keys)
		}

		_, armored := sigEntity(t, "Carol", "carol2@example.com", false)
		w.Get("/user/settings/keys")
		mustRedirect(t, w.Post("/user/settings/keys", url.Values{"type": {"gpg"}, "content": {armored}}), "/user/settings/keys")
		var gpg []struct {
			ID    int64  `json:"id"`
			KeyID string `json:"key_id"`
		}
		apiJSON(t, s, "user/gpg_keys", carol.Token, &gpg)
		if len(gpg) != 1 {
			t.Fatalf("API GPG keys: %+v", gpg)
		}
		w.Get("/user/settings/keys").MustContain(t, http.StatusOK, gpg[0].KeyID)
		mustRedirect(t, w.Post("/user/settings/keys/delete", url.Values{"type": {"gpg"}, "id": {strconv.FormatInt(gpg[0].ID, 10)}}), "/user/settings/keys")
		apiJSON(t, s, "user/gpg_keys", carol.Token, &gpg)
		if len(gpg) != 0 {
			t.Fatalf("GPG key not deleted: %+v", gpg)
		}
	})

	t.Run("access tokens", func(t *testing.T) {
		w.Get("/user/settings/applications").MustContain(t, http.StatusOK, "Generate a new token", `name="scope-repository"`)
		p := w.Post("/user/settings/applications", url.Values{"name": {"webtok"}, "scope-user": {"read"}, "scope-repository": {"write"}})
		p.MustContain(t, http.StatusOK, "copy it now", "webtok", "read:user", "write:repository")
		tok := regexp.MustCompile(`id="new-token">([0-9a-f]{40})<`).FindStringSubmatch(p.Body)
		if tok == nil {
			t.Fatalf("no token shown: %.2000s", p.Body)
		}
		if r := s.API("GET", "user", tok[1], nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"login":"wcarol"`) {
			t.Fatalf("new token: %d %s", r.Status, r.Body)
		}
		// The scopes hold: read:user does not write the user's settings.
		if r := s.API("PATCH", "user/settings", tok[1], map[string]any{"location": "x"}); r.Status != http.StatusForbidden {
			t.Fatalf("read-only token wrote: %d %s", r.Status, r.Body)
		}
		// The list never shows it again.
		peopleLack(t, w.Get("/user/settings/applications"), tok[1])
		// Refusals: a taken name, no scope.
		w.Post("/user/settings/applications", url.Values{"name": {"webtok"}, "scope-user": {"read"}}).MustContain(t, http.StatusUnprocessableEntity, "used already")
		w.Post("/user/settings/applications", url.Values{"name": {"noscope"}}).MustContain(t, http.StatusUnprocessableEntity, "scope")
		var list []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		r := s.Do("GET", "api/v1/users/wcarol/tokens", Basic(carol.Name, carol.Password))
		mustStatus(t, r, http.StatusOK, "list tokens")
		r.Decode(t, &list)
		var id int64
		for _, l := range list {
			if l.Name == "webtok" {
				id = l.ID
			}
		}
		if id == 0 {
			t.Fatalf("API lacks the token: %+v", list)
		}
		w.Get("/user/settings/applications")
		mustRedirect(t, w.Post("/user/settings/applications/delete", url.Values{"id": {strconv.FormatInt(id, 10)}}), "/user/settings/applications")
		if r := s.API("GET", "user", tok[1], nil); r.Status != http.StatusUnauthorized {
			t.Fatalf("deleted token still works: %d", r.Status)
		}
	})

	t.Run("password change ends the other sessions", func(t *testing.T) {
		other := s.Web(t)
		other.SignIn(carol.Name, carol.Password)
		other.Get("/").MustContain(t, http.StatusOK, "Sign out")
		w.Get("/user/settings/account").MustContain(t, http.StatusOK, `id="other-sessions">`)
		// A wrong current password and a mismatch change nothing.
		w.Post("/user/settings/account", url.Values{"old_password": {"wrong"}, "password": {"new-password-42"}, "retype": {"new-password-42"}}).
			MustContain(t, http.StatusUnprocessableEntity, "old password")
		w.Post("/user/settings/account", url.Values{"old_password": {carol.Password}, "password": {"new-password-42"}, "retype": {"other"}}).
			MustContain(t, http.StatusUnprocessableEntity, "do not match")
		other.Get("/").MustContain(t, http.StatusOK, "Sign out")
		mustRedirect(t, w.Post("/user/settings/account", url.Values{"old_password": {carol.Password}, "password": {"new-password-42"}, "retype": {"new-password-42"}}), "/user/settings/account")
		w.Get("/user/settings/account").MustContain(t, http.StatusOK, "Your password has been changed", "here only")
		if strings.Contains(other.Get("/").Body, "Sign out") {
			t.Fatal("the other session is still signed in")
		}
		if r := s.Do("GET", "api/v1/user", Basic(carol.Name, carol.Password)); r.Status != http.StatusUnauthorized {
			t.Fatalf("old password still works: %d", r.Status)
		}
		if r := s.Do("GET", "api/v1/user", Basic(carol.Name, "new-password-42")); r.Status != http.StatusOK {
			t.Fatalf("new password: %d", r.Status)
		}
		fresh := s.Web(t)
		fresh.Get("user/login")
		fresh.Post("user/login", url.Values{"user_name": {carol.Name}, "password": {carol.Password}}).MustContain(t, http.StatusOK, "incorrect")
	})

	t.Run("sign out of all other sessions", func(t *testing.T) {
		other := s.Web(t)
		other.SignIn(carol.Name, "new-password-42")
		w.Get("/user/settings/account").MustContain(t, http.StatusOK, `id="other-sessions">1<`)
		mustRedirect(t, w.Post("/user/settings/account/sessions/delete", nil), "/user/settings/account")
		if strings.Contains(other.Get("/").Body, "Sign out") {
			t.Fatal("the other session is still signed in")
		}
		w.Get("/").MustContain(t, http.StatusOK, "Sign out")
	})
}

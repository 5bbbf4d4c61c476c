package e2e

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// adUser is the part of an account the administration tests read back.
type adUser struct {
	ID         int64  `json:"id"`
	Login      string `json:"login"`
	FullName   string `json:"full_name"`
	Email      string `json:"email"`
	IsAdmin    bool   `json:"is_admin"`
	Restricted bool   `json:"restricted"`
	Active     bool   `json:"active"`
	Location   string `json:"location"`
}

func adGetUser(t *testing.T, s *Server, name string) adUser {
	t.Helper()
	r := s.API("GET", "users/"+name, s.AdminTok, nil)
	mustStatus(t, r, http.StatusOK, "get user "+name)
	var u adUser
	r.Decode(t, &u)
	return u
}

// TestWebAdminAccess: the site administration does not exist for anyone
// but site administrators, forms included.
func TestWebAdminAccess(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	s.CreateUser("bob")
	pages := []string{"-/admin", "-/admin/users", "-/admin/users/new", "-/admin/users/2/edit", "-/admin/orgs",
		"-/admin/repos", "-/admin/auths", "-/admin/config"}
	anon := s.Web(t)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	for _, pg := range pages {
		for who, c := range map[string]*Web{"signed out": anon, "alice": w} {
			if p := c.Get(pg); p.Status != http.StatusNotFound {
				t.Fatalf("%s GET %s: %d, want 404", who, pg, p.Status)
			}
		}
	}
	w.Get("/")
	if p := w.Post("-/admin/users/new", url.Values{"user_name": {"sneaky"}, "email": {"s@example.com"},
		"password": {"sneaky-pw-123"}, "visibility": {"public"}}); p.Status != http.StatusNotFound {
		t.Fatalf("non-admin create: %d", p.Status)
	}
	if r := s.API("GET", "users/sneaky", s.AdminTok, nil); r.Status != http.StatusNotFound {
		t.Fatalf("a non-admin's form created an account: %d", r.Status)
	}
	bob := adGetUser(t, s, "bob")
	w.Get("/")
	if p := w.Post("-/admin/users/"+strconv.FormatInt(bob.ID, 10)+"/edit", url.Values{"email": {"bob@example.com"}, "admin": {"on"},
		"active": {"on"}}); p.Status != http.StatusNotFound {
		t.Fatalf("non-admin edit: %d", p.Status)
	}
	if adGetUser(t, s, "bob").IsAdmin {
		t.Fatal("a non-admin's form made bob an admin")
	}
	if strings.Contains(w.Get("/").Body, "/-/admin") {
		t.Fatal("a non-admin sees the administration link")
	}
}

// TestWebAdminUsers: an administrator creates, lists, edits and deletes
// accounts, and the API and sign-in see the changes.
func TestWebAdminUsers(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "kept", false)
	w := s.Web(t)
	w.SignIn(adminName, adminPassword)
	p := w.Get("-/admin")
	p.MustContain(t, http.StatusOK, "System status", "Cairn version", "Uptime", "Heap in use", "User accounts", "Repositories", "Queue")
	if !regexp.MustCompile(`User accounts</a></th><td>2</td>`).MatchString(p.Body) {
		t.Fatalf("the dashboard does not count the 2 accounts: %.4000s", p.Body)
	}

	// Create an account that must change its password.
	w.Get("-/admin/users/new").MustContain(t, http.StatusOK, "New account", `name="must_change_password" checked`)
	bad := w.Post("-/admin/users/new", url.Values{"user_name": {"alice"}, "email": {"x@example.com"}, "password": {"newbie-pw-123"},
		"visibility": {"public"}})
	bad.MustContain(t, http.StatusUnprocessableEntity, `value="alice"`)
	p = w.Post("-/admin/users/new", url.Values{"user_name": {"newbie"}, "email": {"newbie@example.com"}, "full_name": {"New Bie"},
		"password": {"newbie-pw-123"}, "visibility": {"limited"}, "must_change_password": {"on"}})
	if p.Status != http.StatusSeeOther || !regexp.MustCompile(`^/-/admin/users/\d+/edit$`).MatchString(p.Location) {
		t.Fatalf("create: %d %q %.500s", p.Status, p.Location, p.Body)
	}
	edit := strings.TrimPrefix(p.Location, "/")
	u := adGetUser(t, s, "newbie")
	if u.FullName != "New Bie" || u.Email != "newbie@example.com" || u.IsAdmin || !u.Active {
		t.Fatalf("created account: %+v", u)
	}
	nw := s.Web(t)
	nw.SignIn("newbie", "newbie-pw-123")
	if p := nw.Get("/"); p.Status != http.StatusSeeOther || p.Location != "/user/change_password" {
		t.Fatalf("the new account was not asked to change its password: %d %q", p.Status, p.Location)
	}

	// The list finds it, by name and by e-mail address.
	w.Get("-/admin/users").MustContain(t, http.StatusOK, "newbie", "alice", "must change password")
	p = w.Get("-/admin/users?q=newbie%40example")
	p.MustContain(t, http.StatusOK, ">newbie</a>")
	if strings.Contains(p.Body, ">alice</a>") {
		t.Fatal("the search lists alice")
	}

	// Edit: fields, flags, a new password, no forced change.
	w.Get(edit).MustContain(t, http.StatusOK, `value="newbie@example.com"`, `value="New Bie"`)
	p = w.Post(edit, url.Values{"email": {"nb@example.com"}, "full_name": {"Newly Bie"}, "location": {"Lisbon"},
		"visibility": {"public"}, "active": {"on"}, "restricted": {"on"}, "password": {"changed-pw-456"}, "max_repo_creation": {"-1"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.1000s", p.Status, p.Body)
	}
	u = adGetUser(t, s, "newbie")
	if u.FullName != "Newly Bie" || u.Email != "nb@example.com" || !u.Restricted || u.Location != "Lisbon" || u.IsAdmin {
		t.Fatalf("edited account: %+v", u)
	}
	nw = s.Web(t)
	nw.SignIn("newbie", "changed-pw-456")
	if p := nw.Get("/"); p.Status != http.StatusOK {
		t.Fatalf("the new password does not sign in without a forced change: %d %q", p.Status, p.Location)
	}
	w.Get(edit).MustContain(t, http.StatusOK, "The account newbie has been updated.", `name="restricted" checked`)

	// Make it an administrator, then take the flag away.
	w.Post(edit, url.Values{"email": {"nb@example.com"}, "active": {"on"}, "admin": {"on"}})
	if !adGetUser(t, s, "newbie").IsAdmin {
		t.Fatal("not an administrator")
	}
	w.Get(edit)
	w.Post(edit, url.Values{"email": {"nb@example.com"}, "active": {"on"}})
	if adGetUser(t, s, "newbie").IsAdmin {
		t.Fatal("still an administrator")
	}
	// Refusals: a bad website, the last administrator losing the flag.
	w.Get(edit)
	w.Post(edit, url.Values{"email": {"nb@example.com"}, "website": {"not a url"}, "active": {"on"}}).
		MustContain(t, http.StatusUnprocessableEntity, "ValidUrl")
	root := adGetUser(t, s, adminName)
	rootEdit := "-/admin/users/" + strconv.FormatInt(root.ID, 10) + "/edit"
	w.Get(rootEdit)
	w.Post(rootEdit, url.Values{"email": {root.Email}, "active": {"on"}}).
		MustContain(t, http.StatusUnprocessableEntity, "can not delete the last admin user")
	if !adGetUser(t, s, adminName).IsAdmin {
		t.Fatal("the last administrator lost the flag")
	}
	w.Get(rootEdit)
	w.Post("-/admin/users/"+strconv.FormatInt(root.ID, 10)+"/delete", nil).MustContain(t, http.StatusUnprocessableEntity, "own account")

	// Delete: alice owns a repository, so only with purge.
	a := adGetUser(t, s, "alice")
	aliceEdit := "-/admin/users/" + strconv.FormatInt(a.ID, 10) + "/edit"
	w.Get(aliceEdit)
	p = w.Post("-/admin/users/"+strconv.FormatInt(a.ID, 10)+"/delete", nil)
	if p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("delete without purge: %d", p.Status)
	}
	adGetUser(t, s, "alice")
	p = w.Post("-/admin/users/"+strconv.FormatInt(a.ID, 10)+"/delete", url.Values{"purge": {"on"}})
	if p.Status != http.StatusSeeOther || p.Location != "/-/admin/users" {
		t.Fatalf("delete with purge: %d %q", p.Status, p.Location)
	}
	if r := s.API("GET", "users/alice", s.AdminTok, nil); r.Status != http.StatusNotFound {
		t.Fatalf("deleted account: %d", r.Status)
	}
	if r := s.API("GET", "repos/alice/kept", s.AdminTok, nil); r.Status != http.StatusNotFound {
		t.Fatalf("purged repository: %d", r.Status)
	}
	// An organization is no account to edit here.
	mustStatus(t, s.API("POST", "orgs", s.AdminTok, map[string]any{"username": "acme"}), http.StatusCreated, "org")
	r := s.API("GET", "orgs/acme", s.AdminTok, nil)
	mustStatus(t, r, http.StatusOK, "get org")
	var org adUser
	r.Decode(t, &org)
	if p := w.Get("-/admin/users/" + strconv.FormatInt(org.ID, 10) + "/edit"); p.Status != http.StatusNotFound {
		t.Fatalf("organization as an account: %d", p.Status)
	}
}

// TestWebAdminListsAndConfig: organizations and repositories (private ones
// included) are listed for administrators, repositories can be deleted, and
// the configuration shows effective values with secrets hidden.
func TestWebAdminListsAndConfig(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_METRICS_ENABLED=true", "CAIRN_METRICS_TOKEN=very-secret-token"))
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "hidden-repo", true)
	createRepo(t, s, alice, "open-repo", false)
	mustStatus(t, s.API("POST", "orgs", alice.Token, map[string]any{"username": "secretorg", "visibility": "private"}), http.StatusCreated, "org")
	w := s.Web(t)
	w.SignIn(adminName, adminPassword)

	w.Get("-/admin/orgs").MustContain(t, http.StatusOK, ">secretorg</a>", "private")
	w.Get("-/admin/orgs?q=nomatch").MustContain(t, http.StatusOK, "No organization matches.")
	p := w.Get("-/admin/repos")
	p.MustContain(t, http.StatusOK, ">alice/hidden-repo</a>", ">alice/open-repo</a>", "private")
	p = w.Get("-/admin/repos?q=open")
	if strings.Contains(p.Body, "hidden-repo") || !strings.Contains(p.Body, "open-repo") {
		t.Fatalf("repository search: %.3000s", p.Body)
	}
	hidden := rsGetRepoID(t, s, "alice/hidden-repo")
	p = w.Post("-/admin/repos/delete", url.Values{"id": {strconv.FormatInt(hidden, 10)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("delete repository: %d", p.Status)
	}
	if r := s.API("GET", "repos/alice/hidden-repo", s.AdminTok, nil); r.Status != http.StatusNotFound {
		t.Fatalf("deleted repository: %d", r.Status)
	}
	w.Get("-/admin/repos").MustContain(t, http.StatusOK, "The repository alice/hidden-repo has been deleted.")

	p = w.Get("-/admin/config")
	p.MustContain(t, http.StatusOK, "[server]", "ROOT_URL", s.URL, "[metrics]", "(set, hidden)", "CAIRN_METRICS_TOKEN")
	if strings.Contains(p.Body, "very-secret-token") {
		t.Fatal("the configuration page shows a secret")
	}
}

// rsGetRepoID is a repository's id.
func rsGetRepoID(t *testing.T, s *Server, full string) int64 {
	t.Helper()
	r := s.API("GET", "repos/"+full, s.AdminTok, nil)
	mustStatus(t, r, http.StatusOK, "get "+full)
	var v struct {
		ID int64 `json:"id"`
	}
	r.Decode(t, &v)
	return v.ID
}

package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rsRepo is the part of a repository the settings tests read back from the API.
type rsRepo struct {
	Description       string `json:"description"`
	Website           string `json:"website"`
	Private           bool   `json:"private"`
	Template          bool   `json:"template"`
	Archived          bool   `json:"archived"`
	HasIssues         bool   `json:"has_issues"`
	HasPulls          bool   `json:"has_pull_requests"`
	HasReleases       bool   `json:"has_releases"`
	AllowSquash       bool   `json:"allow_squash_merge"`
	AllowMerge        bool   `json:"allow_merge_commits"`
	DefaultMergeStyle string `json:"default_merge_style"`
	DeleteBranch      bool   `json:"default_delete_branch_after_merge"`
	FullName          string `json:"full_name"`
}

func rsGetRepo(t *testing.T, s *Server, tok, full string) rsRepo {
	t.Helper()
	r := s.API("GET", "repos/"+full, tok, nil)
	mustStatus(t, r, http.StatusOK, "get "+full)
	var out rsRepo
	r.Decode(t, &out)
	return out
}

// rsPost posts a settings form and fails unless it redirects (303).
func rsPost(t *testing.T, w *Web, path string, form url.Values) *Page {
	t.Helper()
	p := w.Post(path, form)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("POST %s %v: %d, want 303: %.2000s", path, form, p.Status, p.Body)
	}
	return p
}

// rsCopy copies a form.
func rsCopy(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// TestWebRepoSettingsAccess: every settings page and form answers only the
// repository's administrators; readers get 403, those who cannot see the
// repository 404, signed-out visitors the sign-in page (public) or 404
// (private), and a refused form changes nothing.
func TestWebRepoSettingsAccess(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	createRepo(t, s, alice, "pub", false)
	createRepo(t, s, alice, "priv", true)
	for _, repo := range []string{"pub", "priv"} {
		mustStatus(t, s.API("PUT", "repos/alice/"+repo+"/collaborators/bob", alice.Token, map[string]any{"permission": "read"}),
			http.StatusNoContent, "bob reads "+repo)
	}
	pages := []string{"settings", "settings/collaboration", "settings/branches", "settings/branches/edit", "settings/tags",
		"settings/hooks", "settings/hooks/gitea/new", "settings/keys"}
	posts := []struct {
		path string
		form url.Values
	}{
		{"settings", url.Values{"action": {"update"}, "repo_name": {"x"}, "description": {"hacked"}}},
		{"settings", url.Values{"action": {"delete"}, "repo_name": {"alice/x"}}},
		{"settings/collaboration", url.Values{"collaborator": {"carol"}, "mode": {"admin"}}},
		{"settings/branches/edit", url.Values{"rule_name": {"main"}, "enable_push": {"none"}}},
		{"settings/tags", url.Values{"name_pattern": {"v*"}}},
		{"settings/hooks/gitea/new", url.Values{"payload_url": {"http://127.0.0.1:1/x"}, "content_type": {"json"}}},
		{"settings/keys", url.Values{"title": {"k"}, "content": {"ssh-ed25519 AAAA"}}},
	}

	anon := s.Web(t)
	bobWeb, carolWeb, aliceWeb := s.Web(t), s.Web(t), s.Web(t)
	bobWeb.SignIn(bob.Name, bob.Password)
	carolWeb.SignIn(carol.Name, carol.Password)
	aliceWeb.SignIn(alice.Name, alice.Password)

	for _, repo := range []string{"pub", "priv"} {
		base := "alice/" + repo + "/"
		for _, pg := range pages {
			if p := aliceWeb.Get(base + pg); p.Status != http.StatusOK {
				t.Fatalf("owner GET %s: %d %.500s", base+pg, p.Status, p.Body)
			}
			if p := bobWeb.Get(base + pg); p.Status != http.StatusForbidden {
				t.Fatalf("reader GET %s: %d, want 403", base+pg, p.Status)
			}
			wantOther := http.StatusForbidden
			if repo == "priv" {
				wantOther = http.StatusNotFound
			}
			p := carolWeb.Get(base + pg)
			if p.Status != wantOther {
				t.Fatalf("other user GET %s: %d, want %d", base+pg, p.Status, wantOther)
			}
			if repo == "priv" && strings.Contains(p.Body, "priv") {
				t.Fatalf("the 404 of %s names the private repository", base+pg)
			}
			p = anon.Get(base + pg)
			if repo == "pub" && (p.Status != http.StatusSeeOther || !strings.Contains(p.Location, "/user/login")) {
				t.Fatalf("signed-out GET %s: %d %q, want the sign-in page", base+pg, p.Status, p.Location)
			}
			if repo == "priv" && p.Status != http.StatusNotFound {
				t.Fatalf("signed-out GET %s: %d, want 404", base+pg, p.Status)
			}
		}
		// Forms: the reader is refused (403), the other user does not see
		// the private repository (404), and nothing changes.
		for _, ps := range posts {
			bobWeb.Get("/")
			// Post sets the sender's _csrf in the form: each gets a copy.
			if p := bobWeb.Post(base+ps.path, rsCopy(ps.form)); p.Status != http.StatusForbidden {
				t.Fatalf("reader POST %s: %d, want 403: %.300s", base+ps.path, p.Status, p.Body)
			}
			carolWeb.Get("/")
			want := http.StatusForbidden
			if repo == "priv" {
				want = http.StatusNotFound
			}
			if p := carolWeb.Post(base+ps.path, rsCopy(ps.form)); p.Status != want {
				t.Fatalf("other user POST %s: %d, want %d", base+ps.path, p.Status, want)
			}
		}
		got := rsGetRepo(t, s, alice.Token, "alice/"+repo)
		if got.Description == "hacked" || got.FullName != "alice/"+repo {
			t.Fatalf("a refused form changed %s: %+v", repo, got)
		}
		for _, list := range []string{"collaborators/carol", "branch_protections/main"} {
			if r := s.API("GET", "repos/alice/"+repo+"/"+list, alice.Token, nil); r.Status == http.StatusOK || r.Status == http.StatusNoContent {
				t.Fatalf("a refused form created %s on %s: %d", list, repo, r.Status)
			}
		}
	}
	// The settings tab shows to administrators only.
	if !strings.Contains(aliceWeb.Get("alice/pub/settings").Body, `href="/alice/pub/settings" aria-current="page"`) {
		t.Fatal("the owner's settings page lacks its active tab")
	}
	// A site administrator may administer any repository.
	admin := s.Web(t)
	admin.SignIn(adminName, adminPassword)
	admin.Get("alice/priv/settings").MustContain(t, http.StatusOK, "Danger zone", "alice/priv")
}

// TestWebRepoSettingsOptions: the options form, units and merge styles,
// rename, archive, transfer and deletion (which needs the typed full name)
// change what the API sees.
func TestWebRepoSettingsOptions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)

	p := w.Get("alice/proj/settings")
	p.MustContain(t, http.StatusOK, `name="action" value="update"`, `name="action" value="advanced"`, `name="action" value="delete"`,
		`name="action" value="transfer"`, `name="action" value="archive"`, "Danger zone")
	rsPost(t, w, "alice/proj/settings", url.Values{"action": {"update"}, "repo_name": {"proj"},
		"description": {"A <b>bold</b> project"}, "website": {"https://example.com/proj"}, "template": {"on"}})
	got := rsGetRepo(t, s, alice.Token, "alice/proj")
	if got.Description != "A <b>bold</b> project" || got.Website != "https://example.com/proj" || !got.Template || got.Private {
		t.Fatalf("after update: %+v", got)
	}
	p = w.Get("alice/proj/settings")
	p.MustContain(t, http.StatusOK, "The repository&#39;s settings have been updated.", "A &lt;b&gt;bold&lt;/b&gt; project")

	// A bad website is refused with the form's message, nothing changes.
	p = w.Post("alice/proj/settings", url.Values{"action": {"update"}, "repo_name": {"proj"}, "website": {"ftp://nope"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "ValidUrl")
	if rsGetRepo(t, s, alice.Token, "alice/proj").Website != "https://example.com/proj" {
		t.Fatal("a refused website was stored")
	}

	// Units and pull request settings.
	rsPost(t, w, "alice/proj/settings", url.Values{"action": {"advanced"}, "enable_pulls": {"on"}, "enable_releases": {"on"},
		"pulls_allow_merge": {"on"}, "pulls_allow_rebase": {"on"}, "pulls_default_merge_style": {"rebase"},
		"default_delete_branch_after_merge": {"on"}})
	got = rsGetRepo(t, s, alice.Token, "alice/proj")
	if got.HasIssues || !got.HasPulls || !got.HasReleases || got.AllowSquash || !got.AllowMerge ||
		got.DefaultMergeStyle != "rebase" || !got.DeleteBranch {
		t.Fatalf("after advanced: %+v", got)
	}
	if p := w.Get("alice/proj/issues"); p.Status != http.StatusNotFound {
		t.Fatalf("issues page of a repository without issues: %d", p.Status)
	}
	p = w.Post("alice/proj/settings", url.Values{"action": {"advanced"}, "pulls_default_merge_style": {"octopus"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "invalid default merge style")

	// Archive and unarchive.
	rsPost(t, w, "alice/proj/settings", url.Values{"action": {"archive"}})
	if !rsGetRepo(t, s, alice.Token, "alice/proj").Archived {
		t.Fatal("not archived")
	}
	w.Get("alice/proj/settings").MustContain(t, http.StatusOK, `value="unarchive"`)
	rsPost(t, w, "alice/proj/settings", url.Values{"action": {"unarchive"}})
	if rsGetRepo(t, s, alice.Token, "alice/proj").Archived {
		t.Fatal("still archived")
	}

	// Rename: the settings move with the repository.
	p = rsPost(t, w, "alice/proj/settings", url.Values{"action": {"update"}, "repo_name": {"renamed"}, "description": {"d"}})
	if p.Location != "/alice/renamed/settings" {
		t.Fatalf("rename redirects to %q", p.Location)
	}
	rsGetRepo(t, s, alice.Token, "alice/renamed")

	// A repository administrator who is not the owner may change the
	// options but not rename, transfer or delete.
	mustStatus(t, s.API("PUT", "repos/alice/renamed/collaborators/bob", alice.Token, map[string]any{"permission": "admin"}),
		http.StatusNoContent, "bob administers")
	bw := s.Web(t)
	bw.SignIn(bob.Name, bob.Password)
	p = bw.Get("alice/renamed/settings")
	p.MustContain(t, http.StatusOK, `name="action" value="advanced"`)
	if strings.Contains(p.Body, "Danger zone") {
		t.Fatal("a repository administrator sees the owner's danger zone")
	}
	if p := bw.Post("alice/renamed/settings", url.Values{"action": {"delete"}, "repo_name": {"alice/renamed"}}); p.Status != http.StatusForbidden {
		t.Fatalf("admin collaborator deletes: %d", p.Status)
	}
	if p := bw.Post("alice/renamed/settings", url.Values{"action": {"update"}, "repo_name": {"bobs"}}); p.Status != http.StatusForbidden {
		t.Fatalf("admin collaborator renames: %d", p.Status)
	}
	rsPost(t, bw, "alice/renamed/settings", url.Values{"action": {"update"}, "repo_name": {"renamed"}, "description": {"by bob"}})
	if got := rsGetRepo(t, s, alice.Token, "alice/renamed"); got.Description != "by bob" {
		t.Fatalf("admin collaborator's update: %+v", got)
	}

	// Deletion needs the full name typed.
	for _, typed := range []string{"", "renamed", "alice/other"} {
		p = w.Post("alice/renamed/settings", url.Values{"action": {"delete"}, "repo_name": {typed}})
		p.MustContain(t, http.StatusUnprocessableEntity, "Type the repository&#39;s full name, alice/renamed, to confirm.")
	}
	rsGetRepo(t, s, alice.Token, "alice/renamed")
	p = rsPost(t, w, "alice/renamed/settings", url.Values{"action": {"delete"}, "repo_name": {"alice/renamed"}})
	if p.Location != "/" {
		t.Fatalf("delete redirects to %q", p.Location)
	}
	if r := s.API("GET", "repos/alice/renamed", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("deleted repository: %d", r.Status)
	}
	w.Get("/").MustContain(t, http.StatusOK, "The repository alice/renamed has been deleted.")

	// Transfer: to another user it waits for them; it can be cancelled.
	createRepo(t, s, alice, "moving", false)
	p = w.Post("alice/moving/settings", url.Values{"action": {"transfer"}, "new_owner_name": {"bob"}, "repo_name": {"wrong"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "to confirm")
	p = w.Post("alice/moving/settings", url.Values{"action": {"transfer"}, "new_owner_name": {"nobody"}, "repo_name": {"alice/moving"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "does not exist")
	rsPost(t, w, "alice/moving/settings", url.Values{"action": {"transfer"}, "new_owner_name": {"bob"}, "repo_name": {"alice/moving"}})
	w.Get("alice/moving/settings").MustContain(t, http.StatusOK, "waits for the recipient", "<strong>bob</strong>", `value="cancel_transfer"`)
	rsPost(t, w, "alice/moving/settings", url.Values{"action": {"cancel_transfer"}})
	rsPost(t, w, "alice/moving/settings", url.Values{"action": {"transfer"}, "new_owner_name": {"bob"}, "repo_name": {"alice/moving"}})
	mustStatus(t, s.API("POST", "repos/alice/moving/transfer/accept", bob.Token, nil), http.StatusAccepted, "bob accepts")
	rsGetRepo(t, s, bob.Token, "bob/moving")

	// A site administrator's transfer happens at once.
	createRepo(t, s, alice, "given", false)
	aw := s.Web(t)
	aw.SignIn(adminName, adminPassword)
	aw.Get("alice/given/settings").MustContain(t, http.StatusOK, "Danger zone")
	p = rsPost(t, aw, "alice/given/settings", url.Values{"action": {"transfer"}, "new_owner_name": {"bob"}, "repo_name": {"alice/given"}})
	if p.Location != "/bob/given" {
		t.Fatalf("immediate transfer redirects to %q", p.Location)
	}
	rsGetRepo(t, s, bob.Token, "bob/given")
}

// TestWebRepoSettingsCollaboration: collaborators added, changed and removed
// through the form are the API's, and the added one can push.
func TestWebRepoSettingsCollaboration(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	dave := s.CreateUser("dave")
	s.CreateUser("hidden", "private")
	createRepo(t, s, alice, "proj", true)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/settings/collaboration").MustContain(t, http.StatusOK, "This repository has no collaborators.")

	rsPost(t, w, "alice/proj/settings/collaboration", url.Values{"collaborator": {"dave"}, "mode": {"write"}})
	p := w.Get("alice/proj/settings/collaboration")
	p.MustContain(t, http.StatusOK, "dave is now a collaborator with write access.", `<option value="write" selected>write</option>`)
	perm := func() string {
		r := s.API("GET", "repos/alice/proj/collaborators/dave/permission", alice.Token, nil)
		mustStatus(t, r, http.StatusOK, "permission")
		var v struct {
			Permission string `json:"permission"`
		}
		r.Decode(t, &v)
		return v.Permission
	}
	if got := perm(); got != "write" {
		t.Fatalf("dave's permission: %q", got)
	}
	// Dave can push to the private repository now.
	k := newRelKit(t, s)
	dir, ok := k.clone(dave, "alice/proj")
	if !ok {
		t.Fatal("the new collaborator cannot clone")
	}
	if out, err := k.commitPush(dir, "dave.txt"); err != nil {
		t.Fatalf("the new collaborator cannot push: %v %s", err, out)
	}

	// The user id of dave in the forms.
	m := regexp.MustCompile(`name="uid" value="(\d+)"`).FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatal("no collaborator form")
	}
	rsPost(t, w, "alice/proj/settings/collaboration/access_mode", url.Values{"uid": {m[1]}, "mode": {"admin"}})
	if got := perm(); got != "admin" {
		t.Fatalf("after the change: %q", got)
	}
	// Refusals: unknown users, users the owner may not see, the owner.
	for _, name := range []string{"nobody", "hidden"} {
		p := w.Post("alice/proj/settings/collaboration", url.Values{"collaborator": {name}})
		p.MustContain(t, http.StatusUnprocessableEntity, "There is no user named")
	}
	w.Post("alice/proj/settings/collaboration", url.Values{"collaborator": {"alice"}}).
		MustContain(t, http.StatusUnprocessableEntity, "cannot be its collaborator")

	rsPost(t, w, "alice/proj/settings/collaboration/delete", url.Values{"uid": {m[1]}})
	if r := s.API("GET", "repos/alice/proj/collaborators/dave", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("dave still collaborates: %d", r.Status)
	}
	if p := w.Post("alice/proj/settings/collaboration/delete", url.Values{"uid": {m[1]}}); p.Status != http.StatusNotFound {
		t.Fatalf("removing a non-collaborator: %d", p.Status)
	}

	// Teams of an organization's repository.
	mustStatus(t, s.API("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), http.StatusCreated, "org")
	mustStatus(t, s.API("POST", "orgs/acme/teams", alice.Token, map[string]any{"name": "devs", "permission": "write",
		"units": []string{"repo.code"}}), http.StatusCreated, "team")
	mustStatus(t, s.API("POST", "orgs/acme/repos", alice.Token, map[string]any{"name": "tool", "auto_init": true}), http.StatusCreated, "org repo")
	rsPost(t, w, "acme/tool/settings/collaboration/team", url.Values{"team": {"devs"}})
	r := s.API("GET", "repos/acme/tool/teams/devs", alice.Token, nil)
	mustStatus(t, r, http.StatusOK, "team reaches the repository")
	w.Get("acme/tool/settings/collaboration").MustContain(t, http.StatusOK, "<strong>devs</strong>", "Remove team")
	w.Post("acme/tool/settings/collaboration/team", url.Values{"team": {"devs"}}).
		MustContain(t, http.StatusUnprocessableEntity, "already added")
	p = w.Get("acme/tool/settings/collaboration")
	var teamID string
	for _, m := range regexp.MustCompile(`name="team_id" value="(\d+)"`).FindAllStringSubmatch(p.Body, -1) {
		teamID = m[1]
	}
	rsPost(t, w, "acme/tool/settings/collaboration/team/delete", url.Values{"team_id": {teamID}})
	if r := s.API("GET", "repos/acme/tool/teams/devs", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("team still reaches the repository: %d", r.Status)
	}
}

// rsRule is the part of a branch protection the tests read from the API.
type rsRule struct {
	RuleName          string   `json:"rule_name"`
	EnablePush        bool     `json:"enable_push"`
	EnableAllowlist   bool     `json:"enable_push_whitelist"`
	PushUsers         []string `json:"push_whitelist_usernames"`
	RequiredApprovals int64    `json:"required_approvals"`
	EnableStatusCheck bool     `json:"enable_status_check"`
	Contexts          []string `json:"status_check_contexts"`
	BlockRejected     bool     `json:"block_on_rejected_reviews"`
	DismissStale      bool     `json:"dismiss_stale_approvals"`
	RequireSigned     bool     `json:"require_signed_commits"`
	Protected         string   `json:"protected_file_patterns"`
}

// TestWebRepoSettingsProtection: branch and tag rules made in the forms are
// the API's, and the push rules hold.
func TestWebRepoSettingsProtection(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	mustStatus(t, s.API("PUT", "repos/alice/proj/collaborators/bob", alice.Token, map[string]any{"permission": "write"}), http.StatusNoContent, "bob writes")
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/settings/branches").MustContain(t, http.StatusOK, "No branch is protected.")
	w.Get("alice/proj/settings/branches/edit").MustContain(t, http.StatusOK, "New branch rule", `name="rule_name"`)

	rules := func() []rsRule {
		r := s.API("GET", "repos/alice/proj/branch_protections", alice.Token, nil)
		mustStatus(t, r, http.StatusOK, "list rules")
		var list []rsRule
		r.Decode(t, &list)
		return list
	}
	form := url.Values{"rule_name": {"main"}, "enable_push": {"allowlist"}, "push_allowlist_users": {"alice"},
		"required_approvals": {"2"}, "enable_status_check": {"on"}, "status_check_contexts": {"ci/test\nci/lint"},
		"block_on_rejected_reviews": {"on"}, "dismiss_stale_approvals": {"on"}, "protected_file_patterns": {"*.lock"}}
	// Refusals keep the form and store nothing.
	bad := rsCopy(form)
	bad.Set("push_allowlist_users", "alice, nobody")
	w.Post("alice/proj/settings/branches/edit", bad).MustContain(t, http.StatusUnprocessableEntity, "user does not exist [name: nobody]")
	bad.Set("push_allowlist_users", "alice")
	bad.Set("required_approvals", "-1")
	w.Post("alice/proj/settings/branches/edit", bad).MustContain(t, http.StatusUnprocessableEntity, "required approvals")
	if len(rules()) != 0 {
		t.Fatal("a refused rule was stored")
	}

	rsPost(t, w, "alice/proj/settings/branches/edit", rsCopy(form))
	list := rules()
	if len(list) != 1 {
		t.Fatalf("rules: %+v", list)
	}
	b := list[0]
	if b.RuleName != "main" || !b.EnablePush || !b.EnableAllowlist || len(b.PushUsers) != 1 || b.PushUsers[0] != "alice" ||
		b.RequiredApprovals != 2 || !b.EnableStatusCheck || strings.Join(b.Contexts, ",") != "ci/test,ci/lint" ||
		!b.BlockRejected || !b.DismissStale || b.RequireSigned || b.Protected != "*.lock" {
		t.Fatalf("rule from the form: %+v", b)
	}
	w.Post("alice/proj/settings/branches/edit", rsCopy(form)).MustContain(t, http.StatusUnprocessableEntity, "already exist")

	// The rule holds: bob, a writer outside the allowlist, cannot push.
	k := newRelKit(t, s)
	dir, ok := k.clone(bob, "alice/proj")
	if !ok {
		t.Fatal("clone")
	}
	if _, err := k.commitPush(dir, "bob.txt"); err == nil {
		t.Fatal("bob pushed to a protected branch he is not allowed to push to")
	}

	// The list and the edit form show it; editing changes the API's rule.
	p := w.Get("alice/proj/settings/branches")
	p.MustContain(t, http.StatusOK, "<code>main</code>", "Only alice", "2 approvals required")
	p = w.Get("alice/proj/settings/branches/edit?rule_name=main")
	p.MustContain(t, http.StatusOK, `name="original" value="main"`, `value="alice"`, "ci/test\nci/lint")
	rsPost(t, w, "alice/proj/settings/branches/edit", url.Values{"original": {"main"}, "enable_push": {"all"},
		"required_approvals": {"1"}, "require_signed_commits": {"on"}})
	b = rules()[0]
	if !b.EnablePush || b.EnableAllowlist || len(b.PushUsers) != 0 || b.RequiredApprovals != 1 || b.EnableStatusCheck ||
		!b.RequireSigned || b.Protected != "" {
		t.Fatalf("edited rule: %+v", b)
	}
	// Delete it through its form.
	m := regexp.MustCompile(`/settings/branches/(\d+)/delete`).FindStringSubmatch(w.Get("alice/proj/settings/branches").Body)
	if m == nil {
		t.Fatal("no delete form")
	}
	rsPost(t, w, "alice/proj/settings/branches/"+m[1]+"/delete", nil)
	if len(rules()) != 0 {
		t.Fatal("rule not deleted")
	}

	// Tag rules.
	rsPost(t, w, "alice/proj/settings/tags", url.Values{"name_pattern": {"v*"}, "allowlist_users": {"alice"}})
	r := s.API("GET", "repos/alice/proj/tag_protections", alice.Token, nil)
	mustStatus(t, r, http.StatusOK, "tag rules")
	var tags []struct {
		ID      int64    `json:"id"`
		Pattern string   `json:"name_pattern"`
		Users   []string `json:"whitelist_usernames"`
	}
	r.Decode(t, &tags)
	if len(tags) != 1 || tags[0].Pattern != "v*" || len(tags[0].Users) != 1 || tags[0].Users[0] != "alice" {
		t.Fatalf("tag rules: %+v", tags)
	}
	w.Post("alice/proj/settings/tags", url.Values{"name_pattern": {"v*"}}).MustContain(t, http.StatusUnprocessableEntity, "already exist")
	w.Get("alice/proj/settings/tags").MustContain(t, http.StatusOK, "<code>v*</code>", "alice")
	rsPost(t, w, "alice/proj/settings/tags/delete", url.Values{"id": {strconv.FormatInt(tags[0].ID, 10)}})
	r = s.API("GET", "repos/alice/proj/tag_protections", alice.Token, nil)
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("tag rules after delete: %s", r.Body)
	}
}

// TestWebRepoSettingsDeployKeys: keys added in the form are the API's.
func TestWebRepoSettingsDeployKeys(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	k := &sshKit{t: t, s: s, home: t.TempDir()}
	_, pub := k.keygen("deploy")
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/settings/keys").MustContain(t, http.StatusOK, "This repository has no deploy keys.")
	w.Post("alice/proj/settings/keys", url.Values{"title": {"ci"}, "content": {"ssh-ed25519 AAAAnotakey"}}).
		MustContain(t, http.StatusUnprocessableEntity, "Invalid key content", `value="ci"`)
	rsPost(t, w, "alice/proj/settings/keys", url.Values{"title": {"ci"}, "content": {pub}})
	list, _ := dkList(t, s, alice.Token, "alice/proj", "")
	if len(list) != 1 || list[0].Title != "ci" || !list[0].ReadOnly {
		t.Fatalf("deploy keys: %+v", list)
	}
	w.Get("alice/proj/settings/keys").MustContain(t, http.StatusOK, "<strong>ci</strong>", "read-only", pageText(list[0].Fingerprint[:16]))
	rsPost(t, w, "alice/proj/settings/keys/delete", url.Values{"id": {strconv.FormatInt(list[0].ID, 10)}})
	if list, _ := dkList(t, s, alice.Token, "alice/proj", ""); len(list) != 0 {
		t.Fatalf("deploy keys after delete: %+v", list)
	}
}

// TestWebRepoSettingsWebhooks: a hook added in the form delivers to a real
// receiver, signs with its secret, its deliveries show on its page with
// request and response, and test and redeliver send again.
func TestWebRepoSettingsWebhooks(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	rc := newWhReceiver(t)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/settings/hooks").MustContain(t, http.StatusOK, "This repository has no webhooks.")
	w.Get("alice/proj/settings/hooks/gitea/new").MustContain(t, http.StatusOK, "New webhook", `value="push_only" checked`)

	// A URL outside the allow list is refused.
	w.Post("alice/proj/settings/hooks/gitea/new", url.Values{"payload_url": {"http://192.0.2.1/x"}, "content_type": {"json"},
		"events": {"push_only"}, "active": {"on"}}).MustContain(t, http.StatusUnprocessableEntity, "Invalid hook url")

	p := rsPost(t, w, "alice/proj/settings/hooks/gitea/new", url.Values{"payload_url": {rc.URL}, "http_method": {"POST"},
		"content_type": {"json"}, "secret": {"s3cret"}, "events": {"push_only"}, "active": {"on"}})
	m := regexp.MustCompile(`^/alice/proj/settings/hooks/(\d+)$`).FindStringSubmatch(p.Location)
	if m == nil {
		t.Fatalf("create redirects to %q", p.Location)
	}
	hookPage := "alice/proj/settings/hooks/" + m[1]
	var hooks []whHook
	r := s.API("GET", "repos/alice/proj/hooks", alice.Token, nil)
	mustStatus(t, r, http.StatusOK, "list hooks")
	r.Decode(t, &hooks)
	if len(hooks) != 1 || hooks[0].Config["url"] != rc.URL || !hooks[0].Active || strings.Join(hooks[0].Events, ",") != "push" {
		t.Fatalf("hooks: %+v", hooks)
	}

	// A real push is delivered, signed with the secret.
	mustStatus(t, s.API("POST", "repos/alice/proj/contents/new.txt", alice.Token, map[string]any{"content": "aGk=", "message": "add"}),
		http.StatusCreated, "push a file")
	d := rc.waitFor(whIs("push", "push", ""), "push event")
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(d.Body)
	if got := d.Header.Get("X-Gitea-Signature"); got != hex.EncodeToString(mac.Sum(nil)) {
		t.Fatalf("signature %q does not use the form's secret", got)
	}
	// The delivery shows on the hook's page with its request and response.
	waitPage := func(what string, subs ...string) *Page {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			p := w.Get(hookPage)
			all := p.Status == http.StatusOK
			for _, sub := range subs {
				all = all && strings.Contains(p.Body, sub)
			}
			if all {
				return p
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the hook page lacks %q: %.3000s", what, subs, p.Body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	p = waitPage("delivery recorded", d.delivery(), "succeeded", "X-Gitea-Event: push", "Response (200)", "refs/heads/main")

	// Test delivery: a synthetic push of the default branch.
	rsPost(t, w, hookPage+"/test", nil)
	reqs := rc.waitN(whIs("push", "push", ""), 2, 10*time.Second, "test delivery")
	test := reqs[1]
	if whStr(test.doc(), "ref") != "refs/heads/main" || whStr(test.doc(), "sender.login") != "alice" {
		t.Fatalf("test payload: %s", test.Body)
	}
	waitPage("test delivery recorded", test.delivery())

	// Redeliver the first delivery: the same payload, a new delivery id.
	rsPost(t, w, hookPage+"/replay/"+d.delivery(), nil)
	reqs = rc.waitN(whIs("push", "push", ""), 3, 10*time.Second, "redelivery")
	again := reqs[2]
	if string(again.Body) != string(d.Body) || again.delivery() == d.delivery() {
		t.Fatalf("redelivery: same body %v, delivery %q (first %q)", string(again.Body) == string(d.Body), again.delivery(), d.delivery())
	}
	waitPage("redelivery recorded", again.delivery())

	// Edit: choose the create event only; a branch created is announced,
	// a push is not.
	p = w.Get(hookPage)
	p.MustContain(t, http.StatusOK, `action="/alice/proj/settings/hooks/gitea/`+m[1]+`"`, `value="push_only" checked`)
	rsPost(t, w, "alice/proj/settings/hooks/gitea/"+m[1], url.Values{"payload_url": {rc.URL}, "content_type": {"json"},
		"events": {"choose_events"}, "event": {"create"}, "active": {"on"}})
	r = s.API("GET", "repos/alice/proj/hooks/"+m[1], alice.Token, nil)
	var hk whHook
	r.Decode(t, &hk)
	if strings.Join(hk.Events, ",") != "create" {
		t.Fatalf("edited events: %v", hk.Events)
	}
	mustStatus(t, s.API("POST", "repos/alice/proj/branches", alice.Token, map[string]any{"new_branch_name": "b1", "old_branch_name": "main"}),
		http.StatusCreated, "create branch")
	created := rc.waitFor(whAnd(whIs("create", "create", ""), "ref", "b1"), "create event")
	// The secret was kept (a blank field keeps it).
	mac = hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(created.Body)
	if created.Header.Get("X-Gitea-Signature") != hex.EncodeToString(mac.Sum(nil)) {
		t.Fatal("editing with a blank secret lost the secret")
	}
	rc.none(whAnd(whIs("push", "push", ""), "ref", "refs/heads/b1"), 300*time.Millisecond, "push after the edit")

	// Delete.
	rsPost(t, w, "alice/proj/settings/hooks/delete", url.Values{"id": {m[1]}})
	if r := s.API("GET", "repos/alice/proj/hooks/"+m[1], alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("deleted hook: %d", r.Status)
	}
}

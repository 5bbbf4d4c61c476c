package e2e

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// rtRestart stops s and starts the same instance again (same data directory,
// database and address) with extra environment entries, which override
// earlier ones.
func rtRestart(t *testing.T, s *Server, extra ...string) *Server {
	t.Helper()
	s.Stop()
	n := &Server{t: t, URL: s.URL, HTTPAddr: s.HTTPAddr, SSHAddr: s.SSHAddr, DataDir: s.DataDir,
		Env: append(append([]string{}, s.Env...), extra...), logs: &bytes.Buffer{}, logMu: &sync.Mutex{},
		done: make(chan struct{}), Admin: s.Admin, AdminTok: s.AdminTok}
	n.launch(cairnBinary(t), nil)
	return n
}

// rtIssueRoutes checks the issue routes of full (which has issue #1 when
// issues are on) as tok sees them. Routes only about issues answer 404
// when the unit is off; routes shared with pull requests (lists,
// milestones) stay while pull requests are on, as in Gitea, but show no
// issue.
func rtIssueRoutes(t *testing.T, k *rtKit, tok, full string, want int, what string) {
	t.Helper()
	pulls := k.mustGet(k.s.AdminTok, full).HasPulls
	for _, c := range []struct {
		path   string
		shared bool
	}{
		{"issues/1", false},
		{"issues/1/comments", false},
		{"issues?type=issues&state=all", true},
		{"issues/comments", true},
		{"milestones", true},
	} {
		w := want
		if c.shared && pulls {
			w = 200
		}
		resp := k.api("GET", "repos/"+full+"/"+c.path, tok, nil)
		if resp.Status != w {
			t.Fatalf("%s: GET %s: status %d, want %d: %s", what, c.path, resp.Status, w, resp.Body)
		}
		if c.path == "issues?type=issues&state=all" && want == 404 && resp.Status == 200 && strings.TrimSpace(string(resp.Body)) != "[]" {
			t.Fatalf("%s: the issue list shows issues of a disabled unit: %s", what, resp.Body)
		}
	}
}

// TestRepoUnitsDefault: [repository] DEFAULT_REPO_UNITS decides the units
// of new repositories; the others can be switched on later.
func TestRepoUnitsDefault(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_DEFAULT_REPO_UNITS=repo.code,repo.pulls"))
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	if r.HasIssues || r.HasWiki || r.HasProjects || r.HasReleases || r.HasPackages || r.HasActions || !r.HasPulls {
		t.Fatalf("units of a new repository: %+v", r)
	}
	resp := k.api("GET", "repos/alice/proj", alice.Token, nil)
	if strings.Contains(string(resp.Body), `"internal_tracker":{`) {
		t.Fatalf("a repository without issues shows an internal tracker: %s", resp.Body)
	}
	// Code is on: git and the code routes work.
	k.mustClone(alice.Name, alice.Password, "alice/proj")
	k.want(k.api("GET", "repos/alice/proj/contents/README.md", alice.Token, nil), 200, "", "code unit")
	// Issues are off: 404 for the owner as for anyone.
	rtIssueRoutes(t, k, alice.Token, "alice/proj", 404, "issues off by default")
	rtIssueRoutes(t, k, s.AdminTok, "alice/proj", 404, "issues off by default, admin")
	// Switching them on makes the routes answer.
	e := k.api("PATCH", "repos/alice/proj", alice.Token, map[string]any{"has_issues": true})
	k.want(e, 200, "", "enable issues")
	e.Decode(t, &r)
	if !r.HasIssues {
		t.Fatal("has_issues still false")
	}
	k.want(k.api("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "first"}), 201, "", "first issue")
	rtIssueRoutes(t, k, alice.Token, "alice/proj", 200, "issues switched on")
	// Repositories created through other routes get the same defaults.
	k.want(k.api("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), 201, "", "org")
	o := k.create(alice.Token, "orgs/acme/repos", map[string]any{"name": "tool"})
	if o.HasIssues || !o.HasPulls {
		t.Fatalf("org repository units: %+v", o)
	}
	f := k.api("POST", "repos/alice/proj/forks", s.AdminTok, map[string]any{"name": "forked"})
	k.want(f, 202, "", "fork")
	f.Decode(t, &o)
	if o.HasIssues || !o.HasPulls {
		t.Fatalf("fork units: %+v", o)
	}
}

// TestRepoUnitsDisabledSiteWide: [repository] DISABLED_REPO_UNITS hides a
// unit everywhere, also in repositories that had it, and it cannot be
// switched on; removing the setting brings the data back.
func TestRepoUnitsDisabledSiteWide(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	k.create(alice.Token, "user/repos", map[string]any{"name": "old", "auto_init": true})
	k.want(k.api("POST", "repos/alice/old/issues", alice.Token, map[string]any{"title": "before"}), 201, "", "issue before")
	rtIssueRoutes(t, k, alice.Token, "alice/old", 200, "before the setting")

	s = rtRestart(t, s, "CAIRN_REPOSITORY_DISABLED_REPO_UNITS=repo.issues")
	k = newRTKit(t, s)
	for _, full := range []string{"alice/old"} {
		r := k.mustGet(alice.Token, full)
		if r.HasIssues || !r.HasPulls || !r.HasWiki {
			t.Fatalf("%s units with issues disabled: %+v", full, r)
		}
	}
	rtIssueRoutes(t, k, alice.Token, "alice/old", 404, "existing repository, unit disabled")
	rtIssueRoutes(t, k, s.AdminTok, "alice/old", 404, "existing repository, unit disabled, admin")
	n := k.create(alice.Token, "user/repos", map[string]any{"name": "new"})
	if n.HasIssues {
		t.Fatal("a new repository has issues although they are disabled")
	}
	rtIssueRoutes(t, k, alice.Token, "alice/new", 404, "new repository, unit disabled")
	// Enabling is refused with a message; other edits still work.
	for _, full := range []string{"alice/old", "alice/new"} {
		k.want(k.api("PATCH", "repos/"+full, alice.Token, map[string]any{"has_issues": true}), 422, "disabled", "enable a disabled unit on "+full)
		if r := k.mustGet(alice.Token, full); r.HasIssues {
			t.Fatalf("%s: has_issues after a refused edit", full)
		}
	}
	resp := k.api("PATCH", "repos/alice/old", alice.Token, map[string]any{"has_wiki": false})
	k.want(resp, 200, "", "other unit edit")
	// A repository search does not reveal it either.
	resp = k.api("GET", "repos/search?q=old", alice.Token, nil)
	if !strings.Contains(string(resp.Body), `"has_issues":false`) || strings.Contains(string(resp.Body), `"has_issues":true`) {
		t.Fatalf("search shows issues: %s", resp.Body)
	}

	// The setting goes: the old repository's issues come back untouched,
	// and the edit made meanwhile (wiki off) stays.
	s = rtRestart(t, s, "CAIRN_REPOSITORY_DISABLED_REPO_UNITS=")
	k = newRTKit(t, s)
	r := k.mustGet(alice.Token, "alice/old")
	if !r.HasIssues || r.HasWiki {
		t.Fatalf("after the setting went: %+v", r)
	}
	var is struct{ Title string }
	resp = k.api("GET", "repos/alice/old/issues/1", alice.Token, nil)
	k.want(resp, 200, "", "old issue")
	resp.Decode(t, &is)
	if is.Title != "before" {
		t.Fatalf("old issue %+v", is)
	}
	if _, err := os.Stat(k.bareDir(r.ID)); err != nil {
		t.Fatal(err)
	}
}

// TestRepoUnitsToggle: has_issues through PATCH switches the issue routes
// off and on; the data stays; readers and writers see the same.
func TestRepoUnitsToggle(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	k.want(k.api("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "one"}), 201, "", "issue")
	rtIssueRoutes(t, k, bob.Token, "alice/proj", 200, "on, other user")

	k.want(k.api("PATCH", "repos/alice/proj", bob.Token, map[string]any{"has_issues": false}), 403, "", "stranger toggles")
	resp := k.api("PATCH", "repos/alice/proj", alice.Token, map[string]any{"has_issues": false})
	k.want(resp, 200, "", "issues off")
	var r rtRepo
	resp.Decode(t, &r)
	if r.HasIssues || !r.HasPulls {
		t.Fatalf("after has_issues=false: %+v", r)
	}
	for _, u := range []*User{alice, bob} {
		rtIssueRoutes(t, k, u.Token, "alice/proj", 404, "off, "+u.Name)
	}
	rtIssueRoutes(t, k, "", "alice/proj", 404, "off, signed out")
	// Code is unaffected.
	k.want(k.api("GET", "repos/alice/proj/branches", bob.Token, nil), 200, "", "branches with issues off")

	k.want(k.api("PATCH", "repos/alice/proj", alice.Token, map[string]any{"has_issues": true}), 200, "", "issues on")
	var is struct{ Title string }
	resp = k.api("GET", "repos/alice/proj/issues/1", bob.Token, nil)
	k.want(resp, 200, "", "issue after re-enabling")
	resp.Decode(t, &is)
	if is.Title != "one" {
		t.Fatalf("issue after toggling: %+v", is)
	}
	// With pull requests off too, the shared routes go as well.
	k.want(k.api("PATCH", "repos/alice/proj", alice.Token, map[string]any{"has_issues": false, "has_pull_requests": false}), 200, "", "issues and pulls off")
	for _, p := range []string{"issues", "issues/comments", "issues/1"} {
		k.want(k.api("GET", "repos/alice/proj/"+p, alice.Token, nil), 404, "", p+" with issues and pulls off")
	}
	k.want(k.api("PATCH", "repos/alice/proj", alice.Token, map[string]any{"has_issues": true, "has_pull_requests": true}), 200, "", "both on")

	// A second toggle in the same request of another unit leaves issues alone.
	resp = k.api("PATCH", "repos/alice/proj", alice.Token, map[string]any{"has_projects": false})
	resp.Decode(t, &r)
	if !r.HasIssues || r.HasProjects {
		t.Fatalf("after has_projects=false: %+v", r)
	}
}

// TestRepoUnitsIssueCreateRefused: creating an issue needs the issue unit,
// like every other issue route: 404 when it is off for the repository or
// site-wide, or when the caller's team does not give it.
func TestRepoUnitsIssueCreateRefused(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_DEFAULT_REPO_UNITS=repo.code,repo.pulls"))
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.create(alice.Token, "user/repos", map[string]any{"name": "noissues", "auto_init": true})
	for _, u := range []*User{alice, bob} {
		k.want(k.api("POST", "repos/alice/noissues/issues", u.Token, map[string]any{"title": "x"}), 404, "", "create an issue without the unit as "+u.Name)
	}
	k.want(k.api("POST", "repos/alice/noissues/issues", s.AdminTok, map[string]any{"title": "x"}), 404, "", "create an issue without the unit as admin")
	k.want(k.api("GET", "repos/alice/noissues/issues/1", alice.Token, nil), 404, "", "no issue was created")

	// A team that gives only the code unit does not let its members file issues.
	k.want(k.api("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), 201, "", "org")
	k.create(alice.Token, "orgs/acme/repos", map[string]any{"name": "tool", "private": true})
	k.want(k.api("PATCH", "repos/acme/tool", alice.Token, map[string]any{"has_issues": true}), 200, "", "issues on")
	resp := k.api("POST", "orgs/acme/teams", alice.Token, map[string]any{"name": "coders", "permission": "write",
		"units": []string{"repo.code"}, "includes_all_repositories": true})
	k.want(resp, 201, "", "team")
	var team struct{ ID int64 }
	resp.Decode(t, &team)
	k.want(k.api("PUT", fmt.Sprintf("teams/%d/members/bob", team.ID), alice.Token, nil), 204, "", "bob in team")
	k.want(k.api("GET", "repos/acme/tool/branches", bob.Token, nil), 200, "", "team member reads code")
	k.want(k.api("GET", "repos/acme/tool/issues/1", bob.Token, nil), 404, "", "team member reads issues")
	k.want(k.api("POST", "repos/acme/tool/issues", bob.Token, map[string]any{"title": "x"}), 404, "", "team member without the issue unit files an issue")
	k.want(k.api("POST", "repos/acme/tool/issues", alice.Token, map[string]any{"title": "by owner"}), 201, "", "owner files an issue")
}

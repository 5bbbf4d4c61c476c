package e2e

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// TestRepoPermissionMatrix checks every repository read route and every
// repository listing for signed-out callers, a plain user, restricted
// users, read/write/admin collaborators, an organization team member and
// the site administrator, on public and private repositories owned by a
// user and by organizations (public, limited and private): the expected
// status of each route, and listings that show exactly the repositories the
// caller may see, with counts that match.
func TestRepoPermissionMatrix(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	users := map[string]*User{
		"plain":      s.CreateUser("plain"),
		"restricted": s.CreateUser("restricted", "restricted"),
		"rcollab":    s.CreateUser("rcollab", "restricted"),
		"cread":      s.CreateUser("cread"),
		"cwrite":     s.CreateUser("cwrite"),
		"cadmin":     s.CreateUser("cadmin"),
		"team":       s.CreateUser("team"),
	}
	for _, o := range []struct{ name, vis string }{{"acme", "public"}, {"lim", "limited"}, {"hid", "private"}} {
		k.want(k.api("POST", "orgs", alice.Token, map[string]any{"username": o.name, "visibility": o.vis}), 201, "", "org "+o.name)
	}
	type repoSpec struct {
		full    string
		private bool
	}
	specs := []repoSpec{
		{"alice/pub", false}, {"alice/priv", true}, {"acme/pub", false}, {"acme/priv", true},
		{"lim/pub", false}, {"hid/pub", false},
	}
	ids := map[string]int64{}
	for _, r := range specs {
		owner, name, _ := strings.Cut(r.full, "/")
		path := "user/repos"
		if owner != "alice" {
			path = "orgs/" + owner + "/repos"
		}
		created := k.create(alice.Token, path, map[string]any{"name": name, "private": r.private, "auto_init": true, "description": "about " + r.full})
		ids[r.full] = created.ID
		k.want(k.api("POST", "repos/"+r.full+"/tags", alice.Token, map[string]any{"tag_name": "v1"}), 201, "", "tag on "+r.full)
		k.want(k.api("POST", "repos/"+r.full+"/releases", alice.Token, map[string]any{"tag_name": "v1", "name": "v1"}), 201, "", "release on "+r.full)
		k.want(k.api("PUT", "repos/"+r.full+"/topics/matrix", alice.Token, nil), 204, "", "topic on "+r.full)
		k.want(k.api("PUT", "user/starred/"+r.full, alice.Token, nil), 204, "", "star "+r.full)
	}
	collabs := map[string]string{"cread": "read", "cwrite": "write", "cadmin": "admin"}
	for _, full := range []string{"alice/pub", "alice/priv", "acme/pub", "acme/priv"} {
		for who, level := range collabs {
			k.want(k.api("PUT", "repos/"+full+"/collaborators/"+who, alice.Token, map[string]any{"permission": level}), 204, "", who+" on "+full)
		}
	}
	for _, full := range []string{"alice/pub", "acme/priv"} {
		k.want(k.api("PUT", "repos/"+full+"/collaborators/rcollab", alice.Token, map[string]any{"permission": "read"}), 204, "", "rcollab on "+full)
	}
	for _, org := range []string{"acme", "hid"} {
		resp := k.api("POST", "orgs/"+org+"/teams", alice.Token, map[string]any{"name": "readers", "permission": "read",
			"units": []string{"repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki"}, "includes_all_repositories": true})
		k.want(resp, 201, "", "team in "+org)
		var team struct{ ID int64 }
		resp.Decode(t, &team)
		k.want(k.api("PUT", fmt.Sprintf("teams/%d/members/team", team.ID), alice.Token, nil), 204, "", "team member in "+org)
	}
	// A private fork of a private repository, owned by the read collaborator.
	resp := k.api("POST", "repos/acme/priv/forks", users["cread"].Token, map[string]any{"name": "myfork"})
	k.want(resp, 202, "", "fork")
	var fork rtRepo
	resp.Decode(t, &fork)
	if !fork.Private {
		t.Fatal("fork of a private repository is public")
	}
	ids["cread/myfork"] = fork.ID
	specs = append(specs, repoSpec{"cread/myfork", true})
	// A pull request in each repository, from its branch "feat".
	for _, spec := range specs {
		tok := alice.Token
		if spec.full == "cread/myfork" {
			tok = users["cread"].Token
		}
		prCommit(t, s, tok, spec.full, "feat", "main", map[string]string{"feat.txt": "feat\n"})
		k.want(k.api("POST", "repos/"+spec.full+"/pulls", tok, map[string]any{"head": "feat", "base": "main", "title": "matrix"}), 201, "", "pull in "+spec.full)
	}

	// Who sees what, and at which level.
	vis := map[string]map[string]bool{
		"alice/pub":    {"anon": true, "plain": true, "rcollab": true, "cread": true, "cwrite": true, "cadmin": true, "team": true, "admin": true},
		"alice/priv":   {"cread": true, "cwrite": true, "cadmin": true, "admin": true},
		"acme/pub":     {"anon": true, "plain": true, "cread": true, "cwrite": true, "cadmin": true, "team": true, "admin": true},
		"acme/priv":    {"rcollab": true, "cread": true, "cwrite": true, "cadmin": true, "team": true, "admin": true},
		"lim/pub":      {"plain": true, "cread": true, "cwrite": true, "cadmin": true, "team": true, "admin": true},
		"hid/pub":      {"team": true, "admin": true},
		"cread/myfork": {"cread": true, "admin": true},
	}
	level := func(role, full string) string {
		switch {
		case !vis[full][role]:
			return "none"
		case role == "admin" || role == "cadmin" && collabRepo(full) || role == "cread" && full == "cread/myfork":
			return "admin"
		case role == "cwrite" && collabRepo(full):
			return "write"
		}
		return "read"
	}
	roles := []string{"anon", "plain", "restricted", "rcollab", "cread", "cwrite", "cadmin", "team", "admin"}
	token := func(role string) string {
		switch role {
		case "anon":
			return ""
		case "admin":
			return s.AdminTok
		}
		return users[role].Token
	}

	routes := []string{
		"", "branches", "branches/main", "tags", "tags/v1", "commits", "commits?sha=main&limit=1&stat=false", "git/commits/main",
		"contents", "contents/README.md", "contents/README.md?ref=v1", "raw/README.md", "media/README.md",
		"archive/main.zip", "archive/v1.tar.gz", "archive/main.bundle", "languages", "git/refs", "git/refs/heads/main",
		"git/trees/main?recursive=true", "compare/v1...main", "forks", "stargazers", "subscribers", "topics",
		"collaborators", "keys", "assignees", "new_pin_allowed", "teams", "times", "issue_templates", "issue_config", "git/notes/main", "licenses", "commits/main/status", "commits/main/statuses",
		"pulls", "pulls?state=all&sort=recentupdate", "pulls/1", "pulls/1.diff", "pulls/1.patch", "pulls/1/files", "pulls/1/commits",
		"pulls/main/feat", "pulls/pinned", "pulls/1/reviews",
		"releases", "releases/latest", "releases/tags/v1", "signing-key.gpg",
	}
	for _, spec := range specs {
		full := spec.full
		for _, role := range roles {
			lv := level(role, full)
			for _, route := range routes {
				want := 200
				switch {
				case lv == "none":
					want = 404
				case route == "collaborators" && role == "anon":
					want = 401
				case route == "keys" && role == "anon":
					want = 401
				case route == "keys" && lv != "admin":
					want = 403
				case (route == "assignees" || route == "teams" || route == "times") && role == "anon":
					want = 401
				case strings.HasSuffix(full, "/myfork") && (route == "releases/latest" || route == "releases/tags/v1"):
					want = 404 // a fork has its parent's tags, not its releases
				case route == "git/notes/main":
					want = 404 // no notes; the same answer whoever asks
				case route == "teams" && !strings.HasPrefix(full, "acme/") && !strings.HasPrefix(full, "lim/") && !strings.HasPrefix(full, "hid/"):
					want = 405 // no organization owns it
				}
				path := "repos/" + full
				if route != "" {
					path += "/" + route
				}
				resp := k.api("GET", path, token(role), nil)
				if resp.Status != want {
					t.Errorf("%s GET %s: status %d, want %d: %.200s", role, path, resp.Status, want, resp.Body)
					continue
				}
				if want != 200 && strings.Contains(string(resp.Body), "about "+full) {
					t.Errorf("%s GET %s: a refusal shows the repository: %s", role, path, resp.Body)
				}
			}
			// The permissions the repository reports.
			if lv != "none" && role != "anon" {
				var r rtRepo
				k.api("GET", "repos/"+full, token(role), nil).Decode(t, &r)
				if r.Permissions == nil || !r.Permissions.Pull || r.Permissions.Push != (lv == "write" || lv == "admin") || r.Permissions.Admin != (lv == "admin") {
					t.Errorf("%s on %s (level %s): permissions %+v", role, full, lv, r.Permissions)
				}
			}
			// By id.
			want := 404
			if lv != "none" {
				want = 200
			}
			if resp := k.api("GET", fmt.Sprintf("repositories/%d", ids[full]), token(role), nil); resp.Status != want {
				t.Errorf("%s GET repositories/%d (%s): %d, want %d", role, ids[full], full, resp.Status, want)
			}
		}
	}

	// Listings show exactly what the caller may see, and count only that.
	visibleOf := func(role string, keep func(full string) bool) []string {
		out := []string{}
		for _, spec := range specs {
			if vis[spec.full][role] && keep(spec.full) {
				out = append(out, spec.full)
			}
		}
		sort.Strings(out)
		return out
	}
	all := func(string) bool { return true }
	ownedBy := func(owner string) func(string) bool {
		return func(full string) bool { return strings.HasPrefix(full, owner+"/") }
	}
	listed := func(role, path string, wrapped bool) (int, []string, string) {
		resp := k.api("GET", path, token(role), nil)
		if resp.Status != 200 {
			return resp.Status, nil, ""
		}
		var list []rtRepo
		if wrapped {
			var sr struct {
				OK   bool     `json:"ok"`
				Data []rtRepo `json:"data"`
			}
			resp.Decode(t, &sr)
			list = sr.Data
		} else {
			resp.Decode(t, &list)
		}
		out := []string{}
		for _, r := range list {
			out = append(out, r.FullName)
		}
		sort.Strings(out)
		return 200, out, resp.Header.Get("X-Total-Count")
	}
	check := func(role, path string, wrapped bool, wantStatus int, want []string) {
		t.Helper()
		st, got, total := listed(role, path, wrapped)
		if st != wantStatus {
			t.Errorf("%s GET %s: status %d, want %d", role, path, st, wantStatus)
			return
		}
		if st != 200 {
			return
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s GET %s:\n got  %v\n want %v", role, path, got, want)
		}
		if total != fmt.Sprint(len(want)) {
			t.Errorf("%s GET %s: X-Total-Count %s for %d visible repositories", role, path, total, len(want))
		}
	}
	for _, role := range roles {
		check(role, "repos/search?limit=50", true, 200, visibleOf(role, all))
		check(role, "repos/search?limit=50&q=priv", true, 200, visibleOf(role, func(f string) bool { return strings.Contains(f, "priv") }))
		check(role, "repos/search?limit=50&q=about&includeDesc=true", true, 200, visibleOf(role, all))
		check(role, "repos/search?limit=50&q=about", true, 200, []string{})
		check(role, "repos/search?limit=50&q=matrix&topic=true", true, 200, visibleOf(role, func(f string) bool { return f != "cread/myfork" }))
		check(role, "repos/search?limit=50&is_private=true", true, 200, visibleOf(role, func(f string) bool {
			return f == "alice/priv" || f == "acme/priv" || f == "cread/myfork"
		}))
		check(role, "repos/search?limit=50&mode=fork", true, 200, visibleOf(role, func(f string) bool { return f == "cread/myfork" }))
		check(role, "repos/search?limit=50&uid="+fmt.Sprint(alice.ID)+"&exclusive=true", true, 200, visibleOf(role, ownedBy("alice")))
		check(role, "users/alice/repos?limit=50", false, 200, visibleOf(role, ownedBy("alice")))
		check(role, "users/cread/repos?limit=50", false, 200, visibleOf(role, ownedBy("cread")))
		// Restricted users see no organization they are not a member of,
		// whatever its visibility (Gitea's HasOrgOrUserVisible).
		limStatus := 200
		if role == "anon" || role == "restricted" || role == "rcollab" {
			limStatus = 404
		}
		acmeStatus := map[bool]int{true: 404, false: 200}[role == "restricted" || role == "rcollab"]
		check(role, "orgs/acme/repos?limit=50", false, acmeStatus, visibleOf(role, ownedBy("acme")))
		check(role, "orgs/lim/repos?limit=50", false, limStatus, visibleOf(role, ownedBy("lim")))
		hidStatus := 404
		if role == "team" || role == "admin" {
			hidStatus = 200
		}
		check(role, "orgs/hid/repos?limit=50", false, hidStatus, visibleOf(role, ownedBy("hid")))
		check(role, "repos/acme/priv/forks", false, map[bool]int{true: 200, false: 404}[vis["acme/priv"][role]],
			visibleOf(role, func(f string) bool { return f == "cread/myfork" }))
		check(role, "users/alice/starred", false, map[bool]int{true: 200, false: 401}[role != "anon"], visibleOf(role, func(f string) bool { return f != "cread/myfork" }))
	}
	// The caller's own list: owned, collaborations and team repositories.
	mine := map[string][]string{
		"plain":      {},
		"restricted": {},
		"rcollab":    {"acme/priv", "alice/pub"},
		"cread":      {"acme/priv", "acme/pub", "alice/priv", "alice/pub", "cread/myfork"},
		"cwrite":     {"acme/priv", "acme/pub", "alice/priv", "alice/pub"},
		"cadmin":     {"acme/priv", "acme/pub", "alice/priv", "alice/pub"},
		"team":       {"acme/priv", "acme/pub", "hid/pub"},
		"admin":      {},
	}
	check("anon", "user/repos", false, 401, nil)
	for role, want := range mine {
		check(role, "user/repos?limit=50", false, 200, want)
	}
	// A name search never reveals a private repository's existence.
	for _, role := range []string{"anon", "plain", "restricted"} {
		resp := k.api("GET", "repos/search?q="+url.QueryEscape("priv"), token(role), nil)
		if strings.Contains(string(resp.Body), "priv\"") || strings.Contains(string(resp.Body), "about alice/priv") {
			t.Errorf("%s: search leaks a private repository: %s", role, resp.Body)
		}
	}
}

// collabRepo reports whether the matrix's collaborators were added to full.
func collabRepo(full string) bool {
	switch full {
	case "alice/pub", "alice/priv", "acme/pub", "acme/priv":
		return true
	}
	return false
}

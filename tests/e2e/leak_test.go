package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// lkRow is one probe of TestHiddenLooksMissing: the request is sent once
// with {X} = hidden (an object that exists but the caller may not see) and
// once with {X} = missing (one that does not exist); both answers must be the
// same once {X}'s value is blanked out of them (a message may echo what the
// caller typed). {ME}, {MYORG} and {MYTEAM} are the caller's own account,
// organization and team; {ME}/mine is the caller's own repository (a
// template, with issue #1). hiddenFrom limits the row to some callers.
type lkRow struct {
	method, path    string
	body            string // JSON with placeholders, "" for none
	hidden, missing string
	hiddenFrom      []string
}

// lkCaller is one of the callers the rows run as.
type lkCaller struct {
	name, me, tok, myOrg, myTeam string
}

const lkMissingID = "987654321"

// TestHiddenLooksMissing checks that what a caller may not see (private
// repositories and their issues, comments and attachments, private and
// limited users and organizations, teams, keys) answers exactly like what
// does not exist, for signed-out callers, a signed-in outsider and a
// restricted user, by id and by name.
func TestHiddenLooksMissing(t *testing.T) {
	s := StartServer(t)
	k := &lkKit{t: t, s: s}
	alice := s.CreateUser("alice")
	privy := s.CreateUser("privy", "private")
	limy := s.CreateUser("limy", "limited")
	outsider := s.CreateUser("outsider")
	restr := s.CreateUser("restr", "restricted")

	// alice's private repository with an issue, a comment and attachments.
	k.must("POST", "api/v1/user/repos", alice.Token, map[string]any{"name": "secret", "private": true, "auto_init": true}, 201)
	secretID := k.id(k.must("GET", "api/v1/repos/alice/secret", alice.Token, nil, 200))
	k.must("POST", "api/v1/repos/alice/secret/issues", alice.Token, map[string]any{"title": "hidden issue"}, 201)
	commentID := k.id(k.must("POST", "api/v1/repos/alice/secret/issues/1/comments", alice.Token, map[string]any{"body": "hidden comment"}, 201))
	issueAsset := k.upload("api/v1/repos/alice/secret/issues/1/assets", alice.Token)
	commentAsset := k.upload(fmt.Sprintf("api/v1/repos/alice/secret/issues/comments/%s/assets", commentID), alice.Token)
	var asset struct{ UUID string }
	if err := json.Unmarshal(issueAsset, &asset); err != nil || asset.UUID == "" {
		t.Fatalf("attachment: %s", issueAsset)
	}
	issueAssetID, commentAssetID := k.idOf(issueAsset), k.idOf(commentAsset)
	// A public repository of alice with issue #1, and one whose issues unit is
	// off after an issue was opened.
	k.must("POST", "api/v1/user/repos", alice.Token, map[string]any{"name": "open", "auto_init": true}, 201)
	k.must("POST", "api/v1/repos/alice/open/issues", alice.Token, map[string]any{"title": "public issue"}, 201)
	k.must("POST", "api/v1/user/repos", alice.Token, map[string]any{"name": "closed", "auto_init": true}, 201)
	k.must("POST", "api/v1/repos/alice/closed/issues", alice.Token, map[string]any{"title": "issue of a closed unit"}, 201)
	k.must("PATCH", "api/v1/repos/alice/closed", alice.Token, map[string]any{"has_issues": false}, 200)

	// Organizations of alice: private, limited and public, each with a public
	// repository; teams hidden from outsiders.
	for _, o := range []struct{ name, vis, repo string }{{"porg", "private", "inner"}, {"lorg", "limited", "lrepo"}, {"puborg", "public", "prepo"}} {
		k.must("POST", "api/v1/orgs", alice.Token, map[string]any{"username": o.name, "visibility": o.vis}, 201)
		k.must("POST", "api/v1/orgs/"+o.name+"/repos", alice.Token, map[string]any{"name": o.repo, "auto_init": true}, 201)
	}
	innerID := k.id(k.must("GET", "api/v1/repos/porg/inner", alice.Token, nil, 200))
	lrepoID := k.id(k.must("GET", "api/v1/repos/lorg/lrepo", alice.Token, nil, 200))
	teamID := k.id(k.must("POST", "api/v1/orgs/porg/teams", alice.Token, map[string]any{"name": "devs", "permission": "read", "units": []string{"repo.code"}}, 201))
	k.must("POST", "api/v1/orgs/puborg/teams", alice.Token, map[string]any{"name": "quiet", "permission": "read", "units": []string{"repo.code"}}, 201)

	// Public repositories of the private and the limited user; a key of the private one.
	k.must("POST", "api/v1/user/repos", privy.Token, map[string]any{"name": "pub", "auto_init": true}, 201)
	privyRepoID := k.id(k.must("GET", "api/v1/repos/privy/pub", privy.Token, nil, 200))
	k.must("POST", "api/v1/user/repos", limy.Token, map[string]any{"name": "lpub", "auto_init": true}, 201)
	limyRepoID := k.id(k.must("GET", "api/v1/repos/limy/lpub", limy.Token, nil, 200))
	// privy stars and collaborates on alice/open: filters by privy must not show it.
	k.must("PUT", "api/v1/user/starred/alice/open", privy.Token, nil, 204)
	k.must("PUT", "api/v1/repos/alice/open/collaborators/privy", s.AdminTok, map[string]any{"permission": "read"}, 204)
	privyID := fmt.Sprint(privy.ID)
	for _, q := range []string{"uid=" + privyID, "starredBy=" + privyID} {
		if r := k.must("GET", "api/v1/repos/search?"+q, s.AdminTok, nil, 200); !strings.Contains(string(r.Body), `"full_name":"alice/open"`) {
			t.Fatalf("admin: search %s = %s", q, r.Body)
		}
	}
	keyID := k.id(k.must("POST", "api/v1/user/keys", privy.Token, map[string]any{"title": "k",
		"key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJYWX3/KA/TJhJi2qOd2/DavzW4A+O0VA9bh+oi8maBb"}, 201))

	// Each caller's own template repository with issue #1, organization and team.
	callers := []lkCaller{{name: "anonymous", me: "alice"}}
	k.must("POST", "api/v1/user/repos", alice.Token, map[string]any{"name": "mine", "auto_init": true, "template": true}, 201)
	k.must("POST", "api/v1/repos/alice/mine/issues", alice.Token, map[string]any{"title": "own issue"}, 201)
	for _, u := range []*User{outsider, restr} {
		k.must("POST", "api/v1/user/repos", u.Token, map[string]any{"name": "mine", "auto_init": true, "template": true}, 201)
		k.must("POST", "api/v1/repos/"+u.Name+"/mine/issues", u.Token, map[string]any{"title": "own issue"}, 201)
		org := u.Name + "-org"
		k.must("POST", "api/v1/admin/users/"+u.Name+"/orgs", s.AdminTok, map[string]any{"username": org, "visibility": "public"}, 201)
		team := k.id(k.must("POST", "api/v1/orgs/"+org+"/teams", u.Token, map[string]any{"name": "crew", "permission": "write", "units": []string{"repo.code"}}, 201))
		callers = append(callers, lkCaller{name: u.Name, me: u.Name, tok: u.Token, myOrg: org, myTeam: team})
	}
	callers[0].myOrg, callers[0].myTeam = "puborg", teamID

	uuidMissing := strings.Repeat("0", 8) + "-0000-4000-8000-" + strings.Repeat("0", 12)
	dep := `{"owner":"alice","repo":"{X}","index":1}`
	signedOutAndRestricted := []string{"anonymous", "restr"}
	restrictedOnly := []string{"restr"}
	rows := []lkRow{
		// Repositories by id and by name.
		{"GET", "api/v1/repositories/{X}", "", secretID, lkMissingID, nil},
		{"GET", "api/v1/repositories/{X}", "", innerID, lkMissingID, nil},
		{"GET", "api/v1/repositories/{X}", "", privyRepoID, lkMissingID, nil},
		{"GET", "api/v1/repositories/{X}", "", lrepoID, lkMissingID, signedOutAndRestricted},
		{"GET", "api/v1/repositories/{X}", "", limyRepoID, lkMissingID, signedOutAndRestricted},
		{"GET", "api/v1/repos/alice/{X}", "", "secret", "nosuch", nil},
		{"GET", "api/v1/repos/{X}/inner", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/repos/{X}/pub", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/repos/{X}/lrepo", "", "lorg", "nosuchorg", signedOutAndRestricted},
		{"GET", "api/v1/repos/{X}/prepo", "", "puborg", "nosuchorg", restrictedOnly},
		{"GET", "api/v1/repos/alice/{X}/issues/1", "", "secret", "nosuch", nil},
		{"POST", "api/v1/repos/{X}/inner/forks", "{}", "porg", "nosuchorg", nil},
		{"GET", "api/v1/repos/search?uid={X}", "", privyID, lkMissingID, nil},
		{"GET", "api/v1/repos/search?starredBy={X}", "", privyID, lkMissingID, nil},
		// Issues, comments and attachments by id, asked through a visible repository.
		{"GET", "api/v1/repos/alice/open/issues/comments/{X}", "", commentID, lkMissingID, nil},
		{"GET", "api/v1/repos/alice/open/issues/comments/{X}/reactions", "", commentID, lkMissingID, nil},
		{"GET", "api/v1/repos/alice/open/issues/comments/{X}/assets", "", commentID, lkMissingID, nil},
		{"GET", "api/v1/repos/alice/open/issues/1/assets/{X}", "", issueAssetID, lkMissingID, nil},
		{"GET", "api/v1/repos/alice/secret/issues/comments/" + commentID + "/assets/{X}", "", commentAssetID, lkMissingID, nil},
		{"GET", "attachments/{X}", "", asset.UUID, uuidMissing, nil},
		{"GET", "api/v1/repos/alice/closed/issues/{X}", "", "1", "99", nil},
		{"POST", "api/v1/repos/{ME}/mine/issues/1/dependencies", dep, "secret", "nosuch", nil},
		{"POST", "api/v1/repos/{ME}/mine/issues/1/dependencies", `{"owner":"alice","repo":"closed","index":{X}}`, "1", "99", nil},
		// Teams by id and by name.
		{"GET", "api/v1/teams/{X}", "", teamID, lkMissingID, nil},
		{"GET", "api/v1/teams/{X}/members", "", teamID, lkMissingID, nil},
		{"GET", "api/v1/teams/{X}/repos", "", teamID, lkMissingID, nil},
		{"GET", "api/v1/repos/puborg/prepo/teams/{X}", "", "quiet", "nosuchteam", nil},
		// Users by name.
		{"GET", "api/v1/users/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}", "", "limy", "nosuchuser", signedOutAndRestricted},
		{"GET", "api/v1/users/{X}/repos", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}/followers", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}/following", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}/keys", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}/orgs", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}/starred", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/{X}/subscriptions", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/users/alice/following/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/user/following/{X}", "", "privy", "nosuchuser", nil},
		{"PUT", "api/v1/user/following/{X}", "", "privy", "nosuchuser", nil},
		{"DELETE", "api/v1/user/following/{X}", "", "privy", "nosuchuser", nil},
		// Organizations by name.
		{"GET", "api/v1/orgs/{X}", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/orgs/{X}", "", "lorg", "nosuchorg", signedOutAndRestricted},
		{"GET", "api/v1/orgs/{X}", "", "puborg", "nosuchorg", restrictedOnly},
		{"GET", "api/v1/orgs/{X}/repos", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/orgs/{X}/members", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/orgs/{X}/public_members", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/orgs/{X}/members/alice", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/orgs/{X}/teams", "", "porg", "nosuchorg", nil},
		{"GET", "api/v1/orgs/{X}/labels", "", "porg", "nosuchorg", nil},
		{"POST", "api/v1/orgs/{X}/repos", `{"name":"x"}`, "porg", "nosuchorg", nil},
		{"POST", "api/v1/org/{X}/repos", `{"name":"x"}`, "porg", "nosuchorg", nil},
		{"GET", "api/v1/users/{ME}/orgs/{X}/permissions", "", "porg", "nosuchorg", nil},
		{"POST", "api/v1/repos/alice/open/forks", `{"organization":"{X}"}`, "porg", "nosuchorg", nil},
		{"POST", "api/v1/repos/{ME}/mine/generate", `{"owner":"{X}","name":"gen","git_content":true}`, "porg", "nosuchorg", nil},
		{"POST", "api/v1/repos/{ME}/mine/generate", `{"owner":"{X}","name":"gen","git_content":true}`, "privy", "nosuchuser", nil},
		// Migration owners.
		{"POST", "api/v1/repos/migrate", `{"clone_addr":"https://example.invalid/x.git","repo_name":"m","repo_owner":"{X}"}`, "porg", "nosuchorg", nil},
		{"POST", "api/v1/repos/migrate", `{"clone_addr":"https://example.invalid/x.git","repo_name":"m","repo_owner":"{X}"}`, "privy", "nosuchuser", nil},
		{"POST", "api/v1/repos/migrate", `{"clone_addr":"https://example.invalid/x.git","repo_name":"m","repo_owner":"{X}"}`, "lorg", "nosuchorg", restrictedOnly},
		{"POST", "api/v1/repos/migrate", `{"clone_addr":"https://example.invalid/x.git","repo_name":"m","uid":{X}}`, privyID, lkMissingID, nil},
		// User names given to the caller's own repository, organization and team.
		{"PUT", "api/v1/repos/{ME}/mine/collaborators/{X}", `{"permission":"read"}`, "privy", "nosuchuser", nil},
		{"PUT", "api/v1/repos/{ME}/mine/collaborators/{X}", `{"permission":"read"}`, "limy", "nosuchuser", signedOutAndRestricted},
		{"GET", "api/v1/repos/{ME}/mine/collaborators/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/repos/{ME}/mine/collaborators/{X}/permission", "", "privy", "nosuchuser", nil},
		{"DELETE", "api/v1/repos/{ME}/mine/collaborators/{X}", "", "privy", "nosuchuser", nil},
		{"POST", "api/v1/repos/{ME}/mine/issues", `{"title":"t","assignees":["{X}"]}`, "privy", "nosuchuser", nil},
		{"POST", "api/v1/repos/{ME}/mine/issues", `{"title":"t","assignee":"{X}"}`, "privy", "nosuchuser", nil},
		{"GET", "api/v1/repos/{ME}/mine/issues?created_by={X}", "", "privy", "nosuchuser", nil},
		{"PUT", "api/v1/repos/{ME}/mine/issues/1/subscriptions/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/repos/{ME}/mine/times/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/repos/{ME}/mine/times?user={X}", "", "privy", "nosuchuser", nil},
		{"POST", "api/v1/repos/{ME}/mine/issues/1/times", `{"time":60,"user_name":"{X}"}`, "privy", "nosuchuser", nil},
		{"POST", "api/v1/repos/{ME}/mine/transfer", `{"new_owner":"{X}"}`, "privy", "nosuchuser", nil},
		{"POST", "api/v1/repos/{ME}/mine/transfer", `{"new_owner":"{X}"}`, "porg", "nosuchorg", nil},
		{"PUT", "api/v1/teams/{MYTEAM}/members/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/teams/{MYTEAM}/members/{X}", "", "privy", "nosuchuser", nil},
		{"DELETE", "api/v1/teams/{MYTEAM}/members/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/orgs/{MYORG}/members/{X}", "", "privy", "nosuchuser", nil},
		{"DELETE", "api/v1/orgs/{MYORG}/members/{X}", "", "privy", "nosuchuser", nil},
		{"GET", "api/v1/orgs/{MYORG}/public_members/{X}", "", "privy", "nosuchuser", nil},
		{"PUT", "api/v1/orgs/{MYORG}/public_members/{X}", "", "privy", "nosuchuser", nil},
		// Keys by id.
		{"GET", "api/v1/user/keys/{X}", "", keyID, lkMissingID, nil},
		{"DELETE", "api/v1/user/keys/{X}", "", keyID, lkMissingID, nil},
	}
	for _, c := range callers {
		for _, row := range rows {
			if row.hiddenFrom != nil && !slices.Contains(row.hiddenFrom, c.name) {
				continue
			}
			what := c.name + " " + row.method + " " + row.path + " " + row.body + " [" + row.hidden + " vs " + row.missing + "]"
			hid := k.probe(c, row, row.hidden)
			miss := k.probe(c, row, row.missing)
			if hid != miss {
				t.Errorf("%s: hidden and missing answer differently:\n  hidden:  %d %s\n  missing: %d %s", what, hid.status, hid.body, miss.status, miss.body)
			}
		}
	}
	// The probes changed nothing that a hidden object could have let through.
	if r := s.API("GET", "api/v1/repos/outsider/mine/collaborators", outsider.Token, nil); r.Status == 200 && strings.Contains(string(r.Body), "privy") {
		t.Fatalf("privy became a collaborator: %s", r.Body)
	}
}

type lkKit struct {
	t *testing.T
	s *Server
}

// lkAnswer is a response with the probed value blanked out.
type lkAnswer struct {
	status         int
	body, location string
}

// probe sends row with {X} = value as caller c.
func (k *lkKit) probe(c lkCaller, row lkRow, value string) lkAnswer {
	k.t.Helper()
	fill := strings.NewReplacer("{X}", value, "{ME}", c.me, "{MYORG}", c.myOrg, "{MYTEAM}", c.myTeam)
	opts := []RequestOption{Token(c.tok)}
	if row.body != "" {
		opts = append(opts, RawBody(fill.Replace(row.body)))
	}
	return k.blank(k.s.Do(row.method, fill.Replace(row.path), opts...), value)
}

// blank replaces value, as a whole word, in the body's strings and the
// Location header with a placeholder (after the server's root URL, which
// holds numbers too).
func (k *lkKit) blank(r *Response, value string) lkAnswer {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(value) + `\b`)
	raw := []byte(strings.ReplaceAll(string(r.Body), k.s.URL, "{ROOT}/"))
	var v any
	body := string(raw)
	if json.Unmarshal(raw, &v) == nil {
		b, _ := json.Marshal(lkBlankJSON(v, word))
		body = string(b)
	} else {
		body = word.ReplaceAllString(body, "{X}")
	}
	return lkAnswer{status: r.Status, body: body, location: word.ReplaceAllString(strings.ReplaceAll(r.Header.Get("Location"), k.s.URL, "{ROOT}/"), "{X}")}
}

func lkBlankJSON(v any, word *regexp.Regexp) any {
	switch x := v.(type) {
	case string:
		return word.ReplaceAllString(x, "{X}")
	case []any:
		for i := range x {
			x[i] = lkBlankJSON(x[i], word)
		}
	case map[string]any:
		for key, val := range x {
			x[key] = lkBlankJSON(val, word)
		}
	}
	return v
}

// must sends a JSON request and fails unless it answers want.
func (k *lkKit) must(method, path, tok string, body any, want int) *Response {
	k.t.Helper()
	opts := []RequestOption{Token(tok)}
	if body != nil {
		opts = append(opts, JSON(body))
	}
	r := k.s.Do(method, path, opts...)
	if r.Status != want {
		k.t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
	return r
}

// id is the "id" of a JSON answer, as text.
func (k *lkKit) id(r *Response) string { return k.idOf(r.Body) }

func (k *lkKit) idOf(body []byte) string {
	k.t.Helper()
	var v struct{ ID int64 }
	if err := json.Unmarshal(body, &v); err != nil || v.ID == 0 {
		k.t.Fatalf("no id in %s", body)
	}
	return fmt.Sprint(v.ID)
}

// upload attaches a small text file through a multipart POST and returns the answer's body.
func (k *lkKit) upload(path, tok string) []byte {
	k.t.Helper()
	r := k.s.Upload(path, tok, "attachment", "note.txt", []byte("hidden attachment"), 0)
	if r.Status != 201 {
		k.t.Fatalf("upload %s: %d %s", path, r.Status, r.Body)
	}
	return r.Body
}

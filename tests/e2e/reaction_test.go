package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// actKit is the shared fixture of the reaction, attachment, tracked time and
// dependency tests: organization "acme" (owned by "owner") with a public
// repository "pub" and a private one "priv", a team of readers and a team of
// writers over all its repositories, a stranger, a restricted user and a
// site administrator. Each repository starts with issue #1 opened by owner.
type actKit struct {
	t        *testing.T
	s        *Server
	owner    *User
	reader   *User
	writer   *User
	stranger *User
	restrict *User
	admin    *User
}

func newActKit(t *testing.T, opts ...ServerOption) *actKit {
	t.Helper()
	s := StartServer(t, opts...)
	k := &actKit{t: t, s: s}
	k.owner = s.CreateUser("owner")
	k.reader = s.CreateUser("reader")
	k.writer = s.CreateUser("writer")
	k.stranger = s.CreateUser("stranger")
	k.restrict = s.CreateUser("restrict", "restricted")
	k.admin = s.CreateUser("sadmin", "admin")
	k.must(k.do("POST", "api/v1/orgs", k.owner.Token, map[string]any{"username": "acme", "visibility": "public"}), 201, "create org")
	for _, name := range []string{"pub", "priv"} {
		k.must(k.do("POST", "api/v1/orgs/acme/repos", k.owner.Token, map[string]any{"name": name, "private": name == "priv", "auto_init": true}), 201, "create repo "+name)
		k.must(k.do("POST", "api/v1/repos/acme/"+name+"/issues", k.owner.Token, map[string]any{"title": "first issue of " + name}), 201, "create issue")
	}
	for _, team := range []struct{ name, perm, member string }{{"readers", "read", "reader"}, {"writers", "write", "writer"}} {
		resp := k.must(k.do("POST", "api/v1/orgs/acme/teams", k.owner.Token, map[string]any{"name": team.name, "permission": team.perm,
			"units": []string{"repo.code", "repo.issues", "repo.pulls", "repo.releases"}, "includes_all_repositories": true}), 201, "create team")
		var tm struct {
			ID int64 `json:"id"`
		}
		resp.Decode(t, &tm)
		k.must(k.do("PUT", fmt.Sprintf("api/v1/teams/%d/members/%s", tm.ID, team.member), k.owner.Token, nil), 204, "add team member")
	}
	return k
}

// do sends a JSON request (body nil: none) with a token ("" signed out).
func (k *actKit) do(method, path, tok string, body any) *Response {
	k.t.Helper()
	opts := []RequestOption{Token(tok)}
	if body != nil {
		opts = append(opts, JSON(body))
	}
	return k.s.Do(method, path, opts...)
}

// must fails the test unless resp has status want.
func (k *actKit) must(resp *Response, want int, what string) *Response {
	k.t.Helper()
	if resp.Status != want {
		k.t.Fatalf("%s: status %d, want %d: %s", what, resp.Status, want, resp.Body)
	}
	return resp
}

// wantError checks status and that the Gitea-shaped error message contains msg.
func (k *actKit) wantError(resp *Response, status int, msg, what string) {
	k.t.Helper()
	if resp.Status != status {
		k.t.Errorf("%s: status %d, want %d: %s", what, resp.Status, status, resp.Body)
		return
	}
	var e struct {
		Message string `json:"message"`
		URL     string `json:"url"`
	}
	if err := json.Unmarshal(resp.Body, &e); err != nil || !strings.Contains(e.Message, msg) || e.URL == "" {
		k.t.Errorf("%s: error body %s does not carry %q in Gitea's shape", what, resp.Body, msg)
	}
}

// issue creates an issue in acme/repo as u and returns its number.
func (k *actKit) issue(u *User, repo, title string) int64 {
	k.t.Helper()
	resp := k.must(k.do("POST", "api/v1/repos/acme/"+repo+"/issues", u.Token, map[string]any{"title": title}), 201, "create issue")
	var is struct {
		Number int64 `json:"number"`
	}
	resp.Decode(k.t, &is)
	return is.Number
}

// comment adds a comment to acme/repo#index as u and returns its id.
func (k *actKit) comment(u *User, repo string, index int64, body string) int64 {
	k.t.Helper()
	resp := k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/%s/issues/%d/comments", repo, index), u.Token, map[string]any{"body": body}), 201, "comment")
	var c struct {
		ID int64 `json:"id"`
	}
	resp.Decode(k.t, &c)
	return c.ID
}

// callers are the rows of the permission matrix.
func (k *actKit) callers() []struct {
	name string
	tok  string
} {
	return []struct {
		name string
		tok  string
	}{{"signed out", ""}, {"stranger", k.stranger.Token}, {"restricted", k.restrict.Token}, {"reader", k.reader.Token},
		{"writer", k.writer.Token}, {"site admin", k.admin.Token}}
}

// matrixCase is one route of a permission matrix: want maps caller name to
// the expected status on the public and on the private repository.
type matrixCase struct {
	method, path string // path has %s for the repository name
	body         func() any
	want         map[string][2]int
}

// runMatrix checks every case for every caller on both repositories.
func (k *actKit) runMatrix(cases []matrixCase) {
	k.t.Helper()
	for _, c := range cases {
		for _, who := range k.callers() {
			for i, repo := range []string{"pub", "priv"} {
				want, ok := c.want[who.name]
				if !ok {
					k.t.Fatalf("matrix %s %s: no expectation for %s", c.method, c.path, who.name)
				}
				var body any
				if c.body != nil {
					body = c.body()
				}
				resp := k.do(c.method, fmt.Sprintf(c.path, repo), who.tok, body)
				if resp.Status != want[i] {
					k.t.Errorf("%s %s as %s: %d, want %d (%s)", c.method, fmt.Sprintf(c.path, repo), who.name, resp.Status, want[i], resp.Body)
				}
			}
		}
	}
}

func reactionContents(t *testing.T, resp *Response) []string {
	t.Helper()
	var list []struct {
		Content string `json:"content"`
		User    struct {
			Login string `json:"login"`
		} `json:"user"`
	}
	resp.Decode(t, &list)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, x.User.Login+":"+x.Content)
	}
	return out
}

func TestReactionLifecycle(t *testing.T) {
	k := newActKit(t)
	s := k.s
	cid := k.comment(k.owner, "pub", 1, "a comment")

	// Through the SDK: 201 for a new reaction.
	wc := s.Client(k.writer.Token)
	x, resp, err := wc.PostIssueReaction("acme", "pub", 1, "+1")
	if err != nil || resp.StatusCode != 201 || x.Reaction != "+1" || x.User == nil || x.User.UserName != "writer" {
		t.Fatalf("post reaction: %v %v %+v", err, resp, x)
	}
	// The same again answers 200 and adds nothing.
	again := k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": "+1"}), 200, "repeat reaction")
	var rx struct {
		Content string `json:"content"`
	}
	again.Decode(t, &rx)
	if rx.Content != "+1" {
		t.Fatalf("repeat answered %s", again.Body)
	}
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.reader.Token, map[string]any{"content": "heart"}), 201, "reader reacts")

	// The list needs no token on a public repository.
	list := k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions", "", nil), 200, "anonymous list")
	if got := strings.Join(reactionContents(t, list), ","); got != "writer:+1,reader:heart" {
		t.Fatalf("reactions = %s", got)
	}
	if list.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("X-Total-Count = %q", list.Header.Get("X-Total-Count"))
	}
	sdkList, _, err := s.Client("").GetIssueReactions("acme", "pub", 1)
	if err != nil || len(sdkList) != 2 {
		t.Fatalf("SDK list: %v %d", err, len(sdkList))
	}
	paged := k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions?page=2&limit=1", "", nil), 200, "paged list")
	if got := strings.Join(reactionContents(t, paged), ","); got != "reader:heart" || paged.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("page 2 = %s (total %s)", got, paged.Header.Get("X-Total-Count"))
	}

	// Delete answers 200 and removes only the caller's reaction.
	if r, err := wc.DeleteIssueReaction("acme", "pub", 1, "+1"); err != nil || r.StatusCode != 200 {
		t.Fatalf("delete: %v %v", err, r)
	}
	list = k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions", "", nil), 200, "list after delete")
	if got := strings.Join(reactionContents(t, list), ","); got != "reader:heart" {
		t.Fatalf("after delete = %s", got)
	}
	// Deleting a reaction the caller does not have changes nothing.
	k.must(k.do("DELETE", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": "heart"}), 200, "delete missing")
	if got := strings.Join(reactionContents(t, k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions", "", nil)), ","); got != "reader:heart" {
		t.Fatalf("someone else's reaction removed: %s", got)
	}

	// Comments have their own reactions, separate from the issue's.
	cpath := fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d/reactions", cid)
	if _, r, err := wc.PostIssueCommentReaction("acme", "pub", cid, "rocket"); err != nil || r.StatusCode != 201 {
		t.Fatalf("comment reaction: %v %v", err, r)
	}
	k.must(k.do("POST", cpath, k.writer.Token, map[string]any{"content": "rocket"}), 200, "repeat comment reaction")
	cl, _, err := s.Client("").GetIssueCommentReactions("acme", "pub", cid)
	if err != nil || len(cl) != 1 || cl[0].Reaction != "rocket" {
		t.Fatalf("comment reactions: %v %+v", err, cl)
	}
	if got := strings.Join(reactionContents(t, k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions", "", nil)), ","); got != "reader:heart" {
		t.Fatalf("comment reaction leaked into the issue's: %s", got)
	}
	if _, err := wc.DeleteIssueCommentReaction("acme", "pub", cid, "rocket"); err != nil {
		t.Fatal(err)
	}
	if got := reactionContents(t, k.do("GET", cpath, "", nil)); len(got) != 0 {
		t.Fatalf("comment reaction not removed: %v", got)
	}

	// A comment of another repository is not reachable through this one.
	privComment := k.comment(k.owner, "priv", 1, "private words")
	k.must(k.do("GET", fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d/reactions", privComment), k.owner.Token, nil), 404, "comment of another repository")
	k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/comments/%d/reactions", privComment), k.owner.Token, map[string]any{"content": "+1"}), 404, "react to a comment of another repository")
	k.must(k.do("GET", "api/v1/repos/acme/pub/issues/99/reactions", k.owner.Token, nil), 404, "unknown issue")
}

func TestReactionBadInput(t *testing.T) {
	k := newActKit(t)
	for _, content := range []string{"pizza", "", "HEART", "+1 ", "gitea"} {
		k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": content}), 403,
			"is not an allowed reaction", "reaction "+content)
	}
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": 5}), 422, "Content", "wrong type")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, nil), 422, "no body")
	if got := reactionContents(t, k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions", "", nil)); len(got) != 0 {
		t.Fatalf("refused reactions were stored: %v", got)
	}

	// Locked conversations: only writers react.
	k.must(k.do("PUT", "api/v1/repos/acme/pub/issues/1/lock", k.owner.Token, map[string]any{"lock_reason": "heated"}), 204, "lock")
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.reader.Token, map[string]any{"content": "+1"}), 403, "locked", "reader on locked issue")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": "+1"}), 201, "writer on locked issue")
}

func TestReactionConfiguredSet(t *testing.T) {
	k := newActKit(t, WithEnv("CAIRN_UI_REACTIONS=+1,pizza"))
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": "pizza"}), 201, "configured reaction")
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", k.writer.Token, map[string]any{"content": "heart"}), 403,
		"is not an allowed reaction", "default reaction outside the configured set")
	settings := k.must(k.do("GET", "api/v1/settings/ui", "", nil), 200, "ui settings")
	var ui struct {
		AllowedReactions []string `json:"allowed_reactions"`
	}
	settings.Decode(t, &ui)
	if strings.Join(ui.AllowedReactions, ",") != "+1,pizza" {
		t.Fatalf("allowed_reactions = %v", ui.AllowedReactions)
	}
}

func TestReactionQueryCount(t *testing.T) {
	k := newActKit(t)
	users := []*User{k.owner, k.reader, k.writer, k.stranger, k.admin}
	count := func() string {
		return k.do("GET", "api/v1/repos/acme/pub/issues/1/reactions", "", nil).Header.Get("X-Cairn-Query-Count")
	}
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", users[0].Token, map[string]any{"content": "+1"}), 201, "react")
	small := count()
	for _, u := range users[1:] {
		for _, c := range []string{"+1", "eyes", "laugh"} {
			k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/reactions", u.Token, map[string]any{"content": c}), 201, "react")
		}
	}
	if large := count(); small == "" || small != large {
		t.Fatalf("query count grows with the list: %s vs %s", small, large)
	}
}

func TestReactionPermissions(t *testing.T) {
	k := newActKit(t)
	cid := map[string]int64{"pub": k.comment(k.owner, "pub", 1, "c"), "priv": k.comment(k.owner, "priv", 1, "c")}
	reaction := func() any { return map[string]any{"content": "eyes"} }
	// Reading: anyone who can read the repository. Reacting: signed-in readers.
	read := map[string][2]int{"signed out": {200, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200}, "site admin": {200, 200}}
	post := map[string][2]int{"signed out": {401, 404}, "stranger": {201, 404}, "restricted": {404, 404}, "reader": {201, 201}, "writer": {201, 201}, "site admin": {201, 201}}
	del := map[string][2]int{"signed out": {401, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200}, "site admin": {200, 200}}
	k.runMatrix([]matrixCase{
		{"GET", "api/v1/repos/acme/%s/issues/1/reactions", nil, read},
		{"POST", "api/v1/repos/acme/%s/issues/1/reactions", reaction, post},
		{"DELETE", "api/v1/repos/acme/%s/issues/1/reactions", reaction, del},
	})
	// Comment routes: the comment ids differ per repository, so check them one by one.
	for _, repo := range []string{"pub", "priv"} {
		i := 0
		if repo == "priv" {
			i = 1
		}
		for _, who := range k.callers() {
			path := fmt.Sprintf("api/v1/repos/acme/%s/issues/comments/%d/reactions", repo, cid[repo])
			wantPost := post[who.name][i]
			if r := k.do("GET", path, who.tok, nil); r.Status != read[who.name][i] {
				t.Errorf("GET %s as %s: %d, want %d", path, who.name, r.Status, read[who.name][i])
			}
			if r := k.do("POST", path, who.tok, reaction()); r.Status != wantPost {
				t.Errorf("POST %s as %s: %d, want %d", path, who.name, r.Status, wantPost)
			}
			if r := k.do("DELETE", path, who.tok, reaction()); r.Status != del[who.name][i] {
				t.Errorf("DELETE %s as %s: %d, want %d", path, who.name, r.Status, del[who.name][i])
			}
		}
	}
}

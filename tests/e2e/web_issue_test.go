package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// webIssueUpload posts a multipart form (fields and files by name) to path
// with the CSRF token of the last page w loaded, as a browser sends a form
// with a file input.
func webIssueUpload(t *testing.T, w *Web, path string, fields url.Values, files map[string][]byte) *Page {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if fields.Get("_csrf") == "" {
		fields.Set("_csrf", w.csrf)
	}
	for k, vs := range fields {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	for name, content := range files {
		fw, err := mw.CreateFormFile("files", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(content)
	}
	_ = mw.Close()
	req, err := http.NewRequest("POST", w.s.URL+strings.TrimPrefix(path, "/"), &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return w.do(req)
}

// webIssueFollow loads the page a form redirected to (the flash shows there).
func webIssueFollow(t *testing.T, w *Web, p *Page) *Page {
	t.Helper()
	if p.Status != http.StatusSeeOther {
		t.Fatalf("form answered %d, want a redirect: %.2000s", p.Status, p.Body)
	}
	return w.Get(p.Location)
}

// webIssueStatus fails the test unless the page has status want.
func webIssueStatus(t *testing.T, p *Page, want int, what string) {
	t.Helper()
	if p.Status != want {
		t.Fatalf("%s = %d, want %d: %.2000s", what, p.Status, want, p.Body)
	}
}

// webIssueJSON reads an API path as tok into v.
func webIssueJSON(t *testing.T, s *Server, tok, path string, v any) {
	t.Helper()
	r := s.API("GET", path, tok, nil)
	mustStatus(t, r, http.StatusOK, "GET "+path)
	r.Decode(t, v)
}

// webIssueLabel creates a label through the API and returns its id.
func webIssueLabel(t *testing.T, s *Server, tok, full, name, color string) int64 {
	t.Helper()
	r := s.API("POST", "repos/"+full+"/labels", tok, map[string]any{"name": name, "color": color})
	mustStatus(t, r, http.StatusCreated, "label "+name)
	var l struct {
		ID int64 `json:"id"`
	}
	r.Decode(t, &l)
	return l.ID
}

type webIssueJSONIssue struct {
	Title  string `json:"title"`
	Body   string `json:"body"`
	State  string `json:"state"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Milestone *struct {
		Title string `json:"title"`
	} `json:"milestone"`
	Assignees []struct {
		Login string `json:"login"`
	} `json:"assignees"`
	Assets []struct {
		Name string `json:"name"`
		UUID string `json:"uuid"`
	} `json:"assets"`
	Comments int     `json:"comments"`
	Deadline *string `json:"due_date"`
}

// TestWebIssueLifecycle: an issue opened, commented on, labelled,
// milestoned, assigned, reacted to, retitled, closed and reopened through
// the web forms, each change checked through the API, and API changes
// shown on the page; Markdown is rendered and scripts sanitized; the list
// filters, searches and counts.
func TestWebIssueLifecycle(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	bugID := webIssueLabel(t, s, alice.Token, "alice/proj", "bug", "#ee0701")
	uiID := webIssueLabel(t, s, alice.Token, "alice/proj", "ui", "00aabb")
	mustStatus(t, s.API("POST", "repos/alice/proj/milestones", alice.Token, map[string]any{"title": "v1.0"}), http.StatusCreated, "milestone")
	var miles []struct {
		ID int64 `json:"id"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/milestones", &miles)

	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/issues/new").MustContain(t, http.StatusOK, "New issue", `name="title"`, "bug", `fill="#ee0701"`)
	p := w.Post("alice/proj/issues/new", url.Values{"title": {"Crash on start"}, "content": {"It *crashes*."},
		"label_ids": {strconv.FormatInt(bugID, 10)}, "milestone_id": {strconv.FormatInt(miles[0].ID, 10)}, "assignees": {"alice"}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/issues/1" {
		t.Fatalf("create: %d %q %.1000s", p.Status, p.Location, p.Body)
	}
	var is webIssueJSONIssue
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &is)
	if is.Title != "Crash on start" || is.Body != "It *crashes*." || len(is.Labels) != 1 || is.Labels[0].Name != "bug" ||
		is.Milestone == nil || is.Milestone.Title != "v1.0" || len(is.Assignees) != 1 || is.Assignees[0].Login != "alice" {
		t.Fatalf("created issue = %+v", is)
	}
	page := w.Get("alice/proj/issues/1")
	page.MustContain(t, http.StatusOK, "Crash on start", "<em>crashes</em>", "v1.0", `fill="#ee0701"`, "Open")
	if strings.Contains(page.Body, "style=") {
		t.Fatal("inline style on the issue page")
	}

	// A comment with Markdown and a script: rendered, sanitized, in the API.
	p = w.Post("alice/proj/issues/1/comments", url.Values{"content": {"**Bold** move <script>alert('x')</script> see #1"}})
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/alice/proj/issues/1#issuecomment-") {
		t.Fatalf("comment: %d %q", p.Status, p.Location)
	}
	var comments []struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1/comments", &comments)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "**Bold** move") {
		t.Fatalf("comments = %+v", comments)
	}
	page = w.Get("alice/proj/issues/1")
	page.MustContain(t, http.StatusOK, "<strong>Bold</strong> move", fmt.Sprintf(`id="issuecomment-%d"`, comments[0].ID))
	if strings.Contains(page.Body, "<script>alert") {
		t.Fatal("a script in a comment reached the page")
	}

	// A comment made through the API shows on the page.
	mustStatus(t, s.API("POST", "repos/alice/proj/issues/1/comments", alice.Token, map[string]any{"body": "From the _API_"}),
		http.StatusCreated, "api comment")
	w.Get("alice/proj/issues/1").MustContain(t, http.StatusOK, "From the <em>API</em>")

	// Close with a comment, then reopen without one.
	p = w.Post("alice/proj/issues/1/comments", url.Values{"content": {"Fixed now."}, "status": {"close"}})
	webIssueFollow(t, w, p).MustContain(t, http.StatusOK, "Fixed now.", "closed this", "Reopen")
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &is)
	if is.State != "closed" || is.Comments != 3 {
		t.Fatalf("after close: state %s, comments %d", is.State, is.Comments)
	}
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/comments", url.Values{"status": {"reopen"}})).MustContain(t, http.StatusOK, "reopened this")
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &is)
	if is.State != "open" {
		t.Fatalf("after reopen: %s", is.State)
	}
	// An empty comment is refused with a message, changing nothing.
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/comments", url.Values{"content": {"  "}})).MustContain(t, http.StatusOK, "The comment is empty.")

	// Title, labels (replace), milestone (remove), assignees (clear), due date, reaction.
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/title", url.Values{"title": {"Crash at start-up"}})).
		MustContain(t, http.StatusOK, "changed the title", "Crash at start-up")
	var ids struct {
		ID int64 `json:"id"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &ids)
	p = w.Post("alice/proj/issues/labels", url.Values{"issue_ids": {strconv.FormatInt(ids.ID, 10)}, "label_ids": {strconv.FormatInt(uiID, 10)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("labels: %d %.1000s", p.Status, p.Body)
	}
	webIssueStatus(t, w.Post("alice/proj/issues/milestone", url.Values{"issue_ids": {strconv.FormatInt(ids.ID, 10)}, "id": {"0"}}), http.StatusSeeOther, "milestone")
	webIssueStatus(t, w.Post("alice/proj/issues/assignee", url.Values{"issue_ids": {strconv.FormatInt(ids.ID, 10)}, "action": {"clear"}}), http.StatusSeeOther, "assignees")
	webIssueStatus(t, w.Post("alice/proj/issues/1/deadline", url.Values{"deadline": {"2031-02-03"}}), http.StatusSeeOther, "deadline")
	webIssueStatus(t, w.Post("alice/proj/issues/1/reactions/react", url.Values{"content": {"heart"}}), http.StatusSeeOther, "reaction")
	var full webIssueJSONIssue
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &full)
	if full.Title != "Crash at start-up" || len(full.Labels) != 1 || full.Labels[0].Name != "ui" || full.Milestone != nil ||
		len(full.Assignees) != 0 || full.Deadline == nil || !strings.HasPrefix(*full.Deadline, "2031-02-03") {
		t.Fatalf("after the sidebar forms: %+v deadline %v", full, full.Deadline)
	}
	var reactions []struct {
		Content string `json:"content"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1/reactions", &reactions)
	if len(reactions) != 1 || reactions[0].Content != "heart" {
		t.Fatalf("reactions = %+v", reactions)
	}
	w.Get("alice/proj/issues/1").MustContain(t, http.StatusOK, "❤️ 1", "2031-02-03", "removed this from the", "added <span class=\"label issue-label\"")

	// Subscribe and unsubscribe; pin and unpin.
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/watch", url.Values{"watch": {"false"}})).MustContain(t, http.StatusOK, "no longer subscribed", ">Subscribe<")
	if wi := subscriptionCheck(t, s, alice, "alice/proj"); wi.Subscribed {
		t.Fatal("still subscribed after unsubscribing through the page")
	}
	webIssueStatus(t, w.Post("alice/proj/issues/1/watch", url.Values{"watch": {"true"}}), http.StatusSeeOther, "subscribe")
	if wi := subscriptionCheck(t, s, alice, "alice/proj"); !wi.Subscribed {
		t.Fatal("not subscribed after subscribing through the page")
	}
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/pin", nil)).MustContain(t, http.StatusOK, "pinned this", ">Unpin<")
	var pinned []struct {
		Number int64 `json:"number"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/pinned", &pinned)
	if len(pinned) != 1 || pinned[0].Number != 1 {
		t.Fatalf("pinned = %+v", pinned)
	}
	webIssueStatus(t, w.Post("alice/proj/issues/1/pin", nil), http.StatusSeeOther, "unpin")
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/pinned", &pinned)
	if len(pinned) != 0 {
		t.Fatalf("still pinned: %+v", pinned)
	}

	// A second issue through the API; the list filters and searches.
	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Typo in README", "body": "teh"}),
		http.StatusCreated, "second issue")
	mustStatus(t, s.API("PATCH", "repos/alice/proj/issues/2", alice.Token, map[string]any{"state": "closed"}), http.StatusCreated, "close 2")
	// Dependencies: issue 1 depends on issue 2, then not.
	w.Get("alice/proj/issues/1")
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/dependency/add", url.Values{"dependency": {"#2"}})).
		MustContain(t, http.StatusOK, "added a dependency link with", `href="/alice/proj/issues/2"`)
	var deps []struct {
		Number int64 `json:"number"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1/dependencies", &deps)
	if len(deps) != 1 || deps[0].Number != 2 {
		t.Fatalf("dependencies = %+v", deps)
	}
	webIssueFollow(t, w, w.Post("alice/proj/issues/1/dependency/add", url.Values{"dependency": {"nobody/nothing#9"}})).
		MustContain(t, http.StatusOK, "does not name an issue you can see")
	webIssueStatus(t, w.Post("alice/proj/issues/1/dependency/delete", url.Values{"dependency": {"alice/proj#2"}}), http.StatusSeeOther, "remove dependency")
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1/dependencies", &deps)
	if len(deps) != 0 {
		t.Fatalf("dependencies after removal = %+v", deps)
	}
	list := w.Get("alice/proj/issues")
	list.MustContain(t, http.StatusOK, "1 Open", "1 Closed", "Crash at start-up", "/alice/proj/issues/1")
	if strings.Contains(list.Body, "Typo in README") {
		t.Fatal("a closed issue in the open tab")
	}
	w.Get("alice/proj/issues?state=closed").MustContain(t, http.StatusOK, "Typo in README")
	if p := w.Get("alice/proj/issues?state=all&q=README"); strings.Contains(p.Body, "Crash at start-up") {
		t.Fatal("search kept an issue that does not match")
	}
	w.Get("alice/proj/issues?state=closed&q=README").MustContain(t, http.StatusOK, "Typo in README")
	if p := w.Get("alice/proj/issues?labels=" + strconv.FormatInt(bugID, 10)); strings.Contains(p.Body, "Crash at start-up") {
		t.Fatal("label filter kept an issue without the label")
	}
	w.Get("alice/proj/issues?labels="+strconv.FormatInt(uiID, 10)).MustContain(t, http.StatusOK, "Crash at start-up")
	w.Get("alice/proj/issues?poster=alice").MustContain(t, http.StatusOK, "Crash at start-up")
	if p := w.Get("alice/proj/issues?poster=nobody-at-all"); strings.Contains(p.Body, "Crash at start-up") {
		t.Fatal("poster filter of an unknown user kept issues")
	}

	// The user's own list across repositories.
	w.Get("issues").MustContain(t, http.StatusOK, "alice/proj", "Crash at start-up")
	w.Get("issues?state=closed").MustContain(t, http.StatusOK, "Typo in README")
}

// TestWebIssuePermissions: private repositories' issues are 404 to
// strangers, signed out or not; strangers comment on public issues but
// cannot edit or close others' issues, nor comment on a locked one;
// writers label and close others' issues; archived repositories refuse
// changes.
func TestWebIssuePermissions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	createRepo(t, s, alice, "pub", false)
	createRepo(t, s, alice, "priv", true)
	addCollaborator(t, s, alice, "pub", "carol", "write")
	for _, full := range []string{"alice/pub", "alice/priv"} {
		mustStatus(t, s.API("POST", "repos/"+full+"/issues", alice.Token, map[string]any{"title": "Secret plans of " + full, "body": "x"}),
			http.StatusCreated, "issue")
	}
	bugID := webIssueLabel(t, s, alice.Token, "alice/pub", "bug", "ee0701")

	anon := s.Web(t)
	bw := s.Web(t)
	bw.SignIn(bob.Name, bob.Password)
	cw := s.Web(t)
	cw.SignIn(carol.Name, carol.Password)
	aw := s.Web(t)
	aw.SignIn(alice.Name, alice.Password)

	// Private: 404 everywhere for those who may not see it, and absent from lists.
	for _, w := range []*Web{anon, bw} {
		for _, path := range []string{"alice/priv/issues", "alice/priv/issues/1", "alice/priv/pulls", "alice/priv/issues/new"} {
			if p := w.Get(path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Secret plans") {
				t.Fatalf("%s: %d", path, p.Status)
			}
		}
	}
	bw.Get("alice/pub/issues/1")
	if p := bw.Post("alice/priv/issues/1/comments", url.Values{"content": {"hi"}}); p.Status != http.StatusNotFound {
		t.Fatalf("stranger comments on a private issue: %d", p.Status)
	}
	if p := bw.Get("issues?type=created_by"); strings.Contains(p.Body, "alice/priv") {
		t.Fatal("a private repository in a stranger's list")
	}
	aw.Get("alice/priv/issues/1").MustContain(t, http.StatusOK, "Secret plans of alice/priv")
	aw.Get("issues").MustContain(t, http.StatusOK, "alice/priv", "Secret plans of alice/priv")

	// Public: readable by all; signed out visitors are sent to sign in to comment.
	anon.Get("alice/pub/issues/1").MustContain(t, http.StatusOK, "Secret plans of alice/pub", "to join this conversation")
	anon.Get("user/login") // a page with a form: its token
	if p := anon.Post("alice/pub/issues/1/comments", url.Values{"content": {"hi"}}); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
		t.Fatalf("signed-out comment: %d %q", p.Status, p.Location)
	}
	// A stranger comments, but may not edit, close or label others' issues.
	page := bw.Get("alice/pub/issues/1")
	page.MustContain(t, http.StatusOK, `name="content"`)
	if strings.Contains(page.Body, `value="close"`) || strings.Contains(page.Body, "Edit title") || strings.Contains(page.Body, "Edit labels") {
		t.Fatal("a stranger is offered the poster's or writers' forms")
	}
	webIssueStatus(t, bw.Post("alice/pub/issues/1/comments", url.Values{"content": {"me too"}}), http.StatusSeeOther, "stranger comments")
	for _, f := range []struct {
		path string
		form url.Values
	}{
		{"alice/pub/issues/1/title", url.Values{"title": {"pwned"}}},
		{"alice/pub/issues/1/content", url.Values{"content": {"pwned"}}},
		{"alice/pub/issues/1/comments", url.Values{"status": {"close"}}},
		{"alice/pub/issues/labels", url.Values{"issue_ids": {webIssueID(t, s, alice.Token, "alice/pub", 1)}, "label_ids": {strconv.FormatInt(bugID, 10)}}},
		{"alice/pub/issues/1/lock", nil},
	} {
		if p := bw.Post(f.path, f.form); p.Status != http.StatusForbidden {
			t.Fatalf("stranger POST %s: %d", f.path, p.Status)
		}
	}
	var is webIssueJSONIssue
	webIssueJSON(t, s, alice.Token, "repos/alice/pub/issues/1", &is)
	if is.Title != "Secret plans of alice/pub" || is.State != "open" || len(is.Labels) != 0 {
		t.Fatalf("a stranger changed the issue: %+v", is)
	}
	// The stranger's own issue: the poster edits and closes it.
	bw.Get("alice/pub/issues/new")
	p := bw.Post("alice/pub/issues/new", url.Values{"title": {"Bob's idea"}, "content": {"idea"}, "label_ids": {strconv.FormatInt(bugID, 10)}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/pub/issues/2" {
		t.Fatalf("stranger opens an issue: %d %q %.500s", p.Status, p.Location, p.Body)
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/pub/issues/2", &is)
	if len(is.Labels) != 0 {
		t.Fatal("a reader's new issue got labels")
	}
	webIssueStatus(t, bw.Post("alice/pub/issues/2/title", url.Values{"title": {"Bob's better idea"}}), http.StatusSeeOther, "poster retitles")
	webIssueStatus(t, bw.Post("alice/pub/issues/2/comments", url.Values{"status": {"close"}}), http.StatusSeeOther, "poster closes")
	webIssueJSON(t, s, alice.Token, "repos/alice/pub/issues/2", &is)
	if is.Title != "Bob's better idea" || is.State != "closed" {
		t.Fatalf("poster's changes: %+v", is)
	}
	// A writer labels and closes someone else's issue.
	cw.Get("alice/pub/issues/1").MustContain(t, http.StatusOK, "Edit labels", `value="close"`)
	webIssueStatus(t, cw.Post("alice/pub/issues/labels", url.Values{"issue_ids": {webIssueID(t, s, alice.Token, "alice/pub", 1)},
		"label_ids": {strconv.FormatInt(bugID, 10)}}), http.StatusSeeOther, "writer labels")
	webIssueStatus(t, cw.Post("alice/pub/issues/1/comments", url.Values{"status": {"close"}}), http.StatusSeeOther, "writer closes")
	webIssueJSON(t, s, alice.Token, "repos/alice/pub/issues/1", &is)
	if is.State != "closed" || len(is.Labels) != 1 {
		t.Fatalf("writer's changes: %+v", is)
	}
	// Only administrators lock (as the API); then strangers cannot comment.
	if p := cw.Post("alice/pub/issues/1/lock", nil); p.Status != http.StatusForbidden {
		t.Fatalf("writer locks: %d", p.Status)
	}
	aw.Get("alice/pub/issues/1")
	webIssueFollow(t, aw, aw.Post("alice/pub/issues/1/lock", url.Values{"reason": {"Too heated"}})).
		MustContain(t, http.StatusOK, "locked the conversation", "Too heated", "Unlock conversation")
	bw.Get("alice/pub/issues/1").MustContain(t, http.StatusOK, "only collaborators can comment")
	if p := bw.Post("alice/pub/issues/1/comments", url.Values{"content": {"let me in"}}); p.Status != http.StatusForbidden {
		t.Fatalf("stranger comments on a locked issue: %d", p.Status)
	}
	if p := bw.Post("alice/pub/issues/1/reactions/react", url.Values{"content": {"+1"}}); p.Status != http.StatusForbidden {
		t.Fatalf("stranger reacts on a locked issue: %d", p.Status)
	}
	webIssueStatus(t, cw.Post("alice/pub/issues/1/comments", url.Values{"content": {"writers may"}}), http.StatusSeeOther, "writer comments when locked")
	var comments []struct {
		Body string `json:"body"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/pub/issues/1/comments", &comments)
	if len(comments) != 2 || comments[1].Body != "writers may" {
		t.Fatalf("comments on the locked issue: %+v", comments)
	}
	// Comments: the poster edits their own, others may not.
	var cid struct {
		ID int64 `json:"id"`
	}
	r := s.API("POST", "repos/alice/pub/issues/2/comments", bob.Token, map[string]any{"body": "bob's comment"})
	mustStatus(t, r, http.StatusCreated, "bob comments")
	r.Decode(t, &cid)
	path := fmt.Sprintf("alice/pub/comments/%d", cid.ID)
	webIssueStatus(t, bw.Post(path, url.Values{"content": {"bob's edited comment"}}), http.StatusSeeOther, "poster edits a comment")
	dw := s.Web(t)
	dave := s.CreateUser("dave")
	dw.SignIn(dave.Name, dave.Password)
	dw.Get("alice/pub/issues/2")
	if p := dw.Post(path, url.Values{"content": {"dave was here"}}); p.Status != http.StatusForbidden {
		t.Fatalf("another user edits a comment: %d", p.Status)
	}
	if p := dw.Post(path+"/delete", nil); p.Status != http.StatusForbidden {
		t.Fatalf("another user deletes a comment: %d", p.Status)
	}
	var c struct {
		Body string `json:"body"`
	}
	webIssueJSON(t, s, alice.Token, fmt.Sprintf("repos/alice/pub/issues/comments/%d", cid.ID), &c)
	if c.Body != "bob's edited comment" {
		t.Fatalf("comment = %q", c.Body)
	}
	// Archived: the owner too is refused.
	mustStatus(t, s.API("PATCH", "repos/alice/pub", alice.Token, map[string]any{"archived": true}), http.StatusOK, "archive")
	aw.Get("alice/pub/issues/1").MustContain(t, http.StatusOK, "This repository is archived")
	if p := aw.Post("alice/pub/issues/1/comments", url.Values{"content": {"late"}}); p.Status != http.StatusForbidden {
		t.Fatalf("comment in an archived repository: %d", p.Status)
	}
	if p := aw.Get("alice/pub/issues/new"); p.Status != http.StatusForbidden {
		t.Fatalf("new issue in an archived repository: %d", p.Status)
	}
}

// webIssueID is the id of issue n of full.
func webIssueID(t *testing.T, s *Server, tok, full string, n int) string {
	t.Helper()
	var is struct {
		ID int64 `json:"id"`
	}
	webIssueJSON(t, s, tok, fmt.Sprintf("repos/%s/issues/%d", full, n), &is)
	return strconv.FormatInt(is.ID, 10)
}

// TestWebIssueAttachments: files attached to a new issue and to a comment
// through the forms are stored through the attachment service, listed by
// the API, linked on the page and downloadable; a forbidden type is
// refused before anything is created.
func TestWebIssueAttachments(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/issues/new").MustContain(t, http.StatusOK, `type="file"`, `enctype="multipart/form-data"`)
	p := webIssueUpload(t, w, "alice/proj/issues/new", url.Values{"title": {"With a log"}, "content": {"see the log"}},
		map[string][]byte{"crash.log": []byte("panic: at the disco\n")})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/issues/1" {
		t.Fatalf("create with file: %d %q %.1000s", p.Status, p.Location, p.Body)
	}
	var is webIssueJSONIssue
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &is)
	if len(is.Assets) != 1 || is.Assets[0].Name != "crash.log" {
		t.Fatalf("issue assets = %+v", is.Assets)
	}
	page := w.Get("alice/proj/issues/1")
	page.MustContain(t, http.StatusOK, "/attachments/"+is.Assets[0].UUID, "crash.log")
	dl := s.Do("GET", "attachments/"+is.Assets[0].UUID)
	if dl.Status != http.StatusOK || string(dl.Body) != "panic: at the disco\n" {
		t.Fatalf("download: %d %q", dl.Status, dl.Body)
	}
	// A comment with two files.
	p = webIssueUpload(t, w, "alice/proj/issues/1/comments", url.Values{"content": {"more logs"}},
		map[string][]byte{"a.txt": []byte("first"), "b.txt": []byte("second")})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("comment with files: %d %.1000s", p.Status, p.Body)
	}
	var comments []struct {
		Body   string `json:"body"`
		Assets []struct {
			Name string `json:"name"`
			UUID string `json:"uuid"`
		} `json:"assets"`
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1/comments", &comments)
	if len(comments) != 1 || len(comments[0].Assets) != 2 {
		t.Fatalf("comment assets = %+v", comments)
	}
	for _, a := range comments[0].Assets {
		w.Get("alice/proj/issues/1").MustContain(t, http.StatusOK, "/attachments/"+a.UUID)
		if dl := s.Do("GET", "attachments/"+a.UUID, Basic(alice.Name, alice.Password)); dl.Status != http.StatusOK {
			t.Fatalf("download %s: %d", a.Name, dl.Status)
		}
	}
	// A type the instance does not allow: refused, no comment created.
	p = webIssueUpload(t, w, "alice/proj/issues/1/comments", url.Values{"content": {"a binary"}},
		map[string][]byte{"tool.exe": []byte("MZ\x90\x00binary")})
	webIssueFollow(t, w, p).MustContain(t, http.StatusOK, "cannot be uploaded")
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1/comments", &comments)
	if len(comments) != 1 {
		t.Fatalf("a refused upload left a comment: %d comments", len(comments))
	}
	p = webIssueUpload(t, w, "alice/proj/issues/new", url.Values{"title": {"Bad file"}}, map[string][]byte{"x.exe": []byte("MZ")})
	p.MustContain(t, http.StatusUnprocessableEntity, "cannot be uploaded", `value="Bad file"`)
	if r := s.API("GET", "repos/alice/proj/issues/2", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("a refused upload created an issue: %d", r.Status)
	}
}

// TestWebIssueTemplates: the repository's templates are offered on the
// new issue page; a Markdown template fills the form, an issue form's
// fields make the body.
func TestWebIssueTemplates(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	webIssueLabel(t, s, alice.Token, "alice/proj", "bug", "ee0701")
	md := "---\nname: Bug report\nabout: Something broke\ntitle: \"[bug] \"\nlabels: [bug]\n---\n## Steps\n\n1.\n"
	form := "name: Feature\ndescription: Ask for something\nbody:\n- type: markdown\n  attributes:\n    value: Thanks for the idea!\n" +
		"- type: input\n  id: what\n  attributes:\n    label: What\n  validations:\n    required: true\n" +
		"- type: dropdown\n  id: size\n  attributes:\n    label: Size\n    options: [small, large]\n" +
		"- type: checkboxes\n  id: terms\n  attributes:\n    label: Terms\n    options:\n    - label: I searched first\n      required: true\n"
	mustStatus(t, s.API("POST", "repos/alice/proj/contents", alice.Token, map[string]any{"message": "templates", "branch": "main",
		"files": []map[string]any{
			{"operation": "create", "path": ".gitea/ISSUE_TEMPLATE/bug.md", "content": base64.StdEncoding.EncodeToString([]byte(md))},
			{"operation": "create", "path": ".gitea/ISSUE_TEMPLATE/feature.yaml", "content": base64.StdEncoding.EncodeToString([]byte(form))},
		}}), http.StatusCreated, "templates")
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	w.Get("alice/proj/issues/new").MustContain(t, http.StatusOK, "Bug report", "Something broke", "Feature", "Ask for something")
	w.Get("alice/proj/issues/new?template="+url.QueryEscape(".gitea/ISSUE_TEMPLATE/bug.md")).
		MustContain(t, http.StatusOK, `value="[bug] "`, "## Steps", `name="template"`)
	p := w.Post("alice/proj/issues/new", url.Values{"template": {".gitea/ISSUE_TEMPLATE/bug.md"}, "title": {"[bug] it broke"},
		"content": {"## Steps\n\n1. run"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("create from template: %d %.1000s", p.Status, p.Body)
	}
	var is webIssueJSONIssue
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/1", &is)
	if is.Title != "[bug] it broke" || !strings.Contains(is.Body, "1. run") {
		t.Fatalf("issue from template = %+v", is)
	}
	feature := ".gitea/ISSUE_TEMPLATE/feature.yaml"
	w.Get("alice/proj/issues/new?template="+url.QueryEscape(feature)).
		MustContain(t, http.StatusOK, "Thanks for the idea!", `name="form-field-what"`, `name="form-field-size"`, `name="form-field-terms-0"`)
	// A required field left empty is refused and the form kept.
	p = w.Post("alice/proj/issues/new", url.Values{"template": {feature}, "title": {"More"}, "form-field-terms-0": {"on"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "is required", `value="More"`)
	p = w.Post("alice/proj/issues/new", url.Values{"template": {feature}, "title": {"More speed"}, "form-field-what": {"faster builds"},
		"form-field-size": {"large"}, "form-field-terms-0": {"on"}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/issues/2" {
		t.Fatalf("create from form: %d %q %.1000s", p.Status, p.Location, p.Body)
	}
	webIssueJSON(t, s, alice.Token, "repos/alice/proj/issues/2", &is)
	for _, want := range []string{"### What\n\nfaster builds", "### Size\n\nlarge", "- [x] I searched first"} {
		if !strings.Contains(is.Body, want) {
			t.Fatalf("form body lacks %q: %q", want, is.Body)
		}
	}
}

// TestWebPullMerge: the pull request page shows the branches,
// mergeability and merge buttons, merges through the form (the API then
// reports it merged); a merge refused by branch protection shows the
// refusal and merges nothing; readers get no merge form and cannot merge.
func TestWebPullMerge(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	prCommit(t, s, alice.Token, "alice/proj", "feature", "main", map[string]string{"feature.txt": "new\n"})
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls", alice.Token, map[string]any{"head": "feature", "base": "main", "title": "Add a feature", "body": "Please *merge*."}),
		http.StatusCreated, "pull")
	prWaitMergeable(t, s, alice.Token, "alice/proj", 1, true)

	aw := s.Web(t)
	aw.SignIn(alice.Name, alice.Password)
	if p := aw.Get("alice/proj/issues/1"); p.Status != http.StatusSeeOther || p.Location != "/alice/proj/pulls/1" {
		t.Fatalf("issue URL of a pull request: %d %q", p.Status, p.Location)
	}
	page := aw.Get("alice/proj/pulls/1")
	page.MustContain(t, http.StatusOK, "Add a feature", "<em>merge</em>", "<code>main</code>", "<code>feature</code>",
		"can be merged automatically", `name="do" value="merge"`, `name="do" value="squash"`, "delete_branch_after_merge",
		"/alice/proj/pulls/1/files", "/alice/proj/pulls/1/commits")
	aw.Get("alice/proj/pulls").MustContain(t, http.StatusOK, "1 Open", "Add a feature", "/alice/proj/pulls/1")
	aw.Get("pulls").MustContain(t, http.StatusOK, "Add a feature")

	// A reader sees the state but no merge form, and may not merge.
	bw := s.Web(t)
	bw.SignIn(bob.Name, bob.Password)
	rp := bw.Get("alice/proj/pulls/1")
	rp.MustContain(t, http.StatusOK, "can be merged automatically")
	if strings.Contains(rp.Body, `name="do"`) {
		t.Fatal("a reader is offered the merge buttons")
	}
	if p := bw.Post("alice/proj/pulls/1/merge", url.Values{"do": {"merge"}}); p.Status != http.StatusForbidden {
		t.Fatalf("reader merges: %d", p.Status)
	}

	before := prBranchSHA(t, s, alice.Token, "alice/proj", "main")
	aw.Get("alice/proj/pulls/1")
	p := aw.Post("alice/proj/pulls/1/merge", url.Values{"do": {"merge"}, "delete_branch_after_merge": {"true"}})
	webIssueFollow(t, aw, p).MustContain(t, http.StatusOK, "The pull request was merged.", "Merged", "merged commit")
	pr := prGet(t, s, alice.Token, "alice/proj", 1)
	if pr["merged"] != true || pr["state"] != "closed" {
		t.Fatalf("after the web merge: merged %v state %v", pr["merged"], pr["state"])
	}
	if after := prBranchSHA(t, s, alice.Token, "alice/proj", "main"); after == before || fileAt(t, s, alice.Token, "alice/proj", "feature.txt") != "new\n" {
		t.Fatal("main did not get the merge")
	}
	if r := s.API("GET", "repos/alice/proj/branches/feature", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("head branch kept after merging with delete: %d", r.Status)
	}
	aw.Get("alice/proj/pulls?state=closed").MustContain(t, http.StatusOK, "Merged", "Add a feature")

	// A protection rule requiring an approval: the page says so, the merge is refused.
	mustStatus(t, s.API("POST", "repos/alice/proj/branch_protections", alice.Token, map[string]any{"rule_name": "main",
		"required_approvals": 1}), http.StatusCreated, "rule")
	prCommit(t, s, alice.Token, "alice/proj", "second", "main", map[string]string{"second.txt": "two\n"})
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls", alice.Token, map[string]any{"head": "second", "base": "main", "title": "Second"}),
		http.StatusCreated, "pull 2")
	prWaitMergeable(t, s, alice.Token, "alice/proj", 2, true)
	aw.Get("alice/proj/pulls/2").MustContain(t, http.StatusOK, "Merging is blocked", "Does not have enough approvals")
	before = prBranchSHA(t, s, alice.Token, "alice/proj", "main")
	p = aw.Post("alice/proj/pulls/2/merge", url.Values{"do": {"merge"}})
	webIssueFollow(t, aw, p).MustContain(t, http.StatusOK, `flash-error`, "Does not have enough approvals")
	if pr := prGet(t, s, alice.Token, "alice/proj", 2); pr["merged"] != false || pr["state"] != "open" {
		t.Fatalf("refused merge changed the pull: merged %v state %v", pr["merged"], pr["state"])
	}
	if after := prBranchSHA(t, s, alice.Token, "alice/proj", "main"); after != before {
		t.Fatal("a refused merge moved main")
	}
	// A merge the push rules refuse (signed commits required, no signing
	// key): the hook's message is shown and main does not move.
	mustStatus(t, s.API("PATCH", "repos/alice/proj/branch_protections/main", alice.Token, map[string]any{"required_approvals": 0,
		"require_signed_commits": true}), http.StatusOK, "rule: signed commits")
	aw.Get("alice/proj/pulls/2").MustContain(t, http.StatusOK, `name="do" value="merge"`)
	p = aw.Post("alice/proj/pulls/2/merge", url.Values{"do": {"merge"}})
	webIssueFollow(t, aw, p).MustContain(t, http.StatusOK, `flash-error`, "protected from unverified commit")
	if after := prBranchSHA(t, s, alice.Token, "alice/proj", "main"); after != before {
		t.Fatal("a merge refused by a push rule moved main")
	}
	if pr := prGet(t, s, alice.Token, "alice/proj", 2); pr["merged"] != false {
		t.Fatal("a merge refused by a push rule merged")
	}
	// A style the repository turned off is refused with the API's message.
	mustStatus(t, s.API("PATCH", "repos/alice/proj", alice.Token, map[string]any{"allow_squash_merge": false}), http.StatusOK, "squash off")
	if p := aw.Get("alice/proj/pulls/2"); strings.Contains(p.Body, `value="squash"`) {
		t.Fatal("a disallowed style still has a button")
	}
	p = aw.Post("alice/proj/pulls/2/merge", url.Values{"do": {"squash"}})
	webIssueFollow(t, aw, p).MustContain(t, http.StatusOK, "not allowed")
}

// TestWebIssueQueryCount: the conversation page and the list make the same
// number of queries with 2 comments as with 12.
func TestWebIssueQueryCount(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Counted", "body": "b", "assignees": []string{"alice"}}),
		http.StatusCreated, "issue")
	label := webIssueLabel(t, s, alice.Token, "alice/proj", "bug", "ee0701")
	mustStatus(t, s.API("POST", "repos/alice/proj/issues/1/labels", alice.Token, map[string]any{"labels": []int64{label}}), http.StatusOK, "label")
	users := []*User{alice, s.CreateUser("bob"), s.CreateUser("carol")}
	comment := func(n int) {
		for i := 0; i < n; i++ {
			u := users[i%len(users)]
			mustStatus(t, s.API("POST", "repos/alice/proj/issues/1/comments", u.Token, map[string]any{"body": fmt.Sprintf("c%d", i)}),
				http.StatusCreated, "comment")
			s.API("POST", "repos/alice/proj/issues/1/reactions", u.Token, map[string]any{"content": "+1"})
			mustStatus(t, s.API("POST", "repos/alice/proj/issues", u.Token, map[string]any{"title": fmt.Sprintf("more %d", i)}), http.StatusCreated, "issue")
		}
	}
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	count := func(path string) string {
		p := w.Get(path)
		if p.Status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.Status)
		}
		return p.Header.Get("X-Cairn-Query-Count")
	}
	comment(2)
	issueFew, listFew := count("alice/proj/issues/1"), count("alice/proj/issues")
	comment(10)
	issueMany, listMany := count("alice/proj/issues/1"), count("alice/proj/issues")
	if issueFew == "" || issueFew != issueMany || listFew != listMany {
		t.Fatalf("query counts grow: issue page %s -> %s, list %s -> %s", issueFew, issueMany, listFew, listMany)
	}
}

package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

type webReviewJSON struct {
	ID       int64  `json:"id"`
	State    string `json:"state"`
	Body     string `json:"body"`
	Comments int    `json:"comments_count"`
	User     struct {
		Login string `json:"login"`
	} `json:"user"`
}

type webReviewCommentJSON struct {
	Body        string `json:"body"`
	Path        string `json:"path"`
	Position    int    `json:"position"`
	OldPosition int    `json:"original_position"`
}

// webPullSetup makes alice's public proj (bob writes, carol reads) and
// private secret, each with a branch feature changing code.txt, and opens
// pull request #1 in both.
func webPullSetup(t *testing.T) (s *Server, alice, bob, carol, dave *User) {
	t.Helper()
	s = StartServer(t)
	alice, bob, carol, dave = s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol"), s.CreateUser("dave")
	for _, name := range []string{"proj", "secret"} {
		full := "alice/" + name
		createRepo(t, s, alice, name, name == "secret")
		addCollaborator(t, s, alice, name, "bob", "write")
		addCollaborator(t, s, alice, name, "carol", "read")
		var lines []string
		for i := 1; i <= 10; i++ {
			lines = append(lines, fmt.Sprintf("line %d", i))
		}
		prCommit(t, s, alice.Token, full, "main", "", map[string]string{"code.txt": strings.Join(lines, "\n") + "\n"})
		lines[4] = "line five"
		lines = append(lines[:5], append([]string{"inserted"}, lines[5:]...)...)
		prCommit(t, s, alice.Token, full, "feature", "main", map[string]string{"code.txt": strings.Join(lines, "\n") + "\n"})
		mustStatus(t, s.API("POST", "repos/"+full+"/pulls", alice.Token, map[string]any{"head": "feature", "base": "main",
			"title": "Change line five of " + name}), http.StatusCreated, "pull request")
	}
	return s, alice, bob, carol, dave
}

// TestWebPullFilesReview: the files page shows the diff; a line comment
// posted from it joins the reviewer's pending review (seen by the API's
// review endpoints and inline, by the reviewer only until submitted);
// approving through the form is an APPROVED review; the commits tab lists
// the commits; private pull requests are hidden.
func TestWebPullFilesReview(t *testing.T) {
	s, alice, bob, carol, dave := webPullSetup(t)
	bw := s.Web(t)
	bw.SignIn(bob.Name, bob.Password)
	page := bw.Get("alice/proj/pulls/1/files")
	page.MustContain(t, 200, "Change line five of proj", "code.txt", "line five", "inserted", `id="file-`,
		`action="/alice/proj/pulls/1/files/reviews/comments"`, `value="approve"`, `name="path" value="code.txt"`)
	p := bw.Post("alice/proj/pulls/1/files/reviews/comments", url.Values{"path": {"code.txt"}, "side": {"new"}, "line": {"5"},
		"body": {"Why **five**?"}})
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/alice/proj/pulls/1/files?skip-to=code.txt#file-") {
		t.Fatalf("comment: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	var reviews []webReviewJSON
	s.API("GET", "repos/alice/proj/pulls/1/reviews", bob.Token, nil).Decode(t, &reviews)
	if len(reviews) != 1 || reviews[0].State != "PENDING" || reviews[0].User.Login != "bob" || reviews[0].Comments != 1 {
		t.Fatalf("reviews after the line comment: %+v", reviews)
	}
	rid := reviews[0].ID
	var comments []webReviewCommentJSON
	s.API("GET", fmt.Sprintf("repos/alice/proj/pulls/1/reviews/%d/comments", rid), bob.Token, nil).Decode(t, &comments)
	if len(comments) != 1 || comments[0].Path != "code.txt" || comments[0].Position != 5 || comments[0].Body != "Why **five**?" {
		t.Fatalf("review comments: %+v", comments)
	}
	// An old-side comment on a deleted line.
	bw.Post("alice/proj/pulls/1/files/reviews/comments", url.Values{"path": {"code.txt"}, "side": {"old"}, "line": {"5"}, "body": {"was five"}})
	page = bw.Get("alice/proj/pulls/1/files")
	page.MustContain(t, 200, "The comment was added to your pending review.", `class="review-comment"`, "Why <strong>five</strong>?",
		"on new line 5", "on old line 5", "was five", "Pending", "2 pending comments")
	if strings.Index(page.Body, "Why <strong>five</strong>?") < strings.Index(page.Body, `-R5"`) {
		t.Fatalf("the comment is not under its line:\n%s", page.Body)
	}
	// Others do not see a pending review.
	aw := s.Web(t)
	aw.SignIn(alice.Name, alice.Password)
	aw.Get("alice/proj/pulls/1/files").mustLack(t, "Why <strong>five</strong>?")
	// A refused comment (no line) comes back as a flash.
	bw.Get("alice/proj/pulls/1/files")
	if p := bw.Post("alice/proj/pulls/1/files/reviews/comments", url.Values{"path": {"code.txt"}, "line": {"x"}, "body": {"b"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("bad line: %d", p.Status)
	}
	bw.Get("alice/proj/pulls/1/files").MustContain(t, 200, "Give the number of the line")

	// Approving through the form submits the pending review as APPROVED.
	p = bw.Post("alice/proj/pulls/1/files/reviews/submit", url.Values{"type": {"approve"}, "body": {"Looks good"}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/pulls/1" {
		t.Fatalf("approve: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	s.API("GET", "repos/alice/proj/pulls/1/reviews", alice.Token, nil).Decode(t, &reviews)
	if len(reviews) != 1 || reviews[0].ID != rid || reviews[0].State != "APPROVED" || reviews[0].Body != "Looks good" || reviews[0].Comments != 2 {
		t.Fatalf("reviews after approval: %+v", reviews)
	}
	page = aw.Get("alice/proj/pulls/1/files")
	page.MustContain(t, 200, "Why <strong>five</strong>?", "was five")
	page.mustLack(t, `<span class="badge">Pending</span>`, `value="approve"`)
	// The poster may not approve their own pull request: a flash, no review.
	if p := aw.Post("alice/proj/pulls/1/files/reviews/submit", url.Values{"type": {"approve"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("own approval: %d", p.Status)
	}
	aw.Get("alice/proj/pulls/1/files").MustContain(t, 200, "approve your own pull is not allowed")
	s.API("GET", "repos/alice/proj/pulls/1/reviews", alice.Token, nil).Decode(t, &reviews)
	if len(reviews) != 1 {
		t.Fatalf("own approval recorded: %+v", reviews)
	}
	// A request for changes needs a body; a comment review without pending comments too.
	cw := s.Web(t)
	cw.SignIn(carol.Name, carol.Password)
	cw.Get("alice/proj/pulls/1/files")
	cw.Post("alice/proj/pulls/1/files/reviews/submit", url.Values{"type": {"reject"}})
	cw.Get("alice/proj/pulls/1/files").MustContain(t, 200, "requires a body")
	if p := cw.Post("alice/proj/pulls/1/files/reviews/submit", url.Values{"type": {"reject"}, "body": {"Please revert"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("request changes: %d", p.Status)
	}
	s.API("GET", "repos/alice/proj/pulls/1/reviews", alice.Token, nil).Decode(t, &reviews)
	if len(reviews) != 2 || reviews[1].State != "REQUEST_CHANGES" || reviews[1].User.Login != "carol" {
		t.Fatalf("reviews after the request for changes: %+v", reviews)
	}

	// The commits tab.
	bw.Get("alice/proj/pulls/1/commits").MustContain(t, 200, "change feature", `aria-current="page">Commits`, `href="/alice/proj/commit/`)

	// Signed out: the public pages without forms; the private ones hidden.
	anon := s.Web(t)
	page = anon.Get("alice/proj/pulls/1/files")
	page.MustContain(t, 200, "code.txt", "Why <strong>five</strong>?")
	page.mustLack(t, "reviews/comments", "reviews/submit")
	anon.Get("user/login") // a page with a form gives the signed-out visitor a token
	if p := anon.Post("alice/proj/pulls/1/files/reviews/comments", url.Values{"path": {"code.txt"}, "line": {"1"}, "body": {"x"}}); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
		t.Fatalf("signed-out comment: %d %q", p.Status, p.Location)
	}
	dw := s.Web(t)
	dw.SignIn(dave.Name, dave.Password)
	for _, path := range []string{"alice/secret/pulls/1/files", "alice/secret/pulls/1/commits"} {
		for who, c := range map[string]*Web{"stranger": dw, "anonymous": anon} {
			if p := c.Get(path); p.Status != 404 || strings.Contains(p.Body, "Change line five") {
				t.Fatalf("%s GET %s: %d", who, path, p.Status)
			}
		}
		cw.Get(path).MustContain(t, 200, "Change line five of secret")
	}
	dw.Get("alice/proj/pulls/1/files")
	if p := dw.Post("alice/secret/pulls/1/files/reviews/submit", url.Values{"type": {"comment"}, "body": {"hi"}}); p.Status != 404 {
		t.Fatalf("stranger reviews a private pull request: %d", p.Status)
	}
	if p := bw.Get("alice/proj/pulls/99/files"); p.Status != 404 {
		t.Fatalf("missing pull request: %d", p.Status)
	}
}

// TestWebPullFilesPaging: a pull request with more files than a page shows
// the first page and a link that loads the rest (?skip-to=).
func TestWebPullFilesPaging(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	files := map[string]string{}
	for i := range 45 {
		files[fmt.Sprintf("many/f%02d.txt", i)] = fmt.Sprintf("content %d\n", i)
	}
	prCommit(t, s, alice.Token, "alice/proj", "big", "main", files)
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls", alice.Token, map[string]any{"head": "big", "base": "main", "title": "Many files"}),
		http.StatusCreated, "pull request")
	w := s.Web(t)
	first := w.Get("alice/proj/pulls/1/files")
	first.MustContain(t, 200, "45 files changed", "showing files 1–40", "content 0", "content 39", `href="/alice/proj/pulls/1/files?skip-to=many%2Ff40.txt"`)
	first.mustLack(t, "content 40")
	next := w.Get("alice/proj/pulls/1/files?skip-to=many%2Ff40.txt")
	next.MustContain(t, 200, "showing files 41–45", "content 40", "content 44", "Previous files")
	next.mustLack(t, "content 39", "Load more files")
}

// TestWebPullCreateFromCompare: the new pull request form of a branch and
// the comparison's POST open a pull request (seen by the API); a duplicate
// is refused with a clear error, as are head = base and a missing title;
// private repositories are hidden.
func TestWebPullCreateFromCompare(t *testing.T) {
	s := StartServer(t)
	alice, carol := s.CreateUser("alice"), s.CreateUser("carol")
	for _, name := range []string{"proj", "secret"} {
		createRepo(t, s, alice, name, name == "secret")
		prCommit(t, s, alice.Token, "alice/"+name, "feature", "main", map[string]string{"new.txt": "hello\n"})
	}
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)
	form := w.Get("alice/proj/pulls/new/feature")
	form.MustContain(t, 200, `action="/alice/proj/compare/main...feature"`, `value="change feature"`, "1 commit to merge", `<option value="main" selected>`)
	p := w.Post("alice/proj/compare/main...feature", url.Values{"title": {"From the web"}, "body": {"Please **merge**"}})
	if p.Status != http.StatusSeeOther || p.Location != "/alice/proj/pulls/1" {
		t.Fatalf("create: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	var pr struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		Head  struct {
			Ref string `json:"ref"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
		} `json:"base"`
	}
	r := s.API("GET", "repos/alice/proj/pulls/1", alice.Token, nil)
	mustStatus(t, r, 200, "pull request")
	r.Decode(t, &pr)
	if pr.Title != "From the web" || pr.Body != "Please **merge**" || pr.Head.Ref != "feature" || pr.Base.Ref != "main" {
		t.Fatalf("pull request: %+v", pr)
	}
	// The same branches again: 409 with a link to the open one.
	w.Get("alice/proj/pulls/new/feature")
	p = w.Post("alice/proj/compare/main...feature", url.Values{"title": {"Again"}})
	p.MustContain(t, http.StatusConflict, "is already open", `href="/alice/proj/pulls/1"`, `value="Again"`)
	// Head = base, a missing title, an unknown head branch: 422.
	w.Post("alice/proj/compare/main...main", url.Values{"title": {"Same"}}).MustContain(t, http.StatusUnprocessableEntity, "no changes")
	w.Post("alice/proj/compare/main...feature", url.Values{"title": {" "}}).MustContain(t, http.StatusUnprocessableEntity, "title is required")
	w.Post("alice/proj/compare/main...nope", url.Values{"title": {"x"}}).MustContain(t, http.StatusUnprocessableEntity, "head branch does not exist")
	if p := w.Get("alice/proj/pulls/new/nope"); p.Status != 404 {
		t.Fatalf("form of a missing branch: %d", p.Status)
	}
	mustStatus(t, s.API("GET", "repos/alice/proj/pulls/2", alice.Token, nil), 404, "no second pull request yet")

	// From a fork: carol (no access beyond reading) proposes her branch.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/forks", Token(carol.Token), JSON(map[string]any{})), http.StatusAccepted, "fork")
	prCommit(t, s, carol.Token, "carol/proj", "fix", "main", map[string]string{"fix.txt": "fixed\n"})
	fw := s.Web(t)
	fw.SignIn(carol.Name, carol.Password)
	fw.Get("alice/proj/pulls/new/carol:fix").MustContain(t, 200, `action="/alice/proj/compare/main...carol:fix"`, "carol:fix")
	if p := fw.Post("alice/proj/compare/main...carol:fix", url.Values{"title": {"Fix from a fork"}}); p.Status != http.StatusSeeOther || p.Location != "/alice/proj/pulls/2" {
		t.Fatalf("fork pull request: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	var fpr struct {
		Head struct {
			Ref  string `json:"ref"`
			Repo struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
	}
	r = s.API("GET", "repos/alice/proj/pulls/2", alice.Token, nil)
	mustStatus(t, r, 200, "fork pull request")
	r.Decode(t, &fpr)
	if fpr.Head.Ref != "fix" || fpr.Head.Repo.FullName != "carol/proj" {
		t.Fatalf("fork pull request head: %+v", fpr.Head)
	}
	// A repository outside the fork network is no head.
	if p := fw.Post("alice/proj/compare/main...alice/secret:feature", url.Values{"title": {"x"}}); p.Status != 404 {
		t.Fatalf("head outside the network: %d", p.Status)
	}

	// Strangers and signed-out visitors: the private repository is hidden;
	// the public one needs an account.
	cw := s.Web(t)
	cw.SignIn(carol.Name, carol.Password)
	anon := s.Web(t)
	for who, c := range map[string]*Web{"stranger": cw, "anonymous": anon} {
		if p := c.Get("alice/secret/pulls/new/feature"); p.Status != 404 {
			t.Fatalf("%s form on the private repository: %d", who, p.Status)
		}
	}
	cw.Get("alice/proj/pulls/new/feature")
	if p := cw.Post("alice/secret/compare/main...feature", url.Values{"title": {"x"}}); p.Status != 404 {
		t.Fatalf("stranger creates in the private repository: %d", p.Status)
	}
	if p := anon.Get("alice/proj/pulls/new/feature"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
		t.Fatalf("signed-out form: %d %q", p.Status, p.Location)
	}
	mustStatus(t, s.API("GET", "repos/alice/secret/pulls/1", alice.Token, nil), 404, "no private pull request")
}

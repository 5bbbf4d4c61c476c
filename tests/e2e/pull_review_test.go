package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// prvTimeline returns the timeline entries of pull request 1 of full with type kind.
func prvTimeline(t *testing.T, s *Server, tok, full, kind string) []map[string]any {
	t.Helper()
	r := s.API("GET", "repos/"+full+"/issues/1/timeline?limit=50", tok, nil)
	mustStatus(t, r, http.StatusOK, "timeline")
	var all []map[string]any
	r.Decode(t, &all)
	var out []map[string]any
	for _, e := range all {
		if e["type"] == kind {
			out = append(out, e)
		}
	}
	return out
}

func prvRequested(t *testing.T, s *Server, tok string) []string {
	t.Helper()
	pr, _, err := s.Client(tok).GetPullRequest("alice", "proj", 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range pr.RequestedReviewers {
		out = append(out, u.UserName)
	}
	return out
}

// TestPullReviewLifecycle: pending reviews with line comments, submitting,
// visibility of pending reviews, official reviews, review requests at
// creation and later, the timeline, dismissals, deletion, staleness after
// a push, closed pull requests and the refused inputs, through the SDK's
// review methods and raw HTTP.
func TestPullReviewLifecycle(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	dave := s.CreateUser("dave")
	pr := func() *gitea.PullRequest {
		t.Helper()
		createRepo(t, s, alice, "proj", false)
		addCollaborator(t, s, alice, "proj", "bob", "write")
		addCollaborator(t, s, alice, "proj", "carol", "read")
		var lines []string
		for i := 1; i <= 10; i++ {
			lines = append(lines, fmt.Sprintf("line %d", i))
		}
		prCommit(t, s, alice.Token, "alice/proj", "main", "", map[string]string{"code.txt": strings.Join(lines, "\n") + "\n"})
		lines[4] = "line five"
		lines = append(lines[:5], append([]string{"inserted"}, lines[5:]...)...)
		prCommit(t, s, alice.Token, "alice/proj", "feature", "main", map[string]string{"code.txt": strings.Join(lines, "\n") + "\n"})
		// Unknown and invalid reviewers are refused before anything is made.
		mustStatus(t, s.API("POST", "repos/alice/proj/pulls", alice.Token, map[string]any{"head": "feature", "base": "main",
			"title": "x", "reviewers": []string{"nobody"}}), http.StatusNotFound, "unknown reviewer at creation")
		mustStatus(t, s.API("POST", "repos/alice/proj/pulls", alice.Token, map[string]any{"head": "feature", "base": "main",
			"title": "x", "reviewers": []string{"alice"}}), http.StatusUnprocessableEntity, "poster as reviewer at creation")
		p, _, err := s.Client(alice.Token).CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main",
			Title: "Change line five", Reviewers: []string{"carol"}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}()
	if pr.Index != 1 || len(pr.RequestedReviewers) != 1 || pr.RequestedReviewers[0].UserName != "carol" {
		t.Fatalf("pull request = #%d, requested %+v", pr.Index, pr.RequestedReviewers)
	}
	prWaitMergeable(t, s, alice.Token, "alice/proj", 1, true)
	head := prBranchSHA(t, s, alice.Token, "alice/proj", "feature")
	ac, bc, cc := s.Client(alice.Token), s.Client(bob.Token), s.Client(carol.Token)
	reviews := "repos/alice/proj/pulls/1/reviews"

	// Refused inputs, as Gitea.
	for _, c := range []struct {
		tok  string
		body map[string]any
		what string
	}{
		{alice.Token, map[string]any{"event": "APPROVED"}, "approving one's own pull request"},
		{alice.Token, map[string]any{"event": "REQUEST_CHANGES", "body": "hm"}, "requesting changes on one's own pull request"},
		{bob.Token, map[string]any{"event": "REQUEST_CHANGES"}, "request for changes without a body"},
		{bob.Token, map[string]any{"event": "REQUEST_CHANGES", "comments": []map[string]any{{"path": "code.txt", "new_position": 5, "body": "x"}}}, "request for changes with comments only"},
		{bob.Token, map[string]any{"event": "COMMENT"}, "comment without body or comments"},
		{bob.Token, map[string]any{"event": "LGTM", "body": "x"}, "unknown event"},
		{bob.Token, map[string]any{"event": "COMMENT", "comments": []map[string]any{{"path": "../etc/passwd", "new_position": 1, "body": "x"}}}, "path outside the tree"},
		{bob.Token, map[string]any{"event": "COMMENT", "comments": []map[string]any{{"path": "code.txt", "new_position": 1, "body": " "}}}, "empty line comment"},
		{bob.Token, map[string]any{"event": "COMMENT", "body": "x", "commit_id": "nothex"}, "bad commit id"},
	} {
		mustStatus(t, s.API("POST", reviews, c.tok, c.body), http.StatusUnprocessableEntity, c.what)
	}
	mustStatus(t, s.API("POST", reviews, "", map[string]any{"event": "COMMENT", "body": "x"}), http.StatusUnauthorized, "signed-out review")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/9/reviews", bob.Token, map[string]any{"event": "COMMENT", "body": "x"}), http.StatusNotFound, "review of a missing pull request")

	// A pending review collects line comments (new and old side) until submitted.
	pending, _, err := bc.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStatePending, Body: "draft",
		Comments: []gitea.CreatePullReviewComment{{Path: "code.txt", NewLineNum: 5, Body: "why five?"}, {Path: "code.txt", OldLineNum: 5, Body: "was fine"}}})
	if err != nil {
		t.Fatal(err)
	}
	if pending.State != gitea.ReviewStatePending || pending.CodeCommentsCount != 2 || pending.Reviewer.UserName != "bob" || pending.CommitID != head {
		t.Fatalf("pending = %+v", pending)
	}
	again, _, err := bc.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStatePending, Body: "draft",
		Comments: []gitea.CreatePullReviewComment{{Path: "code.txt", NewLineNum: 6, Body: "and this"}}})
	if err != nil || again.ID != pending.ID || again.CodeCommentsCount != 3 {
		t.Fatalf("second pending = %+v, %v", again, err)
	}
	// Others do not see it.
	if list, _, err := cc.ListPullReviews("alice", "proj", 1, gitea.ListPullReviewsOptions{}); err != nil || len(list) != 1 || list[0].State != gitea.ReviewStateRequestReview {
		t.Fatalf("carol's list = %+v, %v", list, err)
	}
	mustStatus(t, s.API("GET", fmt.Sprintf("%s/%d", reviews, pending.ID), carol.Token, nil), http.StatusNotFound, "someone else's pending review")
	mustStatus(t, s.API("GET", fmt.Sprintf("%s/%d/comments", reviews, pending.ID), "", nil), http.StatusNotFound, "pending comments signed out")
	if _, _, err := s.Client(s.AdminTok).GetPullReview("alice", "proj", 1, pending.ID); err != nil {
		t.Fatalf("site admin reads a pending review: %v", err)
	}
	mustStatus(t, s.API("POST", fmt.Sprintf("%s/%d", reviews, pending.ID), bob.Token, map[string]any{"event": "PENDING", "body": "x"}),
		http.StatusUnprocessableEntity, "submitting as pending")
	mustStatus(t, s.API("POST", fmt.Sprintf("%s/%d", reviews, pending.ID), bob.Token, map[string]any{"event": "REQUEST_CHANGES"}),
		http.StatusUnprocessableEntity, "submitting changes without body")

	// Submitted: official (bob writes code), on the head commit.
	sub, _, err := bc.SubmitPullReview("alice", "proj", 1, pending.ID, gitea.SubmitPullReviewOptions{State: gitea.ReviewStateRequestChanges, Body: "fix it"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.ID != pending.ID || sub.State != gitea.ReviewStateRequestChanges || !sub.Official || sub.Body != "fix it" || sub.CommitID != head ||
		sub.CodeCommentsCount != 3 || !strings.Contains(sub.HTMLURL, "/alice/proj/pulls/1#issuecomment-") || !strings.HasSuffix(sub.HTMLPullURL, "/alice/proj/pulls/1") {
		t.Fatalf("submitted = %+v", sub)
	}
	mustStatus(t, s.API("POST", fmt.Sprintf("%s/%d", reviews, pending.ID), bob.Token, map[string]any{"event": "COMMENT", "body": "x"}),
		http.StatusUnprocessableEntity, "submitting twice")
	comments, _, err := cc.ListPullReviewComments("alice", "proj", 1, sub.ID)
	if err != nil || len(comments) != 3 {
		t.Fatalf("comments = %+v, %v", comments, err)
	}
	c0, c1 := comments[0], comments[1]
	if c0.Path != "code.txt" || c0.LineNum != 5 || c0.OldLineNum != 0 || c0.Body != "why five?" || c0.ReviewID != sub.ID || c0.CommitID != head ||
		c0.Reviewer == nil || c0.Reviewer.UserName != "bob" || !strings.HasPrefix(c0.DiffHunk, "@@ ") || !strings.HasSuffix(c0.DiffHunk, "+line five") {
		t.Fatalf("new-side comment = %+v", c0)
	}
	if c1.LineNum != 0 || c1.OldLineNum != 5 || !strings.HasSuffix(c1.DiffHunk, "-line 5") {
		t.Fatalf("old-side comment = %+v", c1)
	}
	if !strings.Contains(comments[2].DiffHunk, "+inserted") {
		t.Fatalf("third comment hunk = %q", comments[2].DiffHunk)
	}

	// carol, who was asked, approves: not official (read access), the request is answered.
	appr, _, err := cc.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved})
	if err != nil || appr.State != gitea.ReviewStateApproved || appr.Official || appr.Stale {
		t.Fatalf("approval = %+v, %v", appr, err)
	}
	if got := prvRequested(t, s, alice.Token); len(got) != 0 {
		t.Fatalf("requested after carol's review = %v", got)
	}
	list, resp, err := ac.ListPullReviews("alice", "proj", 1, gitea.ListPullReviewsOptions{})
	if err != nil || len(list) != 2 || resp.Header.Get("X-Total-Count") != "2" || list[0].ID != sub.ID || list[1].ID != appr.ID {
		t.Fatalf("list = %+v (total %s), %v", list, resp.Header.Get("X-Total-Count"), err)
	}
	if r := s.API("GET", reviews+"?limit=1&page=2", alice.Token, nil); r.Status != 200 || r.Header.Get("X-Total-Count") != "2" || !strings.Contains(string(r.Body), fmt.Sprintf(`"id":%d`, appr.ID)) {
		t.Fatalf("second page = %d %s", r.Status, r.Body)
	}

	// Requests: asked and withdrawn, with timeline entries.
	if _, err := ac.CreateReviewRequests("alice", "proj", 1, gitea.PullReviewRequestOptions{Reviewers: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	if got := prvRequested(t, s, alice.Token); len(got) != 1 || got[0] != "bob" {
		t.Fatalf("requested = %v", got)
	}
	r := s.API("POST", "repos/alice/proj/pulls/1/requested_reviewers", alice.Token, map[string]any{"reviewers": []string{"bob"}})
	mustStatus(t, r, http.StatusCreated, "asking again")
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("asking again made %s", r.Body)
	}
	if _, err := ac.DeleteReviewRequests("alice", "proj", 1, gitea.PullReviewRequestOptions{Reviewers: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	if got := prvRequested(t, s, alice.Token); len(got) != 0 {
		t.Fatalf("requested after withdrawal = %v", got)
	}
	rrPath := "repos/alice/proj/pulls/1/requested_reviewers"
	mustStatus(t, s.API("POST", rrPath, alice.Token, map[string]any{"reviewers": []string{"nobody"}}), http.StatusNotFound, "unknown reviewer")
	mustStatus(t, s.API("POST", rrPath, alice.Token, map[string]any{"reviewers": []string{"alice"}}), http.StatusUnprocessableEntity, "poster as reviewer")
	mustStatus(t, s.API("POST", rrPath, dave.Token, map[string]any{"reviewers": []string{"bob"}}), http.StatusUnprocessableEntity, "outsider choosing reviewers")
	mustStatus(t, s.API("POST", rrPath, "", map[string]any{"reviewers": []string{"bob"}}), http.StatusUnauthorized, "signed out")
	reqs := prvTimeline(t, s, alice.Token, "alice/proj", "review_request")
	if len(reqs) != 3 {
		t.Fatalf("review_request entries = %v", reqs)
	}
	if a, _ := reqs[0]["assignee"].(map[string]any); a["login"] != "carol" || reqs[0]["removed_assignee"] != false {
		t.Fatalf("first request entry = %v", reqs[0])
	}
	if a, _ := reqs[2]["assignee"].(map[string]any); a["login"] != "bob" || reqs[2]["removed_assignee"] != true {
		t.Fatalf("withdrawal entry = %v", reqs[2])
	}
	revs := prvTimeline(t, s, alice.Token, "alice/proj", "review")
	if len(revs) != 2 || revs[0]["review_id"].(float64) != float64(sub.ID) || revs[0]["body"] != "fix it" {
		t.Fatalf("review entries = %v", revs)
	}

	// Reviewers: those who can be asked; outsiders may not list them.
	rv := s.API("GET", "repos/alice/proj/reviewers", alice.Token, nil)
	mustStatus(t, rv, http.StatusOK, "reviewers")
	var people []struct {
		Login string `json:"login"`
	}
	rv.Decode(t, &people)
	var names []string
	for _, p := range people {
		names = append(names, p.Login)
	}
	if strings.Join(names, ",") != "bob,carol,alice" {
		t.Fatalf("reviewers = %v", names)
	}
	mustStatus(t, s.API("GET", "repos/alice/proj/reviewers", dave.Token, nil), http.StatusForbidden, "reviewers for an outsider")
	mustStatus(t, s.API("GET", "repos/alice/proj/reviewers", "", nil), http.StatusUnauthorized, "reviewers signed out")

	// Dismissals: repository administrators only, approvals and requests for changes only.
	dismiss := fmt.Sprintf("%s/%d/dismissals", reviews, sub.ID)
	mustStatus(t, s.API("POST", dismiss, bob.Token, map[string]any{"message": "no"}), http.StatusForbidden, "dismissal by a writer")
	if _, err := ac.DismissPullReview("alice", "proj", 1, sub.ID, gitea.DismissPullReviewOptions{Message: "outdated"}); err != nil {
		t.Fatal(err)
	}
	if got, _, err := ac.GetPullReview("alice", "proj", 1, sub.ID); err != nil || !got.Dismissed {
		t.Fatalf("after dismissal = %+v, %v", got, err)
	}
	dis := prvTimeline(t, s, alice.Token, "alice/proj", "dismiss_review")
	if len(dis) != 1 || dis[0]["body"] != "outdated" || dis[0]["review_id"].(float64) != float64(sub.ID) {
		t.Fatalf("dismiss entries = %v", dis)
	}
	if _, err := ac.UnDismissPullReview("alice", "proj", 1, sub.ID); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := ac.GetPullReview("alice", "proj", 1, sub.ID); got.Dismissed {
		t.Fatal("undismissal kept the review dismissed")
	}
	note, _, err := bc.CreatePullReview("alice", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateComment, Body: "a note"})
	if err != nil {
		t.Fatal(err)
	}
	mustStatus(t, s.API("POST", fmt.Sprintf("%s/%d/dismissals", reviews, note.ID), alice.Token, map[string]any{"message": "x"}),
		http.StatusForbidden, "dismissing a comment")

	// A new head makes earlier verdicts stale.
	prCommit(t, s, alice.Token, "alice/proj", "feature", "", map[string]string{"more.txt": "more\n"})
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _, err := ac.GetPullReview("alice", "proj", 1, appr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Stale {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the approval never became stale")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Deleting: the reviewer (or a site administrator), nobody else.
	mustStatus(t, s.API("DELETE", fmt.Sprintf("%s/%d", reviews, sub.ID), carol.Token, nil), http.StatusForbidden, "deleting someone's review")
	mustStatus(t, s.API("DELETE", fmt.Sprintf("%s/%d", reviews, sub.ID), alice.Token, nil), http.StatusForbidden, "repository owner deleting a review")
	if _, err := bc.DeletePullReview("alice", "proj", 1, sub.ID); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, s.API("GET", fmt.Sprintf("%s/%d", reviews, sub.ID), bob.Token, nil), http.StatusNotFound, "deleted review")
	if n := len(prvTimeline(t, s, alice.Token, "alice/proj", "dismiss_review")); n != 0 {
		t.Fatalf("dismiss entries of a deleted review: %d", n)
	}

	// Closed: comments only.
	closed := "closed"
	if _, _, err := ac.EditPullRequest("alice", "proj", 1, gitea.EditPullRequestOption{State: (*gitea.StateType)(&closed)}); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, s.API("POST", reviews, bob.Token, map[string]any{"event": "APPROVED"}), http.StatusUnprocessableEntity, "approving a closed pull request")
	mustStatus(t, s.API("POST", reviews, bob.Token, map[string]any{"event": "COMMENT", "body": "late"}), http.StatusOK, "commenting a closed pull request")
	mustStatus(t, s.API("POST", rrPath, alice.Token, map[string]any{"reviewers": []string{"carol"}}), http.StatusForbidden, "asking again on a closed pull request")
	mustStatus(t, s.API("POST", fmt.Sprintf("%s/%d/dismissals", reviews, appr.ID), alice.Token, map[string]any{"message": "x"}),
		http.StatusForbidden, "dismissing on a closed pull request")
}

// TestPullReviewTeams: team review requests in an organization's
// repository, answered by a member's verdict; unknown teams are 404; a
// private repository's reviews stay hidden from outsiders.
func TestPullReviewTeams(t *testing.T) {
	s := StartServer(t)
	owner := s.CreateUser("owner")
	erin := s.CreateUser("erin")
	outsider := s.CreateUser("outsider")
	k := &orgKit{t: t, s: s}
	k.createOrg(owner, "acme", "public")
	team := k.createTeam(owner, "acme", map[string]any{"name": "reviewers", "permission": "write",
		"units": []string{"repo.code", "repo.pulls"}, "includes_all_repositories": true})
	k.addToTeam(owner, team.ID, "erin")
	mustStatus(t, s.API("POST", "orgs/acme/repos", owner.Token, map[string]any{"name": "proj", "private": true, "auto_init": true}), 201, "org repo")
	prCommit(t, s, owner.Token, "acme/proj", "feature", "main", map[string]string{"a.txt": "a\n"})
	mustStatus(t, s.API("POST", "repos/acme/proj/pulls", owner.Token, map[string]any{"head": "feature", "base": "main", "title": "t",
		"team_reviewers": []string{"ghosts"}}), http.StatusNotFound, "unknown team at creation")
	pr, _, err := s.Client(owner.Token).CreatePullRequest("acme", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main",
		Title: "Add a", TeamReviewers: []string{"reviewers"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.RequestedReviewersTeams) != 1 || pr.RequestedReviewersTeams[0].Name != "reviewers" {
		t.Fatalf("requested teams = %+v", pr.RequestedReviewersTeams)
	}
	entries := s.API("GET", "repos/acme/proj/issues/1/timeline", owner.Token, nil)
	mustStatus(t, entries, 200, "timeline")
	if !strings.Contains(string(entries.Body), `"type":"review_request"`) || !strings.Contains(string(entries.Body), `"assignee_team":{"id":`) {
		t.Fatalf("timeline = %s", entries.Body)
	}
	reviews, _, err := s.Client(owner.Token).ListPullReviews("acme", "proj", 1, gitea.ListPullReviewsOptions{})
	if err != nil || len(reviews) != 1 || reviews[0].ReviewerTeam == nil || reviews[0].Reviewer != nil || reviews[0].State != gitea.ReviewStateRequestReview {
		t.Fatalf("team request review = %+v, %v", reviews, err)
	}
	mustStatus(t, s.API("GET", "repos/acme/proj/pulls/1/reviews", outsider.Token, nil), http.StatusNotFound, "outsider on a private repository")
	mustStatus(t, s.API("GET", "repos/acme/proj/pulls/1/reviews", "", nil), http.StatusNotFound, "signed out on a private repository")
	mustStatus(t, s.API("DELETE", "repos/acme/proj/pulls/1/requested_reviewers", owner.Token, map[string]any{"team_reviewers": []string{"ghosts"}}),
		http.StatusNotFound, "withdrawing an unknown team")

	// A member's approval answers the team's request and is official.
	appr, _, err := s.Client(erin.Token).CreatePullReview("acme", "proj", 1, gitea.CreatePullReviewOptions{State: gitea.ReviewStateApproved, Body: "ok"})
	if err != nil || !appr.Official {
		t.Fatalf("approval = %+v, %v", appr, err)
	}
	got, _, err := s.Client(owner.Token).GetPullRequest("acme", "proj", 1)
	if err != nil || len(got.RequestedReviewersTeams) != 0 {
		t.Fatalf("requested teams after approval = %+v, %v", got.RequestedReviewersTeams, err)
	}
	rv := s.API("GET", "repos/acme/proj/reviewers", owner.Token, nil)
	mustStatus(t, rv, http.StatusOK, "reviewers")
	if !strings.Contains(string(rv.Body), `"login":"erin"`) || strings.Contains(string(rv.Body), `"login":"outsider"`) {
		t.Fatalf("reviewers = %s", rv.Body)
	}
}

// TestPullReviewMatrix: the review routes for every kind of caller on a
// public and a private repository — reading the reviews, dismissing one
// (the state changes exactly when allowed), and the list of reviewers.
func TestPullReviewMatrix(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	callers := map[string]string{"signed out": "", "site admin": s.AdminTok, "owner": alice.Token}
	for _, who := range []string{"stranger", "restricted", "reader", "writer", "radmin"} {
		var flags []string
		if who == "restricted" {
			flags = append(flags, "restricted")
		}
		callers[who] = s.CreateUser(who, flags...).Token
	}
	reviewIDs := map[string]int64{}
	for _, name := range []string{"pub", "priv"} {
		createRepo(t, s, alice, name, name == "priv")
		for who, perm := range map[string]string{"reader": "read", "writer": "write", "radmin": "admin"} {
			addCollaborator(t, s, alice, name, who, perm)
		}
		full := "alice/" + name
		prCommit(t, s, alice.Token, full, "feature", "main", map[string]string{"f.txt": "f\n"})
		mustStatus(t, s.API("POST", "repos/"+full+"/pulls", alice.Token, map[string]any{"head": "feature", "base": "main", "title": "t"}), 201, "pull in "+full)
		r := s.API("POST", "repos/"+full+"/pulls/1/reviews", callers["writer"], map[string]any{"event": "REQUEST_CHANGES", "body": "no"})
		mustStatus(t, r, 200, "review in "+full)
		var rv struct{ ID int64 }
		r.Decode(t, &rv)
		reviewIDs[full] = rv.ID
	}
	order := []string{"signed out", "stranger", "restricted", "reader", "writer", "radmin", "owner", "site admin"}
	type row map[string][2]int // caller -> status on pub, priv
	cases := []struct {
		name  string
		call  func(full, tok string) *Response
		want  row
		state func(full string) bool // dismissed, for the dismissal
	}{
		{"GET reviews", func(full, tok string) *Response { return s.API("GET", "repos/"+full+"/pulls/1/reviews", tok, nil) },
			row{"signed out": {200, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200},
				"radmin": {200, 200}, "owner": {200, 200}, "site admin": {200, 200}}, nil},
		{"GET review comments", func(full, tok string) *Response {
			return s.API("GET", fmt.Sprintf("repos/%s/pulls/1/reviews/%d/comments", full, reviewIDs[full]), tok, nil)
		}, row{"signed out": {200, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200},
			"radmin": {200, 200}, "owner": {200, 200}, "site admin": {200, 200}}, nil},
		{"GET reviewers", func(full, tok string) *Response { return s.API("GET", "repos/"+full+"/reviewers", tok, nil) },
			row{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200},
				"radmin": {200, 200}, "owner": {200, 200}, "site admin": {200, 200}}, nil},
		{"POST dismissals", func(full, tok string) *Response {
			return s.API("POST", fmt.Sprintf("repos/%s/pulls/1/reviews/%d/dismissals", full, reviewIDs[full]), tok, map[string]any{"message": "m"})
		}, row{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {403, 403},
			"radmin": {200, 200}, "owner": {200, 200}, "site admin": {200, 200}}, func(full string) bool {
			r := s.API("GET", fmt.Sprintf("repos/%s/pulls/1/reviews/%d", full, reviewIDs[full]), alice.Token, nil)
			var rv struct{ Dismissed bool }
			r.Decode(t, &rv)
			return rv.Dismissed
		}},
	}
	for _, c := range cases {
		for _, who := range order {
			for col, full := range []string{"alice/pub", "alice/priv"} {
				if c.state != nil {
					mustStatus(t, s.API("POST", fmt.Sprintf("repos/%s/pulls/1/reviews/%d/undismissals", full, reviewIDs[full]), alice.Token, nil), 200, "undismiss")
				}
				r := c.call(full, callers[who])
				if want := c.want[who][col]; r.Status != want {
					t.Errorf("%s as %s on %s = %d, want %d: %s", c.name, who, full, r.Status, want, r.Body)
				}
				if c.state != nil && c.state(full) != (r.Status == 200) {
					t.Errorf("%s as %s on %s: dismissed = %v after %d", c.name, who, full, c.state(full), r.Status)
				}
			}
		}
	}
}

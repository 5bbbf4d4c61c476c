package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// whCheck fails unless the payload of d has each path = value.
func whCheck(t *testing.T, d whRequest, what string, kv ...string) {
	t.Helper()
	doc := d.doc()
	if doc == nil {
		t.Fatalf("%s: payload is not JSON: %s", what, d.Body)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if got := whStr(doc, kv[i]); got != kv[i+1] {
			t.Errorf("%s: payload %s = %q, want %q", what, kv[i], got, kv[i+1])
		}
	}
}

// whID decodes the "id" of a created object.
func whID(t *testing.T, r *Response, want int, what string) int64 {
	t.Helper()
	mustStatus(t, r, want, what)
	var v struct {
		ID     int64 `json:"id"`
		Number int64 `json:"number"`
	}
	r.Decode(t, &v)
	if v.Number != 0 {
		return v.Number
	}
	return v.ID
}

// TestWebhookEventsRefs: create (branch by API and by push, tag by API),
// delete, push, status, release and fork events.
func TestWebhookEventsRefs(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	rc := newWhReceiver(t)
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(rc.URL, "create", "delete", "push", "fork", "status", "release"))
	mainSHA := prBranchSHA(t, s, alice.Token, "alice/proj", "main")

	// A branch created through the API.
	mustStatus(t, s.API("POST", "repos/alice/proj/branches", alice.Token, map[string]any{"new_branch_name": "b1", "old_branch_name": "main"}), http.StatusCreated, "create b1")
	d := rc.waitFor(whAnd(whIs("create", "create", ""), "ref", "b1"), "create event of b1")
	whCheck(t, d, "create b1", "ref_type", "branch", "sha", mainSHA, "repository.full_name", "alice/proj", "sender.login", "alice")

	// A branch created by a git push.
	k := newRelKit(t, s)
	dir, ok := k.clone(alice, "alice/proj")
	if !ok {
		t.Fatal("clone failed")
	}
	k.mustGit(dir, "checkout", "-q", "-b", "b2")
	if out, err := k.commitPush(dir, "b2.txt"); err != nil {
		t.Fatalf("push b2: %v %s", err, out)
	}
	b2 := k.mustGit(dir, "rev-parse", "HEAD")
	d = rc.waitFor(whAnd(whIs("create", "create", ""), "ref", "b2"), "create event of a pushed branch")
	whCheck(t, d, "create b2", "ref_type", "branch", "sha", b2, "sender.login", "alice")
	d = rc.waitFor(whAnd(whIs("push", "push", ""), "ref", "refs/heads/b2"), "push event of a pushed branch")
	whCheck(t, d, "push b2", "after", b2, "head_commit.id", b2, "pusher.login", "alice")

	// A tag created through the API.
	mustStatus(t, s.API("POST", "repos/alice/proj/tags", alice.Token, map[string]any{"tag_name": "t1", "target": "main"}), http.StatusCreated, "create tag")
	d = rc.waitFor(whAnd(whIs("create", "create", ""), "ref", "t1"), "create event of a tag")
	whCheck(t, d, "create t1", "ref_type", "tag", "sha", mainSHA, "repository.full_name", "alice/proj")

	// A branch deleted through the API.
	mustStatus(t, s.API("DELETE", "repos/alice/proj/branches/b1", alice.Token, nil), http.StatusNoContent, "delete b1")
	d = rc.waitFor(whAnd(whIs("delete", "delete", ""), "ref", "b1"), "delete event of b1")
	whCheck(t, d, "delete b1", "ref_type", "branch", "pusher_type", "user", "repository.full_name", "alice/proj", "sender.login", "alice")
	rc.none(whAnd(whIs("push", "push", ""), "ref", "refs/heads/b1", "after", "0000000000000000000000000000000000000000"), 0, "push event of a deleted branch")

	// A commit status.
	mustStatus(t, s.API("POST", "repos/alice/proj/statuses/"+mainSHA, alice.Token, map[string]any{"state": "success", "context": "ci/test",
		"target_url": "http://ci.example.com/1", "description": "all green"}), http.StatusCreated, "create status")
	d = rc.waitFor(whIs("status", "status", ""), "status event")
	whCheck(t, d, "status", "sha", mainSHA, "state", "success", "context", "ci/test", "description", "all green",
		"target_url", "http://ci.example.com/1", "repository.full_name", "alice/proj", "sender.login", "alice",
		"commit.id", mainSHA, "commit.author.email", "alice@example.com", "commit.author.username", "alice")

	// A release: published, updated, deleted.
	rel := whID(t, s.API("POST", "repos/alice/proj/releases", alice.Token, map[string]any{"tag_name": "v1.0", "name": "One", "body": "first"}), http.StatusCreated, "create release")
	d = rc.waitFor(whIs("release", "release", "published"), "release published")
	whCheck(t, d, "release published", "release.tag_name", "v1.0", "release.name", "One", "release.body", "first", "repository.full_name", "alice/proj", "sender.login", "alice")
	mustStatus(t, s.API("PATCH", fmt.Sprintf("repos/alice/proj/releases/%d", rel), alice.Token, map[string]any{"body": "changed"}), http.StatusOK, "edit release")
	d = rc.waitFor(whIs("release", "release", "updated"), "release updated")
	whCheck(t, d, "release updated", "release.tag_name", "v1.0", "release.body", "changed")
	mustStatus(t, s.API("DELETE", fmt.Sprintf("repos/alice/proj/releases/%d", rel), alice.Token, nil), http.StatusNoContent, "delete release")
	d = rc.waitFor(whIs("release", "release", "deleted"), "release deleted")
	whCheck(t, d, "release deleted", "release.tag_name", "v1.0")

	// A draft is not announced.
	mustStatus(t, s.API("POST", "repos/alice/proj/releases", alice.Token, map[string]any{"tag_name": "v2.0", "name": "Draft", "draft": true}), http.StatusCreated, "create draft")

	// A fork: the original's hook hears of it.
	mustStatus(t, s.API("POST", "repos/alice/proj/forks", bob.Token, nil), http.StatusAccepted, "fork")
	d = rc.waitFor(whIs("fork", "fork", ""), "fork event")
	whCheck(t, d, "fork", "forkee.full_name", "alice/proj", "repository.full_name", "bob/proj", "repository.fork", "true", "sender.login", "bob")
	rc.none(whAnd(whIs("release", "release", ""), "release.tag_name", "v2.0"), 0, "draft release announced")
}

// TestWebhookEventsIssues: issues, issue_assign, issue_label,
// issue_milestone and issue_comment events with their actions and changes.
func TestWebhookEventsIssues(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	rc := newWhReceiver(t)
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(rc.URL, "issues"))
	api := func(method, path string, body any) *Response {
		return s.API(method, "repos/alice/proj/"+path, alice.Token, body)
	}

	n := whID(t, api("POST", "issues", map[string]any{"title": "Bug", "body": "it breaks"}), http.StatusCreated, "create issue")
	d := rc.waitFor(whIs("issues", "issues", "opened"), "issue opened")
	whCheck(t, d, "opened", "number", fmt.Sprint(n), "issue.number", fmt.Sprint(n), "issue.title", "Bug", "issue.body", "it breaks",
		"issue.state", "open", "repository.full_name", "alice/proj", "sender.login", "alice")

	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"title": "Bad bug"}), http.StatusCreated, "edit title")
	d = rc.waitFor(whIs("issues", "issues", "edited"), "issue edited")
	whCheck(t, d, "edited", "changes.title.from", "Bug", "issue.title", "Bad bug")

	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"state": "closed"}), http.StatusCreated, "close")
	d = rc.waitFor(whIs("issues", "issues", "closed"), "issue closed")
	whCheck(t, d, "closed", "issue.state", "closed")
	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"state": "open"}), http.StatusCreated, "reopen")
	d = rc.waitFor(whIs("issues", "issues", "reopened"), "issue reopened")
	whCheck(t, d, "reopened", "issue.state", "open")

	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"assignees": []string{"alice"}}), http.StatusCreated, "assign")
	d = rc.waitFor(whIs("issues", "issue_assign", "assigned"), "issue assigned")
	whCheck(t, d, "assigned", "issue.assignees.0.login", "alice", "number", fmt.Sprint(n))

	label := whID(t, api("POST", "labels", map[string]any{"name": "bug", "color": "#ee0701"}), http.StatusCreated, "create label")
	mustStatus(t, api("POST", fmt.Sprintf("issues/%d/labels", n), map[string]any{"labels": []int64{label}}), http.StatusOK, "add label")
	d = rc.waitFor(whIs("issues", "issue_label", "label_updated"), "issue label added through POST /labels")
	whCheck(t, d, "label_updated", "issue.labels.0.name", "bug")

	mustStatus(t, api("DELETE", fmt.Sprintf("issues/%d/labels", n), nil), http.StatusNoContent, "clear labels")
	d = rc.waitFor(whIs("issues", "issue_label", "label_cleared"), "issue labels cleared")
	if labels, _ := whGet(d.doc(), "issue.labels").([]any); len(labels) != 0 {
		t.Errorf("label_cleared payload still lists labels: %v", labels)
	}

	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"assignees": []string{}}), http.StatusCreated, "unassign")
	d = rc.waitFor(whIs("issues", "issue_assign", "unassigned"), "issue unassigned")
	whCheck(t, d, "unassigned", "number", fmt.Sprint(n))

	ms := whID(t, api("POST", "milestones", map[string]any{"title": "v1"}), http.StatusCreated, "create milestone")
	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"milestone": ms}), http.StatusCreated, "set milestone")
	d = rc.waitFor(whIs("issues", "issue_milestone", "milestoned"), "issue milestoned")
	whCheck(t, d, "milestoned", "issue.milestone.title", "v1")
	mustStatus(t, api("PATCH", fmt.Sprintf("issues/%d", n), map[string]any{"milestone": 0}), http.StatusCreated, "clear milestone")
	d = rc.waitFor(whIs("issues", "issue_milestone", "demilestoned"), "issue demilestoned")
	whCheck(t, d, "demilestoned", "issue.milestone", "")

	cm := whID(t, api("POST", fmt.Sprintf("issues/%d/comments", n), map[string]any{"body": "first comment"}), http.StatusCreated, "comment")
	d = rc.waitFor(whIs("issue_comment", "issue_comment", "created"), "comment created")
	whCheck(t, d, "comment created", "comment.body", "first comment", "comment.id", fmt.Sprint(cm), "is_pull", "false",
		"issue.number", fmt.Sprint(n), "sender.login", "alice")
	mustStatus(t, api("PATCH", fmt.Sprintf("issues/comments/%d", cm), map[string]any{"body": "better comment"}), http.StatusOK, "edit comment")
	d = rc.waitFor(whIs("issue_comment", "issue_comment", "edited"), "comment edited")
	whCheck(t, d, "comment edited", "changes.body.from", "first comment", "comment.body", "better comment", "is_pull", "false")
	mustStatus(t, api("DELETE", fmt.Sprintf("issues/comments/%d", cm), nil), http.StatusNoContent, "delete comment")
	d = rc.waitFor(whIs("issue_comment", "issue_comment", "deleted"), "comment deleted")
	whCheck(t, d, "comment deleted", "comment.id", fmt.Sprint(cm), "is_pull", "false")

	// Every delivery carries Gitea's family header and the precise type.
	for _, r := range rc.all(nil) {
		if r.Header.Get("X-Gogs-Event") != r.event() || r.Header.Get("X-GitHub-Event") != r.event() || r.Header.Get("X-GitHub-Event-Type") != r.eventType() {
			t.Errorf("%s: X-Gogs-Event %q X-GitHub-Event %q X-GitHub-Event-Type %q", r, r.Header.Get("X-Gogs-Event"), r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Event-Type"))
		}
	}
}

// TestWebhookEventsPulls: pull request events from opening to merging.
func TestWebhookEventsPulls(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	addCollaborator(t, s, alice, "proj", "bob", "write")
	rc := newWhReceiver(t)
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(rc.URL, "pull_request"))
	const full = "alice/proj"
	api := func(tok, method, path string, body any) *Response {
		return s.API(method, "repos/alice/proj/"+path, tok, body)
	}

	prCommit(t, s, alice.Token, full, "feat", "main", map[string]string{"feat.txt": "one"})
	n := whID(t, api(alice.Token, "POST", "pulls", map[string]any{"head": "feat", "base": "main", "title": "Feature", "body": "please"}), http.StatusCreated, "open pull")
	d := rc.waitFor(whIs("pull_request", "pull_request", "opened"), "pull opened")
	whCheck(t, d, "opened", "number", fmt.Sprint(n), "pull_request.number", fmt.Sprint(n), "pull_request.title", "Feature",
		"pull_request.head.ref", "feat", "pull_request.base.ref", "main", "pull_request.merged", "false", "pull_request.state", "open",
		"pull_request.head.sha", prBranchSHA(t, s, alice.Token, full, "feat"), "repository.full_name", full, "sender.login", "alice")

	label := whID(t, api(alice.Token, "POST", "labels", map[string]any{"name": "feature", "color": "#00ff00"}), http.StatusCreated, "create label")
	mustStatus(t, api(alice.Token, "POST", fmt.Sprintf("issues/%d/labels", n), map[string]any{"labels": []int64{label}}), http.StatusOK, "label pull")
	d = rc.waitFor(whIs("pull_request", "pull_request_label", "label_updated"), "pull label")
	whCheck(t, d, "pull label", "pull_request.labels.0.name", "feature", "number", fmt.Sprint(n))

	mustStatus(t, api(alice.Token, "POST", fmt.Sprintf("issues/%d/comments", n), map[string]any{"body": "on the pull"}), http.StatusCreated, "comment on pull")
	d = rc.waitFor(whIs("issue_comment", "pull_request_comment", "created"), "pull comment")
	whCheck(t, d, "pull comment", "is_pull", "true", "comment.body", "on the pull", "issue.number", fmt.Sprint(n))

	mustStatus(t, api(alice.Token, "POST", fmt.Sprintf("pulls/%d/requested_reviewers", n), map[string]any{"reviewers": []string{"bob"}}), http.StatusCreated, "request review")
	d = rc.waitFor(whIs("pull_request", "pull_request_review_request", "review_requested"), "review requested")
	whCheck(t, d, "review requested", "requested_reviewer.login", "bob", "number", fmt.Sprint(n), "sender.login", "alice")

	mustStatus(t, api(alice.Token, "PATCH", fmt.Sprintf("pulls/%d", n), map[string]any{"title": "Better feature"}), http.StatusCreated, "retitle pull")
	d = rc.waitFor(whIs("pull_request", "pull_request", "edited"), "pull edited")
	whCheck(t, d, "pull edited", "changes.title.from", "Feature", "pull_request.title", "Better feature")

	mustStatus(t, api(alice.Token, "PATCH", fmt.Sprintf("pulls/%d", n), map[string]any{"assignees": []string{"bob"}}), http.StatusCreated, "assign pull")
	d = rc.waitFor(whIs("pull_request", "pull_request_assign", "assigned"), "pull assigned")
	whCheck(t, d, "pull assigned", "pull_request.assignees.0.login", "bob")

	ms := whID(t, api(alice.Token, "POST", "milestones", map[string]any{"title": "v2"}), http.StatusCreated, "create milestone")
	mustStatus(t, api(alice.Token, "PATCH", fmt.Sprintf("pulls/%d", n), map[string]any{"milestone": ms}), http.StatusCreated, "pull milestone")
	d = rc.waitFor(whIs("pull_request", "pull_request_milestone", "milestoned"), "pull milestoned")
	whCheck(t, d, "pull milestoned", "pull_request.milestone.title", "v2")

	// Comment and request-changes reviews, each under its own header.
	mustStatus(t, api(bob.Token, "POST", fmt.Sprintf("pulls/%d/reviews", n), map[string]any{"event": "COMMENT", "body": "hmm"}), http.StatusOK, "comment review")
	d = rc.waitFor(whIs("pull_request_comment", "pull_request_review_comment", "reviewed"), "comment review")
	whCheck(t, d, "comment review", "review.type", "pull_request_review_comment", "review.content", "hmm", "sender.login", "bob")
	mustStatus(t, api(bob.Token, "POST", fmt.Sprintf("pulls/%d/reviews", n), map[string]any{"event": "REQUEST_CHANGES", "body": "fix it"}), http.StatusOK, "reject review")
	d = rc.waitFor(whIs("pull_request_rejected", "pull_request_review_rejected", "reviewed"), "rejecting review")
	whCheck(t, d, "rejecting review", "review.type", "pull_request_review_rejected", "review.content", "fix it")

	// A push to the head branch: synchronized (found by a background check).
	k := newRelKit(t, s)
	dir, ok := k.clone(alice, full)
	if !ok {
		t.Fatal("clone failed")
	}
	k.mustGit(dir, "checkout", "-q", "feat")
	if out, err := k.commitPush(dir, "more.txt"); err != nil {
		t.Fatalf("push to feat: %v %s", err, out)
	}
	head := k.mustGit(dir, "rev-parse", "HEAD")
	d = rc.waitN(whIs("pull_request", "pull_request_sync", "synchronized"), 1, 20*time.Second, "pull synchronized")[0]
	whCheck(t, d, "synchronized", "pull_request.head.sha", head, "number", fmt.Sprint(n), "sender.login", "alice")

	mustStatus(t, api(bob.Token, "POST", fmt.Sprintf("pulls/%d/reviews", n), map[string]any{"event": "APPROVED", "body": "lgtm"}), http.StatusOK, "approve")
	d = rc.waitFor(whIs("pull_request_approved", "pull_request_review_approved", "reviewed"), "pull approved")
	whCheck(t, d, "approved", "review.type", "pull_request_review_approved", "review.content", "lgtm", "sender.login", "bob",
		"pull_request.number", fmt.Sprint(n))

	prWaitMergeable(t, s, alice.Token, full, int64(n), true)
	mustStatus(t, api(alice.Token, "POST", fmt.Sprintf("pulls/%d/merge", n), map[string]any{"Do": "merge"}), http.StatusOK, "merge")
	d = rc.waitFor(whIs("pull_request", "pull_request", "closed"), "pull closed by merge")
	whCheck(t, d, "merged", "pull_request.merged", "true", "pull_request.state", "closed", "number", fmt.Sprint(n), "sender.login", "alice")
	if whStr(d.doc(), "pull_request.merge_commit_sha") == "" {
		t.Errorf("merged pull payload has no merge_commit_sha: %s", d.Body)
	}
}

// TestWebhookEventsRepository: an organization's hook hears of repositories
// created and deleted in it.
func TestWebhookEventsRepository(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	newOrgKit(t, s).createOrg(alice, "acme", "public")
	rc := newWhReceiver(t)
	whCreate(t, s, alice.Token, "orgs/acme/hooks", whBody(rc.URL, "repository"))
	mustStatus(t, s.API("POST", "orgs/acme/repos", alice.Token, map[string]any{"name": "lib", "auto_init": true}), http.StatusCreated, "create org repo")
	d := rc.waitFor(whIs("repository", "repository", "created"), "repository created")
	whCheck(t, d, "created", "repository.full_name", "acme/lib", "organization.login", "acme", "sender.login", "alice")
	mustStatus(t, s.API("DELETE", "repos/acme/lib", alice.Token, nil), http.StatusNoContent, "delete org repo")
	d = rc.waitFor(whIs("repository", "repository", "deleted"), "repository deleted")
	whCheck(t, d, "deleted", "repository.full_name", "acme/lib", "organization.login", "acme")
}

// TestWebhookEventSelection: hooks get only the events they selected;
// "issues" implies its sub-events, "issues_only" does not; inactive hooks
// get nothing.
func TestWebhookEventSelection(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	push, issues, only, off := newWhReceiver(t), newWhReceiver(t), newWhReceiver(t), newWhReceiver(t)
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(push.URL, "push"))
	ih := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(issues.URL, "issues"))
	oh := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(only.URL, "issues_only"))
	offBody := whBody(off.URL, "issues", "push")
	offBody["active"] = false
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", offBody)

	var got whHook
	r := s.API("GET", fmt.Sprintf("repos/alice/proj/hooks/%d", ih.ID), alice.Token, nil)
	mustStatus(t, r, http.StatusOK, "get issues hook")
	r.Decode(t, &got)
	if want := []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}; !slices.Equal(got.Events, want) {
		t.Fatalf("events of an issues hook = %v, want %v", got.Events, want)
	}
	r = s.API("GET", fmt.Sprintf("repos/alice/proj/hooks/%d", oh.ID), alice.Token, nil)
	mustStatus(t, r, http.StatusOK, "get issues_only hook")
	r.Decode(t, &got)
	if !slices.Equal(got.Events, []string{"issues"}) {
		t.Fatalf("events of an issues_only hook = %v", got.Events)
	}

	n := whID(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Pick me"}), http.StatusCreated, "issue")
	label := whID(t, s.API("POST", "repos/alice/proj/labels", alice.Token, map[string]any{"name": "x", "color": "#123456"}), http.StatusCreated, "label")
	mustStatus(t, s.API("POST", fmt.Sprintf("repos/alice/proj/issues/%d/labels", n), alice.Token, map[string]any{"labels": []int64{label}}), http.StatusOK, "add label")
	mustStatus(t, s.API("POST", fmt.Sprintf("repos/alice/proj/issues/%d/comments", n), alice.Token, map[string]any{"body": "c"}), http.StatusCreated, "comment")
	prCommit(t, s, alice.Token, "alice/proj", "main", "", map[string]string{"sel.txt": "x"})

	issues.waitFor(whIs("issues", "issues", "opened"), "issues hook: opened")
	issues.waitFor(whIs("issues", "issue_label", "label_updated"), "issues hook: label")
	issues.waitFor(whIs("issue_comment", "issue_comment", "created"), "issues hook: comment")
	only.waitFor(whIs("issues", "issues", "opened"), "issues_only hook: opened")
	push.waitFor(whIs("push", "push", ""), "push hook: push")

	notIssue := func(r whRequest) bool { return r.event() != "push" }
	push.none(notIssue, 1500*time.Millisecond, "push hook got an issue event")
	issues.none(whIs("push", "push", ""), 0, "issues hook got a push")
	only.none(func(r whRequest) bool { return r.eventType() != "issues" }, 0, "issues_only hook got a sub-event")
	off.none(nil, 0, "inactive hook got a delivery")
}

// TestWebhookScopes: organization hooks fire for the organization's
// repositories, user hooks for the user's, system hooks for all, and a
// default hook is copied into repositories created after it.
func TestWebhookScopes(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	newOrgKit(t, s).createOrg(alice, "acme", "public")
	orgRc, userRc, sysRc, defRc := newWhReceiver(t), newWhReceiver(t), newWhReceiver(t), newWhReceiver(t)

	whCreate(t, s, alice.Token, "orgs/acme/hooks", whBody(orgRc.URL, "issues", "push"))
	if _, resp, err := s.Client(bob.Token).CreateMyHook(gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": userRc.URL, "content_type": "json"}, Events: []string{"issues"}, Active: true}); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create user hook: %v %v", err, resp)
	}
	createRepo(t, s, bob, "b", false)
	mustStatus(t, s.API("POST", "orgs/acme/repos", alice.Token, map[string]any{"name": "lib", "auto_init": true}), http.StatusCreated, "create org repo")

	sysBody := whBody(sysRc.URL, "issues")
	sysBody["is_system_webhook"] = true
	whCreate(t, s, s.AdminTok, "admin/hooks", sysBody)
	whCreate(t, s, s.AdminTok, "admin/hooks", whBody(defRc.URL, "issues"))
	if n := len(whListHooks(t, s, s.AdminTok, "admin/hooks?type=all")); n != 2 {
		t.Fatalf("admin hooks = %d, want 2", n)
	}
	createRepo(t, s, carol, "c", false)

	// The default hook was copied into carol/c only.
	copies := whListHooks(t, s, carol.Token, "repos/carol/c/hooks")
	if len(copies) != 1 || copies[0].Config["url"] != defRc.URL || !slices.Contains(copies[0].Events, "issues") || !copies[0].Active {
		t.Fatalf("hooks of a repository created after the default hook: %+v", copies)
	}
	if l := whListHooks(t, s, bob.Token, "repos/bob/b/hooks"); len(l) != 0 {
		t.Fatalf("a repository created before the default hook has %d hooks", len(l))
	}
	if l := whListHooks(t, s, alice.Token, "repos/acme/lib/hooks"); len(l) != 0 {
		t.Fatalf("acme/lib has %d hooks", len(l))
	}

	for _, c := range []struct {
		tok, full string
	}{{alice.Token, "acme/lib"}, {bob.Token, "bob/b"}, {carol.Token, "carol/c"}} {
		mustStatus(t, s.API("POST", "repos/"+c.full+"/issues", c.tok, map[string]any{"title": "in " + c.full}), http.StatusCreated, "issue in "+c.full)
	}
	prCommit(t, s, alice.Token, "acme/lib", "main", "", map[string]string{"org.txt": "x"})

	opened := func(full string) func(whRequest) bool {
		return whAnd(whIs("issues", "issues", "opened"), "repository.full_name", full)
	}
	orgRc.waitFor(opened("acme/lib"), "org hook: issue in acme/lib")
	orgRc.waitFor(whAnd(whIs("push", "push", ""), "repository.full_name", "acme/lib"), "org hook: push to acme/lib")
	userRc.waitFor(opened("bob/b"), "user hook: issue in bob/b")
	for _, full := range []string{"acme/lib", "bob/b", "carol/c"} {
		sysRc.waitFor(opened(full), "system hook: issue in "+full)
	}
	defRc.waitFor(opened("carol/c"), "copied default hook: issue in carol/c")

	time.Sleep(1500 * time.Millisecond)
	other := func(full string) func(whRequest) bool {
		return func(r whRequest) bool { return r.str("repository.full_name") != full }
	}
	orgRc.none(other("acme/lib"), 0, "org hook got another owner's event")
	userRc.none(other("bob/b"), 0, "user hook got another owner's event")
	defRc.none(other("carol/c"), 0, "default hook fired itself or for repositories created before it")
	if n := len(defRc.all(nil)); n != 1 {
		t.Fatalf("default hook deliveries = %d, want 1 (its copy's)", n)
	}
	if n := len(sysRc.all(nil)); n != 3 {
		t.Fatalf("system hook deliveries = %d, want 3: %s", n, sysRc.summary())
	}
}

// TestWebhookBranchFilter: branch_filter limits push and create events to
// matching branches (globs included).
func TestWebhookBranchFilter(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	onlyMain, glob := newWhReceiver(t), newWhReceiver(t)
	b := whBody(onlyMain.URL, "push", "create")
	b["branch_filter"] = "main"
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", b)
	b = whBody(glob.URL, "push", "create")
	b["branch_filter"] = "{main,release/*}"
	h := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", b)
	if h.BranchFilter != "{main,release/*}" {
		t.Fatalf("branch_filter = %q", h.BranchFilter)
	}
	const full = "alice/proj"

	prCommit(t, s, alice.Token, full, "main", "", map[string]string{"m.txt": "main"})
	mainHead := prBranchSHA(t, s, alice.Token, full, "main")
	mustStatus(t, s.API("POST", "repos/alice/proj/branches", alice.Token, map[string]any{"new_branch_name": "feature", "old_branch_name": "main"}), http.StatusCreated, "create feature")
	mustStatus(t, s.API("POST", "repos/alice/proj/branches", alice.Token, map[string]any{"new_branch_name": "release/1.0", "old_branch_name": "main"}), http.StatusCreated, "create release/1.0")
	prCommit(t, s, alice.Token, full, "feature", "", map[string]string{"f.txt": "feature"})
	prCommit(t, s, alice.Token, full, "release/1.0", "", map[string]string{"r.txt": "release"})
	relHead := prBranchSHA(t, s, alice.Token, full, "release/1.0")

	onlyMain.waitFor(whAnd(whIs("push", "push", ""), "ref", "refs/heads/main", "after", mainHead), "main filter: push to main")
	glob.waitFor(whAnd(whIs("push", "push", ""), "ref", "refs/heads/main", "after", mainHead), "glob filter: push to main")
	glob.waitFor(whAnd(whIs("create", "create", ""), "ref", "release/1.0"), "glob filter: create release/1.0")
	glob.waitFor(whAnd(whIs("push", "push", ""), "ref", "refs/heads/release/1.0", "after", relHead), "glob filter: push to release/1.0")

	time.Sleep(1500 * time.Millisecond)
	onlyMain.none(func(r whRequest) bool { return r.str("ref") != "refs/heads/main" }, 0, "main filter let another branch through")
	glob.none(func(r whRequest) bool { return r.str("ref") == "feature" || r.str("ref") == "refs/heads/feature" }, 0, "glob filter let feature through")
}

package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// refsOf returns the cross-reference entries of a timeline.
func refsOf(list []timelineEntry) []timelineEntry {
	var out []timelineEntry
	for _, c := range list {
		switch c.Type {
		case "issue_ref", "comment_ref", "pull_ref":
			out = append(out, c)
		}
	}
	return out
}

// TestMentions: @name mentions notify existing users who can read the
// issue, mark them for the mentioned_by filter, and skip code, unknown names
// and the doer.
func TestMentions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	createRepo(t, s, alice, "proj", false)

	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token),
		JSON(map[string]any{"title": "Mentions", "body": "@Bob, see this. Not `@carol`, not @ghost-user, not me @alice.\n```\n@carol\n```"})), http.StatusCreated, "create")
	if got := threadsOf(t, s, bob, "api/v1/notifications", ""); len(got) != 1 || got[0].Subject.Title != "Mentions" {
		t.Fatalf("bob threads = %s", threadTitles(got))
	}
	for _, u := range []*User{carol, alice} {
		if got := threadsOf(t, s, u, "api/v1/notifications", "all=true"); len(got) != 0 {
			t.Fatalf("%s threads = %s", u.Name, threadTitles(got))
		}
	}
	list, _, err := s.Client(alice.Token).ListRepoIssues("alice", "proj", gitea.ListIssueOption{State: gitea.StateAll, MentionedBy: "bob"})
	if err != nil || len(list) != 1 || list[0].Title != "Mentions" {
		t.Fatalf("mentioned_by=bob: %v %v", list, err)
	}
	if list, _, err := s.Client(alice.Token).ListRepoIssues("alice", "proj", gitea.ListIssueOption{State: gitea.StateAll, MentionedBy: "carol"}); err != nil || len(list) != 0 {
		t.Fatalf("mentioned_by=carol: %v %v", list, err)
	}

	// A mention in a comment notifies carol, who does not watch the issue;
	// editing the comment notifies nobody again but records the mention.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/comments", Token(bob.Token), JSON(map[string]any{"body": "(@carol) what do you think?"})), http.StatusCreated, "comment")
	if got := threadsOf(t, s, carol, "api/v1/notifications", ""); len(got) != 1 {
		t.Fatalf("carol threads = %s", threadTitles(got))
	}
	if n := newCount(t, s, bob); n != 1 {
		t.Fatalf("bob's own comment changed his count: %d", n)
	}
}

// TestTeamMentions: "@org/team" in an issue of the organization's
// repository notifies and marks the team's members when the team has the
// repository and reads its issues; other teams, other organizations' teams
// and the doer are left out.
func TestTeamMentions(t *testing.T) {
	s := StartServer(t)
	owner := s.CreateUser("owner")
	dev := s.CreateUser("dev")
	coder := s.CreateUser("coder")
	outsider := s.CreateUser("outsider")
	s.CreateUser("other")
	mustStatus(t, s.Do("POST", "api/v1/orgs", Token(owner.Token), JSON(map[string]any{"username": "acme", "visibility": "public"})), http.StatusCreated, "org")
	mustStatus(t, s.Do("POST", "api/v1/orgs", Token(owner.Token), JSON(map[string]any{"username": "rival"})), http.StatusCreated, "second org")
	mustStatus(t, s.Do("POST", "api/v1/orgs/acme/repos", Token(owner.Token), JSON(map[string]any{"name": "app", "private": true})), http.StatusCreated, "repo")
	team := func(org, name string, units []string, all bool, member *User, repo string) {
		t.Helper()
		var tm struct {
			ID int64 `json:"id"`
		}
		resp := s.Do("POST", "api/v1/orgs/"+org+"/teams", Token(owner.Token), JSON(map[string]any{"name": name, "permission": "write",
			"units": units, "includes_all_repositories": all}))
		mustStatus(t, resp, http.StatusCreated, "team "+name)
		resp.Decode(t, &tm)
		mustStatus(t, s.Do("PUT", fmt.Sprintf("api/v1/teams/%d/members/%s", tm.ID, member.Name), Token(owner.Token)), http.StatusNoContent, "member of "+name)
		if repo != "" {
			mustStatus(t, s.Do("PUT", fmt.Sprintf("api/v1/teams/%d/repos/%s/%s", tm.ID, org, repo), Token(owner.Token)), http.StatusNoContent, "repo of "+name)
		}
	}
	team("acme", "devs", []string{"repo.code", "repo.issues"}, false, dev, "app")
	team("acme", "coders", []string{"repo.code"}, true, coder, "")
	team("acme", "idle", []string{"repo.issues"}, false, outsider, "")
	team("rival", "devs", []string{"repo.issues"}, true, outsider, "")

	mustStatus(t, s.Do("POST", "api/v1/repos/acme/app/issues", Token(owner.Token), JSON(map[string]any{"title": "Teams",
		"body": "@acme/devs @acme/Coders @acme/idle @rival/devs @acme/nobody, and `@acme/devs` in code"})), http.StatusCreated, "create")
	if got := threadsOf(t, s, dev, "api/v1/notifications", ""); len(got) != 1 || got[0].Subject.Title != "Teams" {
		t.Fatalf("dev threads = %s", threadTitles(got))
	}
	for _, u := range []*User{coder, outsider, owner} {
		if got := threadsOf(t, s, u, "api/v1/notifications", "all=true"); len(got) != 0 {
			t.Fatalf("%s threads = %s", u.Name, threadTitles(got))
		}
	}
	list, _, err := s.Client(owner.Token).ListRepoIssues("acme", "app", gitea.ListIssueOption{State: gitea.StateAll, MentionedBy: "dev"})
	if err != nil || len(list) != 1 || list[0].Title != "Teams" {
		t.Fatalf("mentioned_by=dev: %v %v", list, err)
	}
	// A team mention in a comment works the same way.
	mustStatus(t, s.Do("POST", "api/v1/repos/acme/app/issues", Token(owner.Token), JSON(map[string]any{"title": "Quiet"})), http.StatusCreated, "second issue")
	mustStatus(t, s.Do("POST", "api/v1/repos/acme/app/issues/2/comments", Token(owner.Token), JSON(map[string]any{"body": "ping @acme/devs"})), http.StatusCreated, "comment")
	if got := threadsOf(t, s, dev, "api/v1/notifications", ""); len(got) != 2 {
		t.Fatalf("dev threads after the comment = %s", threadTitles(got))
	}
}

// TestReferences: #N and owner/repo#N in issues and comments create
// issue_ref and comment_ref events on the issues named, once, shown only to
// those who can read where the reference was made.
func TestReferences(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	eve := s.CreateUser("eve")
	createRepo(t, s, alice, "proj", false)
	createRepo(t, s, alice, "hidden", true)
	createRepo(t, s, bob, "other", false)

	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": "Target"})), http.StatusCreated, "target")
	// Same repository, from an issue body.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": "Source", "body": "Related to #1 and #99 and #2"})), http.StatusCreated, "source")
	refs := refsOf(timelineOf(t, s, eve, "alice/proj", 1, ""))
	if len(refs) != 1 || refs[0].Type != "issue_ref" || refs[0].RefIssue == nil || refs[0].RefIssue.Index != 2 ||
		refs[0].RefAction != "none" || refs[0].Poster == nil || refs[0].Poster.UserName != "alice" {
		t.Fatalf("refs on #1 = %+v", refs)
	}
	if refs := refsOf(timelineOf(t, s, eve, "alice/proj", 2, "")); len(refs) != 0 {
		t.Fatalf("self reference recorded: %+v", refs)
	}

	// Another repository, from a comment; editing the comment keeps one event,
	// and removing the reference neuters it.
	mustStatus(t, s.Do("POST", "api/v1/repos/bob/other/issues", Token(bob.Token), JSON(map[string]any{"title": "Elsewhere"})), http.StatusCreated, "elsewhere")
	r := s.Do("POST", "api/v1/repos/bob/other/issues/1/comments", Token(bob.Token), JSON(map[string]any{"body": "see alice/proj#1."}))
	mustStatus(t, r, http.StatusCreated, "cross comment")
	var cm gitea.Comment
	r.Decode(t, &cm)
	mustStatus(t, s.Do("PATCH", fmt.Sprintf("api/v1/repos/bob/other/issues/comments/%d", cm.ID), Token(bob.Token), JSON(map[string]any{"body": "see alice/proj#1 (edited)"})), http.StatusOK, "edit")
	refs = refsOf(timelineOf(t, s, eve, "alice/proj", 1, ""))
	if len(refs) != 2 || refs[1].Type != "comment_ref" || refs[1].RefIssue == nil || refs[1].RefIssue.Title != "Elsewhere" ||
		refs[1].RefComment == nil || refs[1].RefComment.ID != cm.ID || refs[1].RefAction != "none" {
		t.Fatalf("refs after cross comment = %+v", refs)
	}
	mustStatus(t, s.Do("PATCH", fmt.Sprintf("api/v1/repos/bob/other/issues/comments/%d", cm.ID), Token(bob.Token), JSON(map[string]any{"body": "never mind"})), http.StatusOK, "edit away")
	refs = refsOf(timelineOf(t, s, eve, "alice/proj", 1, ""))
	if len(refs) != 2 || refs[1].RefAction != "neutered" {
		t.Fatalf("refs after removing the reference = %+v", refs)
	}
	// Editing the issue body with the same reference adds nothing.
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/issues/2", Token(alice.Token), JSON(map[string]any{"body": "Related to #1, still"})), http.StatusCreated, "edit body")
	if refs := refsOf(timelineOf(t, s, eve, "alice/proj", 1, "")); len(refs) != 2 || refs[0].RefAction != "none" {
		t.Fatalf("refs after editing the body = %+v", refs)
	}

	// A private repository referencing a public issue: the event is there for
	// those who can read the private repository, and hidden from others.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/hidden/issues", Token(alice.Token), JSON(map[string]any{"title": "Secret plan", "body": "fixes alice/proj#1"})), http.StatusCreated, "hidden source")
	if refs := refsOf(timelineOf(t, s, alice, "alice/proj", 1, "")); len(refs) != 3 || refs[2].RefIssue == nil || refs[2].RefIssue.Title != "Secret plan" {
		t.Fatalf("alice sees refs = %+v", refs)
	}
	for _, u := range []*User{eve, nil} {
		tl := timelineOf(t, s, u, "alice/proj", 1, "")
		if refs := refsOf(tl); len(refs) != 2 {
			t.Fatalf("private reference leaked: %+v", refs)
		}
		for _, c := range tl {
			if c.RefIssue != nil && c.RefIssue.Title == "Secret plan" {
				t.Fatalf("private issue leaked: %+v", c)
			}
		}
	}

	// A reference the doer cannot read is ignored: eve names the private issue.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(eve.Token), JSON(map[string]any{"title": "Probe", "body": "alice/hidden#1"})), http.StatusCreated, "probe")
	if refs := refsOf(timelineOf(t, s, alice, "alice/hidden", 1, "")); len(refs) != 0 {
		t.Fatalf("reference to an unreadable issue recorded: %+v", refs)
	}
	// Deleting a comment neuters its references.
	r = s.Do("POST", "api/v1/repos/alice/proj/issues/2/comments", Token(alice.Token), JSON(map[string]any{"body": "again #1"}))
	mustStatus(t, r, http.StatusCreated, "comment ref")
	r.Decode(t, &cm)
	mustStatus(t, s.Do("DELETE", fmt.Sprintf("api/v1/repos/alice/proj/issues/comments/%d", cm.ID), Token(alice.Token)), http.StatusNoContent, "delete comment")
	refs = refsOf(timelineOf(t, s, alice, "alice/proj", 1, ""))
	if len(refs) != 4 || refs[3].Type != "comment_ref" || refs[3].RefAction != "neutered" {
		t.Fatalf("refs after deleting the comment = %+v", refs)
	}
}

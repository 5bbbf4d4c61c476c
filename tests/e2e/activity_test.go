package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// actEntry is an Activity as the API renders it.
type actEntry struct {
	ID        int64  `json:"id"`
	UserID    int64  `json:"user_id"`
	OpType    string `json:"op_type"`
	ActUserID int64  `json:"act_user_id"`
	ActUser   *struct {
		Login string `json:"login"`
	} `json:"act_user"`
	RepoID int64 `json:"repo_id"`
	Repo   *struct {
		ID       int64  `json:"id"`
		FullName string `json:"full_name"`
		Private  bool   `json:"private"`
	} `json:"repo"`
	CommentID int64 `json:"comment_id"`
	Comment   *struct {
		ID      int64  `json:"id"`
		Body    string `json:"body"`
		HTMLURL string `json:"html_url"`
		User    struct {
			Login string `json:"login"`
		} `json:"user"`
	} `json:"comment"`
	RefName   string    `json:"ref_name"`
	IsPrivate bool      `json:"is_private"`
	Content   string    `json:"content"`
	Created   time.Time `json:"created"`
}

// actPushSummary is the content of a push action (Gitea's PushCommits).
type actPushSummary struct {
	Commits []struct {
		Sha1, Message, AuthorName, AuthorEmail, CommitterName, CommitterEmail string
		Timestamp                                                             time.Time
	}
	HeadCommit *struct{ Sha1, Message string }
	CompareURL string
	Len        int
}

// actFeed reads a feed (path below api/v1) with tok ("" signed out) and
// returns its entries and X-Total-Count.
func actFeed(t *testing.T, s *Server, path, tok string) ([]actEntry, int) {
	t.Helper()
	r := s.API("GET", path, tok, nil)
	mustStatus(t, r, http.StatusOK, "GET "+path)
	var out []actEntry
	r.Decode(t, &out)
	total, err := strconv.Atoi(r.Header.Get("X-Total-Count"))
	if err != nil {
		t.Fatalf("GET %s: X-Total-Count %q", path, r.Header.Get("X-Total-Count"))
	}
	return out, total
}

// actOps lists "op_type actor repo" of entries, newest first.
func actOps(list []actEntry) []string {
	out := make([]string, 0, len(list))
	for _, e := range list {
		repo, actor := "-", "-"
		if e.Repo != nil {
			repo = e.Repo.FullName
		}
		if e.ActUser != nil {
			actor = e.ActUser.Login
		}
		out = append(out, e.OpType+" "+actor+" "+repo)
	}
	return out
}

func actWantOps(t *testing.T, what string, list []actEntry, want []string) {
	t.Helper()
	if got := actOps(list); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// actHeatmap reads a heatmap and returns its total, checking its buckets.
func actHeatmap(t *testing.T, s *Server, name, tok string) int64 {
	t.Helper()
	r := s.API("GET", "users/"+name+"/heatmap", tok, nil)
	mustStatus(t, r, http.StatusOK, "heatmap of "+name)
	var data []struct {
		Timestamp     int64 `json:"timestamp"`
		Contributions int64 `json:"contributions"`
	}
	r.Decode(t, &data)
	var sum int64
	now := time.Now().Unix()
	for i, d := range data {
		if d.Timestamp%900 != 0 || d.Timestamp > now || d.Timestamp < now-366*86400 || d.Contributions <= 0 {
			t.Fatalf("heatmap of %s: bad bucket %+v", name, d)
		}
		if i > 0 && data[i-1].Timestamp >= d.Timestamp {
			t.Fatalf("heatmap of %s: buckets out of order: %+v", name, data)
		}
		sum += d.Contributions
	}
	return sum
}

// actPush pushes the work tree's refs to owner/name as u.
func actPush(t *testing.T, s *Server, work string, u *User, full string, args ...string) {
	t.Helper()
	remote, _ := url.Parse(s.URL + full + ".git")
	remote.User = url.UserPassword(u.Name, u.Token)
	gdGit(t, work, nil, append([]string{"push", "-q", remote.String()}, args...)...)
}

// actWorkTree makes a work tree on main with the given commits (one file each).
func actWorkTree(t *testing.T, messages ...string) string {
	t.Helper()
	work := t.TempDir()
	gdGit(t, work, nil, "init", "-q", "-b", "main", ".")
	for i, m := range messages {
		if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("f%d.txt", i)), []byte(m+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gdGit(t, work, nil, "add", ".")
		gdGit(t, work, nil, "commit", "-q", "-m", m)
	}
	return work
}

// TestActivityRecordsAndFeeds drives a repository through pushes, tags, an
// issue, a reviewed and merged pull request and a release, and reads the
// feeds: the op types in order, actors, repositories, contents, the JSON
// shape of Gitea's Activity, filters and paging.
func TestActivityRecordsAndFeeds(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	carol := s.CreateUser("carol")

	gdCreateRepo(t, s, alice, "", "proj", false)
	work := actWorkTree(t, "first commit", "second commit")
	head := gdGit(t, work, nil, "rev-parse", "HEAD")
	actPush(t, s, work, alice, "alice/proj", "main")
	gdGit(t, work, nil, "tag", "v0.1")
	actPush(t, s, work, alice, "alice/proj", "refs/tags/v0.1")
	actPush(t, s, work, alice, "alice/proj", "--delete", "refs/tags/v0.1")

	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Bug"}), http.StatusCreated, "open issue")
	var comment struct {
		ID int64 `json:"id"`
	}
	r := s.API("POST", "repos/alice/proj/issues/1/comments", alice.Token, map[string]any{"body": "Looks bad"})
	mustStatus(t, r, http.StatusCreated, "comment")
	r.Decode(t, &comment)
	mustStatus(t, s.API("PATCH", "repos/alice/proj/issues/1", alice.Token, map[string]any{"state": "closed"}), http.StatusCreated, "close issue")
	mustStatus(t, s.API("PATCH", "repos/alice/proj/issues/1", alice.Token, map[string]any{"state": "open"}), http.StatusCreated, "reopen issue")

	prCommit(t, s, alice.Token, "alice/proj", "feature", "main", map[string]string{"feature.txt": "new\n"})
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls", alice.Token, map[string]any{"head": "feature", "base": "main", "title": "Add feature"}),
		http.StatusCreated, "open pull request")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/2/reviews", carol.Token, map[string]any{"event": "REQUEST_CHANGES", "body": "Fix it"}),
		http.StatusOK, "request changes")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/2/reviews", carol.Token, map[string]any{"event": "APPROVED", "body": "LGTM\nmore"}),
		http.StatusOK, "approve")
	mustStatus(t, s.API("POST", "repos/alice/proj/issues/2/comments", carol.Token, map[string]any{"body": "Nice"}), http.StatusCreated, "comment on the pull request")
	prWaitMergeable(t, s, alice.Token, "alice/proj", 2, true)
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/2/merge", alice.Token, map[string]any{"Do": "merge"}), http.StatusOK, "merge")
	mustStatus(t, s.API("DELETE", "repos/alice/proj/branches/feature", alice.Token, nil), http.StatusNoContent, "delete branch")
	mustStatus(t, s.API("POST", "repos/alice/proj/releases", alice.Token, map[string]any{"tag_name": "v1.0", "target_commitish": "main", "name": "First"}),
		http.StatusCreated, "publish release")
	// A draft is not announced.
	mustStatus(t, s.API("POST", "repos/alice/proj/releases", alice.Token, map[string]any{"tag_name": "v2.0", "target_commitish": "main", "name": "Draft", "draft": true}),
		http.StatusCreated, "draft release")

	want := []string{
		"publish_release alice alice/proj",
		"push_tag alice alice/proj", // the release's new tag, as in Gitea
		"delete_branch alice alice/proj",
		"commit_repo alice alice/proj",
		"merge_pull_request alice alice/proj",
		"comment_pull carol alice/proj",
		"approve_pull_request carol alice/proj",
		"reject_pull_request carol alice/proj",
		"create_pull_request alice alice/proj",
		"commit_repo alice alice/proj",
		"commit_repo alice alice/proj",
		"reopen_issue alice alice/proj",
		"close_issue alice alice/proj",
		"comment_issue alice alice/proj",
		"create_issue alice alice/proj",
		"delete_tag alice alice/proj",
		"push_tag alice alice/proj",
		"commit_repo alice alice/proj",
		"commit_repo alice alice/proj",
		"create_repo alice alice/proj",
	}
	feed, total := actFeed(t, s, "repos/alice/proj/activities/feeds?limit=50", "")
	actWantOps(t, "repository feed", feed, want)
	if total != len(want) {
		t.Fatalf("X-Total-Count = %d, want %d", total, len(want))
	}
	byOp := func(op string, nth int) actEntry {
		t.Helper()
		for _, e := range feed {
			if e.OpType == op {
				if nth == 0 {
					return e
				}
				nth--
			}
		}
		t.Fatalf("no %s in the feed", op)
		return actEntry{}
	}

	// Contents, references and comments, as Gitea stores them.
	if e := byOp("publish_release", 0); e.Content != "First" || e.RefName != "refs/tags/v1.0" {
		t.Errorf("publish_release = %q %q", e.Content, e.RefName)
	}
	if e := byOp("delete_branch", 0); e.RefName != "refs/heads/feature" || e.Content != "" {
		t.Errorf("delete_branch = %q %q", e.RefName, e.Content)
	}
	if e := byOp("merge_pull_request", 0); e.Content != "2|Add feature" {
		t.Errorf("merge_pull_request content %q", e.Content)
	}
	if e := byOp("approve_pull_request", 0); e.Content != "2|LGTM" || e.Comment == nil || e.Comment.Body != "LGTM\nmore" || e.Comment.User.Login != "carol" ||
		e.UserID != e.ActUserID {
		t.Errorf("approve_pull_request = %+v", e)
	}
	if e := byOp("reject_pull_request", 0); e.Content != "2|Fix it" || e.Comment == nil || e.Comment.Body != "Fix it" {
		t.Errorf("reject_pull_request = %+v", e)
	}
	if e := byOp("comment_pull", 0); e.Content != "2|Nice" || e.Comment == nil ||
		!strings.HasSuffix(e.Comment.HTMLURL, fmt.Sprintf("/alice/proj/pulls/2#issuecomment-%d", e.CommentID)) {
		t.Errorf("comment_pull = %+v", e)
	}
	if e := byOp("reopen_issue", 0); e.Content != "1|" || e.CommentID == 0 || e.CommentID == byOp("close_issue", 0).CommentID {
		t.Errorf("reopen_issue = %+v", e)
	}
	if e := byOp("create_pull_request", 0); e.Content != "2|Add feature" {
		t.Errorf("create_pull_request content %q", e.Content)
	}
	if e := byOp("close_issue", 0); e.Content != "1|" || e.CommentID == 0 {
		t.Errorf("close_issue = %q comment %d", e.Content, e.CommentID)
	}
	if e := byOp("comment_issue", 0); e.Content != "1|Looks bad" || e.CommentID != comment.ID || e.Comment == nil || e.Comment.ID != comment.ID ||
		e.Comment.Body != "Looks bad" || !strings.HasSuffix(e.Comment.HTMLURL, fmt.Sprintf("/alice/proj/issues/1#issuecomment-%d", comment.ID)) {
		t.Errorf("comment_issue = %+v", e)
	}
	if e := byOp("create_issue", 0); e.Content != "1|Bug" {
		t.Errorf("create_issue content %q", e.Content)
	}
	var summary actPushSummary
	if e := byOp("push_tag", 0); e.RefName != "refs/tags/v1.0" {
		t.Errorf("release tag push = %q", e.RefName)
	}
	if e := byOp("push_tag", 1); e.RefName != "refs/tags/v0.1" || json.Unmarshal([]byte(e.Content), &summary) != nil ||
		summary.HeadCommit == nil || summary.HeadCommit.Sha1 != head || summary.Len != 0 || !strings.HasPrefix(summary.CompareURL, "alice/proj/compare/0000") {
		t.Errorf("push_tag = %q %q", e.RefName, e.Content)
	}
	if e := byOp("delete_tag", 0); e.Content != `{"Commits":[],"HeadCommit":null,"CompareURL":"","Len":0}` {
		t.Errorf("delete_tag content %q", e.Content)
	}
	// The first push: the new branch, then its two commits.
	created, pushed := byOp("commit_repo", 4), byOp("commit_repo", 3)
	if created.Content != "" || created.RefName != "refs/heads/main" {
		t.Errorf("branch creation = %q %q", created.RefName, created.Content)
	}
	summary = actPushSummary{}
	if err := json.Unmarshal([]byte(pushed.Content), &summary); err != nil {
		t.Fatalf("push content %q: %v", pushed.Content, err)
	}
	if summary.Len != 2 || len(summary.Commits) != 2 || summary.Commits[0].Sha1 != head || strings.TrimSpace(summary.Commits[0].Message) != "second commit" ||
		strings.TrimSpace(summary.Commits[1].Message) != "first commit" || summary.Commits[0].AuthorEmail != "author@example.com" ||
		summary.Commits[0].CommitterName != "Test Committer" || summary.Commits[0].Timestamp.IsZero() ||
		summary.HeadCommit == nil || summary.HeadCommit.Sha1 != head || summary.CompareURL != "alice/proj/compare/"+strings.Repeat("0", 40)+"..."+head {
		t.Errorf("first push summary = %+v", summary)
	}
	// The merge moved main by the feature commit and the merge commit.
	summary = actPushSummary{}
	if e := byOp("commit_repo", 0); json.Unmarshal([]byte(e.Content), &summary) != nil || summary.Len != 2 || len(summary.Commits) != 2 ||
		!strings.HasPrefix(summary.CompareURL, "alice/proj/compare/"+head+"...") {
		t.Errorf("merge push = %q", e.Content)
	}

	// Gitea's Activity, key for key.
	r = s.API("GET", "repos/alice/proj/activities/feeds?limit=1", "", nil)
	var raw []map[string]json.RawMessage
	r.Decode(t, &raw)
	var keys []string
	for k := range raw[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "act_user,act_user_id,comment,comment_id,content,created,id,is_private,op_type,ref_name,repo,repo_id,user_id" {
		t.Fatalf("Activity keys = %s", got)
	}
	if e := feed[0]; e.ActUserID != alice.ID || e.RepoID != e.Repo.ID || e.IsPrivate || e.Created.IsZero() || time.Since(e.Created) > time.Hour {
		t.Errorf("first entry = %+v", e)
	}

	// Paging: X-Total-Count and pages that follow each other.
	p2, total := actFeed(t, s, "repos/alice/proj/activities/feeds?limit=3&page=2", "")
	if total != len(want) || len(p2) != 3 || p2[0].ID != feed[3].ID || p2[2].ID != feed[5].ID {
		t.Fatalf("page 2 = %v (total %d)", actOps(p2), total)
	}
	if r := s.API("GET", "repos/alice/proj/activities/feeds?limit=3&page=2", "", nil); !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Errorf("Link = %q", r.Header.Get("Link"))
	}
	if last, total := actFeed(t, s, "repos/alice/proj/activities/feeds?limit=10&page=9", ""); len(last) != 0 || total != len(want) {
		t.Errorf("page past the end = %d entries, total %d", len(last), total)
	}

	// The user feed: alice's own and what happens in her repositories;
	// only-performed-by leaves carol's reviews and comment out; user_id is
	// alice.
	const byCarol = 3
	mine, total := actFeed(t, s, "users/alice/activities/feeds?limit=50", "")
	if total != len(want) || mine[0].UserID != alice.ID {
		t.Fatalf("alice's feed: total %d, user_id %d", total, mine[0].UserID)
	}
	only, total := actFeed(t, s, "users/alice/activities/feeds?limit=50&only-performed-by=true", carol.Token)
	if total != len(want)-byCarol || len(only) != len(want)-byCarol {
		t.Fatalf("only-performed-by: total %d, %d entries", total, len(only))
	}
	for _, e := range only {
		if e.ActUserID != alice.ID {
			t.Fatalf("only-performed-by lists %s", e.OpType)
		}
	}
	carols, _ := actFeed(t, s, "users/carol/activities/feeds", "")
	actWantOps(t, "carol's feed", carols, []string{"comment_pull carol alice/proj", "approve_pull_request carol alice/proj",
		"reject_pull_request carol alice/proj"})
	today := time.Now().Format("2006-01-02")
	if _, total := actFeed(t, s, "users/alice/activities/feeds?date="+today, ""); total != len(want) {
		t.Errorf("date=%s: total %d", today, total)
	}
	if list, total := actFeed(t, s, "users/alice/activities/feeds?date=2001-02-03", ""); total != 0 || len(list) != 0 {
		t.Errorf("date in the past: total %d", total)
	}

	// A page costs the same number of queries whatever its size (the small
	// pages already hold a comment and an issue, whose loads are batched).
	for path, n := range map[string]int{"repos/alice/proj/activities/feeds": 6, "users/alice/activities/feeds": 6, "users/carol/activities/feeds": 1} {
		small := s.API("GET", fmt.Sprintf("%s?limit=%d", path, n), alice.Token, nil)
		large := s.API("GET", path+"?limit=50", alice.Token, nil)
		qs, ql := small.Header.Get("X-Cairn-Query-Count"), large.Header.Get("X-Cairn-Query-Count")
		if qs == "" || qs != ql {
			t.Errorf("%s: %s queries for one entry, %s for a full page", path, qs, ql)
		}
	}

	// The heatmap counts alice's own actions.
	if n := actHeatmap(t, s, "alice", ""); n != int64(len(want)-byCarol) {
		t.Errorf("alice's heatmap = %d, want %d", n, len(want)-byCarol)
	}

	// A deleted comment leaves the feeds but still counts in the heatmap.
	mustStatus(t, s.API("DELETE", fmt.Sprintf("repos/alice/proj/issues/comments/%d", comment.ID), alice.Token, nil), http.StatusNoContent, "delete comment")
	after, total := actFeed(t, s, "repos/alice/proj/activities/feeds?limit=50", "")
	if total != len(want)-1 {
		t.Fatalf("after deleting the comment: total %d", total)
	}
	for _, e := range after {
		if e.OpType == "comment_issue" {
			t.Fatal("the deleted comment is still in the feed")
		}
	}
	if n := actHeatmap(t, s, "alice", ""); n != int64(len(want)-byCarol) {
		t.Errorf("heatmap after deleting a comment = %d", n)
	}

	// Purging carol removes her actions.
	mustStatus(t, s.Do("DELETE", "api/v1/admin/users/carol?purge=true", Token(s.AdminTok)), http.StatusNoContent, "purge carol")
	if _, total := actFeed(t, s, "repos/alice/proj/activities/feeds?limit=50", ""); total != len(want)-1-byCarol {
		t.Errorf("after purging carol: total %d, want %d", total, len(want)-1-byCarol)
	}

	// Unknown users and repositories.
	mustStatus(t, s.API("GET", "users/nobody/activities/feeds", "", nil), http.StatusNotFound, "feed of a missing user")
	mustStatus(t, s.API("GET", "users/nobody/heatmap", "", nil), http.StatusNotFound, "heatmap of a missing user")
	mustStatus(t, s.API("GET", "repos/alice/none/activities/feeds", "", nil), http.StatusNotFound, "feed of a missing repository")
}

// TestActivityVisibility checks who sees what: private repositories,
// hidden activity, private users, organizations and teams, deleted
// repositories.
func TestActivityVisibility(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	dave := s.CreateUser("dave", "private")

	gdCreateRepo(t, s, alice, "", "open", false)
	gdCreateRepo(t, s, alice, "", "secret", true)
	work := actWorkTree(t, "one")
	actPush(t, s, work, alice, "alice/open", "main")
	actPush(t, s, work, alice, "alice/secret", "main")
	mustStatus(t, s.API("POST", "repos/alice/secret/issues", alice.Token, map[string]any{"title": "Hidden plan"}), http.StatusCreated, "private issue")

	// alice sees her private repository's actions, marked private.
	mine, total := actFeed(t, s, "users/alice/activities/feeds?limit=50", alice.Token)
	actWantOps(t, "alice's own feed", mine, []string{
		"create_issue alice alice/secret",
		"commit_repo alice alice/secret",
		"commit_repo alice alice/secret",
		"commit_repo alice alice/open",
		"commit_repo alice alice/open",
		"create_repo alice alice/secret",
		"create_repo alice alice/open",
	})
	if total != 7 || !mine[0].IsPrivate || mine[3].IsPrivate || !mine[0].Repo.Private {
		t.Fatalf("alice's own feed: total %d, private flags %v %v", total, mine[0].IsPrivate, mine[3].IsPrivate)
	}
	// A stranger and a signed-out visitor do not.
	publicOps := []string{
		"commit_repo alice alice/open",
		"commit_repo alice alice/open",
		"create_repo alice alice/open",
	}
	for _, tok := range []string{bob.Token, ""} {
		list, total := actFeed(t, s, "users/alice/activities/feeds?limit=50", tok)
		actWantOps(t, "alice's feed seen by others", list, publicOps)
		if total != 3 || strings.Contains(fmt.Sprint(list), "Hidden plan") {
			t.Fatalf("alice's feed seen by others: total %d", total)
		}
	}
	mustStatus(t, s.API("GET", "repos/alice/secret/activities/feeds", bob.Token, nil), http.StatusNotFound, "private repository feed for a stranger")
	if list, _ := actFeed(t, s, "repos/alice/secret/activities/feeds", alice.Token); len(list) != 4 {
		t.Fatalf("private repository feed for its owner: %v", actOps(list))
	}
	if own, others := actHeatmap(t, s, "alice", alice.Token), actHeatmap(t, s, "alice", bob.Token); own != 7 || others != 3 {
		t.Fatalf("heatmap: %d for alice, %d for bob; want 7 and 3", own, others)
	}
	if anon := actHeatmap(t, s, "alice", ""); anon != 3 {
		t.Fatalf("heatmap signed out: %d", anon)
	}

	// A collaborator reads the private repository's feed, but alice's user
	// feed keeps private actions to herself, as Gitea does.
	mustStatus(t, s.API("PUT", "repos/alice/secret/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), http.StatusNoContent, "add bob")
	if list, _ := actFeed(t, s, "repos/alice/secret/activities/feeds", bob.Token); len(list) != 4 {
		t.Fatalf("private repository feed for a collaborator: %v", actOps(list))
	}
	if _, total := actFeed(t, s, "users/alice/activities/feeds", bob.Token); total != 3 {
		t.Fatalf("alice's feed for a collaborator: total %d", total)
	}
	if n := actHeatmap(t, s, "alice", bob.Token); n != 7 {
		t.Fatalf("heatmap for a collaborator: %d, want 7", n)
	}

	// Hidden activity: others see nothing, alice and the admin everything.
	mustStatus(t, s.API("PATCH", "user/settings", alice.Token, map[string]any{"hide_activity": true}), http.StatusOK, "hide activity")
	if list, total := actFeed(t, s, "users/alice/activities/feeds", bob.Token); len(list) != 0 || total != 0 {
		t.Fatalf("hidden activity seen by bob: %v", actOps(list))
	}
	if n := actHeatmap(t, s, "alice", ""); n != 0 {
		t.Fatalf("hidden heatmap signed out: %d", n)
	}
	if list, _ := actFeed(t, s, "repos/alice/open/activities/feeds", ""); len(list) != 0 {
		t.Fatalf("repository feed shows hidden activity: %v", actOps(list))
	}
	if _, total := actFeed(t, s, "users/alice/activities/feeds", alice.Token); total != 7 {
		t.Fatalf("alice's own hidden feed: total %d", total)
	}
	if _, total := actFeed(t, s, "users/alice/activities/feeds", s.AdminTok); total != 7 {
		t.Fatalf("alice's hidden feed for the admin: total %d", total)
	}
	mustStatus(t, s.API("PATCH", "user/settings", alice.Token, map[string]any{"hide_activity": false}), http.StatusOK, "show activity")

	// A private user's feed and heatmap are theirs (and the admin's).
	gdCreateRepo(t, s, dave, "", "notes", false)
	for _, tok := range []string{"", bob.Token} {
		mustStatus(t, s.API("GET", "users/dave/activities/feeds", tok, nil), http.StatusNotFound, "private user's feed")
		mustStatus(t, s.API("GET", "users/dave/heatmap", tok, nil), http.StatusNotFound, "private user's heatmap")
	}
	if list, _ := actFeed(t, s, "users/dave/activities/feeds", dave.Token); len(list) != 1 {
		t.Fatalf("dave's own feed: %v", actOps(list))
	}
	if n := actHeatmap(t, s, "dave", s.AdminTok); n != 1 {
		t.Fatalf("dave's heatmap for the admin: %d", n)
	}

	// Organizations and teams.
	mustStatus(t, s.API("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), http.StatusCreated, "create org")
	gdCreateRepo(t, s, alice, "acme", "tools", false)
	gdCreateRepo(t, s, alice, "acme", "vault", true)
	actPush(t, s, work, alice, "acme/tools", "main")
	orgOps := []string{
		"commit_repo alice acme/tools",
		"commit_repo alice acme/tools",
		"create_repo alice acme/vault",
		"create_repo alice acme/tools",
	}
	list, _ := actFeed(t, s, "orgs/acme/activities/feeds", alice.Token)
	actWantOps(t, "org feed for a member", list, orgOps)
	org := list[0].UserID
	list, _ = actFeed(t, s, "orgs/acme/activities/feeds", "")
	actWantOps(t, "org feed signed out", list, []string{orgOps[0], orgOps[1], orgOps[3]})
	if list[0].UserID != org || org == alice.ID {
		t.Fatalf("org feed user_id = %d", list[0].UserID)
	}
	var teams []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	s.API("GET", "orgs/acme/teams", alice.Token, nil).Decode(t, &teams)
	if len(teams) != 1 {
		t.Fatalf("teams = %+v", teams)
	}
	teamFeed := fmt.Sprintf("teams/%d/activities/feeds", teams[0].ID)
	list, _ = actFeed(t, s, teamFeed, alice.Token)
	actWantOps(t, "owners team feed", list, orgOps)
	mustStatus(t, s.API("GET", teamFeed, bob.Token, nil), http.StatusNotFound, "team feed for an outsider")
	mustStatus(t, s.API("GET", teamFeed, "", nil), http.StatusUnauthorized, "team feed signed out")
	if n := actHeatmap(t, s, "acme", ""); n != 3 {
		t.Fatalf("org heatmap signed out = %d, want 3", n)
	}

	// A deleted repository takes its actions along.
	mustStatus(t, s.API("DELETE", "repos/alice/secret", alice.Token, nil), http.StatusNoContent, "delete repository")
	if _, total := actFeed(t, s, "users/alice/activities/feeds?only-performed-by=true&limit=50", alice.Token); total != 3+4 {
		t.Fatalf("alice's feed after deleting secret: total %d, want 7", total)
	}
}

// TestActivityRenameAndTransfer: renaming a repository and giving it to a
// new owner are recorded (rename_repo with the old name, transfer_repo with
// the old owner/name), by whoever did it, in the repository's feed.
func TestActivityRenameAndTransfer(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	mustStatus(t, s.API("POST", "user/repos", alice.Token, map[string]any{"name": "first"}), http.StatusCreated, "create")
	mustStatus(t, s.API("PATCH", "repos/alice/first", alice.Token, map[string]any{"name": "second"}), http.StatusOK, "rename")
	// A refused rename records nothing.
	mustStatus(t, s.API("POST", "user/repos", alice.Token, map[string]any{"name": "taken"}), http.StatusCreated, "create taken")
	if r := s.API("PATCH", "repos/alice/second", alice.Token, map[string]any{"name": "taken"}); r.Status < 400 {
		t.Fatalf("rename to a taken name: %d", r.Status)
	}
	mustStatus(t, s.API("POST", "repos/alice/second/transfer", alice.Token, map[string]any{"new_owner": "bob"}), http.StatusCreated, "transfer")
	mustStatus(t, s.API("POST", "repos/alice/second/transfer/accept", bob.Token, nil), http.StatusAccepted, "bob accepts")

	list, total := actFeed(t, s, "repos/bob/second/activities/feeds", bob.Token)
	actWantOps(t, "feed of bob/second", list, []string{"transfer_repo bob bob/second", "rename_repo alice bob/second", "create_repo alice bob/second"})
	if total != 3 || list[0].Content != "alice/second" || list[1].Content != "first" {
		t.Fatalf("contents: total %d, %q, %q", total, list[0].Content, list[1].Content)
	}
}

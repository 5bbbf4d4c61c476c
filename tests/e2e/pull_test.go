package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// prCommit commits files on branch of full through the contents API,
// creating the branch from "from" when from is not "".
func prCommit(t *testing.T, s *Server, tok, full, branch, from string, files map[string]string, author ...string) {
	t.Helper()
	var ops []map[string]any
	for path, content := range files {
		op := map[string]any{"operation": "create", "path": path, "content": base64.StdEncoding.EncodeToString([]byte(content))}
		ref := branch
		if from != "" {
			ref = from
		}
		var cur struct {
			SHA string `json:"sha"`
		}
		if r := s.Do("GET", "api/v1/repos/"+full+"/contents/"+path+"?ref="+ref, Token(tok)); r.Status == http.StatusOK {
			r.Decode(t, &cur)
			op["operation"], op["sha"] = "update", cur.SHA
		}
		ops = append(ops, op)
	}
	body := map[string]any{"files": ops, "message": "change " + branch}
	if from != "" {
		body["branch"], body["new_branch"] = from, branch
	} else {
		body["branch"] = branch
	}
	if len(author) == 2 {
		body["author"] = map[string]string{"name": author[0], "email": author[1]}
	}
	mustStatus(t, s.Do("POST", "api/v1/repos/"+full+"/contents", Token(tok), JSON(body)), http.StatusCreated, "commit on "+branch)
}

// prGet reads pull request n of full.
func prGet(t *testing.T, s *Server, tok, full string, n int64) map[string]any {
	t.Helper()
	r := s.Do("GET", fmt.Sprintf("api/v1/repos/%s/pulls/%d", full, n), Token(tok))
	mustStatus(t, r, http.StatusOK, "get pull")
	var out map[string]any
	r.Decode(t, &out)
	return out
}

// prWaitMergeable waits until the check of pull request n is done and
// returns its mergeable flag.
func prWaitMergeable(t *testing.T, s *Server, tok, full string, n int64, want bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		pr := prGet(t, s, tok, full, n)
		if pr["mergeable"] == want {
			return pr
		}
		if time.Now().After(deadline) {
			t.Fatalf("pull %d of %s: mergeable never became %v: %v", n, full, want, pr["mergeable"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func prBranchSHA(t *testing.T, s *Server, tok, full, branch string) string {
	t.Helper()
	var b struct {
		Commit struct {
			ID string `json:"id"`
		} `json:"commit"`
	}
	r := s.Do("GET", "api/v1/repos/"+full+"/branches/"+branch, Token(tok))
	mustStatus(t, r, http.StatusOK, "branch "+branch)
	r.Decode(t, &b)
	return b.Commit.ID
}

func prCommitParents(t *testing.T, s *Server, tok, full, sha string) (int, string) {
	t.Helper()
	var c struct {
		Parents []struct {
			SHA string `json:"sha"`
		} `json:"parents"`
		Commit struct {
			Message string `json:"message"`
		} `json:"commit"`
	}
	r := s.Do("GET", "api/v1/repos/"+full+"/git/commits/"+sha, Token(tok))
	mustStatus(t, r, http.StatusOK, "commit "+sha)
	r.Decode(t, &c)
	return len(c.Parents), c.Commit.Message
}

// TestPullCreateListGet: a pull request from a branch, its full shape, the
// issue half, lists with filters, lookups by base and head, its diff,
// patch, files and commits, and the refused cases.
func TestPullCreateListGet(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	prCommit(t, s, alice.Token, "alice/proj", "feature", "main", map[string]string{"new.txt": "hello\n", "README.md": "changed\n"})
	c := s.Client(alice.Token)

	pr, _, err := c.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "feature", Base: "main", Title: "Add new.txt", Body: "please"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Index != 1 || pr.Title != "Add new.txt" || pr.State != gitea.StateOpen || pr.HasMerged || pr.Poster.UserName != "alice" {
		t.Fatalf("created = %+v", pr)
	}
	head := prBranchSHA(t, s, alice.Token, "alice/proj", "feature")
	if pr.Head == nil || pr.Head.Ref != "feature" || pr.Head.Name != "feature" || pr.Head.Sha != head || pr.Head.Repository == nil ||
		pr.Head.Repository.FullName != "alice/proj" || pr.Base == nil || pr.Base.Ref != "main" || pr.Base.RepoID != pr.Head.RepoID {
		t.Fatalf("head/base = %+v / %+v", pr.Head, pr.Base)
	}
	if !strings.HasSuffix(pr.DiffURL, "/alice/proj/pulls/1.diff") || !strings.HasSuffix(pr.PatchURL, "/alice/proj/pulls/1.patch") ||
		!strings.HasSuffix(pr.HTMLURL, "/alice/proj/pulls/1") {
		t.Fatalf("urls = %s %s %s", pr.HTMLURL, pr.DiffURL, pr.PatchURL)
	}
	got := prWaitMergeable(t, s, alice.Token, "alice/proj", 1, true)
	if got["merge_base"] == "" || got["changed_files"].(float64) != 2 || got["additions"].(float64) < 2 {
		t.Fatalf("checked pull = merge_base %v changed_files %v additions %v", got["merge_base"], got["changed_files"], got["additions"])
	}

	// The issue half shares the numbering and the issue routes.
	is, _, err := c.GetIssue("alice", "proj", 1)
	if err != nil || is.PullRequest == nil || is.Title != "Add new.txt" {
		t.Fatalf("issue half = %+v, %v", is, err)
	}
	if _, _, err := c.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "looks good"}); err != nil {
		t.Fatal(err)
	}
	next, _, err := c.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "an issue"})
	if err != nil || next.Index != 2 {
		t.Fatalf("next issue number = %v, %v", next, err)
	}
	var repoInfo struct {
		OpenPRs int `json:"open_pr_counter"`
	}
	s.Do("GET", "api/v1/repos/alice/proj", Token(alice.Token)).Decode(t, &repoInfo)
	if repoInfo.OpenPRs != 1 {
		t.Fatalf("open_pr_counter = %d", repoInfo.OpenPRs)
	}
	var found []map[string]any
	s.Do("GET", "api/v1/repos/issues/search?type=pulls", Token(alice.Token)).Decode(t, &found)
	if len(found) != 1 || found[0]["number"].(float64) != 1 {
		t.Fatalf("issue search type=pulls = %v", found)
	}

	// Lists, lookups.
	list, resp, err := c.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{State: gitea.StateOpen, Sort: "recentupdate"})
	if err != nil || len(list) != 1 || list[0].Index != 1 || resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("list = %v %v", list, err)
	}
	if r := s.Do("GET", "api/v1/repos/alice/proj/pulls?state=closed", Token(alice.Token)); r.Status != 200 || strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("closed list = %d %s", r.Status, r.Body)
	}
	// Filters: label, milestone, poster.
	var label, milestone struct {
		ID int64 `json:"id"`
	}
	r := s.Do("POST", "api/v1/repos/alice/proj/labels", Token(alice.Token), JSON(map[string]any{"name": "bug", "color": "#ff0000"}))
	mustStatus(t, r, http.StatusCreated, "label")
	r.Decode(t, &label)
	r = s.Do("POST", "api/v1/repos/alice/proj/milestones", Token(alice.Token), JSON(map[string]any{"title": "v1"}))
	mustStatus(t, r, http.StatusCreated, "milestone")
	r.Decode(t, &milestone)
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/pulls/1", Token(alice.Token), JSON(map[string]any{"labels": []int64{label.ID}, "milestone": milestone.ID})),
		http.StatusCreated, "label and milestone")
	for q, want := range map[string]int{
		fmt.Sprintf("labels=%d", label.ID): 1, fmt.Sprintf("labels=%d", label.ID+100): 0,
		fmt.Sprintf("milestone=%d", milestone.ID): 1, fmt.Sprintf("milestone=%d", milestone.ID+100): 0,
		"poster=alice": 1, "poster=root": 0,
	} {
		var got []map[string]any
		r := s.Do("GET", "api/v1/repos/alice/proj/pulls?"+q, Token(alice.Token))
		mustStatus(t, r, http.StatusOK, "filter "+q)
		r.Decode(t, &got)
		if len(got) != want {
			t.Errorf("pulls?%s: %d, want %d", q, len(got), want)
		}
	}
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/pulls?poster=nobody", Token(alice.Token)), http.StatusUnprocessableEntity, "unknown poster")
	for _, h := range []string{"feature", "alice:feature", "alice/proj:feature"} {
		byHead, _, err := c.GetPullRequestByBaseHead("alice", "proj", "main", h)
		if err != nil || byHead.Index != 1 {
			t.Fatalf("by base and head %q = %v, %v", h, byHead, err)
		}
	}
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/pulls/main/nope", Token(alice.Token)), http.StatusNotFound, "unknown head")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/pulls/99", Token(alice.Token)), http.StatusNotFound, "unknown pull")

	// Diff, patch, files, commits.
	diff, _, err := c.GetPullRequestDiff("alice", "proj", 1, gitea.PullRequestDiffOptions{})
	if err != nil || !strings.Contains(string(diff), "+hello") || !strings.Contains(string(diff), "diff --git a/new.txt b/new.txt") {
		t.Fatalf("diff = %s, %v", diff, err)
	}
	patch, _, err := c.GetPullRequestPatch("alice", "proj", 1)
	if err != nil || !strings.HasPrefix(string(patch), "From "+head) {
		t.Fatalf("patch = %.200s, %v", patch, err)
	}
	files, resp, err := c.ListPullRequestFiles("alice", "proj", 1, gitea.ListPullRequestFilesOptions{})
	if err != nil || len(files) != 2 || resp.Header.Get("X-Total-Count") != "2" || resp.Header.Get("X-HasMore") != "false" {
		t.Fatalf("files = %v, %v", files, err)
	}
	statuses := map[string]string{}
	for _, f := range files {
		statuses[f.Filename] = f.Status
	}
	if statuses["new.txt"] != "added" || statuses["README.md"] != "modified" {
		t.Fatalf("file statuses = %v", statuses)
	}
	r = s.Do("GET", "api/v1/repos/alice/proj/pulls/1/files?limit=1&page=1", Token(alice.Token))
	if r.Header.Get("X-PageCount") != "2" || r.Header.Get("X-HasMore") != "true" {
		t.Fatalf("files paging headers = %v", r.Header)
	}
	var skipped []map[string]any
	s.Do("GET", "api/v1/repos/alice/proj/pulls/1/files?skip-to=new.txt", Token(alice.Token)).Decode(t, &skipped)
	if len(skipped) != 1 || skipped[0]["filename"] != "new.txt" {
		t.Fatalf("files?skip-to=new.txt = %v", skipped)
	}
	commits, _, err := c.ListPullRequestCommits("alice", "proj", 1, gitea.ListPullRequestCommitsOptions{})
	if err != nil || len(commits) != 1 || commits[0].SHA != head {
		t.Fatalf("commits = %v, %v", commits, err)
	}

	// Refused: a second one for the same branches, head = base, missing branch, bad names.
	for _, tc := range []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"head": "feature", "base": "main", "title": "again"}, http.StatusConflict},
		{map[string]any{"head": "main", "base": "main", "title": "same"}, http.StatusUnprocessableEntity},
		{map[string]any{"head": "nope", "base": "main", "title": "missing"}, http.StatusUnprocessableEntity},
		{map[string]any{"head": "feature", "base": "nope", "title": "missing"}, http.StatusUnprocessableEntity},
		{map[string]any{"head": "-x", "base": "main", "title": "dash"}, http.StatusUnprocessableEntity},
		{map[string]any{"head": "feature", "base": "main"}, http.StatusUnprocessableEntity},
		{map[string]any{"head": "nobody:feature", "base": "main", "title": "t"}, http.StatusNotFound},
	} {
		r := s.Do("POST", "api/v1/repos/alice/proj/pulls", Token(alice.Token), JSON(tc.body))
		if r.Status != tc.want {
			t.Errorf("create %v = %d %s, want %d", tc.body, r.Status, r.Body, tc.want)
		}
	}

	// Edit: title, body, state; PATCH answers 201.
	r = s.Do("PATCH", "api/v1/repos/alice/proj/pulls/1", Token(alice.Token), JSON(map[string]any{"title": "WIP: Add new.txt", "body": "edited"}))
	mustStatus(t, r, http.StatusCreated, "edit pull")
	var edited map[string]any
	r.Decode(t, &edited)
	if edited["title"] != "WIP: Add new.txt" || edited["body"] != "edited" || edited["draft"] != true || edited["mergeable"] != false {
		t.Fatalf("edited = title %v body %v draft %v mergeable %v", edited["title"], edited["body"], edited["draft"], edited["mergeable"])
	}
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge"})),
		http.StatusMethodNotAllowed, "merge a draft")
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/pulls/1", Token(alice.Token), JSON(map[string]any{"title": "Add new.txt", "state": "closed"})),
		http.StatusCreated, "close")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge"})),
		http.StatusMethodNotAllowed, "merge a closed pull request")
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/pulls/1", Token(alice.Token), JSON(map[string]any{"state": "open"})),
		http.StatusCreated, "reopen")

	// Retarget to another branch.
	prCommit(t, s, alice.Token, "alice/proj", "release", "main", map[string]string{"rel.txt": "r\n"})
	r = s.Do("PATCH", "api/v1/repos/alice/proj/pulls/1", Token(alice.Token), JSON(map[string]any{"base": "release"}))
	mustStatus(t, r, http.StatusCreated, "retarget")
	if got := prGet(t, s, alice.Token, "alice/proj", 1); got["base"].(map[string]any)["ref"] != "release" {
		t.Fatalf("base after retarget = %v", got["base"])
	}
	var timeline []map[string]any
	s.Do("GET", "api/v1/repos/alice/proj/issues/1/timeline", Token(alice.Token)).Decode(t, &timeline)
	kinds := map[string]bool{}
	for _, e := range timeline {
		kinds[fmt.Sprint(e["type"])] = true
	}
	if !kinds["change_target_branch"] || !kinds["close"] || !kinds["reopen"] {
		t.Fatalf("timeline kinds = %v", kinds)
	}
}

// TestPullMergeStyles: every merge style on its own pull request, the
// result on the base branch, the merged state, and the refusals.
func TestPullMergeStyles(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	c := s.Client(alice.Token)
	for i, style := range []string{"merge", "squash", "rebase", "rebase-merge", "fast-forward-only"} {
		branch := "b-" + style
		prCommit(t, s, alice.Token, "alice/proj", branch, "main", map[string]string{style + ".txt": style + "\n"})
		prCommit(t, s, alice.Token, "alice/proj", branch, "", map[string]string{style + "-2.txt": "second\n"}, "Zed Coauthor", "zed@example.com")
		pr, _, err := c.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: "style " + style})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Index != int64(i+1) {
			t.Fatalf("index = %d", pr.Index)
		}
		if style == "rebase" || style == "rebase-merge" {
			// main moves on, so the head's commits must be replayed.
			prCommit(t, s, alice.Token, "alice/proj", "main", "", map[string]string{"main-" + style + ".txt": "main\n"})
		}
		prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, true)
		before := prBranchSHA(t, s, alice.Token, "alice/proj", "main")
		head := prBranchSHA(t, s, alice.Token, "alice/proj", branch)
		if style == "fast-forward-only" && before != head {
			// Bring the branch on top of main first, so it can fast-forward.
			mustStatus(t, s.Do("POST", fmt.Sprintf("api/v1/repos/alice/proj/pulls/%d/update?style=rebase", pr.Index), Token(alice.Token)),
				http.StatusOK, "update by rebase")
			head = prBranchSHA(t, s, alice.Token, "alice/proj", branch)
			prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, true)
		}
		// A stale head commit is refused.
		r := s.Do("POST", fmt.Sprintf("api/v1/repos/alice/proj/pulls/%d/merge", pr.Index), Token(alice.Token),
			JSON(map[string]any{"Do": style, "head_commit_id": strings.Repeat("1", 40)}))
		mustStatus(t, r, http.StatusConflict, "stale head_commit_id")
		ok, _, err := c.MergePullRequest("alice", "proj", pr.Index, gitea.MergePullRequestOption{Style: gitea.MergeStyle(style), HeadCommitId: head})
		if err != nil || !ok {
			t.Fatalf("merge %s: %v %v", style, ok, err)
		}
		after := prBranchSHA(t, s, alice.Token, "alice/proj", "main")
		if fileAt(t, s, alice.Token, "alice/proj", style+".txt") != style+"\n" || fileAt(t, s, alice.Token, "alice/proj", style+"-2.txt") != "second\n" {
			t.Fatalf("%s: files missing on main", style)
		}
		parents, msg := prCommitParents(t, s, alice.Token, "alice/proj", after)
		switch style {
		case "merge", "rebase-merge":
			if parents != 2 || !strings.Contains(msg, fmt.Sprintf("(#%d)", pr.Index)) {
				t.Fatalf("%s: parents %d message %q", style, parents, msg)
			}
		case "squash":
			if parents != 1 || !strings.Contains(msg, "Co-authored-by: Zed Coauthor <zed@example.com>") {
				t.Fatalf("squash: parents %d message %q", parents, msg)
			}
		case "fast-forward-only":
			if after != head {
				t.Fatalf("fast-forward: main %s, head %s", after, head)
			}
		case "rebase":
			if parents != 1 || after == head || fileAt(t, s, alice.Token, "alice/proj", "main-rebase.txt") != "main\n" {
				t.Fatalf("rebase: parents %d, main %s head %s", parents, after, head)
			}
		}
		got := prGet(t, s, alice.Token, "alice/proj", pr.Index)
		if got["merged"] != true || got["state"] != "closed" || got["merge_commit_sha"] != after || got["merged_by"].(map[string]any)["login"] != "alice" {
			t.Fatalf("%s: merged pull = merged %v state %v sha %v (main %s)", style, got["merged"], got["state"], got["merge_commit_sha"], after)
		}
		if merged, _, _ := c.IsPullRequestMerged("alice", "proj", pr.Index); !merged {
			t.Fatalf("%s: GET merge does not say merged", style)
		}
		mustStatus(t, s.Do("POST", fmt.Sprintf("api/v1/repos/alice/proj/pulls/%d/merge", pr.Index), Token(alice.Token), JSON(map[string]any{"Do": style})),
			http.StatusMethodNotAllowed, "merge twice")
		var byCommit map[string]any
		s.Do("GET", "api/v1/repos/alice/proj/commits/"+after+"/pull", Token(alice.Token)).Decode(t, &byCommit)
		if style != "fast-forward-only" && byCommit["number"] != float64(pr.Index) {
			t.Fatalf("%s: commits/{sha}/pull = %v", style, byCommit["number"])
		}
		if before == after {
			t.Fatalf("%s: main did not move", style)
		}
	}
	// Unknown style, style turned off by the repository.
	prCommit(t, s, alice.Token, "alice/proj", "late", "main", map[string]string{"late.txt": "late\n"})
	pr, _, err := c.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "late", Base: "main", Title: "late"})
	if err != nil {
		t.Fatal(err)
	}
	prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, true)
	path := fmt.Sprintf("api/v1/repos/alice/proj/pulls/%d/merge", pr.Index)
	mustStatus(t, s.Do("POST", path, Token(alice.Token), JSON(map[string]any{"Do": "octopus"})), http.StatusUnprocessableEntity, "unknown Do")
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj", Token(alice.Token), JSON(map[string]any{"allow_squash_merge": false})), http.StatusOK, "turn squash off")
	mustStatus(t, s.Do("POST", path, Token(alice.Token), JSON(map[string]any{"Do": "squash"})), http.StatusMethodNotAllowed, "squash when off")
	if r := s.Do("GET", path, Token(alice.Token)); r.Status != http.StatusNotFound {
		t.Fatalf("GET merge of an open pull = %d", r.Status)
	}
	// Merge and delete the head branch.
	mustStatus(t, s.Do("POST", path, Token(alice.Token), JSON(map[string]any{"Do": "merge", "delete_branch_after_merge": true})), http.StatusOK, "merge and delete")
	if r := s.Do("GET", "api/v1/repos/alice/proj/branches/late", Token(alice.Token)); r.Status != http.StatusNotFound {
		t.Fatalf("head branch after delete_branch_after_merge = %d", r.Status)
	}
	got := prGet(t, s, alice.Token, "alice/proj", pr.Index)
	if h := got["head"].(map[string]any); h["label"] != "late" || h["sha"] == "" {
		t.Fatalf("head of a pull whose branch is gone = %v", h)
	}
}

// TestPullConflictAndRefs: a conflicting push to the base flips
// mergeability; refs/pull/N/head follows the head branch and cannot be
// pushed to; the head branch's deletion keeps the branch name.
func TestPullConflictAndRefs(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	prCommit(t, s, alice.Token, "alice/proj", "topic", "main", map[string]string{"a.txt": "topic\n"})
	c := s.Client(alice.Token)
	pr, _, err := c.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "topic", Base: "main", Title: "topic"})
	if err != nil {
		t.Fatal(err)
	}
	prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, true)

	work := t.TempDir()
	remote := contentsCloneURL(s, alice, "alice", "proj")
	contentsGit(t, work, "clone", "-q", remote, "w")
	dir := filepath.Join(work, "w")
	refs := contentsGit(t, dir, "ls-remote", "origin")
	head := prBranchSHA(t, s, alice.Token, "alice/proj", "topic")
	if !strings.Contains(refs, head+"\trefs/pull/1/head") {
		t.Fatalf("ls-remote lacks refs/pull/1/head at %s:\n%s", head, refs)
	}
	// A new commit on the head branch moves refs/pull/1/head.
	prCommit(t, s, alice.Token, "alice/proj", "topic", "", map[string]string{"b.txt": "more\n"})
	head2 := prBranchSHA(t, s, alice.Token, "alice/proj", "topic")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(contentsGit(t, dir, "ls-remote", "origin", "refs/pull/1/head"), head2) {
		if time.Now().After(deadline) {
			t.Fatal("refs/pull/1/head did not follow the head branch")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Pushing to refs/pull/* is refused.
	cmd := contentsGitErr(dir, "push", "origin", "+HEAD:refs/pull/1/head")
	if !strings.Contains(cmd, "refs/pull/1/head") || !strings.Contains(cmd, "kept by Cairn") {
		t.Fatalf("push to refs/pull = %s", cmd)
	}
	// A conflicting push to main makes it a conflict.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	contentsGit(t, dir, "add", "a.txt")
	contentsGit(t, dir, "commit", "-q", "-m", "conflict")
	contentsGit(t, dir, "push", "-q", "origin", "HEAD:main")
	prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, false)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge"})),
		http.StatusMethodNotAllowed, "merge with conflicts")

	// The timeline shows the push.
	var timeline []map[string]any
	s.Do("GET", "api/v1/repos/alice/proj/issues/1/timeline", Token(alice.Token)).Decode(t, &timeline)
	pushed := false
	for _, e := range timeline {
		pushed = pushed || e["type"] == "pull_push"
	}
	if !pushed {
		t.Fatal("no pull_push entry in the timeline")
	}

	// Delete the head branch: the pull request keeps the name and reads refs/pull.
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj/branches/topic", Token(alice.Token)), http.StatusNoContent, "delete head branch")
	got := prGet(t, s, alice.Token, "alice/proj", 1)
	if h := got["head"].(map[string]any); h["label"] != "topic" || h["sha"] != head2 || h["ref"] != "refs/pull/1/head" {
		t.Fatalf("head after branch deletion = %v", h)
	}
}

// contentsGitErr runs git in dir and returns its output, failing or not.
func contentsGitErr(dir string, args ...string) string {
	out, _ := clhGit(dir, args...)
	return out
}

// TestPullFromForkAndAutoMerge: a reader proposes from a fork, the owner
// merges it; the fork's deletion keeps the pull request readable; an
// auto-merge waits for a successful status.
func TestPullFromForkAndAutoMerge(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/forks", Token(bob.Token), JSON(map[string]any{})), http.StatusAccepted, "fork")
	prCommit(t, s, bob.Token, "bob/proj", "fix", "main", map[string]string{"fix.txt": "fixed\n"})
	pr, _, err := s.Client(bob.Token).CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "bob:fix", Base: "main", Title: "Fix"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Head.Repository == nil || pr.Head.Repository.FullName != "bob/proj" || pr.Head.Name != "fix" {
		t.Fatalf("fork head = %+v", pr.Head)
	}
	prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, true)
	// Bob reads but does not write alice/proj: he may not merge.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(bob.Token), JSON(map[string]any{"Do": "merge"})),
		http.StatusMethodNotAllowed, "merge by a reader")

	// Auto-merge: scheduled while the status is pending, carried out when it succeeds.
	head := prBranchSHA(t, s, bob.Token, "bob/proj", "fix")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/statuses/"+head, Token(alice.Token), JSON(map[string]any{"state": "pending", "context": "ci"})),
		http.StatusCreated, "pending status")
	r := s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge", "merge_when_checks_succeed": true}))
	mustStatus(t, r, http.StatusCreated, "schedule auto-merge")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge", "merge_when_checks_succeed": true})),
		http.StatusConflict, "schedule twice")
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token)), http.StatusNoContent, "cancel auto-merge")
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token)), http.StatusNotFound, "cancel again")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge", "merge_when_checks_succeed": true})),
		http.StatusCreated, "schedule again")
	if got := prGet(t, s, alice.Token, "alice/proj", 1); got["merged"] == true {
		t.Fatal("merged before the status succeeded")
	}
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/statuses/"+head, Token(alice.Token), JSON(map[string]any{"state": "success", "context": "ci"})),
		http.StatusCreated, "success status")
	deadline := time.Now().Add(20 * time.Second)
	for prGet(t, s, alice.Token, "alice/proj", 1)["merged"] != true {
		if time.Now().After(deadline) {
			t.Fatal("auto-merge did not happen after the status succeeded")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if fileAt(t, s, alice.Token, "alice/proj", "fix.txt") != "fixed\n" {
		t.Fatal("auto-merge did not bring fix.txt")
	}

	// The other way round: bob proposes alice's branch to his fork (head in the base's parent).
	prCommit(t, s, alice.Token, "alice/proj", "upstream", "main", map[string]string{"up.txt": "from upstream\n"})
	up, _, err := s.Client(bob.Token).CreatePullRequest("bob", "proj", gitea.CreatePullRequestOption{Head: "alice:upstream", Base: "main", Title: "Sync"})
	if err != nil {
		t.Fatal(err)
	}
	if up.Head.Repository == nil || up.Head.Repository.FullName != "alice/proj" || up.Base.Repository.FullName != "bob/proj" {
		t.Fatalf("pull from the parent: head %+v base %+v", up.Head, up.Base)
	}
	prWaitMergeable(t, s, bob.Token, "bob/proj", up.Index, true)
	if ok, _, err := s.Client(bob.Token).MergePullRequest("bob", "proj", up.Index, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge}); err != nil || !ok {
		t.Fatalf("merge the parent's branch into the fork: %v %v", ok, err)
	}
	if fileAt(t, s, bob.Token, "bob/proj", "up.txt") != "from upstream\n" {
		t.Fatal("the fork lacks the parent's change after the merge")
	}

	// Delete the fork: the pull request still answers with the branch name.
	mustStatus(t, s.Do("DELETE", "api/v1/repos/bob/proj", Token(bob.Token)), http.StatusNoContent, "delete fork")
	got := prGet(t, s, alice.Token, "alice/proj", 1)
	if h := got["head"].(map[string]any); h["label"] != "fix" || h["sha"] != head || h["repo_id"] != float64(-1) {
		t.Fatalf("head after the fork's deletion = %v", h)
	}
	diff, _, err := s.Client(alice.Token).GetPullRequestDiff("alice", "proj", 1, gitea.PullRequestDiffOptions{})
	if err != nil || !strings.Contains(string(diff), "+fixed") {
		t.Fatalf("diff after the fork's deletion = %s, %v", diff, err)
	}
}

package e2e

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// createRepo makes a repository for u through the API.
func createRepo(t *testing.T, s *Server, u *User, name string, private bool) {
	t.Helper()
	resp := s.Do("POST", "api/v1/user/repos", Token(u.Token), JSON(map[string]any{"name": name, "private": private, "auto_init": true}))
	if resp.Status != 201 {
		t.Fatalf("create repo %s: %d %s", name, resp.Status, resp.Body)
	}
}

func TestIssueLifecycleSDK(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	c := s.Client(alice.Token)

	due := time.Date(2030, 5, 17, 0, 0, 0, 0, time.UTC)
	is, _, err := c.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Crash on start", Body: "Steps…", Assignees: []string{"alice"}, Deadline: &due})
	if err != nil {
		t.Fatal(err)
	}
	if is.Index != 1 || is.Title != "Crash on start" || is.Poster.UserName != "alice" || is.State != gitea.StateOpen {
		t.Fatalf("created issue = %+v", is)
	}
	if len(is.Assignees) != 1 || is.Assignees[0].UserName != "alice" || is.Deadline == nil || is.Deadline.Year() != 2030 {
		t.Fatalf("assignees/deadline not kept: %+v %v", is.Assignees, is.Deadline)
	}

	// Edit answers 201 (Gitea's quirk), changes only what is given and never the poster.
	bob := s.CreateUser("bob")
	addCollaborator(t, s, alice, "proj", "bob", "write")
	title := "Crash on start-up"
	state := gitea.StateClosed
	resp := s.Do("PATCH", "api/v1/repos/alice/proj/issues/1", Token(bob.Token), JSON(map[string]any{"title": title, "state": state}))
	if resp.Status != http.StatusCreated {
		t.Fatalf("edit status = %d %s", resp.Status, resp.Body)
	}
	var edited gitea.Issue
	resp.Decode(t, &edited)
	if edited.Title != title || edited.State != gitea.StateClosed || edited.Poster.UserName != "alice" || edited.Body != "Steps…" {
		t.Fatalf("edited = title %q state %q poster %q body %q", edited.Title, edited.State, edited.Poster.UserName, edited.Body)
	}
	if edited.Closed == nil {
		t.Fatal("closed_at not set")
	}

	// Reopen through the SDK.
	open := gitea.StateOpen
	reopened, _, err := c.EditIssue("alice", "proj", 1, gitea.EditIssueOption{State: &open})
	if err != nil {
		t.Fatal(err)
	}
	if reopened.State != gitea.StateOpen || reopened.Closed != nil {
		t.Fatalf("reopened = %+v", reopened)
	}

	// Comments with before/since.
	cm, _, err := c.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "first"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	mid := time.Now()
	time.Sleep(1100 * time.Millisecond)
	if _, _, err := c.CreateIssueComment("alice", "proj", 1, gitea.CreateIssueCommentOption{Body: "second"}); err != nil {
		t.Fatal(err)
	}
	all, _, err := c.ListIssueComments("alice", "proj", 1, gitea.ListIssueCommentOptions{})
	if err != nil || len(all) != 2 {
		t.Fatalf("comments = %d, %v", len(all), err)
	}
	before, _, err := c.ListIssueComments("alice", "proj", 1, gitea.ListIssueCommentOptions{Before: mid})
	if err != nil || len(before) != 1 || before[0].Body != "first" {
		t.Fatalf("before filter: %v %v", before, err)
	}
	got, _, err := c.GetIssueComment("alice", "proj", cm.ID)
	if err != nil || got.Body != "first" {
		t.Fatalf("get comment: %v %v", got, err)
	}
	if _, _, err := c.EditIssueComment("alice", "proj", cm.ID, gitea.EditIssueCommentOption{Body: "first, edited"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteIssueComment("alice", "proj", cm.ID); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := c.GetIssueComment("alice", "proj", cm.ID); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted comment still answers: %v", err)
	}

	// List with filters.
	if _, _, err := c.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "Second one"}); err != nil {
		t.Fatal(err)
	}
	list, _, err := c.ListRepoIssues("alice", "proj", gitea.ListIssueOption{State: gitea.StateOpen, KeyWord: "crash"})
	if err != nil || len(list) != 1 || list[0].Index != 1 {
		t.Fatalf("keyword search: %v %v", list, err)
	}
	mine, _, err := c.ListRepoIssues("alice", "proj", gitea.ListIssueOption{State: gitea.StateAll, AssignedBy: "alice"})
	if err != nil || len(mine) != 1 {
		t.Fatalf("assigned filter: %d %v", len(mine), err)
	}
}

// addCollaborator gives user access to owner/repo through the collaborators API.
func addCollaborator(t *testing.T, s *Server, owner *User, repo, user, perm string) {
	t.Helper()
	resp := s.Do("PUT", "api/v1/repos/"+owner.Name+"/"+repo+"/collaborators/"+user, Token(owner.Token), JSON(map[string]any{"permission": perm}))
	if resp.Status != 204 {
		t.Skipf("collaborators API not available yet: %d %s", resp.Status, resp.Body)
	}
}

func TestIssueNumbersConcurrent(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "busy", false)
	const n = 50
	var wg sync.WaitGroup
	nums := make([]int, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp := s.Do("POST", "api/v1/repos/alice/busy/issues", Token(alice.Token), JSON(map[string]any{"title": fmt.Sprintf("issue %d", i)}))
			if resp.Status != 201 {
				errs[i] = fmt.Errorf("status %d: %s", resp.Status, resp.Body)
				return
			}
			var is struct {
				Number int `json:"number"`
			}
			resp.Decode(t, &is)
			nums[i] = is.Number
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Ints(nums)
	for i, got := range nums {
		if got != i+1 {
			t.Fatalf("numbers are not 1..%d: %v", n, nums)
		}
	}
	resp := s.Do("GET", "api/v1/repos/alice/busy/issues?limit=1", Token(alice.Token))
	if resp.Header.Get("X-Total-Count") != strconv.Itoa(n) {
		t.Fatalf("X-Total-Count = %s", resp.Header.Get("X-Total-Count"))
	}
}

func TestIssueGhostPoster(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	temp := s.CreateUser("temp")
	createRepo(t, s, alice, "proj", false)
	resp := s.Do("POST", "api/v1/repos/alice/proj/issues", Token(temp.Token), JSON(map[string]any{"title": "from a leaver"}))
	if resp.Status != 201 {
		t.Fatalf("create: %d %s", resp.Status, resp.Body)
	}
	if r := s.Do("DELETE", "api/v1/admin/users/temp", Token(s.AdminTok)); r.Status != 204 {
		t.Fatalf("delete user: %d %s", r.Status, r.Body)
	}
	got := s.Do("GET", "api/v1/repos/alice/proj/issues/1")
	if got.Status != 200 {
		t.Fatalf("get: %d %s", got.Status, got.Body)
	}
	var is struct {
		User struct {
			ID    int64  `json:"id"`
			Login string `json:"login"`
		} `json:"user"`
	}
	got.Decode(t, &is)
	if is.User.ID != -1 || is.User.Login != "Ghost" {
		t.Fatalf("poster = %+v, want the ghost user", is.User)
	}
	if l := s.Do("GET", "api/v1/repos/alice/proj/issues?state=all"); l.Status != 200 {
		t.Fatalf("list with ghost: %d %s", l.Status, l.Body)
	}
}

func TestIssuePermissions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	eve := s.CreateUser("eve")
	createRepo(t, s, alice, "secret", true)
	createRepo(t, s, alice, "open", false)
	if r := s.Do("POST", "api/v1/repos/alice/secret/issues", Token(alice.Token), JSON(map[string]any{"title": "hidden"})); r.Status != 201 {
		t.Fatal(r.Status)
	}
	if r := s.Do("POST", "api/v1/repos/alice/open/issues", Token(alice.Token), JSON(map[string]any{"title": "visible"})); r.Status != 201 {
		t.Fatal(r.Status)
	}
	cases := []struct {
		name, method, path, token string
		body                      any
		want                      int
	}{
		{"anon reads public", "GET", "api/v1/repos/alice/open/issues/1", "", nil, 200},
		{"anon cannot read private", "GET", "api/v1/repos/alice/secret/issues/1", "", nil, 404},
		{"stranger cannot read private", "GET", "api/v1/repos/alice/secret/issues", eve.Token, nil, 404},
		{"anon cannot create", "POST", "api/v1/repos/alice/open/issues", "", map[string]any{"title": "x"}, 401},
		{"stranger can open an issue on public", "POST", "api/v1/repos/alice/open/issues", eve.Token, map[string]any{"title": "x"}, 201},
		{"stranger cannot edit others' issue", "PATCH", "api/v1/repos/alice/open/issues/1", eve.Token, map[string]any{"title": "pwned"}, 403},
		{"stranger cannot delete", "DELETE", "api/v1/repos/alice/open/issues/1", eve.Token, nil, 403},
		{"unknown issue", "GET", "api/v1/repos/alice/open/issues/999", alice.Token, nil, 404},
		{"bad number", "GET", "api/v1/repos/alice/open/issues/abc", alice.Token, nil, 404},
		{"bad state", "PATCH", "api/v1/repos/alice/open/issues/1", alice.Token, map[string]any{"state": "half"}, 422},
		{"empty title", "POST", "api/v1/repos/alice/open/issues", alice.Token, map[string]any{"title": "  "}, 422},
		{"foreign milestone", "POST", "api/v1/repos/alice/open/issues", alice.Token, map[string]any{"title": "m", "milestone": 9999}, 422},
		{"wrong type", "POST", "api/v1/repos/alice/open/issues", alice.Token, map[string]any{"title": 5}, 422},
	}
	for _, c := range cases {
		opts := []RequestOption{Token(c.token)}
		if c.body != nil {
			opts = append(opts, JSON(c.body))
		}
		if r := s.Do(c.method, c.path, opts...); r.Status != c.want {
			t.Errorf("%s: %s %s = %d, want %d (%s)", c.name, c.method, c.path, r.Status, c.want, r.Body)
		}
	}
	// The stranger's failed edit changed nothing.
	r := s.Do("GET", "api/v1/repos/alice/open/issues/1")
	var is gitea.Issue
	r.Decode(t, &is)
	if is.Title != "visible" {
		t.Fatalf("title changed to %q", is.Title)
	}
	// The comment of another repository is not reachable through this one.
	cr := s.Do("POST", "api/v1/repos/alice/secret/issues/1/comments", Token(alice.Token), JSON(map[string]any{"body": "private words"}))
	var cm gitea.Comment
	cr.Decode(t, &cm)
	if r := s.Do("GET", fmt.Sprintf("api/v1/repos/alice/open/issues/comments/%d", cm.ID), Token(alice.Token)); r.Status != 404 {
		t.Fatalf("comment of another repository: %d %s", r.Status, r.Body)
	}
	// Search never shows private issues to strangers.
	sr := s.Do("GET", "api/v1/repos/issues/search?state=all&q=hidden", Token(eve.Token))
	if sr.Status != 200 || string(sr.Body) != "[]\n" {
		t.Fatalf("search leaked: %d %s", sr.Status, sr.Body)
	}
	sa := s.Do("GET", "api/v1/repos/issues/search?state=all&q=hidden", Token(alice.Token))
	var found []gitea.Issue
	sa.Decode(t, &found)
	if len(found) != 1 {
		t.Fatalf("owner search = %d results", len(found))
	}
}

func TestIssueListQueryCount(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "many", false)
	for i := 0; i < 12; i++ {
		s.Do("POST", "api/v1/repos/alice/many/issues", Token(alice.Token), JSON(map[string]any{"title": fmt.Sprintf("n%d", i), "assignees": []string{"alice"}}))
	}
	small := s.Do("GET", "api/v1/repos/alice/many/issues?limit=2", Token(alice.Token)).Header.Get("X-Cairn-Query-Count")
	large := s.Do("GET", "api/v1/repos/alice/many/issues?limit=12", Token(alice.Token)).Header.Get("X-Cairn-Query-Count")
	if small == "" || small != large {
		t.Fatalf("query count depends on page size: %s vs %s", small, large)
	}
}

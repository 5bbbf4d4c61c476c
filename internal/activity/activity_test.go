package activity

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

func TestOpTypeNames(t *testing.T) {
	// Gitea 1.23's op_type enum, in ActionType order.
	want := "create_repo rename_repo star_repo watch_repo commit_repo create_issue create_pull_request transfer_repo push_tag " +
		"comment_issue merge_pull_request close_issue reopen_issue close_pull_request reopen_pull_request delete_tag delete_branch " +
		"mirror_sync_push mirror_sync_create mirror_sync_delete approve_pull_request reject_pull_request comment_pull publish_release " +
		"pull_review_dismissed pull_request_ready_for_review auto_merge_pull_request"
	var got []string
	for op := OpCreateRepo; op <= OpAutoMergePullRequest; op++ {
		got = append(got, op.String())
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("names = %s", strings.Join(got, " "))
	}
	if OpType(99).String() != "action-99" {
		t.Fatal(OpType(99).String())
	}
}

func TestExcerpt(t *testing.T) {
	if got := excerpt("short"); got != "short" {
		t.Fatal(got)
	}
	long := strings.Repeat("é", 250)
	if got := excerpt(long); len([]rune(got)) != commentExcerptLen || !strings.HasSuffix(got, "…") {
		t.Fatalf("%d runes: %q", len([]rune(got)), got)
	}
	// A word cut near the end is dropped whole.
	words := strings.Repeat("abcd ", 39) + "abcdefghijklmnop"
	if got := excerpt(words); !strings.HasSuffix(got, "abcd…") {
		t.Fatalf("%q", got)
	}
}

func TestIssueIndex(t *testing.T) {
	for _, c := range []struct {
		a    Action
		want int64
	}{
		{Action{OpType: OpCommentIssue, Content: "12|hello|x"}, 12},
		{Action{OpType: OpCloseIssue, Content: "3|"}, 3},
		{Action{OpType: OpMergePullRequest, Content: "7|Title"}, 7},
		{Action{OpType: OpCommitRepo, Content: "12|x"}, 0},
		{Action{OpType: OpCreateIssue, Content: "x|y"}, 0},
	} {
		if got := c.a.IssueIndex(); got != c.want {
			t.Errorf("%v %q: %d, want %d", c.a.OpType, c.a.Content, got, c.want)
		}
	}
}

// env is an activity service on a test database, with users and
// repositories made directly.
type env struct {
	ctx    context.Context
	db     *db.DB
	s      *Service
	users  *user.Service
	repos  *repo.Service
	issues *issue.Service
}

func setup(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	d := dbtest.Open(t)
	users := user.NewService(d, user.Options{PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	repos := repo.NewService(d, nil, users, &config.Config{DataDir: t.TempDir()}, nil)
	issues := issue.NewService(d, repos, users.Store)
	checker := access.NewChecker(d)
	pulls := pull.NewService(d, repos, issues, users.Store, checker, pull.Options{})
	s := NewService(d, repos, issues, pulls, users.Store, checker)
	repos.AddCreateHook(s.OnRepoCreated)
	repos.AddDeleteHook(s.DeleteRepoData)
	issues.AddTxListener(s.OnIssueEvent)
	users.AddDeleteHook(s.UserDeleteHook())
	return &env{ctx: ctx, db: d, s: s, users: users, repos: repos, issues: issues}
}

func (e *env) user(t *testing.T, name string, vis user.Visibility) *user.User {
	t.Helper()
	u, err := e.users.Create(e.ctx, user.CreateOptions{Name: name, Email: name + "@example.org", Password: "secret-pw-1", Active: true, Visibility: vis})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// repo stores a repository of owner and records its creation.
func (e *env) repo(t *testing.T, owner *user.User, name string, private bool) *repo.Repository {
	t.Helper()
	r := &repo.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, DefaultBranch: "main", ObjectFormat: "sha1", IsPrivate: private,
		Units:    map[string]bool{repo.UnitCode: true, repo.UnitIssues: true, repo.UnitPulls: true, repo.UnitReleases: true},
		Settings: repo.DefaultSettings(true, true)}
	if err := e.repos.Store.Insert(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := e.s.OnRepoCreated(e.ctx, owner, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) issue(t *testing.T, doer *user.User, r *repo.Repository, title string) *issue.Issue {
	t.Helper()
	is, err := e.issues.Create(e.ctx, doer, r, issue.CreateOptions{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	return is
}

func ops(list []*Action) string {
	var out []string
	for _, a := range list {
		out = append(out, a.OpType.String()+" "+a.ActUser.Name+" "+a.Repo.Name)
	}
	return strings.Join(out, ", ")
}

func (e *env) list(t *testing.T, q Query) ([]*Action, int64) {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 50
	}
	list, total, err := e.s.List(e.ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	return list, total
}

func (e *env) heat(t *testing.T, viewer, u *user.User) int64 {
	t.Helper()
	hm, err := e.s.Heatmap(e.ctx, viewer, u)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, h := range hm {
		if h.Timestamp%heatmapBucket != 0 {
			t.Fatalf("bucket %d", h.Timestamp)
		}
		n += h.Contributions
	}
	return n
}

func TestFeedsAndVisibility(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice", user.VisibilityPublic)
	bob := e.user(t, "bob", user.VisibilityPublic)
	carol := e.user(t, "carol", user.VisibilityPublic)
	dave := e.user(t, "dave", user.VisibilityPublic)

	pub := e.repo(t, alice, "pub", false)
	priv := e.repo(t, alice, "priv", true)
	pubIssue := e.issue(t, alice, pub, "Public bug")
	e.issue(t, alice, priv, "Secret bug")
	c, err := e.issues.CreateComment(e.ctx, bob, pub, pubIssue, "me too")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.repos.AddCollaborator(e.ctx, priv, carol, int(access.ModeRead)); err != nil {
		t.Fatal(err)
	}
	if err := e.repos.SetWatch(e.ctx, dave.ID, pub.ID, true); err != nil {
		t.Fatal(err)
	}

	// alice's own view: everything, newest first, user_id is alice.
	list, total := e.list(t, Query{Viewer: alice, User: alice, IncludePrivate: true})
	if got := ops(list); total != 5 || got != "comment_issue bob pub, create_issue alice priv, create_issue alice pub, create_repo alice priv, create_repo alice pub" {
		t.Fatalf("alice's feed (%d): %s", total, got)
	}
	if list[0].UserID != alice.ID || list[0].Comment == nil || list[0].Comment.ID != c.ID || list[0].Issue == nil || list[0].Issue.ID != pubIssue.ID ||
		list[0].Content != "1|me too" || list[0].Repo.OwnerName != "alice" {
		t.Fatalf("comment action = %+v", list[0])
	}
	// A stranger: no private repository, even with IncludePrivate.
	list, total = e.list(t, Query{Viewer: bob, User: alice, IncludePrivate: true})
	if got := ops(list); total != 3 || got != "comment_issue bob pub, create_issue alice pub, create_repo alice pub" {
		t.Fatalf("alice's feed for bob (%d): %s", total, got)
	}
	// The collaborator reads the private repository, but not in a feed
	// that leaves private actions out.
	if _, total = e.list(t, Query{Viewer: carol, User: alice}); total != 3 {
		t.Fatalf("alice's public feed for carol: %d", total)
	}
	if _, total = e.list(t, Query{Viewer: carol, Repo: priv, IncludePrivate: true}); total != 2 {
		t.Fatalf("priv's feed for carol: %d", total)
	}
	if _, total = e.list(t, Query{Viewer: bob, Repo: priv, IncludePrivate: true}); total != 0 {
		t.Fatalf("priv's feed for bob: %d", total)
	}
	// only-performed-by.
	if list, _ = e.list(t, Query{Viewer: nil, User: alice, OnlyPerformedBy: true}); ops(list) != "create_issue alice pub, create_repo alice pub" {
		t.Fatalf("only alice's: %s", ops(list))
	}

	// Dashboards: watched, collaborated on, own.
	for _, c := range []struct {
		u    *user.User
		want string
	}{
		{dave, "comment_issue bob pub, create_issue alice pub, create_repo alice pub"},
		{carol, "create_issue alice priv, create_repo alice priv"},
		{bob, "comment_issue bob pub"},
	} {
		list, total, err := e.s.Feed(e.ctx, c.u, FeedOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := ops(list); got != c.want || int(total) != len(list) || list[0].UserID != c.u.ID {
			t.Errorf("%s's dashboard (%d): %s", c.u.Name, total, got)
		}
	}

	// Heatmaps count what the viewer may read.
	if n := e.heat(t, alice, alice); n != 4 {
		t.Errorf("alice's heatmap for herself: %d", n)
	}
	if n := e.heat(t, nil, alice); n != 2 {
		t.Errorf("alice's heatmap signed out: %d", n)
	}
	if n := e.heat(t, carol, alice); n != 4 {
		t.Errorf("alice's heatmap for carol: %d", n)
	}

	// Hidden activity.
	alice.HideActivity = true
	if list, total = e.list(t, Query{Viewer: bob, User: alice}); total != 0 || len(list) != 0 {
		t.Errorf("hidden feed: %s", ops(list))
	}
	if n := e.heat(t, bob, alice); n != 0 {
		t.Errorf("hidden heatmap: %d", n)
	}
	if _, total = e.list(t, Query{Viewer: alice, User: alice, IncludePrivate: true}); total != 5 {
		t.Errorf("own hidden feed: %d", total)
	}
	alice.HideActivity = false

	// A deleted comment leaves the feeds, not the heatmap.
	if err := e.issues.DeleteComment(e.ctx, bob, pub, pubIssue, c); err != nil {
		t.Fatal(err)
	}
	if _, total = e.list(t, Query{Viewer: nil, Repo: pub, IncludePrivate: true}); total != 2 {
		t.Errorf("pub's feed after the comment's deletion: %d", total)
	}
	if n := e.heat(t, nil, bob); n != 1 {
		t.Errorf("bob's heatmap after the deletion: %d", n)
	}

	// Old actions: out of the heatmap, found by date.
	e.s.now = func() time.Time { return time.Now().AddDate(-2, 0, 0) }
	e.issue(t, alice, pub, "Ancient")
	e.s.now = time.Now
	if n := e.heat(t, nil, alice); n != 2 {
		t.Errorf("heatmap with an old action: %d", n)
	}
	day := time.Now().AddDate(-2, 0, 0).Format("2006-01-02")
	if list, _ = e.list(t, Query{Viewer: nil, User: alice, Date: day}); ops(list) != "create_issue alice pub" || list[0].Content != "2|Ancient" {
		t.Errorf("date %s: %s", day, ops(list))
	}
	if list, _ = e.list(t, Query{Viewer: nil, User: alice, Date: "not-a-date"}); len(list) != 3 {
		t.Errorf("a malformed date filters nothing: %s", ops(list))
	}

	// A deleted repository's actions go with it; a deleted user's too.
	if err := e.repos.Delete(e.ctx, priv); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM action WHERE repo_id = ?", priv.ID); n != 0 {
		t.Errorf("%d actions of the deleted repository left", n)
	}
	if err := e.users.Delete(e.ctx, bob, true); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM action WHERE act_user_id = ?", bob.ID); n != 0 {
		t.Errorf("%d actions of the deleted user left", n)
	}
}

// TestFeedQueryCount: a page costs the same number of queries whatever
// its size and however many repositories, actors and comments it shows.
func TestFeedQueryCount(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice", user.VisibilityPublic)
	bob := e.user(t, "bob", user.VisibilityPublic)
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		r := e.repo(t, alice, name, false)
		is := e.issue(t, alice, r, "issue "+name)
		if _, err := e.issues.CreateComment(e.ctx, bob, r, is, "comment on "+name); err != nil {
			t.Fatal(err)
		}
		if err := e.repos.SetWatch(e.ctx, bob.ID, r.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	count := func(limit int, f func(ctx context.Context) ([]*Action, error)) int64 {
		var n atomic.Int64
		list, err := f(db.WithQueryCounter(e.ctx, &n))
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != limit {
			t.Fatalf("%d actions, want %d", len(list), limit)
		}
		return n.Load()
	}
	for _, viewer := range []*user.User{nil, bob} {
		feed := func(limit int) func(ctx context.Context) ([]*Action, error) {
			return func(ctx context.Context) ([]*Action, error) {
				list, _, err := e.s.List(ctx, Query{Viewer: viewer, User: alice, Limit: limit})
				return list, err
			}
		}
		if small, large := count(1, feed(1)), count(18, feed(18)); small != large {
			t.Errorf("user feed: %d queries for 1 action, %d for 18", small, large)
		}
	}
	dash := func(limit int) func(ctx context.Context) ([]*Action, error) {
		return func(ctx context.Context) ([]*Action, error) {
			list, _, err := e.s.Feed(ctx, bob, FeedOptions{Limit: limit})
			return list, err
		}
	}
	if small, large := count(1, dash(1)), count(18, dash(18)); small != large {
		t.Errorf("dashboard: %d queries for 1 action, %d for 18", small, large)
	}
}

package issue

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/templates"
	"github.com/cairn-forge/cairn/internal/user"
)

// lblEnv is a database with one user, one repository and one issue service
// that records the events it announces.
type lblEnv struct {
	ctx    context.Context
	db     *db.DB
	s      *Service
	doer   *user.User
	repo   *repo.Repository
	mu     sync.Mutex
	events []EventKind
}

func lblSetup(t *testing.T) *lblEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	users := user.NewService(d, user.Options{PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	u, err := users.Create(ctx, user.CreateOptions{Name: "alice", Email: "alice@example.org", Password: "secret-pw", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	repos := repo.NewService(d, nil, users, &config.Config{DataDir: dir}, nil)
	r := &repo.Repository{OwnerID: u.ID, OwnerName: u.Name, Name: "proj", DefaultBranch: "main", ObjectFormat: "sha1",
		Units: repos.DefaultUnits(), Settings: repo.DefaultSettings(true, true)}
	if err := repos.Store.Insert(ctx, r); err != nil {
		t.Fatal(err)
	}
	e := &lblEnv{ctx: ctx, db: d, doer: u, repo: r}
	e.s = NewService(d, repos, users.Store)
	e.s.AddListener(func(_ context.Context, ev Event) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.events = append(e.events, ev.Kind)
	})
	return e
}

// takeEvents returns the label events announced since the last call.
func (e *lblEnv) takeEvents() []EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []EventKind
	for _, k := range e.events {
		if k == EventLabelUpdated || k == EventLabelCleared {
			out = append(out, k)
		}
	}
	e.events = nil
	return out
}

func (e *lblEnv) label(t *testing.T, name string, exclusive bool) *Label {
	t.Helper()
	l, err := e.s.CreateLabel(e.ctx, LabelOwner{RepoID: e.repo.ID}, LabelOptions{Name: name, Color: "#00AA11", Exclusive: exclusive})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (e *lblEnv) issue(t *testing.T, title string) *Issue {
	t.Helper()
	is, err := e.s.Create(e.ctx, e.doer, e.repo, CreateOptions{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	return is
}

func (e *lblEnv) names(t *testing.T, is *Issue) []string {
	t.Helper()
	list, err := e.s.IssueLabels(e.ctx, is.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range list {
		out = append(out, l.Name)
	}
	return out
}

// labelEvents lists the label timeline entries of an issue as "+name"/"-name".
func (e *lblEnv) labelEvents(t *testing.T, is *Issue) []string {
	t.Helper()
	rows, err := e.db.Query(e.ctx, `SELECT l.name, COALESCE(c.content, '') FROM comment c JOIN label l ON l.id = c.label_id
		WHERE c.issue_id = ? AND c.type = ? ORDER BY c.id`, is.ID, CommentLabel)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, content string
		if err := rows.Scan(&name, &content); err != nil {
			t.Fatal(err)
		}
		switch content {
		case "1":
			out = append(out, "+"+name)
		case "":
			out = append(out, "-"+name)
		default:
			t.Fatalf("label event content %q", content)
		}
	}
	return out
}

func (e *lblEnv) counts(t *testing.T, l *Label) (int, int) {
	t.Helper()
	got, err := e.s.GetLabel(e.ctx, LabelOwner{RepoID: e.repo.ID}, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got.NumIssues, got.NumClosedIssues
}

func TestLabelColorOnePattern(t *testing.T) {
	e := lblSetup(t)
	owner := LabelOwner{RepoID: e.repo.ID}
	for _, bad := range []string{"#FFF", "red", "12345g", "", "##a1b2c3", "a1b2c3d", " #a1b2c"} {
		if _, err := e.s.CreateLabel(e.ctx, owner, LabelOptions{Name: "x", Color: bad}); !errs.Is(err, errs.KindInvalid) {
			t.Errorf("create with color %q: %v", bad, err)
		}
	}
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM label"); n != 0 {
		t.Fatalf("refused colors created %d labels", n)
	}
	l, err := e.s.CreateLabel(e.ctx, owner, LabelOptions{Name: "ok", Color: "#A1B2C3"})
	if err != nil || l.Color != "a1b2c3" {
		t.Fatalf("create #A1B2C3: %v %+v", err, l)
	}
	for _, bad := range []string{"#FFF", "red", "12345g", ""} {
		c := bad
		if err := e.s.EditLabel(e.ctx, l, LabelChanges{Color: &c}); !errs.Is(err, errs.KindInvalid) {
			t.Errorf("edit with color %q: %v", bad, err)
		}
	}
	stored, _ := e.s.GetLabel(e.ctx, owner, l.ID)
	if stored.Color != "a1b2c3" || l.Color != "a1b2c3" {
		t.Fatalf("refused edits changed the color: %q %q", stored.Color, l.Color)
	}
	c := "0F0F0F"
	if err := e.s.EditLabel(e.ctx, l, LabelChanges{Color: &c}); err != nil || l.Color != "0f0f0f" {
		t.Fatalf("edit color: %v %q", err, l.Color)
	}
}

func TestLabelIssueChangesRecordEvents(t *testing.T) {
	e := lblSetup(t)
	bug, docs := e.label(t, "bug", false), e.label(t, "docs", false)
	high, low := e.label(t, "prio/high", true), e.label(t, "prio/low", true)
	is := e.issue(t, "one")
	e.takeEvents()

	if err := e.s.AddLabels(e.ctx, e.doer, e.repo, is, []*Label{high, bug}); err != nil {
		t.Fatal(err)
	}
	if got := e.names(t, is); !slices.Equal(got, []string{"bug", "prio/high"}) {
		t.Fatalf("after add: %v", got)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []EventKind{EventLabelUpdated}) {
		t.Fatalf("add events: %v", ev)
	}
	// Adding what is there changes nothing and announces nothing.
	if err := e.s.AddLabels(e.ctx, e.doer, e.repo, is, []*Label{bug}); err != nil {
		t.Fatal(err)
	}
	if ev := e.takeEvents(); len(ev) != 0 {
		t.Fatalf("no-op add announced %v", ev)
	}
	// An exclusive label replaces the one of its scope.
	if err := e.s.AddLabels(e.ctx, e.doer, e.repo, is, []*Label{low}); err != nil {
		t.Fatal(err)
	}
	if got := e.names(t, is); !slices.Equal(got, []string{"bug", "prio/low"}) {
		t.Fatalf("after exclusive add: %v", got)
	}
	if n, _ := e.counts(t, high); n != 0 {
		t.Fatalf("prio/high still counts %d issues", n)
	}
	// Closing the issue counts it as closed for its labels.
	if err := e.s.ChangeStatus(e.ctx, e.doer, e.repo, is, true); err != nil {
		t.Fatal(err)
	}
	if n, c := e.counts(t, bug); n != 1 || c != 1 {
		t.Fatalf("bug counters = %d/%d", n, c)
	}
	// Replace keeps one label per scope: the last by name.
	e.takeEvents()
	if err := e.s.ReplaceLabels(e.ctx, e.doer, e.repo, is, []*Label{docs, low, high}); err != nil {
		t.Fatal(err)
	}
	if got := e.names(t, is); !slices.Equal(got, []string{"docs", "prio/low"}) {
		t.Fatalf("after replace: %v", got)
	}
	if n, c := e.counts(t, bug); n != 0 || c != 0 {
		t.Fatalf("bug counters after replace = %d/%d", n, c)
	}
	// Removing a label the issue does not carry changes nothing.
	if err := e.s.RemoveLabel(e.ctx, e.doer, e.repo, is, bug); err != nil {
		t.Fatal(err)
	}
	if err := e.s.RemoveLabel(e.ctx, e.doer, e.repo, is, docs); err != nil {
		t.Fatal(err)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []EventKind{EventLabelUpdated, EventLabelUpdated}) {
		t.Fatalf("replace/remove events: %v", ev)
	}
	if err := e.s.ClearLabels(e.ctx, e.doer, e.repo, is); err != nil {
		t.Fatal(err)
	}
	if ev := e.takeEvents(); !slices.Equal(ev, []EventKind{EventLabelCleared}) {
		t.Fatalf("clear events: %v", ev)
	}
	if got := e.names(t, is); len(got) != 0 {
		t.Fatalf("after clear: %v", got)
	}
	want := []string{"+bug", "+prio/high", "-prio/high", "+prio/low", "-bug", "+docs", "-docs", "-prio/low"}
	if got := e.labelEvents(t, is); !slices.Equal(got, want) {
		t.Fatalf("timeline = %v, want %v", got, want)
	}
	for _, l := range []*Label{bug, docs, high, low} {
		if n, c := e.counts(t, l); n != 0 || c != 0 {
			t.Fatalf("%s counters = %d/%d after clear", l.Name, n, c)
		}
	}
	// Deleting a label drops its timeline entries.
	if err := e.s.DeleteLabel(e.ctx, bug); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM comment WHERE label_id = ?", bug.ID); n != 0 {
		t.Fatalf("%d comments about a deleted label", n)
	}
}

func TestLabelResolve(t *testing.T) {
	e := lblSetup(t)
	bug := e.label(t, "Bug", false)
	other, err := e.s.CreateLabel(e.ctx, LabelOwner{RepoID: e.repo.ID + 1000}, LabelOptions{Name: "elsewhere", Color: "000000"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.s.ResolveLabels(e.ctx, e.repo.ID, 0, nil, []string{"bug"})
	if err != nil || len(got) != 1 || got[0].ID != bug.ID {
		t.Fatalf("by name: %v %v", got, err)
	}
	if _, err := e.s.ResolveLabels(e.ctx, e.repo.ID, 0, []int64{other.ID}, nil); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("label of another repository: %v", err)
	}
	if _, err := e.s.ResolveLabels(e.ctx, e.repo.ID, 0, nil, []string{"elsewhere"}); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("name of another repository's label: %v", err)
	}
	if _, err := e.s.ResolveLabels(e.ctx, e.repo.ID, 0, []int64{999999}, nil); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("unknown id: %v", err)
	}
}

type fakeTemplates map[string][]templates.Label

func (f fakeTemplates) LabelTemplate(name string) ([]templates.Label, error) {
	if l, ok := f[name]; ok {
		return l, nil
	}
	return nil, errs.NotFound("label template %q does not exist", name)
}

func TestLabelTemplateApplied(t *testing.T) {
	e := lblSetup(t)
	if err := e.s.ApplyLabelTemplate(e.ctx, e.repo.ID, "Default"); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("without templates: %v", err)
	}
	e.s.SetLabelTemplates(fakeTemplates{"Mini": {{Name: "kind/bug", Color: "EE0701", Exclusive: true, Description: "broken"}, {Name: "docs", Color: "#0000ff"}}})
	if err := e.s.ApplyLabelTemplate(e.ctx, e.repo.ID, "Nope"); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("unknown template: %v", err)
	}
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM label"); n != 0 {
		t.Fatalf("unknown template created %d labels", n)
	}
	if err := e.s.ApplyLabelTemplate(e.ctx, e.repo.ID, "Mini"); err != nil {
		t.Fatal(err)
	}
	list, total, err := e.s.ListOwnerLabels(e.ctx, LabelOwner{RepoID: e.repo.ID}, "", 10, 0)
	if err != nil || total != 2 {
		t.Fatalf("labels: %d %v", total, err)
	}
	if l := list[1]; l.Name != "kind/bug" || l.Color != "ee0701" || !l.Exclusive || l.Description != "broken" || l.ExclusiveScope() != "kind" {
		t.Fatalf("template label = %+v", l)
	}
	if list[0].Color != "0000ff" {
		t.Fatalf("template color not normalized: %q", list[0].Color)
	}
	// The real template set works too.
	set, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	e.s.SetLabelTemplates(set)
	if err := e.s.ApplyLabelTemplate(e.ctx, e.repo.ID, "Default"); err != nil {
		t.Fatal(err)
	}
}

func TestMilestoneService(t *testing.T) {
	e := lblSetup(t)
	due := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	v1, err := e.s.CreateMilestone(e.ctx, e.repo, MilestoneOptions{Title: "v1.0", Deadline: due})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreateMilestone(e.ctx, e.repo, MilestoneOptions{Title: "  "}); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("blank title: %v", err)
	}
	old, err := e.s.CreateMilestone(e.ctx, e.repo, MilestoneOptions{Title: "v0.9", Closed: true})
	if err != nil || !old.IsClosed || old.Closed.IsZero() {
		t.Fatalf("closed milestone: %v %+v", err, old)
	}
	repoCounts := func() (int, int) {
		var n, c int
		if err := e.db.QueryRow(e.ctx, "SELECT num_milestones, num_closed_milestones FROM repository WHERE id = ?", e.repo.ID).Scan(&n, &c); err != nil {
			t.Fatal(err)
		}
		return n, c
	}
	if n, c := repoCounts(); n != 2 || c != 1 {
		t.Fatalf("repository counters = %d/%d", n, c)
	}
	for state, want := range map[string]int{"": 1, "open": 1, "closed": 1, "all": 2, "bogus": 1} {
		if _, total, err := e.s.ListRepoMilestones(e.ctx, e.repo.ID, MilestoneFilter{State: state}, 10, 0); err != nil || total != int64(want) {
			t.Errorf("state %q: %d %v", state, total, err)
		}
	}
	if list, _, _ := e.s.ListRepoMilestones(e.ctx, e.repo.ID, MilestoneFilter{State: "all", Name: "V1"}, 10, 0); len(list) != 1 || list[0].ID != v1.ID {
		t.Fatalf("name filter: %v", list)
	}
	if list, _, _ := e.s.ListRepoMilestones(e.ctx, e.repo.ID, MilestoneFilter{State: "all", Name: "%"}, 10, 0); len(list) != 0 {
		t.Fatalf("'%%' matched %d milestones", len(list))
	}
	got, err := e.s.MilestoneByIDOrName(e.ctx, e.repo.ID, "v1.0")
	if err != nil || got.ID != v1.ID || !got.Deadline.Equal(due) {
		t.Fatalf("by name: %v %+v", err, got)
	}
	// Issue counts follow the issues.
	is := e.issue(t, "planned")
	if err := e.s.SetMilestone(e.ctx, e.doer, e.repo, is, v1.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ChangeStatus(e.ctx, e.doer, e.repo, is, true); err != nil {
		t.Fatal(err)
	}
	got, _ = e.s.GetMilestone(e.ctx, e.repo.ID, v1.ID)
	if got.NumIssues != 1 || got.NumClosedIssues != 1 {
		t.Fatalf("milestone counters = %d/%d", got.NumIssues, got.NumClosedIssues)
	}
	// Close and reopen.
	yes, no := true, false
	if err := e.s.EditMilestone(e.ctx, e.repo, got, MilestoneChanges{Closed: &yes}); err != nil || !got.IsClosed || got.Closed.IsZero() {
		t.Fatalf("close: %v %+v", err, got)
	}
	if n, c := repoCounts(); n != 2 || c != 2 {
		t.Fatalf("repository counters after close = %d/%d", n, c)
	}
	if err := e.s.EditMilestone(e.ctx, e.repo, got, MilestoneChanges{Closed: &no}); err != nil || got.IsClosed || !got.Closed.IsZero() {
		t.Fatalf("reopen: %v %+v", err, got)
	}
	// Deleting the milestone detaches its issue.
	if err := e.s.DeleteMilestone(e.ctx, e.repo, got); err != nil {
		t.Fatal(err)
	}
	fresh, _ := e.s.GetByID(e.ctx, is.ID)
	if fresh.MilestoneID != 0 {
		t.Fatalf("issue still in deleted milestone %d", fresh.MilestoneID)
	}
	if n, c := repoCounts(); n != 1 || c != 1 {
		t.Fatalf("repository counters after delete = %d/%d", n, c)
	}
	if _, err := e.s.MilestoneByIDOrName(e.ctx, e.repo.ID, strings.TrimSpace(" v1.0 ")); !errs.IsNotFound(err) {
		t.Fatalf("deleted milestone: %v", err)
	}
}

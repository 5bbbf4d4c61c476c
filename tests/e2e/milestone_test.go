package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// milestone creates a milestone in acme/repo as the owner.
func (w *lblWorld) milestone(repo string, body map[string]any) *gitea.Milestone {
	w.t.Helper()
	resp := w.do("POST", "repos/acme/"+repo+"/milestones", "owner", body)
	w.expect(resp, 201, fmt.Sprintf("create milestone %v", body))
	var m gitea.Milestone
	resp.Decode(w.t, &m)
	return &m
}

func TestMilestoneCRUDSDK(t *testing.T) {
	w := lblSetup(t)
	c := w.s.Client(w.users["writer"].Token)
	due := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	m, _, err := c.CreateMilestone("acme", "pub", gitea.CreateMilestoneOption{Title: "v1.0", Description: "First", Deadline: &due})
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "v1.0" || m.Description != "First" || m.State != gitea.StateOpen || m.Deadline == nil || !m.Deadline.Equal(due) ||
		m.Closed != nil || m.OpenIssues != 0 || m.ClosedIssues != 0 || m.Created.IsZero() {
		t.Fatalf("created = %+v", m)
	}
	// Created closed: closed_at is set. No due date: due_on is null.
	old, _, err := c.CreateMilestone("acme", "pub", gitea.CreateMilestoneOption{Title: "v0.9", State: gitea.StateClosed})
	if err != nil || old.State != gitea.StateClosed || old.Closed == nil || old.Deadline != nil {
		t.Fatalf("created closed = %+v, %v", old, err)
	}
	if _, _, err := c.CreateMilestone("acme", "pub", gitea.CreateMilestoneOption{Title: "v2.0"}); err != nil {
		t.Fatal(err)
	}

	// Lists by state (open by default), with name search and totals.
	titles := func(list []*gitea.Milestone) []string {
		out := []string{}
		for _, x := range list {
			out = append(out, x.Title)
		}
		return out
	}
	for state, want := range map[gitea.StateType][]string{"": {"v1.0", "v2.0"}, gitea.StateOpen: {"v1.0", "v2.0"},
		gitea.StateClosed: {"v0.9"}, gitea.StateAll: {"v1.0", "v0.9", "v2.0"}} {
		list, resp, err := c.ListRepoMilestones("acme", "pub", gitea.ListMilestoneOption{State: state})
		if err != nil || !slices.Equal(titles(list), want) || resp.Header.Get("X-Total-Count") != fmt.Sprint(len(want)) {
			t.Errorf("state %q: %v (total %s), %v; want %v", state, titles(list), resp.Header.Get("X-Total-Count"), err, want)
		}
	}
	list, _, err := c.ListRepoMilestones("acme", "pub", gitea.ListMilestoneOption{State: gitea.StateAll, Name: "V1"})
	if err != nil || !slices.Equal(titles(list), []string{"v1.0"}) {
		t.Fatalf("name search: %v %v", titles(list), err)
	}
	pg, resp, err := c.ListRepoMilestones("acme", "pub", gitea.ListMilestoneOption{State: gitea.StateAll, ListOptions: gitea.ListOptions{Page: 2, PageSize: 2}})
	if err != nil || !slices.Equal(titles(pg), []string{"v2.0"}) || resp.Header.Get("X-Total-Count") != "3" {
		t.Fatalf("page 2: %v %v", titles(pg), err)
	}

	// Get by id and by name.
	got, _, err := c.GetMilestone("acme", "pub", m.ID)
	if err != nil || got.Title != "v1.0" {
		t.Fatalf("get: %+v %v", got, err)
	}
	got, _, err = c.GetMilestoneByName("acme", "pub", "v0.9")
	if err != nil || got.ID != old.ID {
		t.Fatalf("get by name: %+v %v", got, err)
	}
	w.expect(w.do("GET", "repos/acme/pub/milestones/v2.0", "reader", nil), 200, "get by name in the path")

	// Open and closed counts follow the issues.
	for i := 0; i < 2; i++ {
		w.expect(w.do("POST", "repos/acme/pub/issues", "writer", map[string]any{"title": fmt.Sprint("planned ", i), "milestone": m.ID}), 201, "issue")
	}
	w.expect(w.do("PATCH", "repos/acme/pub/issues/2", "writer", map[string]any{"state": "closed"}), 201, "close issue")
	got, _, _ = c.GetMilestone("acme", "pub", m.ID)
	if got.OpenIssues != 1 || got.ClosedIssues != 1 {
		t.Fatalf("counts = %d open, %d closed", got.OpenIssues, got.ClosedIssues)
	}

	// Edit: only what is given; closing sets closed_at, reopening clears it.
	desc := "First release"
	later := due.Add(48 * time.Hour)
	closed := gitea.StateClosed
	ed, _, err := c.EditMilestone("acme", "pub", m.ID, gitea.EditMilestoneOption{Description: &desc, Deadline: &later, State: &closed})
	if err != nil || ed.Title != "v1.0" || ed.Description != desc || ed.Deadline == nil || !ed.Deadline.Equal(later) ||
		ed.State != gitea.StateClosed || ed.Closed == nil || ed.OpenIssues != 1 {
		t.Fatalf("edited = %+v, %v", ed, err)
	}
	open := gitea.StateOpen
	ed, _, err = c.EditMilestoneByName("acme", "pub", "v1.0", gitea.EditMilestoneOption{Title: "v1.0.0", State: &open})
	if err != nil || ed.Title != "v1.0.0" || ed.State != gitea.StateOpen || ed.Closed != nil || ed.Description != desc {
		t.Fatalf("reopened = %+v, %v", ed, err)
	}

	// An issue shows its milestone; deleting the milestone detaches it.
	is, _, err := c.GetIssue("acme", "pub", 2)
	if err != nil || is.Milestone == nil || is.Milestone.ID != m.ID || is.Milestone.Title != "v1.0.0" {
		t.Fatalf("issue milestone = %+v, %v", is.Milestone, err)
	}
	if _, err := c.DeleteMilestone("acme", "pub", m.ID); err != nil {
		t.Fatal(err)
	}
	is, _, _ = c.GetIssue("acme", "pub", 2)
	if is.Milestone != nil {
		t.Fatalf("issue still in a deleted milestone: %+v", is.Milestone)
	}
	if resp, err := c.DeleteMilestone("acme", "pub", m.ID); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleting again: %v", err)
	}
	if _, err := c.DeleteMilestoneByName("acme", "pub", "v2.0"); err != nil {
		t.Fatal(err)
	}
	list, _, _ = c.ListRepoMilestones("acme", "pub", gitea.ListMilestoneOption{State: gitea.StateAll})
	if !slices.Equal(titles(list), []string{"v0.9"}) {
		t.Fatalf("left: %v", titles(list))
	}
}

// TestMilestoneBadInput: each kind of bad input is refused and changes nothing.
func TestMilestoneBadInput(t *testing.T) {
	w := lblSetup(t)
	m := w.milestone("pub", map[string]any{"title": "v1", "description": "keep"})
	foreign := w.milestone("priv", map[string]any{"title": "secret"})
	mid := fmt.Sprint(m.ID)
	cases := []struct {
		method, path string
		body         any
		raw          string
		want         int
	}{
		{"POST", "repos/acme/pub/milestones", nil, `{"title": "x"`, 422},
		{"POST", "repos/acme/pub/milestones", nil, `{"title": 3}`, 422},
		{"POST", "repos/acme/pub/milestones", nil, `{"title": "x", "due_on": "tomorrow"}`, 422},
		{"POST", "repos/acme/pub/milestones", map[string]any{"description": "no title"}, "", 422},
		{"POST", "repos/acme/pub/milestones", map[string]any{"title": "   "}, "", 422},
		{"POST", "repos/acme/pub/milestones", map[string]any{"title": strings.Repeat("t", 256)}, "", 422},
		{"POST", "repos/acme/pub/milestones", map[string]any{"title": "x", "state": "done"}, "", 422},
		{"PATCH", "repos/acme/pub/milestones/" + mid, nil, `{"state": `, 422},
		{"PATCH", "repos/acme/pub/milestones/" + mid, map[string]any{"state": "done", "title": "changed"}, "", 422},
		{"PATCH", "repos/acme/pub/milestones/" + mid, nil, `{"due_on": "2030-13-45"}`, 422},
		{"GET", "repos/acme/pub/milestones/999999", nil, "", 404},
		{"GET", "repos/acme/pub/milestones/nosuch", nil, "", 404},
		{"PATCH", "repos/acme/pub/milestones/999999", map[string]any{"title": "y"}, "", 404},
		{"DELETE", "repos/acme/pub/milestones/999999", nil, "", 404},
		// Milestones of another repository.
		{"GET", fmt.Sprintf("repos/acme/pub/milestones/%d", foreign.ID), nil, "", 404},
		{"PATCH", fmt.Sprintf("repos/acme/pub/milestones/%d", foreign.ID), map[string]any{"title": "y"}, "", 404},
		{"DELETE", fmt.Sprintf("repos/acme/pub/milestones/%d", foreign.ID), nil, "", 404},
		{"POST", "repos/acme/pub/issues", map[string]any{"title": "x", "milestone": foreign.ID}, "", 422},
		{"PATCH", "repos/acme/pub/issues/1", map[string]any{"milestone": foreign.ID}, "", 422},
	}
	for _, c := range cases {
		opts := []RequestOption{Token(w.users["owner"].Token)}
		if c.raw != "" {
			opts = append(opts, RawBody(c.raw))
		} else if c.body != nil {
			opts = append(opts, JSON(c.body))
		}
		resp := w.s.Do(c.method, "api/v1/"+c.path, opts...)
		if resp.Status != c.want {
			t.Errorf("%s %s %v%s: status %d, want %d: %s", c.method, c.path, c.body, c.raw, resp.Status, c.want, resp.Body)
		}
	}
	// Nothing changed.
	resp := w.do("GET", "repos/acme/pub/milestones?state=all", "owner", nil)
	if got := lblNames(t, resp); !slices.Equal(got, []string{"v1"}) {
		t.Fatalf("milestones = %v", got)
	}
	var got gitea.Milestone
	w.do("GET", "repos/acme/pub/milestones/"+mid, "owner", nil).Decode(t, &got)
	if got.Title != "v1" || got.Description != "keep" || got.State != gitea.StateOpen || got.Deadline != nil {
		t.Fatalf("milestone = %+v", got)
	}
	w.do("GET", fmt.Sprintf("repos/acme/priv/milestones/%d", foreign.ID), "owner", nil).Decode(t, &got)
	if got.Title != "secret" {
		t.Fatalf("other repository's milestone = %+v", got)
	}
	var is gitea.Issue
	w.do("GET", "repos/acme/pub/issues/1", "owner", nil).Decode(t, &is)
	if is.Milestone != nil {
		t.Fatalf("issue got milestone %+v", is.Milestone)
	}
	if n := len(lblNames(t, w.do("GET", "repos/acme/pub/issues?state=all", "owner", nil))); n != 1 {
		t.Fatalf("%d issues after refused creation", n)
	}
}

// TestMilestonePermissionMatrix: every milestone route for every role on a
// public and a private repository.
func TestMilestonePermissionMatrix(t *testing.T) {
	w := lblSetup(t)
	for _, rp := range []string{"pub", "priv"} {
		private := rp == "priv"
		base := "repos/acme/" + rp
		for _, role := range lblRoles {
			m := w.milestone(rp, map[string]any{"title": "m-" + role})
			mid := fmt.Sprint(m.ID)
			for _, rt := range []struct {
				method, path string
				body         any
				kind         string
				ok           int
			}{
				{"GET", base + "/milestones", nil, "read", 200},
				{"GET", base + "/milestones/" + mid, nil, "read", 200},
				{"GET", base + "/milestones/m-" + role, nil, "read", 200},
				{"POST", base + "/milestones", map[string]any{"title": "new-" + role}, "write", 201},
				{"PATCH", base + "/milestones/" + mid, map[string]any{"description": "by " + role, "state": "closed"}, "write", 200},
				{"DELETE", base + "/milestones/" + mid, nil, "write", 204},
			} {
				want := lblMatrixStatus(role, private, rt.kind, rt.ok)
				resp := w.do(rt.method, rt.path, role, rt.body)
				if resp.Status != want {
					t.Errorf("%s %s %s: %d, want %d: %s", role, rt.method, rt.path, resp.Status, want, resp.Body)
				}
			}
			if lblMatrixStatus(role, private, "write", 1) != 1 {
				var got gitea.Milestone
				resp := w.do("GET", base+"/milestones/"+mid, "owner", nil)
				resp.Decode(t, &got)
				if resp.Status != 200 || got.Description != "" || got.State != gitea.StateOpen {
					t.Errorf("%s on %s: milestone = %d %+v after refused writes", role, rp, resp.Status, got)
				}
				if n := len(lblNames(t, w.do("GET", base+"/milestones?state=all&name=new-"+role, "owner", nil))); n != 0 {
					t.Errorf("%s on %s: refused create made %d milestones", role, rp, n)
				}
				w.expect(w.do("DELETE", base+"/milestones/"+mid, "owner", nil), 204, "cleanup")
			}
		}
	}
}

// TestMilestoneEditWithoutChange saves a milestone with the values it has,
// twice within a second: on every database that is a success, never the
// "changed at the same time" conflict (MariaDB counts matched rows too).
func TestMilestoneEditWithoutChange(t *testing.T) {
	s := StartServer(t)
	u := s.CreateUser("msame")
	if r := s.API("POST", "user/repos", u.Token, map[string]any{"name": "ms"}); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "repos/msame/ms/milestones", u.Token, map[string]any{"title": "v1"}); r.Status != 201 {
		t.Fatalf("milestone: %d %s", r.Status, r.Body)
	}
	for i := range 3 {
		if r := s.API("PATCH", "repos/msame/ms/milestones/1", u.Token, map[string]any{"state": "open"}); r.Status != 200 {
			t.Fatalf("save %d: %d %s", i, r.Status, r.Body)
		}
	}
}

package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

type webLabelJSON struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	Exclusive   bool   `json:"exclusive"`
}

type webMilestoneJSON struct {
	ID           int64   `json:"id"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	State        string  `json:"state"`
	OpenIssues   int     `json:"open_issues"`
	ClosedIssues int     `json:"closed_issues"`
	Deadline     *string `json:"due_on"`
}

// TestWebLabels: writers create, edit and delete labels through the forms
// and the API shows each change; readers see the list with its counts but
// cannot change it; the private repository's list is hidden.
func TestWebLabels(t *testing.T) {
	k := newActKit(t)
	w := k.s.Web(t)
	w.SignIn(k.writer.Name, k.writer.Password)
	w.Get("acme/pub/labels").MustContain(t, 200, "This repository has no labels yet.", `action="/acme/pub/labels/new"`)
	p := w.Post("acme/pub/labels/new", url.Values{"name": {"bug"}, "color": {"#EE0701"}, "description": {"Something <b>broke</b>"}})
	if p.Status != http.StatusSeeOther || p.Location != "/acme/pub/labels" {
		t.Fatalf("create: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	var labels []webLabelJSON
	k.must(k.do("GET", "api/v1/repos/acme/pub/labels", k.reader.Token, nil), 200, "labels").Decode(t, &labels)
	if len(labels) != 1 || labels[0].Name != "bug" || labels[0].Color != "ee0701" || labels[0].Description != "Something <b>broke</b>" {
		t.Fatalf("API labels: %+v", labels)
	}
	id := labels[0].ID
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/labels", k.writer.Token, map[string]any{"labels": []int64{id}}), 200, "label the issue")

	page := w.Get("acme/pub/labels")
	page.MustContain(t, 200, "Label bug created.", `fill="#ee0701"`, "<strong>bug</strong>", "Something &lt;b&gt;broke&lt;/b&gt;", "1 open issue", "0 closed")
	page.mustLack(t, `style=`)

	// A refused colour is shown on the page, with what was entered.
	p = w.Post("acme/pub/labels/new", url.Values{"name": {"wrong"}, "color": {"red"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "flash-error", "invalid color", `value="wrong"`)

	w.Get("acme/pub/labels")
	p = w.Post("acme/pub/labels/edit", url.Values{"id": {strconv.FormatInt(id, 10)}, "name": {"scope/defect"}, "color": {"#00aa00"},
		"description": {""}, "exclusive": {"on"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.2000s", p.Status, p.Body)
	}
	k.must(k.do("GET", fmt.Sprintf("api/v1/repos/acme/pub/labels/%d", id), k.reader.Token, nil), 200, "label").Decode(t, &labels[0])
	if l := labels[0]; l.Name != "scope/defect" || l.Color != "00aa00" || !l.Exclusive || l.Description != "" {
		t.Fatalf("edited label: %+v", l)
	}

	// Readers see the list, without forms, and may not change it.
	reader := k.s.Web(t)
	reader.SignIn(k.reader.Name, k.reader.Password)
	page = reader.Get("acme/pub/labels")
	page.MustContain(t, 200, "scope/defect", "1 open issue")
	page.mustLack(t, "labels/new", "labels/edit", "labels/delete")
	for _, path := range []string{"acme/pub/labels/new", "acme/pub/labels/edit", "acme/pub/labels/delete"} {
		if p := reader.Post(path, url.Values{"id": {strconv.FormatInt(id, 10)}, "name": {"x"}, "color": {"#000000"}}); p.Status != 403 {
			t.Fatalf("reader POST %s: %d", path, p.Status)
		}
	}
	// A form without the CSRF token is refused.
	if p := w.Post("acme/pub/labels/delete", url.Values{"id": {strconv.FormatInt(id, 10)}, "_csrf": {"forged"}}); p.Status != 400 {
		t.Fatalf("forged delete: %d", p.Status)
	}

	w.Get("acme/pub/labels")
	if p := w.Post("acme/pub/labels/delete", url.Values{"id": {strconv.FormatInt(id, 10)}}); p.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d %.2000s", p.Status, p.Body)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/labels", k.reader.Token, nil), 200, "labels").Decode(t, &labels)
	if len(labels) != 0 {
		t.Fatalf("label kept: %+v", labels)
	}

	// The private repository: its labels are for its readers only.
	k.must(k.do("POST", "api/v1/repos/acme/priv/labels", k.owner.Token, map[string]any{"name": "hidden-label", "color": "#123456"}), 201, "private label")
	stranger := k.s.Web(t)
	stranger.SignIn(k.stranger.Name, k.stranger.Password)
	for who, c := range map[string]*Web{"stranger": stranger, "anonymous": k.s.Web(t)} {
		if p := c.Get("acme/priv/labels"); p.Status != 404 || strings.Contains(p.Body, "hidden-label") {
			t.Fatalf("%s sees private labels: %d", who, p.Status)
		}
	}
	if p := stranger.Post("acme/priv/labels/new", url.Values{"name": {"x"}, "color": {"#000000"}}); p.Status != 404 {
		t.Fatalf("stranger creates a private label: %d", p.Status)
	}
	reader.Get("acme/priv/labels").MustContain(t, 200, "hidden-label")
	k.s.Web(t).Get("acme/pub/labels").MustContain(t, 200, "This repository has no labels yet.")
}

// TestWebMilestones: writers create, edit, close, reopen and delete
// milestones through the forms and the API shows each change; the list
// shows progress and due dates; readers cannot change anything.
func TestWebMilestones(t *testing.T) {
	k := newActKit(t)
	w := k.s.Web(t)
	w.SignIn(k.writer.Name, k.writer.Password)
	w.Get("acme/pub/milestones").MustContain(t, 200, "No open milestones.", "New milestone")
	w.Get("acme/pub/milestones/new").MustContain(t, 200, `action="/acme/pub/milestones/new"`, `type="date"`)
	p := w.Post("acme/pub/milestones/new", url.Values{"title": {"Version 1"}, "deadline": {"2020-05-06"}, "content": {"The **first** one"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("create: %d %.2000s", p.Status, p.Body)
	}
	var list []webMilestoneJSON
	k.must(k.do("GET", "api/v1/repos/acme/pub/milestones", k.reader.Token, nil), 200, "milestones").Decode(t, &list)
	if len(list) != 1 || list[0].Title != "Version 1" || list[0].Deadline == nil || !strings.HasPrefix(*list[0].Deadline, "2020-05-06T23:59:59") ||
		list[0].Description != "The **first** one" {
		t.Fatalf("API milestones: %+v", list)
	}
	m := list[0]
	mid := strconv.FormatInt(m.ID, 10)
	k.must(k.do("PATCH", "api/v1/repos/acme/pub/issues/1", k.writer.Token, map[string]any{"milestone": m.ID}), 201, "issue in milestone")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues", k.writer.Token, map[string]any{"title": "second", "milestone": m.ID}), 201, "second issue")
	k.must(k.do("PATCH", "api/v1/repos/acme/pub/issues/2", k.writer.Token, map[string]any{"state": "closed"}), 201, "close second")

	page := w.Get("acme/pub/milestones")
	page.MustContain(t, 200, "Milestone Version 1 created.", "Version 1", "<strong>first</strong>", `value="50"`, "50% complete",
		"2020-05-06", "past due", "1 open", "1 closed", "/acme/pub/milestones/"+mid+"/close")
	page.mustLack(t, "style=")

	// Invalid input is shown on the form.
	w.Get("acme/pub/milestones/new")
	w.Post("acme/pub/milestones/new", url.Values{"title": {"  "}}).MustContain(t, http.StatusUnprocessableEntity, "flash-error", "Required")
	w.Post("acme/pub/milestones/new", url.Values{"title": {"T"}, "deadline": {"soon"}}).MustContain(t, http.StatusUnprocessableEntity, "not a date", `value="T"`)

	w.Get("acme/pub/milestones/"+mid+"/edit").MustContain(t, 200, `value="Version 1"`, `value="2020-05-06"`)
	if p := w.Post("acme/pub/milestones/"+mid+"/edit", url.Values{"title": {"Version 1.0"}, "deadline": {""}, "content": {"changed"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.2000s", p.Status, p.Body)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/milestones/"+mid, k.reader.Token, nil), 200, "milestone").Decode(t, &m)
	if m.Title != "Version 1.0" || m.Deadline != nil || m.Description != "changed" {
		t.Fatalf("edited milestone: %+v", m)
	}

	w.Get("acme/pub/milestones")
	if p := w.Post("acme/pub/milestones/"+mid+"/close", nil); p.Status != http.StatusSeeOther || p.Location != "/acme/pub/milestones?state=closed" {
		t.Fatalf("close: %d %q", p.Status, p.Location)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/milestones/"+mid, k.reader.Token, nil), 200, "milestone").Decode(t, &m)
	if m.State != "closed" {
		t.Fatalf("closed milestone: %+v", m)
	}
	w.Get("acme/pub/milestones").MustContain(t, 200, "No open milestones.", "0 open", "1 closed")
	w.Get("acme/pub/milestones?state=closed").MustContain(t, 200, "Version 1.0", "Reopen")

	// Readers see, but may not change.
	reader := k.s.Web(t)
	reader.SignIn(k.reader.Name, k.reader.Password)
	page = reader.Get("acme/pub/milestones?state=closed")
	page.MustContain(t, 200, "Version 1.0")
	page.mustLack(t, "New milestone", "/open", "/delete")
	if p := reader.Get("acme/pub/milestones/new"); p.Status != 403 {
		t.Fatalf("reader's form: %d", p.Status)
	}
	for _, action := range []string{"open", "delete", "edit"} {
		if p := reader.Post("acme/pub/milestones/"+mid+"/"+action, url.Values{"title": {"x"}}); p.Status != 403 {
			t.Fatalf("reader %s: %d", action, p.Status)
		}
	}

	w.Get("acme/pub/milestones?state=closed")
	if p := w.Post("acme/pub/milestones/"+mid+"/open", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("reopen: %d", p.Status)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/milestones/"+mid, k.reader.Token, nil), 200, "milestone").Decode(t, &m)
	if m.State != "open" {
		t.Fatalf("reopened milestone: %+v", m)
	}
	if p := w.Post("acme/pub/milestones/"+mid+"/delete", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.Status)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/milestones/"+mid, k.reader.Token, nil), 404, "deleted milestone")

	// The private repository's milestones are hidden from strangers.
	k.must(k.do("POST", "api/v1/repos/acme/priv/milestones", k.owner.Token, map[string]any{"title": "Hidden plan"}), 201, "private milestone")
	stranger := k.s.Web(t)
	stranger.SignIn(k.stranger.Name, k.stranger.Password)
	for who, c := range map[string]*Web{"stranger": stranger, "anonymous": k.s.Web(t)} {
		for _, path := range []string{"acme/priv/milestones", "acme/priv/milestones/new"} {
			if p := c.Get(path); p.Status != 404 || strings.Contains(p.Body, "Hidden plan") {
				t.Fatalf("%s GET %s: %d", who, path, p.Status)
			}
		}
	}
	reader.Get("acme/priv/milestones").MustContain(t, 200, "Hidden plan")
}

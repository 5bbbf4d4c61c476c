package web

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// renderPageForTest executes page name with data as a repository page.
func renderPageForTest(t *testing.T, name string, data any) string {
	t.Helper()
	h := &Handler{Deps: Deps{Now: time.Now}}
	v, err := loadViews(h.funcs())
	if err != nil {
		t.Fatal(err)
	}
	owner := &user.User{ID: 1, Name: "acme", LowerName: "acme"}
	rc := &repoCtx{Owner: owner, Repo: &repo.Repository{ID: 2, Name: "pub", DefaultBranch: "main"}, Link: "/acme/pub",
		Perm: access.RepoPerm{Mode: access.ModeWrite, Units: map[string]access.Mode{repo.UnitReleases: access.ModeWrite, repo.UnitIssues: access.ModeWrite}}}
	tpl, err := v.page(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tpl.ExecuteTemplate(&buf, "layout", &Page{Title: "t", CSRF: "tok", Doer: owner, Data: repoPage{R: rc, Page: data}}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.String()
}

func mustHold(t *testing.T, page string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(page, s) {
			t.Fatalf("page lacks %q:\n%s", s, page)
		}
	}
}

// TestReleaseTemplates renders the release, label and milestone pages with
// data of every shape they show.
func TestReleaseTemplates(t *testing.T) {
	now := time.Now()
	pub := &user.User{ID: 3, Name: "bob", LowerName: "bob"}
	rel := &releaseView{Release: &release.Release{ID: 7, TagName: "v1/x", Title: "", SHA1: "0123456789abcdef", IsPrerelease: true, IsDraft: true, Created: now},
		Publisher: pub, Assets: []*issue.Attachment{{ID: 9, Name: "a b.bin", Size: 2048}}, Notes: template.HTML("<p>notes</p>"),
		Link: "/acme/pub/releases/tag/v1/x", EditLink: "/acme/pub/releases/edit/v1/x", Download: "/acme/pub/releases/download/v1%2Fx/"}
	out := renderPageForTest(t, "release_list", releaseListPage{Releases: []*releaseView{rel}, CanWrite: true, Next: "/acme/pub/releases?page=2"})
	mustHold(t, out, "v1/x", "Draft", "Pre-release", "<p>notes</p>", "/acme/pub/releases/download/v1%2Fx/a%20b.bin", "2.0 KiB", `name="_csrf" value="tok"`, "Older")
	out = renderPageForTest(t, "release_form", releaseFormPage{Release: rel, Tag: "v1/x", Error: "refused <b>", Branches: []string{"main"}, MaxSize: 1 << 20})
	mustHold(t, out, "refused &lt;b&gt;", `action="/acme/pub/releases/edit/v1/x"`, "a b.bin", "1.0 MiB", `<option value="main">`)
	renderPageForTest(t, "release_form", releaseFormPage{IsNew: true, MaxSize: -1})

	lbl := &issue.Label{ID: 4, Name: "bug", Color: "ee0701", NumIssues: 3, NumClosedIssues: 1, Description: "broken"}
	out = renderPageForTest(t, "labels", labelsPage{Labels: []*issue.Label{lbl}, OrgLabels: []*issue.Label{lbl}, Total: 1, CanWrite: true, CanIssues: true,
		Form: labelForm{Color: "#0969da"}})
	mustHold(t, out, `fill="#ee0701"`, "2 open issues", "1 closed", `value="#ee0701"`, "Labels of acme")

	ms := &milestoneView{Milestone: &issue.Milestone{ID: 5, Name: "1.0", NumIssues: 4, NumClosedIssues: 1, Deadline: now.Add(-48 * time.Hour)},
		Percent: 25, Overdue: true, Description: template.HTML("<p>d</p>")}
	out = renderPageForTest(t, "milestones", milestonesPage{Milestones: []*milestoneView{ms}, State: "open", Open: 1, CanWrite: true, CanIssues: true})
	mustHold(t, out, `<progress class="milestone-progress" max="100" value="25">`, "past due", "3 open", "/acme/pub/milestones/5/close")
	out = renderPageForTest(t, "milestones", milestonesPage{Form: &milestoneForm{ID: 5, Title: "1.0", Deadline: "2030-01-02"}})
	mustHold(t, out, `action="/acme/pub/milestones/5/edit"`, `value="2030-01-02"`)

	d, err := parseDiff(strings.NewReader(diffOfFiles(2)), diffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hd := &pullHeader{Pull: &pull.PullRequest{Index: 3, BaseBranch: "main", Issue: &issue.Issue{Title: "Fix <it>"}}, Poster: pub,
		Link: "/acme/pub/pulls/3", HeadLabel: "feature", CanCode: true}
	f := &pullFileView{DiffFile: d.Files[0], Anchor: pullFileAnchor("f0")}
	f.place(&pullCommentView{Comment: &issue.Comment{ID: 11, Line: 1, Created: now}, Poster: pub, Body: template.HTML("<p>nice</p>"), Pending: true})
	f.Elsewhere = []*pullCommentView{{Comment: &issue.Comment{ID: 12, Line: -9, Created: now}, Poster: pub, Body: template.HTML("<p>old</p>")}}
	out = renderPageForTest(t, "pull_files", &pullFilesPage{pullHeader: hd, Files: []*pullFileView{f}, Total: 2, First: 1, CanReview: true, CanVerdict: true,
		Next: "/acme/pub/pulls/3/files?skip-to=f1", Head: "abc"})
	mustHold(t, out, "Fix &lt;it&gt;", `class="add"`, "&#43;line of file 0", `id="issuecomment-11"`, "<p>nice</p>", "Pending", "on old line 9",
		`value="approve"`, "Load more files", `/acme/pub/src/commit/abc/f0`, `name="path" value="f0"`)
	out = renderPageForTest(t, "pull_commits", &pullCommitsPage{pullHeader: hd, Total: 1,
		Commits: []pullCommitRow{{Commit: git.Commit{SHA: "0123456789abcdef", Message: "Subject\n\nbody"}, Link: "/acme/pub/commit/0123456789abcdef"}}})
	mustHold(t, out, "Subject", "0123456789", `aria-current="page">Commits`)
	out = renderPageForTest(t, "pull_new", &pullNewPage{Base: "main", Head: "feature", HeadBranch: "feature", HeadRepo: &repo.Repository{ID: 2},
		Branches: []string{"main", "feature"}, Action: "/acme/pub/compare/main...feature", Error: "already", Existing: "/acme/pub/pulls/1", Title: "T"})
	mustHold(t, out, `action="/acme/pub/compare/main...feature"`, "See the open pull request", `<option value="main" selected>`, "has no commits")
}

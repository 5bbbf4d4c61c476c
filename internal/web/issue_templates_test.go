package web

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// execIssuePage renders page name with data as the layout would and
// returns the HTML.
func execIssuePage(t *testing.T, name string, data any) string {
	t.Helper()
	h := &Handler{Deps: Deps{Now: time.Now}}
	v, err := loadViews(h.funcs())
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := v.page(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tpl.ExecuteTemplate(&buf, "layout", &Page{Title: "t", CSRF: "tok", Data: data}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.String()
}

func sampleRepoCtx() *repoCtx {
	owner := &user.User{ID: 1, Name: "alice", LowerName: "alice"}
	rp := &repo.Repository{ID: 1, Name: "proj", OwnerName: "alice", Units: map[string]bool{repo.UnitIssues: true, repo.UnitPulls: true}}
	return &repoCtx{Owner: owner, Repo: rp, Perm: access.RepoPerm{Mode: access.ModeOwner,
		Units: map[string]access.Mode{repo.UnitIssues: access.ModeOwner, repo.UnitPulls: access.ModeOwner}}, Link: "/alice/proj", Tab: "issues"}
}

// TestIssueTemplatesRender executes the conversation, list and form pages
// with every kind of timeline entry: the templates parse, run, escape user
// text and keep label colours out of style attributes.
func TestIssueTemplatesRender(t *testing.T) {
	alice := &user.User{ID: 1, Name: "alice", LowerName: "alice"}
	bob := &user.User{ID: 2, Name: "bob", LowerName: "bob"}
	now := time.Now()
	lv := issueLabelView{ID: 3, Name: "bug<i>", Color: "#ee0701", Checked: true}
	is := &issue.Issue{ID: 7, Index: 4, Title: "Crash <script>", Content: "body", Created: now, IsPull: true, NumComments: 1}
	var entries []*timelineEntry
	for _, typ := range []string{"comment", "review", "close", "reopen", "label", "milestone", "assignees", "change_title", "issue_ref",
		"commit_ref", "delete_branch", "change_target_branch", "add_dependency", "lock", "pin", "added_deadline", "merge_pull",
		"pull_push", "review_request", "dismiss_review", "stop_tracking", "unknown"} {
		entries = append(entries, &timelineEntry{ID: 9, Type: typ, Poster: bob, Created: now, Body: template.HTML("<p>hi</p>"),
			Label: &lv, Assignee: alice, Ref: &issueRef{Link: "/alice/proj/issues/1", Index: 1, Title: "other"}, Commits: []string{"a"},
			CanChange: true, React: &issueReactBox{Action: "/x", CSRF: "tok", Can: true, Have: []issueReaction{{Type: "+1", Emoji: "👍", Count: 2, Mine: true}}},
			Attachments: []*issue.Attachment{{UUID: "u-1", Name: "log.txt", Size: 10}}})
	}
	v := &issueView{Issue: is, Link: "/alice/proj/pulls/4", RepoLink: "/alice/proj", CSRF: "tok", Poster: alice, Body: "<p>b</p>",
		React: &issueReactBox{Action: "/x", Can: true}, Entries: entries, Page: 1, Pages: 1, MeID: 1,
		Can: issueRights{SignedIn: true, Comment: true, Edit: true, Write: true, Admin: true, React: true, Attach: true},
		Side: issueSidebar{Labels: []issueLabelView{lv}, AllLabels: []issueLabelView{lv}, Assignees: []*user.User{alice},
			Milestones: []*issue.Milestone{{ID: 1, Name: "v1"}}, Dependencies: true, DependsOn: []*issueRef{{Link: "/a", Index: 2, RepoName: "x/y"}},
			Participants: []*user.User{alice, bob}, Deadline: now},
		Pull: &issuePullView{P: &pull.PullRequest{HeadCommitID: "abc"}, State: "open", Status: "mergeable", StatusText: "ok",
			CanMerge: true, Refusal: "Does not have enough approvals", Styles: []issueMergeStyle{{"merge", "Create merge commit", true}},
			Checks: []*repo.CommitStatus{{Context: "ci", State: "success"}}}}
	rc := sampleRepoCtx()
	out := execIssuePage(t, "pull_view", repoPage{R: rc, Page: v})
	for _, want := range []string{"Crash &lt;script&gt;", `fill="#ee0701"`, "bug&lt;i&gt;", "Does not have enough approvals",
		`name="do" value="merge"`, "/attachments/u-1", `action="/alice/proj/pulls/4/comments"`, "the review request for"} {
		if !strings.Contains(out, want) {
			t.Fatalf("pull page lacks %q", want)
		}
	}
	if strings.Contains(out, "style=") {
		t.Fatal("inline style attribute in the page")
	}
	is.IsPull = false
	v.Pull = nil
	execIssuePage(t, "issue_view", repoPage{R: rc, Page: v})
	lst := &issueListView{Base: "/alice/proj/issues", Rows: []issueRow{{Index: 1, Title: "t", Link: "/l", Poster: alice, Labels: []issueLabelView{lv}, Assignees: []*user.User{bob}}},
		Filter: issueListFilter{State: "open", Labels: []issueLabelView{lv}, Milestones: []issueChoice{{Value: "", Label: "All"}}}, Page: 1, Pages: 2, Next: "/n"}
	execIssuePage(t, "issue_list", repoPage{R: rc, Page: lst})
	execIssuePage(t, "pull_list", repoPage{R: rc, Page: lst})
	nv := &newIssueView{Action: "/a", Blank: true, Writer: true, Labels: []issueLabelView{lv}, Templates: []issueTemplateChoice{{Name: "Bug", Link: "/b"}},
		Fields: []issueFormField{{Type: "markdown", Markdown: "<p>x</p>"}, {Type: "textarea", Name: "form-field-a"}, {Type: "input", Name: "form-field-b"},
			{Type: "dropdown", Name: "form-field-c", Options: []issueFormOption{{Label: "one"}}}, {Type: "checkboxes", Name: "form-field-d", Options: []issueFormOption{{Label: "ok", Required: true}}}}}
	execIssuePage(t, "issue_new", repoPage{R: rc, Page: nv})
	execIssuePage(t, "issue_dashboard", &issueDashView{Base: "/issues", State: "open", Rows: lst.Rows})
}

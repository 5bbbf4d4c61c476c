package format

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
)

// Colours of the messages (Gitea's palette).
const (
	colorGreen       = 0x1ac600
	colorGreenLight  = 0xbfe5bf
	colorYellow      = 0xffd930
	colorGrey        = 0x4f545c
	colorPurple      = 0x7289da
	colorOrange      = 0xeb6420
	colorOrangeLight = 0xe68d60
	colorRed         = 0xff3232
)

// linker renders a link to url showing text, in a service's markup; it
// also escapes text as that markup needs.
type linker func(url, text string) string

// note is what a message says about an event, whatever the service.
type note struct {
	repo   *types.Repository
	sender *types.User
	// headline is the one-line summary with links (and "by sender").
	headline func(link linker) string
	// title is the summary in plain text, without the sender.
	title string
	// url is where the message points.
	url string
	// body is the longer text: an issue's body, a comment, a review, a
	// release note (may be empty).
	body string
	// commits are a push's commits.
	commits []*types.PayloadCommit
	color   int
	// fact is a name and value MS Teams lists besides the repository.
	factName, factValue string
	// view names the link for the services with a button.
	view string
}

// wikiPayload and packagePayload are Gitea's payloads of events Cairn
// does not fire yet; only what the messages need is read.
type wikiPayload struct {
	Action     string            `json:"action"`
	Repository *types.Repository `json:"repository"`
	Sender     *types.User       `json:"sender"`
	Page       string            `json:"page"`
	Comment    string            `json:"comment"`
}

type packagePayload struct {
	Action  string `json:"action"`
	Package *struct {
		Type    string `json:"type"`
		Name    string `json:"name"`
		Version string `json:"version"`
		HTMLURL string `json:"html_url"`
	} `json:"package"`
	Repository *types.Repository `json:"repository"`
	Sender     *types.User       `json:"sender"`
}

// errUnsupported is the error of an event no message exists for.
func errUnsupported(event string) error { return fmt.Errorf("unsupported event %q", event) }

func unmarshal(payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("could not read the payload: %w", err)
	}
	return nil
}

// describe reads payload as the Gitea payload of event and says what
// happened.
func describe(event string, payload []byte) (*note, error) {
	switch event {
	case "push":
		var p types.PushPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describePush(&p), nil
	case "create", "delete":
		var p struct {
			Ref     string            `json:"ref"`
			RefType string            `json:"ref_type"`
			Repo    *types.Repository `json:"repository"`
			Sender  *types.User       `json:"sender"`
		}
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeRef(event, p.Ref, p.RefType, p.Repo, p.Sender), nil
	case "fork":
		var p types.ForkPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeFork(&p), nil
	case "issues", "issue_assign", "issue_label", "issue_milestone":
		var p types.IssuePayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeIssue(&p), nil
	case "issue_comment", "pull_request_comment":
		var p types.IssueCommentPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeComment(&p), nil
	case "pull_request", "pull_request_assign", "pull_request_label", "pull_request_milestone",
		"pull_request_sync", "pull_request_review_request":
		var p types.PullRequestPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describePull(&p), nil
	case "pull_request_review", "pull_request_review_approved", "pull_request_review_rejected", "pull_request_review_comment":
		var p types.PullRequestPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeReview(event, &p), nil
	case "repository":
		var p types.RepositoryPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeRepository(&p), nil
	case "release":
		var p types.ReleasePayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeRelease(&p), nil
	case "wiki":
		var p wikiPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeWiki(&p), nil
	case "status":
		var p types.CommitStatusPayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describeStatus(&p), nil
	case "package":
		var p packagePayload
		if err := unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return describePackage(&p), nil
	}
	return nil, errUnsupported(event)
}

// Safe accessors: a payload may lack any part.

func repoName(r *types.Repository) string {
	if r == nil {
		return ""
	}
	return r.FullName
}

func repoURL(r *types.Repository) string {
	if r == nil {
		return ""
	}
	return r.HTMLURL
}

func userName(u *types.User) string {
	if u == nil {
		return ""
	}
	return u.UserName
}

// repoLink is the link to a repository.
func repoLink(link linker, r *types.Repository) string { return link(repoURL(r), repoName(r)) }

// byWhom is " by <sender>" with a link to the sender.
func byWhom(link linker, u *types.User) string {
	if u == nil || u.UserName == "" {
		return ""
	}
	return " by " + link(u.HTMLURL, u.UserName)
}

// shortRef is a reference's short name (branch or tag).
func shortRef(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/", "refs/"} {
		if s, ok := strings.CutPrefix(ref, p); ok {
			return s
		}
	}
	return ref
}

// refURL is the web page of a reference of the repository at base.
func refURL(base, ref string) string {
	name := escapeSegments(shortRef(ref))
	switch {
	case strings.HasPrefix(ref, "refs/heads/"):
		return base + "/src/branch/" + name
	case strings.HasPrefix(ref, "refs/tags/"):
		return base + "/src/tag/" + name
	}
	return base + "/src/" + name
}

func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// firstLine is a commit message's subject.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimRight(s, "\r")
}

func shortSHA(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func describePush(p *types.PushPayload) *note {
	branch := shortRef(p.Ref)
	total := p.TotalCommits
	if total == 0 {
		total = len(p.Commits)
	}
	count := plural(total, "commit", "commits")
	target := p.CompareURL
	if total == 1 && len(p.Commits) == 1 && p.Commits[0].URL != "" {
		target = p.Commits[0].URL
	}
	if target == "" {
		target = refURL(repoURL(p.Repo), p.Ref)
	}
	pusher := p.Pusher
	if pusher == nil {
		pusher = p.Sender
	}
	n := &note{repo: p.Repo, sender: pusher, url: target, commits: p.Commits, color: colorGreen,
		title:    fmt.Sprintf("[%s:%s] %s pushed", repoName(p.Repo), branch, count),
		factName: "Branch", factValue: branch, view: "View commits"}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s:%s] %s pushed%s", repoLink(link, p.Repo), link(refURL(repoURL(p.Repo), p.Ref), branch),
			link(target, count), byWhom(link, pusher))
	}
	return n
}

func describeRef(event, ref, refType string, r *types.Repository, sender *types.User) *note {
	name := shortRef(ref)
	verb, color := "created", colorGreen
	if event == "delete" {
		verb, color = "deleted", colorRed
	}
	target := repoURL(r) + "/src/" + escapeSegments(name)
	if refType == "branch" {
		target = repoURL(r) + "/src/branch/" + escapeSegments(name)
	} else if refType == "tag" {
		target = repoURL(r) + "/src/tag/" + escapeSegments(name)
	}
	if event == "delete" {
		target = repoURL(r)
	}
	n := &note{repo: r, sender: sender, url: target, color: color,
		title:    fmt.Sprintf("[%s] %s %s %s", repoName(r), refType, name, verb),
		factName: refFact(refType), factValue: name,
		view: "View " + refType}
	n.headline = func(link linker) string {
		shown := link("", name)
		if event == "create" {
			shown = link(target, name)
		}
		return fmt.Sprintf("[%s] %s %s %s%s", repoLink(link, r), link("", refType), shown, verb, byWhom(link, sender))
	}
	return n
}

// refFact names a reference kind for a list of facts.
func refFact(refType string) string {
	switch refType {
	case "branch":
		return "Branch"
	case "tag":
		return "Tag"
	}
	return "Reference"
}

func describeFork(p *types.ForkPayload) *note {
	n := &note{repo: p.Forkee, sender: p.Sender, url: repoURL(p.Repo), color: colorGreen,
		title:    fmt.Sprintf("%s forked to %s", repoName(p.Forkee), repoName(p.Repo)),
		factName: "Fork", factValue: repoName(p.Repo), view: "View fork"}
	n.headline = func(link linker) string {
		return fmt.Sprintf("%s forked to %s%s", repoLink(link, p.Forkee), repoLink(link, p.Repo), byWhom(link, p.Sender))
	}
	return n
}

// issueVerb is what an action did to an issue or pull request, and its colour.
func issueVerb(action types.HookIssueAction) (string, int) {
	switch action {
	case types.HookIssueOpened:
		return "opened", colorOrange
	case types.HookIssueClosed:
		return "closed", colorRed
	case types.HookIssueReOpened:
		return "reopened", colorYellow
	case types.HookIssueEdited:
		return "edited", colorYellow
	case types.HookIssueDeleted:
		return "deleted", colorRed
	case types.HookIssueAssigned:
		return "assigned", colorGreen
	case types.HookIssueUnassigned:
		return "unassigned", colorYellow
	case types.HookIssueLabelUpdated:
		return "labels updated", colorYellow
	case types.HookIssueLabelCleared:
		return "labels cleared", colorYellow
	case types.HookIssueSynchronized:
		return "synchronized", colorYellow
	case types.HookIssueMilestoned:
		return "milestone set", colorYellow
	case types.HookIssueDemilestoned:
		return "milestone removed", colorYellow
	case types.HookIssueReviewed:
		return "reviewed", colorYellow
	case types.HookIssueReviewRequested:
		return "review requested", colorYellow
	case types.HookIssueReviewRequestRemoved:
		return "review request removed", colorYellow
	}
	return string(action), colorYellow
}

// userList links each user.
func userList(link linker, users []*types.User) string {
	out := make([]string, 0, len(users))
	for _, u := range users {
		if u != nil {
			out = append(out, link(u.HTMLURL, u.UserName))
		}
	}
	return strings.Join(out, ", ")
}

// issueDetail is what follows the verb: whom it was assigned to, which
// milestone, whose review was requested.
func issueDetail(link linker, action types.HookIssueAction, r *types.Repository, assignees []*types.User, ms *types.Milestone, reviewer *types.User) string {
	switch action {
	case types.HookIssueAssigned:
		if s := userList(link, assignees); s != "" {
			return " (to " + s + ")"
		}
	case types.HookIssueMilestoned:
		if ms != nil {
			return " (" + link(fmt.Sprintf("%s/milestone/%d", repoURL(r), ms.ID), ms.Title) + ")"
		}
	case types.HookIssueReviewRequested, types.HookIssueReviewRequestRemoved:
		if reviewer != nil {
			return " (" + link(reviewer.HTMLURL, reviewer.UserName) + ")"
		}
	}
	return ""
}

func describeIssue(p *types.IssuePayload) *note {
	is := p.Issue
	if is == nil {
		is = &types.Issue{Index: p.Index}
	}
	index := p.Index
	if index == 0 {
		index = is.Index
	}
	verb, color := issueVerb(p.Action)
	label := fmt.Sprintf("#%d %s", index, is.Title)
	target := is.HTMLURL
	if target == "" {
		target = fmt.Sprintf("%s/issues/%d", repoURL(p.Repository), index)
	}
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color,
		title:    fmt.Sprintf("[%s] Issue %s: %s", repoName(p.Repository), verb, label),
		factName: "Issue", factValue: label, view: "View issue"}
	if p.Action == types.HookIssueOpened || p.Action == types.HookIssueEdited {
		n.body = is.Body
	}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] Issue %s%s: %s%s", repoLink(link, p.Repository), link("", verb),
			issueDetail(link, p.Action, p.Repository, is.Assignees, is.Milestone, nil), link(target, label), byWhom(link, p.Sender))
	}
	return n
}

func describePull(p *types.PullRequestPayload) *note {
	pr := p.PullRequest
	if pr == nil {
		pr = &types.PullRequest{Index: p.Index}
	}
	index := p.Index
	if index == 0 {
		index = pr.Index
	}
	verb, color := issueVerb(p.Action)
	if p.Action == types.HookIssueOpened {
		color = colorGreen
	}
	if p.Action == types.HookIssueClosed && pr.HasMerged {
		verb, color = "merged", colorPurple
	}
	label := fmt.Sprintf("#%d %s", index, pr.Title)
	target := pr.HTMLURL
	if target == "" {
		target = fmt.Sprintf("%s/pulls/%d", repoURL(p.Repository), index)
	}
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color,
		title:    fmt.Sprintf("[%s] Pull request %s: %s", repoName(p.Repository), verb, label),
		factName: "Pull request", factValue: label, view: "View pull request"}
	switch p.Action {
	case types.HookIssueOpened, types.HookIssueEdited:
		n.body = pr.Body
	case types.HookIssueReviewed:
		if p.Review != nil {
			n.body = p.Review.Content
		}
	}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] Pull request %s%s: %s%s", repoLink(link, p.Repository), link("", verb),
			issueDetail(link, p.Action, p.Repository, pr.Assignees, pr.Milestone, p.RequestedReviewer), link(target, label), byWhom(link, p.Sender))
	}
	return n
}

func describeReview(event string, p *types.PullRequestPayload) *note {
	pr := p.PullRequest
	if pr == nil {
		pr = &types.PullRequest{Index: p.Index}
	}
	index := p.Index
	if index == 0 {
		index = pr.Index
	}
	kind, color := "submitted", colorYellow
	switch event {
	case "pull_request_review_approved":
		kind, color = "approved", colorGreen
	case "pull_request_review_rejected":
		kind, color = "changes requested", colorRed
	case "pull_request_review_comment":
		kind, color = "commented", colorGrey
	}
	label := fmt.Sprintf("#%d %s", index, pr.Title)
	target := pr.HTMLURL
	if target == "" {
		target = fmt.Sprintf("%s/pulls/%d", repoURL(p.Repository), index)
	}
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color,
		title:    fmt.Sprintf("[%s] Pull request review (%s): %s", repoName(p.Repository), kind, label),
		factName: "Pull request", factValue: label, view: "View pull request"}
	if p.Review != nil {
		n.body = p.Review.Content
	}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] Pull request review (%s): %s%s", repoLink(link, p.Repository), link("", kind),
			link(target, label), byWhom(link, p.Sender))
	}
	return n
}

func describeComment(p *types.IssueCommentPayload) *note {
	is := p.Issue
	if is == nil {
		is = &types.Issue{}
	}
	c := p.Comment
	if c == nil {
		c = &types.Comment{}
	}
	what := "issue"
	target := c.IssueURL
	if p.IsPull {
		what = "pull request"
		if c.PRURL != "" {
			target = c.PRURL
		}
	}
	if c.HTMLURL != "" {
		target = c.HTMLURL
	}
	if target == "" {
		target = is.HTMLURL
	}
	verb, color := "New comment", colorOrangeLight
	if p.IsPull {
		color = colorGreenLight
	}
	switch p.Action {
	case types.HookIssueCommentEdited:
		verb, color = "Comment edited", colorYellow
	case types.HookIssueCommentDeleted:
		verb, color = "Comment deleted", colorRed
	}
	label := fmt.Sprintf("#%d %s", is.Index, is.Title)
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color, body: c.Body,
		title:    fmt.Sprintf("[%s] %s on %s %s", repoName(p.Repository), verb, what, label),
		factName: strings.ToUpper(what[:1]) + what[1:], factValue: label, view: "View comment"}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] %s on %s %s%s", repoLink(link, p.Repository), link("", verb), link("", what),
			link(target, label), byWhom(link, p.Sender))
	}
	return n
}

func describeRepository(p *types.RepositoryPayload) *note {
	verb, color := "created", colorGreen
	target := repoURL(p.Repository)
	if p.Action == types.HookRepoDeleted {
		verb, color = "deleted", colorRed
	} else if p.Action != types.HookRepoCreated {
		verb = string(p.Action)
	}
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color,
		title: fmt.Sprintf("[%s] Repository %s", repoName(p.Repository), verb), view: "View repository"}
	n.headline = func(link linker) string {
		shown := repoLink(link, p.Repository)
		if p.Action == types.HookRepoDeleted {
			shown = link("", repoName(p.Repository))
		}
		return fmt.Sprintf("[%s] Repository %s%s", shown, link("", verb), byWhom(link, p.Sender))
	}
	return n
}

func describeRelease(p *types.ReleasePayload) *note {
	rel := p.Release
	if rel == nil {
		rel = &types.Release{}
	}
	verb, color := "published", colorGreen
	switch p.Action {
	case types.HookReleaseUpdated:
		verb, color = "updated", colorYellow
	case types.HookReleaseDeleted:
		verb, color = "deleted", colorRed
	}
	target := rel.HTMLURL
	if target == "" {
		target = repoURL(p.Repository) + "/releases/tag/" + escapeSegments(rel.TagName)
	}
	name := rel.TagName
	if rel.Title != "" && rel.Title != rel.TagName {
		name = rel.Title + " (" + rel.TagName + ")"
	}
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color, body: rel.Note,
		title:    fmt.Sprintf("[%s] Release %s: %s", repoName(p.Repository), verb, name),
		factName: "Tag", factValue: rel.TagName, view: "View release"}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] Release %s: %s%s", repoLink(link, p.Repository), link("", verb), link(target, name), byWhom(link, p.Sender))
	}
	return n
}

func describeWiki(p *wikiPayload) *note {
	verb, color := "created", colorGreen
	switch p.Action {
	case "edited":
		verb, color = "edited", colorYellow
	case "deleted":
		verb, color = "deleted", colorRed
	}
	target := repoURL(p.Repository) + "/wiki/" + url.PathEscape(p.Page)
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color,
		title:    fmt.Sprintf("[%s] Wiki page '%s' %s", repoName(p.Repository), p.Page, verb),
		factName: "Wiki page", factValue: p.Page, view: "View wiki page"}
	if p.Action != "deleted" {
		n.body = p.Comment
	}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] Wiki page '%s' %s%s", repoLink(link, p.Repository), link(target, p.Page), link("", verb), byWhom(link, p.Sender))
	}
	return n
}

func describeStatus(p *types.CommitStatusPayload) *note {
	color := colorYellow
	switch p.State {
	case "success":
		color = colorGreen
	case "failure", "error":
		color = colorRed
	case "warning":
		color = colorOrange
	}
	target := p.TargetURL
	commitURL := repoURL(p.Repo) + "/commit/" + p.SHA
	if p.Commit != nil && p.Commit.URL != "" {
		commitURL = p.Commit.URL
	}
	if target == "" {
		target = commitURL
	}
	n := &note{repo: p.Repo, sender: p.Sender, url: target, color: color, body: p.Description,
		title:    fmt.Sprintf("[%s] Commit %s: %s is %s", repoName(p.Repo), shortSHA(p.SHA), p.Context, p.State),
		factName: "Commit", factValue: shortSHA(p.SHA), view: "View status"}
	n.headline = func(link linker) string {
		return fmt.Sprintf("[%s] Commit %s: %s is %s", repoLink(link, p.Repo), link(commitURL, shortSHA(p.SHA)),
			link(p.TargetURL, p.Context), link("", p.State))
	}
	return n
}

func describePackage(p *packagePayload) *note {
	verb, color := "published", colorGreen
	if p.Action == "deleted" {
		verb, color = "deleted", colorRed
	}
	var name, target string
	if p.Package != nil {
		name = p.Package.Name + ":" + p.Package.Version
		target = p.Package.HTMLURL
	}
	n := &note{repo: p.Repository, sender: p.Sender, url: target, color: color,
		title:    fmt.Sprintf("Package %s: %s", verb, name),
		factName: "Package", factValue: name, view: "View package"}
	n.headline = func(link linker) string {
		return fmt.Sprintf("Package %s: %s%s", link("", verb), link(target, name), byWhom(link, p.Sender))
	}
	return n
}

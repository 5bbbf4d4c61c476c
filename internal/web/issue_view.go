package web

import (
	"context"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/user"
)

// issueRights are what the visitor may do on a conversation page; the
// page shows only the forms they allow (the handlers check again).
type issueRights struct {
	SignedIn bool
	Comment  bool
	Edit     bool // title, body, state
	Write    bool // labels, milestone, assignees, due date, dependencies
	Admin    bool // lock, pin
	React    bool
	Attach   bool
	Archived bool
}

// issueSidebar is the sidebar of a conversation.
type issueSidebar struct {
	Labels     []issueLabelView
	AllLabels  []issueLabelView // the choices, for writers
	Milestone  *issue.Milestone
	Milestones []*issue.Milestone // the choices, for writers
	Assignees  []*user.User
	Deadline   time.Time
	// Dependencies are on: the issues this one depends on and those it blocks.
	Dependencies bool
	DependsOn    []*issueRef
	Blocks       []*issueRef
	Participants []*user.User
	Watching     bool
	Pinned       bool
}

// issueView is the data of an issue or pull request page.
type issueView struct {
	Issue       *issue.Issue
	Link        string
	RepoLink    string
	CSRF        string
	Poster      *user.User
	Body        template.HTML
	Attachments []*issue.Attachment
	React       *issueReactBox
	Entries     []*timelineEntry
	Side        issueSidebar
	Can         issueRights
	// Page and Pages page the timeline.
	Page, Pages int
	// Pull is the pull request half (nil on issue pages).
	Pull *issuePullView
	// MeID is the signed-in visitor's id (0 signed out).
	MeID int64
}

// Kind is the path segment of the issue's pages: issues or pulls.
func (v *issueView) Kind() string {
	if v.Issue.IsPull {
		return "pulls"
	}
	return "issues"
}

// StateName is open, closed or merged.
func (v *issueView) StateName() string {
	switch {
	case v.Pull != nil && v.Pull.State == "merged":
		return "merged"
	case v.Issue.IsClosed:
		return "closed"
	}
	return "open"
}

// DeadlineDate is the due date as YYYY-MM-DD, or "".
func (s issueSidebar) DeadlineDate() string {
	if s.Deadline.IsZero() {
		return ""
	}
	return s.Deadline.UTC().Format("2006-01-02")
}

// issueCSRF is the visitor's CSRF token, for forms inside partial templates.
func (h *Handler) issueCSRF(r *http.Request) string {
	if b := visitorOf(r).binding; b != "" {
		return h.keys.token(b)
	}
	return ""
}

// issuePageNumber reads ?page= (1 when absent or invalid).
func issuePageNumber(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > 1_000_000 {
		return 1
	}
	return n
}

// viewIssue serves /{owner}/{repo}/issues/{index}; a pull request's number
// is sent to its own page.
func (h *Handler) viewIssue(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssue(r)
	if err != nil {
		return err
	}
	if c.issue.IsPull {
		http.Redirect(w, r, c.link(), http.StatusSeeOther)
		return nil
	}
	v, err := h.issueView(r, c)
	if err != nil {
		return err
	}
	return h.renderRepo(w, r, http.StatusOK, "issue_view", c.issue.Title+" · Issue #"+strconv.FormatInt(c.issue.Index, 10), c.rc, v)
}

// issueView loads what a conversation page shows: the issue, one page of
// its timeline, the sidebar, in a fixed number of queries.
func (h *Handler) issueView(r *http.Request, c *issueCtx) (*issueView, error) {
	ctx := r.Context()
	is := c.issue
	v := &issueView{Issue: is, Link: c.link(), RepoLink: c.rc.Link, CSRF: h.issueCSRF(r), Page: issuePageNumber(r)}
	v.Can = issueRights{SignedIn: c.doer != nil, Comment: c.canComment(), Edit: c.canEdit(), Write: c.writer(),
		Admin: c.canAdmin(), React: c.canComment(), Attach: c.canComment() && h.Config.Attachment.Enabled,
		Archived: c.rc.Repo.IsArchived}
	assignees, err := h.Issues.AssigneeIDs(ctx, is.ID)
	if err != nil {
		return nil, err
	}
	conv, err := h.loadConversation(ctx, c, v.Page, assignees)
	if err != nil {
		return nil, err
	}
	v.Entries = conv.entries
	v.Pages = int((conv.total + timelinePageSize - 1) / timelinePageSize)
	v.Poster = issueUserOr(conv.users, is.PosterID)
	v.Body = h.renderIssueMarkdown(ctx, c.rc, is.Content)
	if c.doer != nil {
		v.MeID = c.doer.ID
	}
	var types []issueReaction
	for _, t := range h.Config.UI.Reactions {
		types = append(types, issueReaction{Type: t, Emoji: issueEmoji(t)})
	}
	box := func(action string, have []issueReaction) *issueReactBox {
		return &issueReactBox{Action: action, CSRF: v.CSRF, Can: v.Can.React, Have: have, Types: types}
	}
	v.React = box(v.Link+"/reactions", conv.reactions[0])
	for _, e := range conv.entries {
		if e.Type == "comment" {
			e.React = box(c.rc.Link+"/comments/"+strconv.FormatInt(e.ID, 10)+"/reactions", conv.reactions[e.ID])
		}
	}
	atts, err := h.Issues.AttachmentsOfIssues(ctx, []int64{is.ID})
	if err != nil {
		return nil, err
	}
	v.Attachments = atts[is.ID]
	for _, id := range assignees {
		v.Side.Assignees = append(v.Side.Assignees, issueUserOr(conv.users, id))
	}
	v.Side.Participants = conv.participants
	v.Side.Deadline = is.Deadline
	v.Side.Pinned = is.PinOrder > 0
	if err := h.loadSidebar(ctx, c, &v.Side); err != nil {
		return nil, err
	}
	return v, nil
}

// loadSidebar loads the labels, milestone, choices (for writers),
// dependencies and the visitor's subscription.
func (h *Handler) loadSidebar(ctx context.Context, c *issueCtx, side *issueSidebar) error {
	is := c.issue
	labels, err := h.Issues.IssueLabels(ctx, is.ID)
	if err != nil {
		return err
	}
	side.Labels = toIssueLabels(labels)
	if is.MilestoneID > 0 {
		ms, err := h.Issues.MilestonesByIDs(ctx, []int64{is.MilestoneID})
		if err != nil {
			return err
		}
		side.Milestone = ms[is.MilestoneID]
	}
	if c.writer() {
		all, err := h.Issues.ListLabels(ctx, "WHERE l.repo_id = ? OR (l.org_id = ? AND l.org_id <> 0) ORDER BY l.name, l.id",
			c.rc.Repo.ID, issueOrgID(c.rc))
		if err != nil {
			return err
		}
		on := map[int64]bool{}
		for _, l := range labels {
			on[l.ID] = true
		}
		for _, l := range all {
			lv := toIssueLabel(l)
			lv.Checked = on[l.ID]
			if !lv.Archived || lv.Checked {
				side.AllLabels = append(side.AllLabels, lv)
			}
		}
		if side.Milestones, err = h.Issues.ListMilestones(ctx, "WHERE m.repo_id = ? ORDER BY m.is_closed, m.name, m.id", c.rc.Repo.ID); err != nil {
			return err
		}
	}
	if c.rc.Repo.Settings.EnableIssueDependencies {
		side.Dependencies = true
		cond, args := access.RepoCond(c.doer)
		for _, blocks := range []bool{false, true} {
			list, _, err := h.Issues.ListDependencies(ctx, issue.DependencyList{IssueID: is.ID, Blocks: blocks, RepoID: c.rc.Repo.ID,
				RepoCond: cond, RepoArgs: args, Limit: 50})
			if err != nil {
				return err
			}
			refs, err := h.issueRefs(ctx, c.rc, c.doer, list)
			if err != nil {
				return err
			}
			var kept []*issueRef
			for _, x := range list {
				if ref, ok := refs[x.ID]; ok {
					kept = append(kept, ref)
				}
			}
			if blocks {
				side.Blocks = kept
			} else {
				side.DependsOn = kept
			}
		}
	}
	if c.doer != nil {
		st, err := h.Issues.WatchStateOf(ctx, c.doer.ID, is)
		if err != nil {
			return err
		}
		side.Watching = st.Watching
	}
	return nil
}

package web

import (
	"context"
	"encoding/json"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// timelinePageSize is how many timeline entries one page of a conversation shows.
const timelinePageSize = 100

// timelineEntry is one entry of a conversation, ready for the template:
// Type is the entry's kind by Gitea's names ("comment", "label", "close", ...).
type timelineEntry struct {
	ID      int64
	Type    string
	Poster  *user.User
	Created time.Time
	// Plain comments and reviews.
	Body        template.HTML
	Raw         string
	Attachments []*issue.Attachment
	React       *issueReactBox
	CanChange   bool
	// Events.
	Label                   *issueLabelView
	Added                   bool // a label or assignee added (else removed)
	Milestone, OldMilestone string
	Assignee                *user.User
	Team                    string
	OldTitle, NewTitle      string
	OldRef, NewRef          string
	Ref                     *issueRef // the referencing or dependent issue
	RefAction               string
	RefCommentID            int64
	CommitSHA               string
	Commits                 []string
	ForcePush               bool
	Review                  string // approved, changes requested, commented
	Duration                string
	Reason                  string
	// DueDate and OldDueDate are the dates of a due date event.
	DueDate, OldDueDate string
}

// issueReactBox is what the reactions of the issue or of one comment show:
// the reactions given and, for those who may react, the buttons.
type issueReactBox struct {
	Action string // the form's path, without /react or /unreact
	CSRF   string
	Can    bool
	Have   []issueReaction
	Types  []issueReaction
}

// Key names the issue in a dependency form: "#N", or "owner/repo#N" in
// another repository.
func (r *issueRef) Key() string {
	return r.RepoName + "#" + strconv.FormatInt(r.Index, 10)
}

// issueRef is another issue a timeline entry or the sidebar names.
type issueRef struct {
	Link     string
	RepoName string // owner/name, empty within the same repository
	Index    int64
	Title    string
	IsPull   bool
	Closed   bool
}

// issueReaction sums up one kind of reaction to an issue or comment.
type issueReaction struct {
	Type  string
	Emoji string
	Count int
	// Mine: the visitor gave this reaction.
	Mine bool
	// Users names who reacted (the button's title).
	Users string
}

// issueReactionEmoji are the emoji of Gitea's default reaction set; other
// configured reactions show as :name:.
var issueReactionEmoji = map[string]string{"+1": "👍", "-1": "👎", "laugh": "😄", "hooray": "🎉", "confused": "😕",
	"heart": "❤️", "rocket": "🚀", "eyes": "👀"}

func issueEmoji(t string) string {
	if e, ok := issueReactionEmoji[t]; ok {
		return e
	}
	return ":" + t + ":"
}

// issueReactionRow is one reaction as loaded for a conversation.
type issueReactionRow struct {
	typ       string
	commentID int64
	userID    int64
}

// loadIssueReactions loads the reactions of the configured types to issue
// issueID itself and to its comments commentIDs, in one query.
func (h *Handler) loadIssueReactions(ctx context.Context, issueID int64, commentIDs []int64) ([]issueReactionRow, error) {
	allowed := h.Config.UI.Reactions
	q := "SELECT r.type, r.comment_id, r.user_id FROM reaction r WHERE r.issue_id = ? AND r.comment_id IN " + db.In(len(commentIDs)+1)
	args := append([]any{issueID, int64(0)}, db.Int64Args(commentIDs)...)
	if len(allowed) > 0 {
		q += " AND r.type IN " + db.In(len(allowed))
		for _, t := range allowed {
			args = append(args, t)
		}
	}
	rows, err := h.DB.Query(ctx, q+" ORDER BY r.id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []issueReactionRow
	for rows.Next() {
		var x issueReactionRow
		if err := rows.Scan(&x.typ, &x.commentID, &x.userID); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// sumIssueReactions groups the reactions of each comment (0: the issue) by type,
// in the order of the configured set.
func (h *Handler) sumIssueReactions(list []issueReactionRow, users map[int64]*user.User, me *user.User) map[int64][]issueReaction {
	order := map[string]int{}
	for i, t := range h.Config.UI.Reactions {
		order[t] = i
	}
	type key struct {
		comment int64
		typ     string
	}
	sums := map[key]*issueReaction{}
	names := map[key][]string{}
	out := map[int64][]issueReaction{}
	var keys []key
	for _, x := range list {
		k := key{x.commentID, x.typ}
		v, ok := sums[k]
		if !ok {
			v = &issueReaction{Type: x.typ, Emoji: issueEmoji(x.typ)}
			sums[k] = v
			keys = append(keys, k)
		}
		v.Count++
		if me != nil && me.ID == x.userID {
			v.Mine = true
		}
		if len(names[k]) < 10 {
			names[k] = append(names[k], issueUserOr(users, x.userID).Name)
		}
	}
	for _, k := range keys {
		v := sums[k]
		v.Users = strings.Join(names[k], ", ")
		if v.Count > len(names[k]) {
			v.Users += ", …"
		}
		out[k.comment] = append(out[k.comment], *v)
	}
	for id, vs := range out {
		sortIssueReactions(vs, order)
		out[id] = vs
	}
	return out
}

// sortIssueReactions orders reactions by the configured set (insertion sort: a
// handful of kinds).
func sortIssueReactions(vs []issueReaction, order map[string]int) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && order[vs[j].Type] < order[vs[j-1].Type]; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

// issueConversation is everything a conversation page loads about its timeline,
// in a fixed number of queries.
type issueConversation struct {
	entries   []*timelineEntry
	total     int64
	users     map[int64]*user.User
	reactions map[int64][]issueReaction // by comment id, 0 for the issue
	// participants are the issue's poster and the posters of comments shown.
	participants []*user.User
}

// renderIssueMarkdown renders a comment for the page; text the renderer refuses
// (too large) is shown escaped instead.
func (h *Handler) renderIssueMarkdown(ctx context.Context, rc *repoCtx, text string) template.HTML {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	out, err := h.Markup.Render(ctx, []byte(text), markup.Options{Mode: markup.ModeComment,
		RepoLink: strings.TrimSuffix(h.rootURL, "/") + rc.Link})
	if err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(text) + "</pre>")
	}
	return template.HTML(out) // sanitized by the renderer
}

// loadConversation loads page (1-based) of the timeline of c's issue with
// its users, labels, milestones, referenced issues (those the visitor may
// read), attachments, reactions and reviews, plus extraUsers (assignees).
func (h *Handler) loadConversation(ctx context.Context, c *issueCtx, page int, extraUsers []int64) (*issueConversation, error) {
	list, total, err := h.Issues.Timeline(ctx, c.issue.ID, issue.TimelineOptions{Limit: timelinePageSize, Offset: (page - 1) * timelinePageSize})
	if err != nil {
		return nil, err
	}
	conv := &issueConversation{total: total}
	userIDs := append([]int64{c.issue.PosterID}, extraUsers...)
	var labelIDs, milestoneIDs, issueIDs, commentIDs, reviewIDs, teamIDs []int64
	for _, cm := range list {
		userIDs = append(userIDs, cm.PosterID)
		if cm.AssigneeID > 0 {
			userIDs = append(userIDs, cm.AssigneeID)
		}
		if cm.LabelID > 0 {
			labelIDs = append(labelIDs, cm.LabelID)
		}
		if cm.MilestoneID > 0 {
			milestoneIDs = append(milestoneIDs, cm.MilestoneID)
		}
		if cm.OldMilestoneID > 0 {
			milestoneIDs = append(milestoneIDs, cm.OldMilestoneID)
		}
		if cm.RefIssueID > 0 {
			issueIDs = append(issueIDs, cm.RefIssueID)
		}
		if cm.DependentIssueID > 0 {
			issueIDs = append(issueIDs, cm.DependentIssueID)
		}
		if cm.ReviewID > 0 {
			reviewIDs = append(reviewIDs, cm.ReviewID)
		}
		if cm.AssigneeTeamID > 0 {
			teamIDs = append(teamIDs, cm.AssigneeTeamID)
		}
		if cm.Type == issue.CommentPlain || cm.Type == issue.CommentReview {
			commentIDs = append(commentIDs, cm.ID)
		}
	}
	reactions, err := h.loadIssueReactions(ctx, c.issue.ID, commentIDs)
	if err != nil {
		return nil, err
	}
	for _, x := range reactions {
		userIDs = append(userIDs, x.userID)
	}
	if conv.users, err = h.Users.Store.GetByIDs(ctx, userIDs); err != nil {
		return nil, err
	}
	labels, err := h.Issues.LabelsByIDs(ctx, labelIDs)
	if err != nil {
		return nil, err
	}
	milestones, err := h.Issues.MilestonesByIDs(ctx, milestoneIDs)
	if err != nil {
		return nil, err
	}
	refs, err := h.readableIssues(ctx, c.rc, c.doer, issueIDs)
	if err != nil {
		return nil, err
	}
	attachments, err := h.Issues.AttachmentsOfComments(ctx, commentIDs)
	if err != nil {
		return nil, err
	}
	reviews := map[int64]*pull.Review{}
	if len(reviewIDs) > 0 {
		if reviews, err = h.Pulls.ReviewsByIDs(ctx, reviewIDs); err != nil {
			return nil, err
		}
	}
	teams := map[int64]string{}
	if len(teamIDs) > 0 {
		ts, err := h.Orgs.TeamsByIDs(ctx, teamIDs)
		if err != nil {
			return nil, err
		}
		for id, t := range ts {
			teams[id] = t.Name
		}
	}
	conv.reactions = h.sumIssueReactions(reactions, conv.users, c.doer)
	seen := map[int64]bool{c.issue.PosterID: true}
	conv.participants = append(conv.participants, issueUserOr(conv.users, c.issue.PosterID))
	for _, cm := range list {
		// References from issues the visitor cannot read are left out.
		if issue.IsRefType(cm.Type) && cm.RefIssueID > 0 && refs[cm.RefIssueID] == nil {
			continue
		}
		e := &timelineEntry{ID: cm.ID, Type: cm.Type.String(), Poster: issueUserOr(conv.users, cm.PosterID), Created: cm.Created,
			OldTitle: cm.OldTitle, NewTitle: cm.NewTitle, OldRef: cm.OldRef, NewRef: cm.NewRef, CommitSHA: cm.CommitSHA,
			RefAction: issue.RefAction(cm.RefAction).String(), RefCommentID: cm.RefCommentID, Added: !cm.RemovedAssignee}
		switch cm.Type {
		case issue.CommentPlain:
			e.Body, e.Raw = h.renderIssueMarkdown(ctx, c.rc, cm.Content), cm.Content
			e.Attachments = attachments[cm.ID]
			e.CanChange = c.canChangeComment(cm)
			if !seen[cm.PosterID] {
				seen[cm.PosterID] = true
				conv.participants = append(conv.participants, e.Poster)
			}
		case issue.CommentLabel:
			if l, ok := labels[cm.LabelID]; ok {
				lv := toIssueLabel(l)
				e.Label = &lv
			}
			e.Added = cm.Content == "1"
		case issue.CommentReview:
			e.Body = h.renderIssueMarkdown(ctx, c.rc, cm.Content)
			e.Attachments = attachments[cm.ID]
			if rv, ok := reviews[cm.ReviewID]; ok {
				e.Review = issueReviewVerdict(rv)
				if e.Body == "" {
					e.Body = h.renderIssueMarkdown(ctx, c.rc, rv.Content)
				}
			}
		case issue.CommentLock:
			e.Reason = cm.Content
		case issue.CommentPullPush:
			var push struct {
				IsForcePush bool     `json:"is_force_push"`
				CommitIDs   []string `json:"commit_ids"`
			}
			if json.Unmarshal([]byte(cm.Content), &push) == nil {
				e.ForcePush, e.Commits = push.IsForcePush, push.CommitIDs
			}
		case issue.CommentAddTimeManual, issue.CommentStopTracking, issue.CommentDeleteTimeManual:
			if secs, ok := strings.CutPrefix(cm.Content, "|"); ok {
				if n, err := strconv.ParseInt(secs, 10, 64); err == nil {
					e.Duration = issue.FormatDuration(n)
				}
			}
		case issue.CommentAddedDeadline, issue.CommentModifiedDeadline, issue.CommentRemovedDeadline:
			e.DueDate, e.OldDueDate, _ = strings.Cut(cm.Content, "|")
		case issue.CommentCommitRef:
			e.Body = h.renderIssueMarkdown(ctx, c.rc, issueFirstLine(cm.Content))
		}
		if m, ok := milestones[cm.MilestoneID]; ok {
			e.Milestone = m.Name
		}
		if m, ok := milestones[cm.OldMilestoneID]; ok {
			e.OldMilestone = m.Name
		}
		if cm.AssigneeID > 0 {
			e.Assignee = issueUserOr(conv.users, cm.AssigneeID)
		}
		if cm.AssigneeTeamID > 0 {
			e.Team = teams[cm.AssigneeTeamID]
		}
		if cm.RefIssueID > 0 {
			e.Ref = refs[cm.RefIssueID]
		}
		if cm.DependentIssueID > 0 {
			e.Ref = refs[cm.DependentIssueID]
			if e.Ref == nil {
				continue // a dependency the visitor may not see
			}
		}
		conv.entries = append(conv.entries, e)
	}
	return conv, nil
}

// issueFirstLine is the first line of s.
func issueFirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// issueReviewVerdict names what a review said.
func issueReviewVerdict(rv *pull.Review) string {
	switch {
	case rv.Dismissed:
		return "dismissed"
	case rv.Type == pull.ReviewApprove:
		return "approved"
	case rv.Type == pull.ReviewReject:
		return "requested changes"
	case rv.Type == pull.ReviewComment:
		return "reviewed"
	}
	return ""
}

// readableIssues loads issues by id and keeps those the visitor may read
// v (their repository visible, their unit readable), with links: a fixed
// number of queries whatever their number.
func (h *Handler) readableIssues(ctx context.Context, rc *repoCtx, v *user.User, ids []int64) (map[int64]*issueRef, error) {
	out := map[int64]*issueRef{}
	if len(ids) == 0 {
		return out, nil
	}
	issues, err := h.Issues.GetByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	list := make([]*issue.Issue, 0, len(issues))
	for _, is := range issues {
		list = append(list, is)
	}
	return h.issueRefs(ctx, rc, v, list)
}

// issueRefs keeps the issues of list the visitor may read, with their
// links, keyed by id: the repositories other than rc's are loaded with the
// visitor's permissions in three queries.
func (h *Handler) issueRefs(ctx context.Context, rc *repoCtx, v *user.User, list []*issue.Issue) (map[int64]*issueRef, error) {
	out := map[int64]*issueRef{}
	repos := map[int64]*repo.Repository{rc.Repo.ID: rc.Repo}
	perms := map[int64]access.RepoPerm{rc.Repo.ID: rc.Perm}
	var others []int64
	for _, is := range list {
		if is.RepoID != rc.Repo.ID {
			others = append(others, is.RepoID)
		}
	}
	if len(others) > 0 {
		cond, args := access.RepoCond(v)
		visible, err := h.Repos.List(ctx, "WHERE r.id IN "+db.In(len(others))+" AND ("+cond+")", append(db.Int64Args(others), args...)...)
		if err != nil {
			return nil, err
		}
		ownerIDs := make([]int64, 0, len(visible))
		for _, rp := range visible {
			ownerIDs = append(ownerIDs, rp.OwnerID)
			repos[rp.ID] = rp
		}
		owners, err := h.Users.Store.GetByIDs(ctx, ownerIDs)
		if err != nil {
			return nil, err
		}
		ps, err := h.Access.RepoPermissions(ctx, v, visible, owners)
		if err != nil {
			return nil, err
		}
		for id, p := range ps {
			perms[id] = p
		}
	}
	for _, is := range list {
		rp, ok := repos[is.RepoID]
		if !ok {
			continue
		}
		unit := issueUnitOf(is)
		if !rp.HasUnit(unit) || !perms[rp.ID].CanRead(unit) {
			continue
		}
		ref := &issueRef{Index: is.Index, Title: is.Title, IsPull: is.IsPull, Closed: is.IsClosed}
		if rp.ID == rc.Repo.ID {
			ref.Link = issueLink(rc.Link, is)
		} else {
			ref.RepoName = rp.OwnerName + "/" + rp.Name
			ref.Link = issueLink("/"+escapeSegments(ref.RepoName), is)
		}
		out[is.ID] = ref
	}
	return out, nil
}

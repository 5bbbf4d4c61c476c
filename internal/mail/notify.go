package mail

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/queue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// ReadersFunc tells which of users may read the issues (or pull requests)
// of a repository now.
type ReadersFunc func(ctx context.Context, r *repo.Repository, isPull bool, users []*user.User) (map[int64]bool, error)

// Notifications mails the watchers and participants of an issue or pull
// request about it: new issues and pull requests, comments, closing,
// reopening and merging. The event is queued in its change's transaction;
// a worker then picks the recipients (fanning out one job each, so one
// refused address does not resend the others), and each job checks, when it
// sends, that its recipient may still read the repository and still wants
// the mail.
type Notifications struct {
	Issues  *issue.Service
	Repos   *repo.Service
	Pulls   *pull.Service
	Users   *user.Service
	Readers ReadersFunc
	Markup  *markup.Renderer

	s *Service
}

// issueJob is the payload of kindIssue and (with To set) kindIssueTo.
type issueJob struct {
	Event     string `json:"event"`
	RepoID    int64  `json:"repo_id"`
	IssueID   int64  `json:"issue_id"`
	CommentID int64  `json:"comment_id,omitempty"`
	DoerID    int64  `json:"doer_id"`
	At        int64  `json:"at"` // Unix milliseconds of the event (Message-ID)
	// ReviewID is the submitted review of a reviewed event.
	ReviewID int64 `json:"review_id,omitempty"`
	// Only, for an assignment or a review request, is the only recipient.
	Only int64 `json:"only,omitempty"`
	To   int64 `json:"to,omitempty"`
}

// OnIssueEvent is an issue.TxListener: it queues the mail of an event in
// the event's transaction.
func (n *Notifications) OnIssueEvent(ctx context.Context, e issue.Event) error {
	if e.Doer == nil || e.Repo == nil || e.Issue == nil {
		return nil
	}
	j := issueJob{Event: string(e.Kind), RepoID: e.Repo.ID, IssueID: e.Issue.ID, DoerID: e.Doer.ID, At: time.Now().UnixMilli()}
	switch e.Kind {
	case issue.EventOpened, issue.EventClosed, issue.EventReopened:
	case issue.EventCommentCreated:
		if e.Comment == nil || e.Comment.Type != issue.CommentPlain {
			return nil
		}
		j.CommentID = e.Comment.ID
	case issue.EventAssigned:
		if e.AssigneeID <= 0 || e.AssigneeID == e.Doer.ID {
			return nil
		}
		j.Only = e.AssigneeID
	default:
		return nil
	}
	return n.enqueue(ctx, j)
}

// OnPullEvent is a pull.TxListener: a merge and a submitted review are
// mailed to the watchers, a review request to the requested reviewer.
func (n *Notifications) OnPullEvent(ctx context.Context, e pull.Event) error {
	if e.Doer == nil || e.Repo == nil || e.Pull == nil {
		return nil
	}
	j := issueJob{Event: string(e.Kind), RepoID: e.Repo.ID, IssueID: e.Pull.IssueID, DoerID: e.Doer.ID, At: time.Now().UnixMilli()}
	switch e.Kind {
	case pull.EventMerged:
	case pull.EventReviewed:
		j.ReviewID = e.ReviewID
	case pull.EventReviewRequested:
		if e.ReviewerID <= 0 || e.ReviewerID == e.Doer.ID {
			return nil // team requests are not mailed
		}
		j.Only = e.ReviewerID
	default:
		return nil
	}
	return n.enqueue(ctx, j)
}

func (n *Notifications) enqueue(ctx context.Context, j issueJob) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return n.s.o.Queue.Enqueue(ctx, kindIssue, b, queue.EnqueueOptions{})
}

// fanOut queues one kindIssueTo job per recipient, in the transaction
// that marks this job done.
func (n *Notifications) fanOut(ctx context.Context, j *queue.Job) error {
	var p issueJob
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return queue.Permanent(err)
	}
	is, err := n.Issues.GetByID(ctx, p.IssueID)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Event == string(issue.EventClosed) && is.IsPull {
		pr, err := n.Pulls.GetByIssueID(ctx, is.ID)
		if err != nil && !errs.IsNotFound(err) {
			return err
		}
		if pr != nil && pr.HasMerged {
			return nil // the merge's own mail tells it
		}
	}
	var ids []int64
	if p.Only > 0 {
		ids = []int64{p.Only}
	} else if ids, err = n.Issues.WatcherIDs(ctx, is); err != nil {
		return err
	}
	// Mentioned accounts get the mail too, watching or not (as in Gitea).
	content := ""
	switch {
	case p.Event == string(issue.EventOpened):
		content = is.Content
	case p.CommentID > 0:
		c, err := n.Issues.GetComment(ctx, p.CommentID)
		if err != nil && !errs.IsNotFound(err) {
			return err
		}
		if c != nil {
			content = c.Content
		}
	}
	if names := issue.FindMentions(content); len(names) > 0 {
		args := make([]any, 0, len(names)+1)
		for _, name := range names {
			args = append(args, name)
		}
		found, err := n.s.o.Users.List(ctx, "WHERE u.lower_name IN "+db.In(len(names))+" AND u.type = ?",
			append(args, int(user.TypeIndividual))...)
		if err != nil {
			return err
		}
		for _, u := range found {
			ids = append(ids, u.ID)
		}
	}
	if p.Only == 0 {
		// The doer is among them only when they asked for mail about
		// their own actions (checked when sending).
		ids = append(ids, p.DoerID)
	}
	// The queue may run this again (a batch of outcomes that failed is
	// recorded job by job), so it keeps no state between runs.
	j.WithOutcome(func(ctx context.Context) error {
		seen := map[int64]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			one := p
			one.To = id
			b, err := json.Marshal(one)
			if err != nil {
				return err
			}
			if err := n.s.o.Queue.Enqueue(ctx, kindIssueTo, b, queue.EnqueueOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	return nil
}

// sendOne renders and sends the mail of one recipient, if they may still
// read it and want it.
func (n *Notifications) sendOne(ctx context.Context, j *queue.Job) error {
	var p issueJob
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return queue.Permanent(err)
	}
	users, err := n.s.o.Users.GetByIDs(ctx, []int64{p.To, p.DoerID})
	if err != nil {
		return err
	}
	to, doer := users[p.To], users[p.DoerID]
	if to == nil || !to.CanSignIn() || to.Email == "" {
		return nil
	}
	if doer == nil {
		doer = user.Ghost()
	}
	is, err := n.Issues.GetByID(ctx, p.IssueID)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	r, err := n.Repos.GetByID(ctx, is.RepoID)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var c *issue.Comment
	content := is.Content
	if p.CommentID > 0 {
		if c, err = n.Issues.GetComment(ctx, p.CommentID); errs.IsNotFound(err) {
			return nil // deleted before it was mailed
		} else if err != nil {
			return err
		}
		content = c.Content
	}
	var review *pull.Review
	if p.ReviewID > 0 {
		if review, err = n.Pulls.GetReview(ctx, p.ReviewID); errs.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
	}
	switch {
	case review != nil:
		content = review.Content
	case p.Event != string(issue.EventOpened) && p.Event != string(issue.EventCommentCreated):
		content = ""
	}
	pref, err := n.Users.EmailNotifications(ctx, to.ID)
	if err != nil {
		return err
	}
	mentioned := mentions(content, to.Name)
	if p.Only > 0 {
		mentioned = true // addressed to this account alone, as a mention
	}
	switch {
	case pref == user.EmailNotificationsDisabled,
		pref == user.EmailNotificationsOnMention && !mentioned,
		to.ID == p.DoerID && pref != user.EmailNotificationsAndYourOwn:
		return nil
	}
	ok, err := n.Readers(ctx, r, is.IsPull, []*user.User{to})
	if err != nil {
		return err
	}
	if !ok[to.ID] {
		return nil // no longer allowed to read it
	}
	m, err := n.compose(ctx, p, r, is, c, review, doer, to, content)
	if err != nil {
		return queue.Permanent(err)
	}
	return n.s.send(ctx, m)
}

// mentions reports whether text @mentions name (issue.FindMentions).
func mentions(text, name string) bool {
	return slices.Contains(issue.FindMentions(text), strings.ToLower(name))
}

// compose builds the mail of one recipient: Gitea's subjects, threading
// and list headers.
func (n *Notifications) compose(ctx context.Context, p issueJob, r *repo.Repository, is *issue.Issue, c *issue.Comment,
	review *pull.Review, doer, to *user.User, content string) (*Message, error) {
	kind := "issues"
	if is.IsPull {
		kind = "pulls"
	}
	repoURL := n.s.o.RootURL + r.FullName()
	issueURL := repoURL + "/" + kind + "/" + strconv.FormatInt(is.Index, 10)
	link := issueURL
	thread := fmt.Sprintf("<%s/%s/%d@%s>", r.FullName(), kind, is.Index, n.s.domain)
	messageID := thread
	// part is the Message-ID of one event of the thread.
	part := func(what string, id int64) string {
		return fmt.Sprintf("<%s/%s/%d/%s/%d@%s>", r.FullName(), kind, is.Index, what, id, n.s.domain)
	}
	var action string
	switch p.Event {
	case string(issue.EventOpened):
		action = "opened"
	case string(issue.EventCommentCreated):
		action = "commented on"
		messageID = part("comment", c.ID)
		link = issueURL + "#issuecomment-" + strconv.FormatInt(c.ID, 10)
	case string(issue.EventClosed):
		action = "closed"
		messageID = part("close", p.At)
	case string(issue.EventReopened):
		action = "reopened"
		messageID = part("reopen", p.At)
	case string(issue.EventAssigned):
		action = "assigned you to"
		messageID = part("assign", p.At)
	case string(pull.EventReviewRequested):
		action = "requested your review on"
		messageID = part("review_request", p.At)
	case string(pull.EventReviewed):
		switch review.Type {
		case pull.ReviewApprove:
			action = "approved"
		case pull.ReviewReject:
			action = "requested changes on"
		default:
			action = "reviewed"
		}
		messageID = part("review", review.ID)
		link = issueURL + "/files"
	case string(pull.EventMerged):
		action = "merged"
		messageID = part("merge", p.At)
	default:
		return nil, fmt.Errorf("unknown issue mail event %q", p.Event)
	}
	noun := "issue"
	if is.IsPull {
		noun = "pull request"
	}
	var rendered template.HTML
	if content != "" && n.Markup != nil {
		out, err := n.Markup.Render(ctx, []byte(content), markup.Options{Mode: markup.ModeComment, RepoLink: repoURL})
		if err == nil {
			rendered = template.HTML(out) //nolint:gosec // sanitized by the markup renderer's policy
		}
	}
	data := map[string]any{"AppName": n.s.o.AppName, "RootURL": n.s.o.RootURL, "Doer": doer.Name, "Action": action, "Noun": noun,
		"Repo": r.FullName(), "Title": is.Title, "Index": is.Index, "Link": link, "Content": content, "Rendered": rendered,
		"IssueURL": issueURL}
	m, err := n.s.views.render("issue", data)
	if err != nil {
		return nil, err
	}
	subject := fmt.Sprintf("[%s] %s (#%d)", r.FullName(), is.Title, is.Index)
	if p.Event != string(issue.EventOpened) {
		subject = "Re: " + subject
		m.InReplyTo, m.References = thread, thread
	}
	reason := "issue comments" // Gitea's X-Gitea-Reason values
	switch {
	case p.Event == string(issue.EventAssigned):
		reason = "issue assigned"
	case p.Event == string(pull.EventReviewRequested):
		reason = "review requested"
	}
	m.To, m.ToName, m.Subject, m.MessageID = to.Email, to.Name, subject, messageID
	m.Headers = map[string]string{
		"List-ID":                   fmt.Sprintf("%s <%s.%s.%s>", r.FullName(), r.Name, r.OwnerName, n.s.domain),
		"List-Archive":              "<" + repoURL + ">",
		"List-Unsubscribe":          "<" + issueURL + ">",
		"X-Mailer":                  "Cairn",
		"X-Gitea-Reason":            reason,
		"X-Gitea-Sender":            doer.Name,
		"X-Gitea-Recipient":         to.Name,
		"X-Gitea-Recipient-Address": to.Email,
		"X-Gitea-Repository":        r.Name,
		"X-Gitea-Repository-Path":   r.FullName(),
		"X-Gitea-Repository-Link":   repoURL,
		"X-Gitea-Issue-ID":          strconv.FormatInt(is.Index, 10),
		"X-Gitea-Issue-Link":        issueURL,
	}
	return m, nil
}

package pull

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// ReviewType is the kind of a review row; the values are Gitea's.
type ReviewType int

// Review kinds. A review request is stored as a review of type ReviewRequest
// naming the requested user or team.
const (
	ReviewPending ReviewType = 0
	ReviewApprove ReviewType = 1
	ReviewComment ReviewType = 2
	ReviewReject  ReviewType = 3
	ReviewRequest ReviewType = 4
)

// Review is one review of a pull request: pending (seen only by its
// reviewer), submitted (approval, comment, request for changes), or a
// request for a review from a user or a team.
type Review struct {
	ID               int64
	Type             ReviewType
	ReviewerID       int64
	ReviewerTeamID   int64
	OriginalAuthor   string
	OriginalAuthorID int64
	IssueID          int64
	Content          string
	// Official: made (or requested) from someone whose review counts
	// towards the approvals a branch may require.
	Official bool
	// CommitID is the head commit the review was made on; Stale reports
	// that the head moved since.
	CommitID  string
	Stale     bool
	Dismissed bool
	Created   time.Time
	Updated   time.Time
}

// ErrReviewNotExist is Gitea's message for a missing review (and one the
// caller may not see).
func ErrReviewNotExist(id int64) *errs.Error {
	return errs.NotFound("review does not exist [id: %d]", id)
}

const reviewColumns = `r.id, r.type, r.reviewer_id, r.reviewer_team_id, r.original_author, r.original_author_id, r.issue_id,
	COALESCE(r.content, ''), r.official, r.commit_id, r.stale, r.dismissed, r.created_unix, r.updated_unix`

func scanReview(row scanner) (*Review, error) {
	r := &Review{}
	var created, updated int64
	err := row.Scan(&r.ID, &r.Type, &r.ReviewerID, &r.ReviewerTeamID, &r.OriginalAuthor, &r.OriginalAuthorID, &r.IssueID,
		&r.Content, &r.Official, &r.CommitID, &r.Stale, &r.Dismissed, &created, &updated)
	if err != nil {
		return nil, err
	}
	r.Created, r.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return r, nil
}

func (s *Service) listReviews(ctx context.Context, tail string, args ...any) ([]*Review, error) {
	rows, err := s.db.Query(ctx, "SELECT "+reviewColumns+" FROM review r "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Review
	for rows.Next() {
		r, err := scanReview(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// oneReview returns the first review of tail, or nil.
func (s *Service) oneReview(ctx context.Context, tail string, args ...any) (*Review, error) {
	r, err := scanReview(s.db.QueryRow(ctx, "SELECT "+reviewColumns+" FROM review r "+tail, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// GetReview loads a review by id.
func (s *Service) GetReview(ctx context.Context, id int64) (*Review, error) {
	r, err := s.oneReview(ctx, "WHERE r.id = ?", id)
	if err == nil && r == nil {
		err = ErrReviewNotExist(id)
	}
	return r, err
}

// GetPullReview loads review id of p as viewer may see it: a review of
// another pull request, or someone else's pending review (unless viewer is
// a site administrator), is missing.
func (s *Service) GetPullReview(ctx context.Context, viewer *user.User, p *PullRequest, id int64) (*Review, error) {
	r, err := s.GetReview(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.IssueID != p.IssueID || (r.Type == ReviewPending && !seesPending(viewer, r)) {
		return nil, ErrReviewNotExist(id)
	}
	return r, nil
}

func seesPending(viewer *user.User, r *Review) bool {
	return viewer != nil && (viewer.IsAdmin || viewer.ID == r.ReviewerID)
}

// ListReviews returns one page of the reviews of p (requests included,
// oldest first) and their number, leaving out pending reviews of others
// than viewer unless viewer is a site administrator.
func (s *Service) ListReviews(ctx context.Context, viewer *user.User, p *PullRequest, limit, offset int) ([]*Review, int64, error) {
	where := "WHERE r.issue_id = ?"
	args := []any{p.IssueID}
	switch {
	case viewer == nil:
		where += " AND r.type <> ?"
		args = append(args, ReviewPending)
	case !viewer.IsAdmin:
		where += " AND (r.type <> ? OR r.reviewer_id = ?)"
		args = append(args, ReviewPending, viewer.ID)
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM review r "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.listReviews(ctx, where+" ORDER BY r.created_unix, r.id"+db.LimitOffset(limit, offset), args...)
	return list, total, err
}

// ReviewsByIDs loads reviews keyed by id.
func (s *Service) ReviewsByIDs(ctx context.Context, ids []int64) (map[int64]*Review, error) {
	out := map[int64]*Review{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.listReviews(ctx, "WHERE r.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	for _, r := range list {
		out[r.ID] = r
	}
	return out, err
}

// ReviewCodeComments loads the line comments of reviews, oldest first, by review id.
func (s *Service) ReviewCodeComments(ctx context.Context, reviewIDs []int64) (map[int64][]*issue.Comment, error) {
	out := map[int64][]*issue.Comment{}
	if len(reviewIDs) == 0 {
		return out, nil
	}
	list, err := s.issues.ListComments(ctx, "WHERE c.type = ? AND c.review_id IN "+db.In(len(reviewIDs))+" ORDER BY c.id",
		append([]any{issue.CommentCode}, db.Int64Args(reviewIDs)...)...)
	for _, c := range list {
		out[c.ReviewID] = append(out[c.ReviewID], c)
	}
	return out, err
}

// ReviewSummaries returns, for reviews, the number of their line comments
// and the id of the timeline entry that submitted them (0 when none), in
// two queries.
func (s *Service) ReviewSummaries(ctx context.Context, reviewIDs []int64) (counts map[int64]int, entries map[int64]int64, err error) {
	counts, entries = map[int64]int{}, map[int64]int64{}
	if len(reviewIDs) == 0 {
		return counts, entries, nil
	}
	args := db.Int64Args(reviewIDs)
	rows, err := s.db.Query(ctx, "SELECT review_id, COUNT(*) FROM comment WHERE type = ? AND review_id IN "+db.In(len(reviewIDs))+
		" GROUP BY review_id", append([]any{issue.CommentCode}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return nil, nil, err
		}
		counts[id] = n
	}
	rows.Close()
	rows, err = s.db.Query(ctx, "SELECT review_id, MIN(id) FROM comment WHERE type = ? AND review_id IN "+db.In(len(reviewIDs))+
		" GROUP BY review_id", append([]any{issue.CommentReview}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, cid int64
		if err := rows.Scan(&id, &cid); err != nil {
			return nil, nil, err
		}
		entries[id] = cid
	}
	return counts, entries, rows.Err()
}

// IsOfficialReviewer reports whether u's reviews of pull requests of r
// count towards required approvals: as in Gitea without a branch rule,
// write access to the code of the base repository.
func (s *Service) IsOfficialReviewer(ctx context.Context, r *repo.Repository, u *user.User) (bool, error) {
	if u == nil || u.IsOrganization() {
		return false, nil
	}
	perm, err := s.Permission(ctx, u, r)
	if err != nil {
		return false, err
	}
	return perm.CanWrite(repo.UnitCode), nil
}

// ReviewCommentOptions is one line comment of a review.
type ReviewCommentOptions struct {
	Path string
	// Line is the line commented on: positive on the new side, negative on
	// the old side (Gitea's convention), 0 for the file.
	Line int64
	Body string
}

// CreateReviewOptions is a new review: Type ReviewPending keeps it (and
// its comments) visible to the reviewer only.
type CreateReviewOptions struct {
	Type ReviewType
	Body string
	// CommitID is the head commit the review was made on; empty means the
	// current head.
	CommitID string
	Comments []ReviewCommentOptions
}

// commentLines is how many lines of the diff a line comment keeps
// (Gitea's [ui] CODE_COMMENT_LINES default).
const commentLines = 4

// maxReviewComments bounds the line comments of one request.
const maxReviewComments = 500

// errClosedReview is Gitea's refusal of a verdict on a closed pull request.
const errClosedReview = "can't submit review for a closed or merged PR"

// CheckReviewEvent applies Gitea's rules on what a review of p by doer
// must carry: no approval or request for changes of one's own pull
// request, a body for a request for changes (and a pending review), a body
// or line comments for a comment.
func CheckReviewEvent(doer *user.User, p *PullRequest, t ReviewType, body string, hasComments bool) error {
	hasBody := strings.TrimSpace(body) != ""
	own := p.Issue != nil && p.Issue.PosterID == doer.ID
	switch t {
	case ReviewApprove:
		if own {
			return errs.Invalid("approve your own pull is not allowed")
		}
		return nil
	case ReviewReject:
		if own {
			return errs.Invalid("reject your own pull is not allowed")
		}
		if !hasBody {
			return errs.InvalidField("body", "review event REQUEST_CHANGES requires a body")
		}
	case ReviewComment:
		if !hasBody && !hasComments {
			return errs.InvalidField("body", "review event COMMENT requires a body or a comment")
		}
	case ReviewPending:
		if !hasBody {
			return errs.InvalidField("body", "review event PENDING requires a body")
		}
	default:
		return errs.InvalidField("event", "unknown review event")
	}
	return nil
}

// CreateReview adds doer's line comments to their pending review of p
// (created when there is none) and, unless o.Type is ReviewPending,
// submits it with o.Type and o.Body (checked by CheckReviewEvent).
func (s *Service) CreateReview(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, o CreateReviewOptions) (*Review, error) {
	if err := CheckReviewEvent(doer, p, o.Type, o.Body, len(o.Comments) > 0); err != nil {
		return nil, err
	}
	return s.createReview(ctx, doer, base, p, o)
}

// AddPendingComments adds doer's line comments to their pending review of
// p, starting one when there is none, as the web's line comment form does:
// unlike CreateReview with ReviewPending, the review needs no body.
func (s *Service) AddPendingComments(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, comments []ReviewCommentOptions) (*Review, error) {
	if len(comments) == 0 {
		return nil, errs.InvalidField("comments", "no line comment to add")
	}
	return s.createReview(ctx, doer, base, p, CreateReviewOptions{Type: ReviewPending, Comments: comments})
}

// createReview is CreateReview once the event is checked.
func (s *Service) createReview(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, o CreateReviewOptions) (*Review, error) {
	if len(o.Comments) > maxReviewComments {
		return nil, errs.InvalidField("comments", "a review holds at most %d comments", maxReviewComments)
	}
	if o.Type != ReviewPending && (p.HasMerged || p.Issue.IsClosed) && o.Type != ReviewComment {
		return nil, errs.Invalid("%s", errClosedReview)
	}
	path := s.repos.Path(base)
	head, err := s.git.ResolveCommit(ctx, path, p.HeadRef())
	if err != nil {
		return nil, errs.Conflict("the head of the pull request cannot be read")
	}
	commitID := head
	if o.CommitID != "" {
		if commitID, err = s.git.ResolveCommit(ctx, path, o.CommitID); err != nil {
			return nil, errs.InvalidField("commit_id", "commit %s does not exist", o.CommitID)
		}
	}
	comments := make([]*issue.Comment, 0, len(o.Comments))
	mergeBase := ""
	if len(o.Comments) > 0 {
		mergeBase = s.mergeBaseOf(ctx, p, path, head)
	}
	for i, c := range o.Comments {
		lc, err := s.lineComment(ctx, doer, p, path, mergeBase, head, c)
		if err != nil {
			if e := (*errs.Error)(nil); errors.As(err, &e) && e.Kind == errs.KindInvalid {
				return nil, errs.InvalidField("comments", "comment %d: %s", i+1, e.Message)
			}
			return nil, err
		}
		comments = append(comments, lc)
	}
	var rv *Review
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		pending, err := s.pendingReview(ctx, doer.ID, p.IssueID)
		if err != nil {
			return err
		}
		if pending == nil && (len(comments) > 0 || o.Type == ReviewPending) {
			if pending, err = s.insertReview(ctx, &Review{Type: ReviewPending, ReviewerID: doer.ID, IssueID: p.IssueID,
				CommitID: commitID}); err != nil {
				return err
			}
		}
		for _, c := range comments {
			c.ReviewID = pending.ID
			if err := s.issues.AddEvent(ctx, c); err != nil {
				return err
			}
		}
		if o.Type == ReviewPending {
			if o.Body != "" {
				if _, err := s.db.Exec(ctx, "UPDATE review SET content = ?, updated_unix = ? WHERE id = ?", o.Body, nowUnix(), pending.ID); err != nil {
					return err
				}
				pending.Content = o.Body
			}
			rv = pending
			return nil
		}
		if rv, err = s.submit(ctx, doer, base, p, pending, o.Type, o.Body, commitID, head); err != nil {
			return err
		}
		return s.notify(ctx, Event{Kind: EventReviewed, Doer: doer, Repo: base, Pull: p, ReviewID: rv.ID})
	})
	if err != nil {
		return nil, err
	}
	return rv, nil
}

// SubmitReview submits doer's pending review rv of p with verdict t.
func (s *Service) SubmitReview(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, rv *Review, t ReviewType, body string) (*Review, error) {
	if rv.Type != ReviewPending {
		return nil, errs.Invalid("only a pending review can be submitted")
	}
	if rv.ReviewerID != doer.ID {
		return nil, errs.Forbidden("only the reviewer may submit a pending review")
	}
	hasComments, err := s.HasReviewComments(ctx, rv.ID)
	if err != nil {
		return nil, err
	}
	if err := CheckReviewEvent(doer, p, t, body, hasComments); err != nil {
		return nil, err
	}
	if t == ReviewPending {
		return nil, errs.Invalid("review stay pending")
	}
	if t != ReviewComment && (p.HasMerged || p.Issue.IsClosed) {
		return nil, errs.Invalid("%s", errClosedReview)
	}
	head, err := s.git.ResolveCommit(ctx, s.repos.Path(base), p.HeadRef())
	if err != nil {
		return nil, errs.Conflict("the head of the pull request cannot be read")
	}
	var out *Review
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		cur, err := s.pendingReview(ctx, rv.ReviewerID, p.IssueID)
		if err != nil {
			return err
		}
		if cur == nil || cur.ID != rv.ID {
			return errs.Invalid("only a pending review can be submitted")
		}
		if out, err = s.submit(ctx, doer, base, p, cur, t, body, head, head); err != nil {
			return err
		}
		return s.notify(ctx, Event{Kind: EventReviewed, Doer: doer, Repo: base, Pull: p, ReviewID: out.ID})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// HasReviewComments reports whether review id holds line comments.
func (s *Service) HasReviewComments(ctx context.Context, id int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM comment WHERE review_id = ? AND type = ?", id, issue.CommentCode)
}

// pendingReview returns the pending review of reviewerID on issueID, or nil.
func (s *Service) pendingReview(ctx context.Context, reviewerID, issueID int64) (*Review, error) {
	return s.oneReview(ctx, "WHERE r.issue_id = ? AND r.reviewer_id = ? AND r.type = ? ORDER BY r.id", issueID, reviewerID, ReviewPending)
}

// insertReview stores a new review row.
func (s *Service) insertReview(ctx context.Context, r *Review) (*Review, error) {
	now := time.Now()
	r.Created, r.Updated = now, now
	id, err := s.db.Insert(ctx, `INSERT INTO review (type, reviewer_id, reviewer_team_id, issue_id, content, official, commit_id,
		stale, dismissed, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Type, r.ReviewerID, r.ReviewerTeamID, r.IssueID, r.Content, r.Official, r.CommitID, r.Stale, r.Dismissed,
		now.Unix(), now.Unix())
	r.ID = id
	return r, err
}

// submit turns pending (nil: none) into doer's review of type t, inside
// the caller's transaction, as Gitea's SubmitReview: the reviewer's review
// requests are answered, an earlier approval or request for changes is
// superseded (dismissed), only the latest verdict is official, and the
// timeline gets a review entry. Team requests of the base repository's
// organization are answered by a verdict of one of their members.
func (s *Service) submit(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, pending *Review,
	t ReviewType, body, commitID, head string) (*Review, error) {
	hasComments := false
	if pending != nil {
		var err error
		if hasComments, err = s.HasReviewComments(ctx, pending.ID); err != nil {
			return nil, err
		}
	}
	if t != ReviewApprove && !hasComments && strings.TrimSpace(body) == "" {
		return nil, errs.InvalidField("body", "Review content is empty")
	}
	official := false
	if t == ReviewApprove || t == ReviewReject {
		if _, err := s.db.Exec(ctx, "UPDATE review SET official = ? WHERE issue_id = ? AND reviewer_id = ?", false, p.IssueID, doer.ID); err != nil {
			return nil, err
		}
		var err error
		if official, err = s.IsOfficialReviewer(ctx, base, doer); err != nil {
			return nil, err
		}
		if _, err := s.db.Exec(ctx, "UPDATE review SET dismissed = ? WHERE issue_id = ? AND reviewer_id = ? AND type IN (?, ?)",
			true, p.IssueID, doer.ID, ReviewApprove, ReviewReject); err != nil {
			return nil, err
		}
	}
	stale := (t == ReviewApprove || t == ReviewReject) && commitID != head
	if _, err := s.db.Exec(ctx, "DELETE FROM review WHERE issue_id = ? AND reviewer_id = ? AND type = ?", p.IssueID, doer.ID, ReviewRequest); err != nil {
		return nil, err
	}
	now := time.Now()
	var rv *Review
	if pending == nil {
		var err error
		if rv, err = s.insertReview(ctx, &Review{Type: t, ReviewerID: doer.ID, IssueID: p.IssueID, Content: body,
			Official: official, CommitID: commitID, Stale: stale}); err != nil {
			return nil, err
		}
	} else {
		if _, err := s.db.Exec(ctx, `UPDATE review SET type = ?, content = ?, official = ?, commit_id = ?, stale = ?, dismissed = ?,
			updated_unix = ? WHERE id = ?`, t, body, official, commitID, stale, false, now.Unix(), pending.ID); err != nil {
			return nil, err
		}
		rv = pending
		rv.Type, rv.Content, rv.Official, rv.CommitID, rv.Stale, rv.Dismissed, rv.Updated = t, body, official, commitID, stale, false, now
	}
	if t == ReviewApprove || t == ReviewReject {
		if _, err := s.db.Exec(ctx, `DELETE FROM review WHERE issue_id = ? AND type = ? AND reviewer_team_id IN
			(SELECT tu.team_id FROM team_user tu WHERE tu.uid = ? AND tu.org_id = ?)`, p.IssueID, ReviewRequest, doer.ID, base.OwnerID); err != nil {
			return nil, err
		}
	}
	if err := s.issues.AddEvent(ctx, &issue.Comment{Type: issue.CommentReview, PosterID: doer.ID, IssueID: p.IssueID,
		Content: body, ReviewID: rv.ID, Created: now}); err != nil {
		return nil, err
	}
	if err := s.issues.Touch(ctx, p.IssueID, now); err != nil {
		return nil, err
	}
	return rv, nil
}

// DeleteReview removes review rv of p with its line comments and timeline
// entries (the reviewer or a site administrator, checked by the caller).
// Requests are withdrawn through the request routes instead.
func (s *Service) DeleteReview(ctx context.Context, rv *Review) error {
	if rv.Type == ReviewRequest {
		return errs.Invalid("review request can not be deleted using this method")
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "DELETE FROM comment WHERE issue_id = ? AND review_id = ? AND type IN (?, ?, ?)",
			rv.IssueID, rv.ID, issue.CommentCode, issue.CommentReview, issue.CommentDismissReview); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, "DELETE FROM review WHERE id = ?", rv.ID); err != nil {
			return err
		}
		if rv.Official {
			return s.restoreOfficial(ctx, rv.IssueID, rv.ReviewerID)
		}
		return nil
	})
}

// latestVerdict returns the latest approval, request for changes or
// request of reviewerID on issueID (Gitea's GetReviewByIssueIDAndUserID), or nil.
func (s *Service) latestVerdict(ctx context.Context, issueID, reviewerID int64) (*Review, error) {
	return s.oneReview(ctx, "WHERE r.issue_id = ? AND r.reviewer_id = ? AND r.original_author_id = 0 AND r.type IN (?, ?, ?) ORDER BY r.id DESC",
		issueID, reviewerID, ReviewApprove, ReviewReject, ReviewRequest)
}

// restoreOfficial marks the latest verdict of reviewerID official again.
func (s *Service) restoreOfficial(ctx context.Context, issueID, reviewerID int64) error {
	rv, err := s.latestVerdict(ctx, issueID, reviewerID)
	if err != nil || rv == nil {
		return err
	}
	_, err = s.db.Exec(ctx, "UPDATE review SET official = ? WHERE id = ?", true, rv.ID)
	return err
}

// DismissReview dismisses (or, with dismiss false, restores) approval or
// request for changes rv of p, by a repository administrator (checked by
// the caller). A dismissal records message in the timeline; priors also
// dismisses the reviewer's earlier verdicts.
func (s *Service) DismissReview(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, rv *Review, message string, dismiss, priors bool) (*Review, error) {
	if rv.Type != ReviewApprove && rv.Type != ReviewReject {
		return nil, errs.Forbidden("not need to dismiss this review because it's type is not Approve or change request")
	}
	if p.HasMerged || p.Issue.IsClosed {
		return nil, errs.Forbidden("cannot dismiss or undismiss a review of a closed or merged pull request")
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if rv.Dismissed != dismiss {
			if _, err := s.db.Exec(ctx, "UPDATE review SET dismissed = ? WHERE id = ?", dismiss, rv.ID); err != nil {
				return err
			}
		}
		if priors {
			if _, err := s.db.Exec(ctx, "UPDATE review SET dismissed = ? WHERE issue_id = ? AND reviewer_id = ? AND type IN (?, ?)",
				true, rv.IssueID, rv.ReviewerID, ReviewApprove, ReviewReject); err != nil {
				return err
			}
		}
		if !dismiss {
			return nil
		}
		if err := s.issues.AddEvent(ctx, &issue.Comment{Type: issue.CommentDismissReview, PosterID: doer.ID, IssueID: p.IssueID,
			Content: message, ReviewID: rv.ID}); err != nil {
			return err
		}
		return s.notify(ctx, Event{Kind: EventReviewDismissed, Doer: doer, Repo: base, Pull: p, ReviewID: rv.ID, ReviewerID: rv.ReviewerID})
	})
	if err != nil {
		return nil, err
	}
	return s.GetReview(ctx, rv.ID)
}

package v1

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
)

// commentTimeFilter adds the since/before filters (creation time) to a comment query.
func commentTimeFilter(r *http.Request, where string, args []any) (string, []any, error) {
	since, err := parseTimeParam(r, "since")
	if err != nil {
		return "", nil, err
	}
	before, err := parseTimeParam(r, "before")
	if err != nil {
		return "", nil, err
	}
	if !since.IsZero() {
		where += " AND c.updated_unix >= ?"
		args = append(args, since.Unix())
	}
	if !before.IsZero() {
		where += " AND c.created_unix < ?"
		args = append(args, before.Unix())
	}
	return where, args, nil
}

// listIssueComments serves GET /repos/{owner}/{repo}/issues/{index}/comments.
func (a *API) listIssueComments(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	where, args, err := commentTimeFilter(r, "c.issue_id = ? AND c.type = ?", []any{is.ID, issue.CommentPlain})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.Issues.ListComments(r.Context(), "WHERE "+where+" ORDER BY c.created_unix, c.id", args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toComments(r.Context(), list, rc.Repo, map[int64]*issue.Issue{is.ID: is}, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(len(out)))
	writeJSON(w, http.StatusOK, out)
}

// listRepoComments serves GET /repos/{owner}/{repo}/issues/comments: comments
// on every issue (and pull request) of the repository the caller can read.
func (a *API) listRepoComments(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !canReadIssues(rc) {
		a.notFound(w, r)
		return
	}
	unitCond := "i.repo_id = ?"
	args := []any{rc.Repo.ID}
	canIssues := rc.Repo.HasUnit(repo.UnitIssues) && rc.Perm.CanRead(repo.UnitIssues)
	canPulls := rc.Repo.HasUnit(repo.UnitPulls) && rc.Perm.CanRead(repo.UnitPulls)
	if !canIssues || !canPulls {
		unitCond += " AND i.is_pull = ?"
		args = append(args, canPulls)
	}
	where, args, err := commentTimeFilter(r, "c.type = ? AND c.issue_id IN (SELECT i.id FROM issue i WHERE "+unitCond+")", append([]any{issue.CommentPlain}, args...))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	pg := a.paging(r)
	total, err := a.DB.Count(ctx, "SELECT COUNT(*) FROM comment c WHERE "+where, args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.Issues.ListComments(ctx, "WHERE "+where+" ORDER BY c.created_unix, c.id"+db.LimitOffset(pg.Limit, pg.Offset()), args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var ids []int64
	for _, c := range list {
		ids = append(ids, c.IssueID)
	}
	issues, err := a.Issues.GetByIDs(ctx, ids)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toComments(ctx, list, rc.Repo, issues, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// loadComment loads comment {id}, which must belong to an issue of the
// current repository that the caller can read (404 otherwise).
func (a *API) loadComment(w http.ResponseWriter, r *http.Request) (*repoContext, *issue.Issue, *issue.Comment, bool) {
	rc := currentRepo(r)
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		a.notFound(w, r)
		return nil, nil, nil, false
	}
	ctx := r.Context()
	c, err := a.Issues.GetComment(ctx, id)
	var is *issue.Issue
	if err == nil {
		is, err = a.Issues.GetByID(ctx, c.IssueID)
	}
	if err == nil && is.RepoID != rc.Repo.ID {
		err = issue.ErrCommentNotExist(id)
	}
	if err == nil {
		unit := issueUnit(is)
		if !rc.Repo.HasUnit(unit) || !rc.Perm.CanRead(unit) {
			err = issue.ErrCommentNotExist(id)
		}
	}
	if err == nil && c.Type != issue.CommentPlain && c.Type != issue.CommentCode && c.Type != issue.CommentReview {
		err = issue.ErrCommentNotExist(id)
	}
	if err != nil {
		if errs.IsNotFound(err) {
			err = issue.ErrCommentNotExist(id)
		}
		a.fail(w, r, err)
		return nil, nil, nil, false
	}
	if idx := chi.URLParam(r, "index"); idx != "" && idx != strconv.FormatInt(is.Index, 10) {
		a.fail(w, r, issue.ErrCommentNotExist(id))
		return nil, nil, nil, false
	}
	return rc, is, c, true
}

func (a *API) writeComment(w http.ResponseWriter, r *http.Request, status int, rc *repoContext, is *issue.Issue, c *issue.Comment) {
	out, err := a.toComments(r.Context(), []*issue.Comment{c}, rc.Repo, map[int64]*issue.Issue{is.ID: is}, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, out[0])
}

// getComment serves GET /repos/{owner}/{repo}/issues/comments/{id}.
func (a *API) getComment(w http.ResponseWriter, r *http.Request) {
	if rc, is, c, ok := a.loadComment(w, r); ok {
		a.writeComment(w, r, http.StatusOK, rc, is, c)
	}
}

// createComment serves POST /repos/{owner}/{repo}/issues/{index}/comments.
func (a *API) createComment(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	var o types.CreateIssueCommentOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if is.IsLocked && !canWriteIssue(rc, is) {
		a.errorJSON(w, http.StatusForbidden, "the conversation is locked: only collaborators can comment")
		return
	}
	c, err := a.Issues.CreateComment(r.Context(), doer(r), rc.Repo, is, o.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeComment(w, r, http.StatusCreated, rc, is, c)
}

// canChangeComment: the poster, or a writer of the issue's unit.
func canChangeComment(r *http.Request, rc *repoContext, is *issue.Issue, c *issue.Comment) bool {
	d := doer(r)
	return d != nil && (d.ID == c.PosterID || canWriteIssue(rc, is))
}

// editComment serves PATCH .../issues/comments/{id} and .../issues/{index}/comments/{id}.
func (a *API) editComment(w http.ResponseWriter, r *http.Request) {
	rc, is, c, ok := a.loadComment(w, r)
	if !ok {
		return
	}
	if !canChangeComment(r, rc, is, c) {
		a.errorJSON(w, http.StatusForbidden, "only the poster or a collaborator can edit this comment")
		return
	}
	var o types.EditIssueCommentOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.Issues.UpdateComment(r.Context(), doer(r), rc.Repo, is, c, o.Body); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeComment(w, r, http.StatusOK, rc, is, c)
}

// deleteComment serves DELETE .../issues/comments/{id} and .../issues/{index}/comments/{id}.
func (a *API) deleteComment(w http.ResponseWriter, r *http.Request) {
	rc, is, c, ok := a.loadComment(w, r)
	if !ok {
		return
	}
	if !canChangeComment(r, rc, is, c) {
		a.errorJSON(w, http.StatusForbidden, "only the poster or a collaborator can delete this comment")
		return
	}
	if err := a.Issues.DeleteComment(r.Context(), doer(r), rc.Repo, is, c); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

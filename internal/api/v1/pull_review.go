package v1

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// pullReviewRoutes registers the reviews and review requests of a pull
// request and the repository's list of possible reviewers, inside the
// group that needs read access to the pulls unit. Reading a review needs
// nothing more; writing needs a signed-in caller; dismissals need a
// repository administrator.
func (a *API) pullReviewRoutes(r chi.Router) {
	r.Get("/pulls/{index}/reviews", a.listPullReviews)
	r.With(a.signedIn).Post("/pulls/{index}/reviews", a.createPullReview)
	r.Get("/pulls/{index}/reviews/{id}", a.getPullReview)
	r.With(a.signedIn).Post("/pulls/{index}/reviews/{id}", a.submitPullReview)
	r.With(a.signedIn).Delete("/pulls/{index}/reviews/{id}", a.deletePullReview)
	r.Get("/pulls/{index}/reviews/{id}/comments", a.listPullReviewComments)
	r.With(a.signedIn).Post("/pulls/{index}/reviews/{id}/dismissals", a.dismissPullReview)
	r.With(a.signedIn).Post("/pulls/{index}/reviews/{id}/undismissals", a.undismissPullReview)
	r.With(a.signedIn).Post("/pulls/{index}/requested_reviewers", a.createReviewRequests)
	r.With(a.signedIn).Delete("/pulls/{index}/requested_reviewers", a.deleteReviewRequests)
	r.With(a.signedIn).Get("/reviewers", a.listReviewers)
}

// reviewState is Gitea's ReviewStateType of a review kind.
func reviewState(t pull.ReviewType) string {
	switch t {
	case pull.ReviewPending:
		return "PENDING"
	case pull.ReviewApprove:
		return "APPROVED"
	case pull.ReviewComment:
		return "COMMENT"
	case pull.ReviewReject:
		return "REQUEST_CHANGES"
	case pull.ReviewRequest:
		return "REQUEST_REVIEW"
	}
	return ""
}

// reviewEvent reads the event of a new or submitted review; empty is PENDING.
func reviewEvent(event string) (pull.ReviewType, error) {
	switch event {
	case "", "PENDING":
		return pull.ReviewPending, nil
	case "APPROVED":
		return pull.ReviewApprove, nil
	case "REQUEST_CHANGES":
		return pull.ReviewReject, nil
	case "COMMENT":
		return pull.ReviewComment, nil
	}
	return 0, errs.InvalidField("event", "[Event]: unknown review event %q: APPROVED, REQUEST_CHANGES, COMMENT or PENDING", event)
}

// loadPullReview loads pull request {index} and its review {id} as the
// caller may see it.
func (a *API) loadPullReview(w http.ResponseWriter, r *http.Request) (*repoContext, *pull.PullRequest, *pull.Review, bool) {
	rc, p, ok := a.loadPull(w, r)
	if !ok {
		return nil, nil, nil, false
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		a.fail(w, r, pull.ErrReviewNotExist(0))
		return nil, nil, nil, false
	}
	rv, err := a.Pulls.GetPullReview(r.Context(), doer(r), p, id)
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, nil, false
	}
	return rc, p, rv, true
}

// listPullReviews serves GET /repos/{owner}/{repo}/pulls/{index}/reviews.
func (a *API) listPullReviews(w http.ResponseWriter, r *http.Request) {
	rc, p, ok := a.loadPull(w, r)
	if !ok {
		return
	}
	pg := a.paging(r)
	list, total, err := a.Pulls.ListReviews(r.Context(), doer(r), p, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toPullReviews(r.Context(), rc, p, list, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// getPullReview serves GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id}.
func (a *API) getPullReview(w http.ResponseWriter, r *http.Request) {
	rc, p, rv, ok := a.loadPullReview(w, r)
	if ok {
		a.writePullReview(w, r, rc, p, rv)
	}
}

func (a *API) writePullReview(w http.ResponseWriter, r *http.Request, rc *repoContext, p *pull.PullRequest, rv *pull.Review) {
	out, err := a.toPullReviews(r.Context(), rc, p, []*pull.Review{rv}, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out[0])
}

// createPullReview serves POST /repos/{owner}/{repo}/pulls/{index}/reviews:
// line comments join the caller's pending review, which the event then
// submits (PENDING, or no event, keeps it pending).
func (a *API) createPullReview(w http.ResponseWriter, r *http.Request) {
	rc, p, ok := a.loadPull(w, r)
	if !ok {
		return
	}
	var o types.CreatePullReviewOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	t, err := reviewEvent(o.Event)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d := doer(r)
	if err := pull.CheckReviewEvent(d, p, t, o.Body, len(o.Comments) > 0); err != nil {
		a.fail(w, r, err)
		return
	}
	if o.CommitID != "" && !isHexSHA(o.CommitID) {
		a.fail(w, r, errs.InvalidField("commit_id", "invalid commit id %q", o.CommitID))
		return
	}
	opts := pull.CreateReviewOptions{Type: t, Body: o.Body, CommitID: o.CommitID}
	for i, c := range o.Comments {
		if c.OldLineNum < 0 || c.NewLineNum < 0 {
			a.fail(w, r, errs.InvalidField("comments", "comment %d: line numbers cannot be negative", i+1))
			return
		}
		line := c.NewLineNum
		if c.OldLineNum > 0 {
			line = -c.OldLineNum
		}
		opts.Comments = append(opts.Comments, pull.ReviewCommentOptions{Path: c.Path, Line: line, Body: c.Body})
	}
	rv, err := a.Pulls.CreateReview(r.Context(), d, rc.Repo, p, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writePullReview(w, r, rc, p, rv)
}

// isHexSHA reports a full object name (SHA-1 or SHA-256) in hexadecimal.
func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// submitPullReview serves POST /repos/{owner}/{repo}/pulls/{index}/reviews/{id}.
func (a *API) submitPullReview(w http.ResponseWriter, r *http.Request) {
	var o types.SubmitPullReviewOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	rc, p, rv, ok := a.loadPullReview(w, r)
	if !ok {
		return
	}
	if rv.Type != pull.ReviewPending {
		a.fail(w, r, errs.Invalid("only a pending review can be submitted"))
		return
	}
	d := doer(r)
	if rv.ReviewerID != d.ID {
		a.errorJSON(w, http.StatusForbidden, "only the reviewer may submit a pending review")
		return
	}
	t, err := reviewEvent(o.Event)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.Pulls.SubmitReview(r.Context(), d, rc.Repo, p, rv, t, o.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writePullReview(w, r, rc, p, out)
}

// deletePullReview serves DELETE /repos/{owner}/{repo}/pulls/{index}/reviews/{id}:
// the reviewer or a site administrator, as Gitea.
func (a *API) deletePullReview(w http.ResponseWriter, r *http.Request) {
	_, _, rv, ok := a.loadPullReview(w, r)
	if !ok {
		return
	}
	if d := doer(r); !d.IsAdmin && d.ID != rv.ReviewerID {
		a.errorJSON(w, http.StatusForbidden, "only the reviewer or a site administrator may delete a review")
		return
	}
	if err := a.Pulls.DeleteReview(r.Context(), rv); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// listPullReviewComments serves GET .../pulls/{index}/reviews/{id}/comments.
func (a *API) listPullReviewComments(w http.ResponseWriter, r *http.Request) {
	rc, p, rv, ok := a.loadPullReview(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	byReview, err := a.Pulls.ReviewCodeComments(ctx, []int64{rv.ID})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list := byReview[rv.ID]
	var ids []int64
	for _, c := range list {
		ids = append(ids, c.PosterID)
		if c.ResolveDoerID > 0 {
			ids = append(ids, c.ResolveDoerID)
		}
	}
	users, err := a.Users.Store.GetByIDs(ctx, ids)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := doer(r)
	html := a.issueHTMLURL(rc.Repo, p.Issue)
	out := make([]*types.PullReviewComment, 0, len(list))
	for _, c := range list {
		poster := users[c.PosterID]
		if poster == nil {
			poster = user.Ghost()
		}
		pc := &types.PullReviewComment{ID: c.ID, Body: c.Content, Poster: a.toUser(poster, v), ReviewID: rv.ID,
			Created: c.Created, Updated: c.Updated, Path: c.TreePath, CommitID: c.CommitSHA, OrigCommitID: c.OldRef,
			DiffHunk: diffHunkOf(c.Patch), HTMLPullURL: html}
		if u := users[c.ResolveDoerID]; u != nil && c.ResolveDoerID > 0 {
			pc.Resolver = a.toUser(u, v)
		}
		if c.Line < 0 {
			pc.OldLineNum = uint64(-c.Line)
		} else {
			pc.LineNum = uint64(c.Line)
		}
		anchor := "#issuecomment-" + strconv.FormatInt(c.ID, 10)
		if rv.Type == pull.ReviewPending {
			pc.HTMLURL = html + "/files" + anchor
		} else {
			pc.HTMLURL = html + anchor
		}
		out = append(out, pc)
	}
	writeJSON(w, http.StatusOK, out)
}

// diffHunkOf is the hunk of a stored patch without the file header, as
// Gitea's API shows it.
func diffHunkOf(patch string) string {
	parts := strings.Split(patch, "\n@@")
	if len(parts) == 2 {
		return "@@" + parts[1]
	}
	return ""
}

// dismissPullReview serves POST .../pulls/{index}/reviews/{id}/dismissals.
func (a *API) dismissPullReview(w http.ResponseWriter, r *http.Request) {
	var o types.DismissPullReviewOptions
	if r.ContentLength != 0 {
		if err := decode(r, &o); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	a.dismiss(w, r, o.Message, true, o.Priors)
}

// undismissPullReview serves POST .../pulls/{index}/reviews/{id}/undismissals.
func (a *API) undismissPullReview(w http.ResponseWriter, r *http.Request) {
	a.dismiss(w, r, "", false, false)
}

func (a *API) dismiss(w http.ResponseWriter, r *http.Request, msg string, dismiss, priors bool) {
	if !currentRepo(r).Perm.IsAdmin() {
		a.errorJSON(w, http.StatusForbidden, "Must be repo admin")
		return
	}
	rc, p, rv, ok := a.loadPullReview(w, r)
	if !ok {
		return
	}
	out, err := a.Pulls.DismissReview(r.Context(), doer(r), rc.Repo, p, rv, msg, dismiss, priors)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writePullReview(w, r, rc, p, out)
}

// toPullReviews renders reviews of p with a fixed number of queries.
func (a *API) toPullReviews(ctx context.Context, rc *repoContext, p *pull.PullRequest, list []*pull.Review, v *user.User) ([]*types.PullReview, error) {
	var userIDs, teamIDs, ids []int64
	for _, rv := range list {
		ids = append(ids, rv.ID)
		if rv.ReviewerID > 0 {
			userIDs = append(userIDs, rv.ReviewerID)
		}
		if rv.ReviewerTeamID > 0 {
			teamIDs = append(teamIDs, rv.ReviewerTeamID)
		}
	}
	users, err := a.Users.Store.GetByIDs(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	teams, err := a.Orgs.TeamsByIDs(ctx, teamIDs)
	if err != nil {
		return nil, err
	}
	counts, entries, err := a.Pulls.ReviewSummaries(ctx, ids)
	if err != nil {
		return nil, err
	}
	html := a.issueHTMLURL(rc.Repo, p.Issue)
	out := make([]*types.PullReview, 0, len(list))
	for _, rv := range list {
		pr := &types.PullReview{ID: rv.ID, Body: rv.Content, CommitID: rv.CommitID, Stale: rv.Stale, Official: rv.Official,
			Dismissed: rv.Dismissed, CodeCommentsCount: counts[rv.ID], Submitted: rv.Created, Updated: rv.Updated, HTMLPullURL: html}
		pr.State = reviewState(rv.Type)
		if rv.ReviewerID > 0 {
			u := users[rv.ReviewerID]
			if u == nil {
				u = user.Ghost()
			}
			pr.Reviewer = a.toUser(u, v)
		}
		if t := teams[rv.ReviewerTeamID]; t != nil && rv.ReviewerTeamID > 0 {
			pr.ReviewerTeam = a.toTeam(t, rc.Owner, v)
		}
		if id := entries[rv.ID]; id > 0 {
			pr.HTMLURL = html + "#issuecomment-" + strconv.FormatInt(id, 10)
		}
		out = append(out, pr)
	}
	return out, nil
}

// createReviewRequests serves POST .../pulls/{index}/requested_reviewers:
// 201 with the requests made (those already standing are left out).
func (a *API) createReviewRequests(w http.ResponseWriter, r *http.Request) {
	a.reviewRequests(w, r, true)
}

// deleteReviewRequests serves DELETE .../pulls/{index}/requested_reviewers.
func (a *API) deleteReviewRequests(w http.ResponseWriter, r *http.Request) {
	a.reviewRequests(w, r, false)
}

func (a *API) reviewRequests(w http.ResponseWriter, r *http.Request, add bool) {
	var o types.PullReviewRequestOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	rc, p, ok := a.loadPull(w, r)
	if !ok {
		return
	}
	t, err := a.resolveReviewRequests(r, rc, p, o.Reviewers, o.TeamReviewers, add)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	made, err := a.requestReviews(r, rc, p, t, add)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !add {
		empty(w, http.StatusNoContent)
		return
	}
	out, err := a.toPullReviews(r.Context(), rc, p, made, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

// reviewRequestTargets are checked reviewers and teams to request.
type reviewRequestTargets struct {
	Users   []*user.User
	TeamIDs []int64
}

// checkReviewRequests resolves reviewer and team names before anything
// changes, for a new pull request (p nil: the caller is its poster).
func (a *API) checkReviewRequests(r *http.Request, rc *repoContext, p *pull.PullRequest, users, teams []string) (*reviewRequestTargets, error) {
	return a.resolveReviewRequests(r, rc, p, users, teams, true)
}

// applyReviewRequests records the review requests of t on p.
func (a *API) applyReviewRequests(r *http.Request, rc *repoContext, p *pull.PullRequest, t *reviewRequestTargets) error {
	_, err := a.requestReviews(r, rc, p, t, true)
	return err
}

// requestReviews adds or withdraws the requests of t, returning the
// requests made.
func (a *API) requestReviews(r *http.Request, rc *repoContext, p *pull.PullRequest, t *reviewRequestTargets, add bool) ([]*pull.Review, error) {
	ctx, d := r.Context(), doer(r)
	var made []*pull.Review
	for _, u := range t.Users {
		rv, err := a.Pulls.RequestReview(ctx, d, rc.Repo, p, u, add)
		if err != nil {
			return nil, err
		}
		if rv != nil {
			made = append(made, rv)
		}
	}
	for _, id := range t.TeamIDs {
		rv, err := a.Pulls.RequestTeamReview(ctx, d, rc.Repo, p, id, add)
		if err != nil {
			return nil, err
		}
		if rv != nil {
			made = append(made, rv)
		}
	}
	return made, nil
}

// invalidReviewRequest is Gitea's ErrNotValidReviewRequest (422).
func invalidReviewRequest(reason string, doerID, repoID int64) error {
	return errs.Invalid("%s [user_id: %d, repo_id: %d]", reason, doerID, repoID)
}

// resolveReviewRequests loads and checks the named reviewers (by name, or
// by e-mail address when the name holds "@") and teams (only for
// repositories of organizations), as Gitea's IsValidReviewRequest: an
// unknown or hidden account or team is 404; a reviewer who cannot read the
// pull requests, the poster, or a caller who may not choose reviewers is 422.
func (a *API) resolveReviewRequests(r *http.Request, rc *repoContext, p *pull.PullRequest, names, teamNames []string, add bool) (*reviewRequestTargets, error) {
	ctx, d := r.Context(), doer(r)
	posterID, originalAuthor := d.ID, int64(0)
	if p != nil {
		posterID, originalAuthor = p.Issue.PosterID, p.Issue.OriginalAuthorID
	}
	canChange, err := a.canChangeReviewRequests(ctx, rc, d, posterID)
	if err != nil {
		return nil, err
	}
	out := &reviewRequestTargets{}
	seen := map[int64]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		u, perm, err := a.reviewerByName(r, rc, name)
		if err != nil {
			return nil, err
		}
		if seen[u.ID] {
			continue
		}
		seen[u.ID] = true
		if u.IsOrganization() {
			return nil, invalidReviewRequest("Organization can't be added as reviewer", d.ID, rc.Repo.ID)
		}
		var last *pull.Review
		if p != nil {
			if last, err = a.Pulls.LatestVerdict(ctx, p, u.ID); err != nil {
				return nil, err
			}
		}
		if add {
			switch {
			case !perm.CanRead(repo.UnitPulls):
				return nil, invalidReviewRequest("Reviewer can't read", d.ID, rc.Repo.ID)
			case u.ID == posterID && originalAuthor == 0:
				return nil, invalidReviewRequest("poster of pr can't be reviewer", d.ID, rc.Repo.ID)
			case canChange:
			case d.ID == posterID && originalAuthor == 0 && last != nil && last.Type != pull.ReviewRequest:
			default:
				return nil, invalidReviewRequest("Doer can't choose reviewer", d.ID, rc.Repo.ID)
			}
		} else if !canChange && (last == nil || last.Type != pull.ReviewRequest || u.ID != d.ID) {
			return nil, invalidReviewRequest("Doer can't remove reviewer", d.ID, rc.Repo.ID)
		}
		out.Users = append(out.Users, u)
	}
	if !rc.Owner.IsOrganization() {
		return out, nil
	}
	seenTeams := map[int64]bool{}
	for _, name := range teamNames {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		t, err := a.Orgs.GetTeamByName(ctx, rc.Owner, name)
		if errs.IsNotFound(err) {
			err = errs.NotFound("Team '%s' not exist", name)
		}
		if err != nil {
			return nil, err
		}
		if seenTeams[t.ID] {
			continue
		}
		seenTeams[t.ID] = true
		if add && rc.Repo.IsPrivate {
			has, err := a.Orgs.TeamHasRepo(ctx, t, rc.Repo.ID)
			if err != nil {
				return nil, err
			}
			if !has {
				return nil, invalidReviewRequest("Reviewing team can't read repo", d.ID, rc.Repo.ID)
			}
		}
		if !canChange {
			reason := "Doer can't choose reviewer"
			if !add {
				reason = "Doer can't remove reviewer"
			}
			return nil, invalidReviewRequest(reason, d.ID, rc.Repo.ID)
		}
		out.TeamIDs = append(out.TeamIDs, t.ID)
	}
	return out, nil
}

// reviewerByName loads a reviewer and their access to the repository. An
// account the caller may not see answers as missing, unless it may read
// the repository's pull requests (then it is listed by /reviewers anyway).
func (a *API) reviewerByName(r *http.Request, rc *repoContext, name string) (*user.User, access.RepoPerm, error) {
	ctx := r.Context()
	missing := errs.NotFound("User '%s' not exist", name)
	var u *user.User
	var err error
	if strings.Contains(name, "@") {
		u, err = a.Users.Store.GetByEmail(ctx, name)
	} else {
		u, err = a.Users.Store.GetByName(ctx, name)
	}
	if errs.IsNotFound(err) {
		return nil, access.RepoPerm{}, missing
	}
	if err != nil {
		return nil, access.RepoPerm{}, err
	}
	if u.IsOrganization() {
		return u, access.RepoPerm{}, nil
	}
	perm, err := a.Access.RepoPermission(ctx, u, rc.Repo, rc.Owner)
	if err != nil {
		return nil, access.RepoPerm{}, err
	}
	if !perm.CanRead(repo.UnitPulls) {
		if seen, err := a.Access.CanSeeUser(ctx, doer(r), u); err != nil {
			return nil, access.RepoPerm{}, err
		} else if !seen {
			return nil, access.RepoPerm{}, missing
		}
	}
	return u, perm, nil
}

// canChangeReviewRequests is Gitea's CanDoerChangeReviewRequests: never in
// an archived repository; the pull request's poster, the repository's
// owner, its collaborators and members of the organization's teams that
// read its pull requests. Repository administrators (site administrators
// included) may too.
func (a *API) canChangeReviewRequests(ctx context.Context, rc *repoContext, d *user.User, posterID int64) (bool, error) {
	switch {
	case rc.Repo.IsArchived:
		return false, nil
	case d.ID == posterID, d.ID == rc.Repo.OwnerID, rc.Perm.IsAdmin():
		return true, nil
	}
	if ok, err := a.Repos.IsCollaborator(ctx, rc.Repo.ID, d.ID); err != nil || ok {
		return ok, err
	}
	if !rc.Owner.IsOrganization() {
		return false, nil
	}
	teams, err := a.Orgs.ListRepoTeams(ctx, rc.Owner.ID, rc.Repo.ID)
	if err != nil {
		return false, err
	}
	for _, t := range teams {
		if t.Authorize != access.ModeOwner && t.UnitMode(repo.UnitPulls) < access.ModeRead {
			continue
		}
		if ok, err := a.Orgs.IsTeamMember(ctx, t.ID, d.ID); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// listReviewers serves GET /repos/{owner}/{repo}/reviewers: the active
// accounts that may be asked for a review — collaborators, members of the
// organization's teams that read the repository's pull requests — sorted
// by name, then the owning user, as Gitea lists them. Only those who may
// choose reviewers may ask (403).
func (a *API) listReviewers(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	ok, err := a.canChangeReviewRequests(ctx, rc, doer(r), 0)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !ok {
		a.errorJSON(w, http.StatusForbidden, "doer has no permission to get reviewers")
		return
	}
	list, err := a.usersWithUnit(ctx, rc, repo.UnitPulls, access.ModeRead)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toUsers(list, doer(r)))
}

// reviewTimelineTeams loads the teams review request entries name.
func (a *API) reviewTimelineTeams(ctx context.Context, list []*issue.Comment) (map[int64]*org.Team, error) {
	var ids []int64
	for _, c := range list {
		if c.AssigneeTeamID > 0 {
			ids = append(ids, c.AssigneeTeamID)
		}
	}
	return a.Orgs.TeamsByIDs(ctx, ids)
}

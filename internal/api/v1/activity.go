package v1

import (
	"context"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/activity"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// listUserActivityFeeds serves GET /users/{username}/activities/feeds: what
// the user did and what happened in the repositories they own or watch
// (only-performed-by: what they did). Actions in private repositories are
// listed to the user and to site administrators only.
func (a *API) listUserActivityFeeds(w http.ResponseWriter, r *http.Request) {
	if a.Activity == nil {
		a.notFound(w, r)
		return
	}
	u, err := a.visibleAccount(r, chi.URLParam(r, "username"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := viewer(r)
	only, _ := strconv.ParseBool(r.URL.Query().Get("only-performed-by"))
	a.writeFeed(w, r, activity.Query{Viewer: v, User: u, OnlyPerformedBy: only,
		IncludePrivate: v != nil && (v.IsAdmin || v.ID == u.ID)})
}

// listOrgActivityFeeds serves GET /orgs/{org}/activities/feeds; actions in
// private repositories are listed to members and site administrators.
func (a *API) listOrgActivityFeeds(w http.ResponseWriter, r *http.Request) {
	if a.Activity == nil {
		a.notFound(w, r)
		return
	}
	o, ok := a.loadOrg(w, r)
	if !ok {
		return
	}
	v := viewer(r)
	private := v != nil && v.IsAdmin
	if v != nil && !private {
		member, err := a.Access.IsOrgMember(r.Context(), o.ID, v.ID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		private = member
	}
	a.writeFeed(w, r, activity.Query{Viewer: v, User: o, IncludePrivate: private})
}

// listTeamActivityFeeds serves GET /teams/{id}/activities/feeds: the
// organization's feed in the team's repositories, for its members, the
// organization's owners and site administrators.
func (a *API) listTeamActivityFeeds(w http.ResponseWriter, r *http.Request) {
	if a.Activity == nil {
		a.notFound(w, r)
		return
	}
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return
	}
	v := viewer(r)
	a.writeFeed(w, r, activity.Query{Viewer: v, User: tc.org, Team: tc.team, IncludePrivate: v != nil})
}

// listRepoActivityFeeds serves GET /repos/{owner}/{repo}/activities/feeds.
func (a *API) listRepoActivityFeeds(w http.ResponseWriter, r *http.Request) {
	if a.Activity == nil {
		a.notFound(w, r)
		return
	}
	a.writeFeed(w, r, activity.Query{Viewer: viewer(r), Repo: currentRepo(r).Repo, IncludePrivate: true})
}

// getUserHeatmap serves GET /users/{username}/heatmap: the user's actions
// (an organization's: those in its repositories) of the last year that
// the caller may see, counted per 15 minutes.
func (a *API) getUserHeatmap(w http.ResponseWriter, r *http.Request) {
	if a.Activity == nil {
		a.notFound(w, r)
		return
	}
	u, err := a.visibleAccount(r, chi.URLParam(r, "username"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	entries, err := a.Activity.Heatmap(r.Context(), viewer(r), u)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]types.UserHeatmapData, 0, len(entries))
	for _, e := range entries {
		out = append(out, types.UserHeatmapData{Timestamp: e.Timestamp, Contributions: e.Contributions})
	}
	writeJSON(w, http.StatusOK, out)
}

// writeFeed answers with the page of q that ?page=, ?limit= and ?date= ask for.
func (a *API) writeFeed(w http.ResponseWriter, r *http.Request, q activity.Query) {
	pg := a.paging(r)
	q.Page, q.Limit, q.Date = pg.Page, pg.Limit, r.URL.Query().Get("date")
	list, total, err := a.Activity.List(r.Context(), q)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toActivities(r.Context(), list, q.Viewer)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// toActivities renders actions loaded by the activity service, with their
// repositories, actors and comments converted in batches.
func (a *API) toActivities(ctx context.Context, list []*activity.Action, v *user.User) ([]*types.Activity, error) {
	out := make([]*types.Activity, 0, len(list))
	if len(list) == 0 {
		return out, nil
	}
	seen := map[int64]bool{}
	var repos []*repo.Repository
	for _, ac := range list {
		if ac.Repo != nil && !seen[ac.Repo.ID] {
			seen[ac.Repo.ID] = true
			repos = append(repos, ac.Repo)
		}
	}
	wire, err := a.toRepos(ctx, v, repos)
	if err != nil {
		return nil, err
	}
	repoOut := make(map[int64]*types.Repository, len(wire))
	for _, rp := range wire {
		repoOut[rp.ID] = rp
	}
	comments, err := a.activityComments(ctx, list, v)
	if err != nil {
		return nil, err
	}
	for _, ac := range list {
		item := &types.Activity{ID: ac.ID, UserID: ac.UserID, OpType: ac.OpType.String(), ActUserID: ac.ActUserID,
			ActUser: a.toUser(ac.ActUser, v), RepoID: ac.RepoID, Repo: repoOut[ac.RepoID], RefName: ac.RefName,
			IsPrivate: ac.IsPrivate, Content: ac.Content, Created: types.Time(ac.Created)}
		if c, ok := comments[ac.CommentID]; ok && ac.Comment != nil {
			item.CommentID, item.Comment = ac.CommentID, c
		}
		out = append(out, item)
	}
	return out, nil
}

// activityComments renders the comments of actions (of many repositories)
// with their posters and attachments loaded in batches, keyed by id.
func (a *API) activityComments(ctx context.Context, list []*activity.Action, v *user.User) (map[int64]*types.Comment, error) {
	out := map[int64]*types.Comment{}
	var ids, posters []int64
	for _, ac := range list {
		if ac.Comment != nil {
			ids = append(ids, ac.Comment.ID)
			posters = append(posters, ac.Comment.PosterID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	users, err := a.Users.Store.GetByIDs(ctx, posters)
	if err != nil {
		return nil, err
	}
	atts, err := a.Issues.AttachmentsOfComments(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, ac := range list {
		c := ac.Comment
		if c == nil || ac.Repo == nil {
			continue
		}
		poster, ok := users[c.PosterID]
		if !ok {
			poster = user.Ghost()
		}
		tc := &types.Comment{ID: c.ID, Poster: a.toUser(poster, v), OriginalAuthor: c.OriginalAuthor,
			OriginalAuthorID: c.OriginalAuthorID, Body: c.Content, Created: types.Time(c.Created), Updated: types.Time(c.Updated),
			Attachments: []*types.Attachment{}}
		if is := ac.Issue; is != nil && is.ID == c.IssueID {
			tc.PRURL, tc.IssueURL, tc.HTMLURL = commentURLs(a.repoLink(ac.Repo), is, c)
		}
		for _, at := range atts[c.ID] {
			tc.Attachments = append(tc.Attachments, a.toAttachment(at, ac.Repo))
		}
		out[c.ID] = tc
	}
	return out, nil
}

// commentURLs are the pull request, issue and comment addresses of c on is.
func commentURLs(repoLink string, is *issue.Issue, c *issue.Comment) (prURL, issueURL, htmlURL string) {
	idx := strconv.FormatInt(is.Index, 10)
	anchor := "#issuecomment-" + strconv.FormatInt(c.ID, 10)
	if is.IsPull {
		prURL = repoLink + "/pulls/" + idx
		return prURL, "", prURL + anchor
	}
	issueURL = repoLink + "/issues/" + idx
	return "", issueURL, issueURL + anchor
}

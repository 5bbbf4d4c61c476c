package v1

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// createRepoFor creates a repository for owner from the request body.
func (a *API) createRepoFor(w http.ResponseWriter, r *http.Request, owner *user.User) {
	var o types.CreateRepoOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := firstErr(required("name", o.Name), maxLen("name", o.Name, repo.MaxNameLength), maxLen("description", o.Description, 2048)); err != nil {
		a.fail(w, r, err)
		return
	}
	if o.TrustModel != "" && o.TrustModel != "default" && o.TrustModel != "collaborator" && o.TrustModel != "committer" && o.TrustModel != "collaboratorcommitter" {
		a.fail(w, r, errs.InvalidField("trust_model", "[TrustModel]: In (default, collaborator, committer, collaboratorcommitter)"))
		return
	}
	rp, err := a.Repos.Create(r.Context(), doer(r), owner, repo.CreateOptions{
		Name: o.Name, Description: o.Description, DefaultBranch: o.DefaultBranch, ObjectFormat: o.ObjectFormatName,
		Private: o.Private, AutoInit: o.AutoInit, IsTemplate: o.Template, Readme: o.Readme, Gitignores: o.Gitignores,
		License: o.License, IssueLabels: o.IssueLabels,
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRepo(w, r, http.StatusCreated, rp)
}

func (a *API) writeRepo(w http.ResponseWriter, r *http.Request, status int, rp *repo.Repository) {
	out, err := a.toRepoOne(r.Context(), doer(r), rp)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, out)
}

// createMyRepo serves POST /user/repos.
func (a *API) createMyRepo(w http.ResponseWriter, r *http.Request) { a.createRepoFor(w, r, doer(r)) }

// createOrgRepo serves POST /orgs/{org}/repos and POST /org/{org}/repos.
func (a *API) createOrgRepo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	o, err := a.visibleOrg(r, chi.URLParam(r, "org"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	role, err := a.Access.RoleInOrg(ctx, doer(r), o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !role.CanCreateRepo {
		a.errorJSON(w, http.StatusForbidden, "Given user is not allowed to create repository in organization "+o.Name+".")
		return
	}
	a.createRepoFor(w, r, o)
}

// adminCreateRepo serves POST /admin/users/{username}/repos.
func (a *API) adminCreateRepo(w http.ResponseWriter, r *http.Request) {
	owner, err := a.Users.Store.GetByName(r.Context(), chi.URLParam(r, "username"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.createRepoFor(w, r, owner)
}

// getRepo serves GET /repos/{owner}/{repo}.
func (a *API) getRepo(w http.ResponseWriter, r *http.Request) {
	a.writeRepo(w, r, http.StatusOK, currentRepo(r).Repo)
}

// getRepoByID serves GET /repositories/{id}.
func (a *API) getRepoByID(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	rc, err := a.loadRepoByID(r.Context(), r, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRepo(w, r, http.StatusOK, rc.Repo)
}

// deleteRepo serves DELETE /repos/{owner}/{repo}.
func (a *API) deleteRepo(w http.ResponseWriter, r *http.Request) {
	if err := a.Repos.Delete(r.Context(), currentRepo(r).Repo); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// unitToggles pairs the has_* options with their units.
func unitToggles(o *types.EditRepoOption) map[string]*bool {
	return map[string]*bool{
		repo.UnitIssues: o.HasIssues, repo.UnitWiki: o.HasWiki, repo.UnitPulls: o.HasPullRequests,
		repo.UnitProjects: o.HasProjects, repo.UnitReleases: o.HasReleases, repo.UnitPackages: o.HasPackages,
		repo.UnitActions: o.HasActions,
	}
}

// editOptions turns the API's edit body into the repository edit.
func editOptions(o *types.EditRepoOption) repo.EditOptions {
	e := repo.EditOptions{
		Name: o.Name, Description: o.Description, Website: o.Website, Private: o.Private, Template: o.Template,
		Units: map[string]bool{}, IgnoreWhitespaceConflicts: o.IgnoreWhitespaceConflicts, AllowMergeCommits: o.AllowMerge,
		AllowRebase: o.AllowRebase, AllowRebaseExplicit: o.AllowRebaseMerge, AllowSquashMerge: o.AllowSquash,
		AllowFastForwardOnly: o.AllowFastForwardOnly, AllowManualMerge: o.AllowManualMerge,
		AutodetectManualMerge: o.AutodetectManualMerge, AllowRebaseUpdate: o.AllowRebaseUpdate,
		DefaultDeleteBranchAfterMerge: o.DefaultDeleteBranchAfterMerge, DefaultAllowMaintainerEdit: o.DefaultAllowMaintainerEdit,
		DefaultMergeStyle: o.DefaultMergeStyle, ProjectsMode: o.ProjectsMode, DefaultBranch: o.DefaultBranch,
		MirrorInterval: o.MirrorInterval, EnablePrune: o.EnablePrune, Archived: o.Archived,
	}
	for unit, on := range unitToggles(o) {
		if on != nil {
			e.Units[unit] = *on
		}
	}
	if t := o.InternalTracker; t != nil {
		e.InternalTracker = &repo.InternalTracker{EnableTimeTracker: t.EnableTimeTracker,
			AllowOnlyContributorsToTrack: t.AllowOnlyContributorsToTrackTime, EnableIssueDependencies: t.EnableIssueDependencies}
	}
	if t := o.ExternalTracker; t != nil {
		e.ExternalTracker = &repo.ExternalTracker{URL: t.ExternalTrackerURL, Format: t.ExternalTrackerFormat,
			Style: t.ExternalTrackerStyle, Regexp: t.ExternalTrackerRegexp}
	}
	if o.ExternalWiki != nil {
		e.ExternalWikiURL = &o.ExternalWiki.ExternalWikiURL
	}
	return e
}

// editRepo serves PATCH /repos/{owner}/{repo}.
func (a *API) editRepo(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var o types.EditRepoOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	fresh, err := a.Repos.Edit(r.Context(), rc.Repo, editOptions(&o), repo.Editor{Owner: rc.Perm.IsOwner(), SiteAdmin: isAdmin(r), Doer: doer(r)})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRepo(w, r, http.StatusOK, fresh)
}

// listReposWhere writes one page of visible repositories matching where.
func (a *API) listReposWhere(w http.ResponseWriter, r *http.Request, where string, args []any, order string, wrap bool) {
	ctx := r.Context()
	cond, cargs := access.RepoCond(viewer(r))
	pg := a.paging(r)
	list, total, err := a.Repos.ListVisible(ctx, where, args, cond, cargs, order, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toRepos(ctx, doer(r), list)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	if wrap {
		writeJSON(w, http.StatusOK, types.SearchResults{OK: true, Data: out})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// listMyRepos serves GET /user/repos: repositories the caller owns, and
// those they have access to (repo.AccessibleCond).
func (a *API) listMyRepos(w http.ResponseWriter, r *http.Request) {
	where, args := repo.AccessibleCond(doer(r).ID)
	a.listReposWhere(w, r, where, args, "o.lower_name, r.lower_name", false)
}

// listUserRepos serves GET /users/{username}/repos.
func (a *API) listUserRepos(w http.ResponseWriter, r *http.Request) {
	u, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	a.listReposWhere(w, r, "r.owner_id = ?", []any{u.ID}, "r.lower_name", false)
}

// listOrgRepos serves GET /orgs/{org}/repos.
func (a *API) listOrgRepos(w http.ResponseWriter, r *http.Request) {
	o, err := a.visibleOrg(r, chi.URLParam(r, "org"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.listReposWhere(w, r, "r.owner_id = ?", []any{o.ID}, "r.lower_name", false)
}

// searchRepos serves GET /repos/search with Gitea's filters.
func (a *API) searchRepos(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o := repo.SearchOptions{Keyword: q.Get("q"), TopicOnly: queryBool(r, "topic"), Exclusive: queryBool(r, "exclusive"),
		TeamID: queryInt64(q.Get("team_id")), Mode: q.Get("mode")}
	o.IncludeDesc = queryBool(r, "includeDesc") // off unless asked for, as in Gitea
	// Accounts the caller may not see filter like missing ones.
	var err error
	if uid := queryInt64(q.Get("uid")); uid > 0 {
		if o.OwnerID, err = a.seenAccountID(r, uid); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if sb := queryInt64(q.Get("starredBy")); sb > 0 {
		if o.StarredBy, err = a.seenAccountID(r, sb); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	for key, dst := range map[string]**bool{"is_private": &o.Private, "template": &o.Template, "archived": &o.Archived} {
		if v := q.Get(key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				a.fail(w, r, errs.InvalidField(key, "[%s]: must be true or false", fieldTitle(key)))
				return
			}
			*dst = &b
		}
	}
	o.PublicOnly = q.Get("private") != "" && !queryBool(r, "private")
	if d := doer(r); d != nil {
		o.DoerID = d.ID
	}
	where, args, err := o.Cond()
	if err != nil {
		a.fail(w, r, err)
		return
	}
	order, err := repo.SearchOrder(q.Get("sort"), q.Get("order"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.listReposWhere(w, r, where, args, order, true)
}

// queryInt64 reads a positive id parameter; anything else is 0.
func queryInt64(v string) int64 {
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

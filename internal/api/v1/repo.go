package v1

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
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

// editRepo serves PATCH /repos/{owner}/{repo}.
func (a *API) editRepo(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var o types.EditRepoOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	rp := *rc.Repo
	rp.Units = map[string]bool{}
	// Keep units that are disabled site-wide as stored.
	stored, err := a.Repos.Store.GetByID(ctx, rp.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for u, on := range stored.Units {
		rp.Units[u] = on
	}
	if o.Name != nil && *o.Name != rp.Name {
		if err := repo.ValidateName(*o.Name); err != nil {
			a.fail(w, r, err)
			return
		}
		if !rc.Perm.IsOwner() {
			a.errorJSON(w, http.StatusForbidden, "user should be the owner of the repo")
			return
		}
		rp.Name = *o.Name
	}
	if o.Description != nil {
		if err := maxLen("description", *o.Description, 2048); err != nil {
			a.fail(w, r, err)
			return
		}
		rp.Description = *o.Description
	}
	if o.Website != nil {
		if err := firstErr(maxLen("website", *o.Website, 1024), validWebsite(*o.Website)); err != nil {
			a.fail(w, r, err)
			return
		}
		rp.Website = *o.Website
	}
	if o.Private != nil {
		if a.Config.Repository.ForcePrivate && !*o.Private && !isAdmin(r) {
			a.fail(w, r, errs.InvalidField("private", "all repositories must be private on this site ([repository] FORCE_PRIVATE)"))
			return
		}
		rp.IsPrivate = *o.Private
	}
	if o.Template != nil {
		rp.IsTemplate = *o.Template
	}
	for unit, on := range unitToggles(&o) {
		if on == nil {
			continue
		}
		if *on && a.Repos.UnitDisabled(unit) {
			a.fail(w, r, errs.InvalidField("units", "the unit %s is disabled on this site", unit))
			return
		}
		rp.Units[unit] = *on
	}
	s := &rp.Settings
	if o.InternalTracker != nil {
		s.EnableTimeTracker = o.InternalTracker.EnableTimeTracker
		s.AllowOnlyContributorsToTrack = o.InternalTracker.AllowOnlyContributorsToTrackTime
		s.EnableIssueDependencies = o.InternalTracker.EnableIssueDependencies
	}
	if o.ExternalTracker != nil && o.HasIssues != nil && *o.HasIssues {
		if err := validWebsite(o.ExternalTracker.ExternalTrackerURL); err != nil || o.ExternalTracker.ExternalTrackerURL == "" {
			a.fail(w, r, errs.InvalidField("external_tracker", "external tracker URL is not valid"))
			return
		}
		s.ExternalTrackerURL = o.ExternalTracker.ExternalTrackerURL
		s.ExternalTrackerFormat = o.ExternalTracker.ExternalTrackerFormat
		s.ExternalTrackerStyle = o.ExternalTracker.ExternalTrackerStyle
		s.ExternalTrackerRegexp = o.ExternalTracker.ExternalTrackerRegexp
		rp.Units[repo.UnitExtIssues] = true
		rp.Units[repo.UnitIssues] = false
	}
	if o.ExternalWiki != nil && o.HasWiki != nil && *o.HasWiki {
		if err := validWebsite(o.ExternalWiki.ExternalWikiURL); err != nil || o.ExternalWiki.ExternalWikiURL == "" {
			a.fail(w, r, errs.InvalidField("external_wiki", "external wiki URL is not valid"))
			return
		}
		s.ExternalWikiURL = o.ExternalWiki.ExternalWikiURL
		rp.Units[repo.UnitExtWiki] = true
		rp.Units[repo.UnitWiki] = false
	}
	setB := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setB(&s.IgnoreWhitespaceConflicts, o.IgnoreWhitespaceConflicts)
	setB(&s.AllowMergeCommits, o.AllowMerge)
	setB(&s.AllowRebase, o.AllowRebase)
	setB(&s.AllowRebaseExplicit, o.AllowRebaseMerge)
	setB(&s.AllowSquashMerge, o.AllowSquash)
	setB(&s.AllowFastForwardOnly, o.AllowFastForwardOnly)
	setB(&s.AllowManualMerge, o.AllowManualMerge)
	setB(&s.AutodetectManualMerge, o.AutodetectManualMerge)
	setB(&s.AllowRebaseUpdate, o.AllowRebaseUpdate)
	setB(&s.DefaultDeleteBranchAfterMerge, o.DefaultDeleteBranchAfterMerge)
	setB(&s.DefaultAllowMaintainerEdit, o.DefaultAllowMaintainerEdit)
	if o.DefaultMergeStyle != nil {
		switch *o.DefaultMergeStyle {
		case "merge", "rebase", "rebase-merge", "squash", "fast-forward-only", "manually-merged":
			s.DefaultMergeStyle = *o.DefaultMergeStyle
		default:
			a.fail(w, r, errs.InvalidField("default_merge_style", "invalid default merge style %q", *o.DefaultMergeStyle))
			return
		}
	}
	if o.ProjectsMode != nil {
		switch *o.ProjectsMode {
		case "repo", "owner", "all":
			s.ProjectsMode = *o.ProjectsMode
		default:
			a.fail(w, r, errs.InvalidField("projects_mode", "invalid projects mode %q", *o.ProjectsMode))
			return
		}
	}
	if o.DefaultBranch != nil && *o.DefaultBranch != rp.DefaultBranch {
		if err := a.Repos.CheckDefaultBranch(ctx, &rp, *o.DefaultBranch); err != nil {
			a.fail(w, r, err)
			return
		}
		rp.DefaultBranch = *o.DefaultBranch
	}
	if o.MirrorInterval != nil || o.EnablePrune != nil {
		if !rp.IsMirror {
			a.fail(w, r, errs.InvalidField("mirror_interval", "repository is not a mirror"))
			return
		}
		if err := a.Repos.UpdateMirrorSettings(ctx, rp.ID, o.MirrorInterval, o.EnablePrune); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if o.Archived != nil && *o.Archived != rp.IsArchived {
		rp.IsArchived = *o.Archived
		if rp.IsArchived {
			rp.Archived = rp.Updated
		}
	}
	if err := a.Repos.Update(ctx, &rp); err != nil {
		a.fail(w, r, err)
		return
	}
	fresh, err := a.Repos.GetByID(ctx, rp.ID)
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
	where = "(" + where + ") AND " + cond
	args = append(args, cargs...)
	pg := a.paging(r)
	total, err := a.Repos.Store.Count(ctx, where, args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.Repos.List(ctx, "WHERE "+where+" ORDER BY "+order+db.LimitOffset(pg.Limit, pg.Offset()), args...)
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
// those they have access to, as Gitea counts them: as a collaborator,
// through an organization team (its repositories, or all of them), or as a
// member of a private organization whose public repositories they read.
func (a *API) listMyRepos(w http.ResponseWriter, r *http.Request) {
	d := doer(r)
	a.listReposWhere(w, r, `r.owner_id = ?
		OR r.id IN (SELECT c.repo_id FROM collaboration c WHERE c.user_id = ?)
		OR r.id IN (SELECT tr.repo_id FROM team_repo tr JOIN team_user tu ON tu.team_id = tr.team_id WHERE tu.uid = ?)
		OR r.owner_id IN (SELECT t.org_id FROM team t JOIN team_user tu ON tu.team_id = t.id
			WHERE tu.uid = ? AND (t.includes_all_repositories = ? OR t.authorize = ?))
		OR (r.is_private = ? AND r.owner_id IN (SELECT ou.org_id FROM org_user ou JOIN users uo ON uo.id = ou.org_id
			WHERE ou.uid = ? AND uo.visibility = ?))`,
		[]any{d.ID, d.ID, d.ID, d.ID, true, int(access.ModeOwner), false, d.ID, int(user.VisibilityPrivate)},
		"o.lower_name, r.lower_name", false)
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
	where, args := []string{"1 = 1"}, []any{}
	if kw := strings.TrimSpace(q.Get("q")); kw != "" {
		if queryBool(r, "topic") {
			where = append(where, "r.id IN (SELECT t.repo_id FROM repo_topic t WHERE t.topic = ?)")
			args = append(args, strings.ToLower(kw))
		} else {
			pat := likePattern(kw)
			c := "r.lower_name LIKE ?" + likeEscape + " OR r.id IN (SELECT t.repo_id FROM repo_topic t WHERE t.topic = ?)"
			args = append(args, pat, strings.ToLower(kw))
			if queryBool(r, "includeDesc") { // off unless asked for, as in Gitea
				c += " OR LOWER(r.description) LIKE ?" + likeEscape
				args = append(args, pat)
			}
			where = append(where, "("+c+")")
		}
	}
	// Accounts the caller may not see filter like missing ones.
	var err error
	if uid, _ := strconv.ParseInt(q.Get("uid"), 10, 64); uid > 0 {
		if uid, err = a.seenAccountID(r, uid); err != nil {
			a.fail(w, r, err)
			return
		}
		if queryBool(r, "exclusive") {
			where = append(where, "r.owner_id = ?")
			args = append(args, uid)
		} else {
			where = append(where, "(r.owner_id = ? OR r.id IN (SELECT c.repo_id FROM collaboration c WHERE c.user_id = ?))")
			args = append(args, uid, uid)
		}
	}
	if sb, _ := strconv.ParseInt(q.Get("starredBy"), 10, 64); sb > 0 {
		if sb, err = a.seenAccountID(r, sb); err != nil {
			a.fail(w, r, err)
			return
		}
		where = append(where, "r.id IN (SELECT s.repo_id FROM star s WHERE s.uid = ?)")
		args = append(args, sb)
	}
	if tid, _ := strconv.ParseInt(q.Get("team_id"), 10, 64); tid > 0 {
		where = append(where, "r.id IN (SELECT tr.repo_id FROM team_repo tr WHERE tr.team_id = ?)")
		args = append(args, tid)
	}
	for key, col := range map[string]string{"is_private": "r.is_private", "template": "r.is_template", "archived": "r.is_archived"} {
		if v := q.Get(key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				a.fail(w, r, errs.InvalidField(key, "[%s]: must be true or false", fieldTitle(key)))
				return
			}
			where = append(where, col+" = ?")
			args = append(args, b)
		}
	}
	if v := q.Get("private"); v != "" && !queryBool(r, "private") {
		where = append(where, "r.is_private = ?")
		args = append(args, false)
	}
	switch q.Get("mode") {
	case "":
	case "fork":
		where = append(where, "r.is_fork = ?")
		args = append(args, true)
	case "source":
		where = append(where, "r.is_fork = ? AND r.is_mirror = ?")
		args = append(args, false, false)
	case "mirror":
		where = append(where, "r.is_mirror = ?")
		args = append(args, true)
	case "collaborative":
		if d := doer(r); d != nil {
			where = append(where, "r.owner_id <> ?")
			args = append(args, d.ID)
		}
	default:
		a.fail(w, r, errs.InvalidField("mode", "invalid search mode: %q", q.Get("mode")))
		return
	}
	order, err := repoOrder(q.Get("sort"), q.Get("order"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.listReposWhere(w, r, strings.Join(where, " AND "), args, order, true)
}

// repoOrder maps Gitea's sort and order parameters to an ORDER BY.
func repoOrder(sort, order string) (string, error) {
	cols := map[string]string{
		"": "r.updated_unix", "alpha": "r.lower_name", "created": "r.created_unix", "updated": "r.updated_unix",
		"size": "r.size", "id": "r.id", "stars": "r.num_stars", "forks": "r.num_forks",
	}
	col, ok := cols[sort]
	if !ok {
		return "", errs.InvalidField("sort", "invalid sort option %q", sort)
	}
	switch order {
	case "", "asc":
		if order == "" && (sort == "" || sort == "updated" || sort == "created") {
			return col + " DESC, r.id DESC", nil
		}
		return col + " ASC, r.id ASC", nil
	case "desc":
		return col + " DESC, r.id DESC", nil
	}
	return "", errs.InvalidField("order", "invalid sort order %q", order)
}

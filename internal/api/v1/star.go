package v1

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoStarWatchRoutes: stargazers and watchers of a repository, and the
// caller's subscription.
func (a *API) repoStarWatchRoutes(r chi.Router) {
	r.With(a.starsEnabled).Get("/stargazers", a.listStargazers)
	r.Get("/subscribers", a.listSubscribers)
	r.With(a.signedIn).Get("/subscription", a.getSubscription)
	r.With(a.signedIn).Put("/subscription", a.watchRepo)
	r.With(a.signedIn).Delete("/subscription", a.unwatchRepo)
}

// userStarWatchRoutes registers, in the /user group (user scope, signed
// in), the caller's stars (which also need the repository scope) and
// subscriptions.
func (a *API) userStarWatchRoutes(r chi.Router) {
	r.With(a.scope(auth.CatRepository), a.starsEnabled).Get("/starred", a.listMyStarred)
	r.With(a.scope(auth.CatRepository), a.starsEnabled, a.repoAssignment).Get("/starred/{owner}/{repo}", a.checkStarring)
	r.With(a.scope(auth.CatRepository), a.starsEnabled, a.repoAssignment).Put("/starred/{owner}/{repo}", a.starRepo)
	r.With(a.scope(auth.CatRepository), a.starsEnabled, a.repoAssignment).Delete("/starred/{owner}/{repo}", a.unstarRepo)
	r.Get("/subscriptions", a.listMySubscriptions)
}

// usersStarWatchRoutes registers, in the /users group (user scope), the
// stars and subscriptions of a user; Gitea puts them behind reqToken.
func (a *API) usersStarWatchRoutes(r chi.Router) {
	r.With(a.signedIn, a.starsEnabled).Get("/{username}/starred", a.listUserStarred)
	r.With(a.signedIn).Get("/{username}/subscriptions", a.listUserSubscriptions)
}

// starsEnabled answers 403 when [repository] DISABLE_STARS is on.
func (a *API) starsEnabled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Config.Repository.DisableStars {
			a.errorJSON(w, http.StatusForbidden, "stars are disabled on this site")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// listRepoUsers writes one page of the users who star (or watch) the current
// repository and whom the caller may see: two queries.
func (a *API) listRepoUsers(w http.ResponseWriter, r *http.Request, join string) {
	ctx := r.Context()
	rc := currentRepo(r)
	pg := a.paging(r)
	cond, args := access.UserCond(viewer(r))
	args = append([]any{rc.Repo.ID}, args...)
	where := join + " AND " + cond
	total, err := a.DB.Count(ctx, "SELECT COUNT(*) FROM users u "+where, args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.Users.Store.List(ctx, where+" ORDER BY x.id"+db.LimitOffset(pg.Limit, pg.Offset()), args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, a.toUsers(list, doer(r)))
}

// listStargazers serves GET /repos/{owner}/{repo}/stargazers.
func (a *API) listStargazers(w http.ResponseWriter, r *http.Request) {
	a.listRepoUsers(w, r, "JOIN star x ON x.uid = u.id WHERE x.repo_id = ?")
}

// listSubscribers serves GET /repos/{owner}/{repo}/subscribers.
func (a *API) listSubscribers(w http.ResponseWriter, r *http.Request) {
	a.listRepoUsers(w, r, "JOIN watch x ON x.user_id = u.id WHERE x.repo_id = ? AND x.mode IN (1, 3)")
}

// checkStarring serves GET /user/starred/{owner}/{repo}: 204 or 404.
func (a *API) checkStarring(w http.ResponseWriter, r *http.Request) {
	ok, err := a.Repos.IsStarring(r.Context(), doer(r).ID, currentRepo(r).Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !ok {
		a.notFound(w, r)
		return
	}
	empty(w, http.StatusNoContent)
}

func (a *API) setStar(w http.ResponseWriter, r *http.Request, on bool) {
	if err := a.Repos.SetStar(r.Context(), doer(r).ID, currentRepo(r).Repo.ID, on); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// starRepo serves PUT /user/starred/{owner}/{repo}.
func (a *API) starRepo(w http.ResponseWriter, r *http.Request) { a.setStar(w, r, true) }

// unstarRepo serves DELETE /user/starred/{owner}/{repo}.
func (a *API) unstarRepo(w http.ResponseWriter, r *http.Request) { a.setStar(w, r, false) }

// listStarredBy writes the repositories u starred that the caller may see.
func (a *API) listStarredBy(w http.ResponseWriter, r *http.Request, u *user.User) {
	a.listReposWhere(w, r, "r.id IN (SELECT s.repo_id FROM star s WHERE s.uid = ?)", []any{u.ID}, "o.lower_name, r.lower_name", false)
}

// listWatchedBy writes the repositories u watches that the caller may see.
func (a *API) listWatchedBy(w http.ResponseWriter, r *http.Request, u *user.User) {
	a.listReposWhere(w, r, "r.id IN (SELECT x.repo_id FROM watch x WHERE x.user_id = ? AND x.mode IN (1, 3))", []any{u.ID}, "o.lower_name, r.lower_name", false)
}

// listMyStarred serves GET /user/starred.
func (a *API) listMyStarred(w http.ResponseWriter, r *http.Request) { a.listStarredBy(w, r, doer(r)) }

// listMySubscriptions serves GET /user/subscriptions.
func (a *API) listMySubscriptions(w http.ResponseWriter, r *http.Request) {
	a.listWatchedBy(w, r, doer(r))
}

// listUserStarred serves GET /users/{username}/starred.
func (a *API) listUserStarred(w http.ResponseWriter, r *http.Request) {
	if u, ok := a.loadVisibleUser(w, r); ok {
		a.listStarredBy(w, r, u)
	}
}

// listUserSubscriptions serves GET /users/{username}/subscriptions.
func (a *API) listUserSubscriptions(w http.ResponseWriter, r *http.Request) {
	if u, ok := a.loadVisibleUser(w, r); ok {
		a.listWatchedBy(w, r, u)
	}
}

func (a *API) watchInfo(rc *repoContext, since time.Time) types.WatchInfo {
	base := a.rootURL + "api/v1/repos/" + rc.Owner.Name + "/" + rc.Repo.Name
	return types.WatchInfo{Subscribed: true, Ignored: false, Reason: nil, CreatedAt: since, URL: base + "/subscription", RepositoryURL: base}
}

// getSubscription serves GET /repos/{owner}/{repo}/subscription: the
// caller's watch, or 404.
func (a *API) getSubscription(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ok, since, err := a.Repos.WatchedSince(r.Context(), doer(r).ID, rc.Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !ok {
		a.notFound(w, r)
		return
	}
	writeJSON(w, http.StatusOK, a.watchInfo(rc, since))
}

// watchRepo serves PUT /repos/{owner}/{repo}/subscription.
func (a *API) watchRepo(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	if err := a.Repos.SetWatch(ctx, doer(r).ID, rc.Repo.ID, true); err != nil {
		a.fail(w, r, err)
		return
	}
	_, since, err := a.Repos.WatchedSince(ctx, doer(r).ID, rc.Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.watchInfo(rc, since))
}

// unwatchRepo serves DELETE /repos/{owner}/{repo}/subscription.
func (a *API) unwatchRepo(w http.ResponseWriter, r *http.Request) {
	if err := a.Repos.SetWatch(r.Context(), doer(r).ID, currentRepo(r).Repo.ID, false); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

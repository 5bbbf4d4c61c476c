package v1

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
)

// issueWatchRoutes registers the timeline and the subscriptions of an issue
// under /repos/{owner}/{repo} (issue scope). Like Gitea, reading the
// subscribers needs no caller; checking and changing a subscription does.
func (a *API) issueWatchRoutes(r chi.Router) {
	r.Get("/issues/{index}/timeline", a.listTimeline)
	r.Get("/issues/{index}/subscriptions", a.listIssueSubscribers)
	r.With(a.signedIn).Get("/issues/{index}/subscriptions/check", a.checkIssueSubscription)
	r.With(a.signedIn).Put("/issues/{index}/subscriptions/{user}", a.setIssueSubscription(true))
	r.With(a.signedIn).Delete("/issues/{index}/subscriptions/{user}", a.setIssueSubscription(false))
}

// listIssueSubscribers serves GET .../issues/{index}/subscriptions: the users
// who subscribed to the issue explicitly, a page at a time.
func (a *API) listIssueSubscribers(w http.ResponseWriter, r *http.Request) {
	_, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	pg := a.paging(r)
	ids, total, err := a.Issues.Subscribers(r.Context(), is.ID, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	found, err := a.Users.Store.GetByIDs(r.Context(), ids)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.User, 0, len(ids))
	for _, id := range ids {
		if u, ok := found[id]; ok {
			out = append(out, a.toUser(u, viewer(r)))
		}
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// checkIssueSubscription serves GET .../issues/{index}/subscriptions/check:
// whether the caller is subscribed (explicitly, by watching the repository or
// by taking part in the issue), as a WatchInfo.
func (a *API) checkIssueSubscription(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	st, err := a.Issues.WatchStateOf(r.Context(), doer(r).ID, is)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	repoURL := a.rootURL + "api/v1/repos/" + rc.Repo.FullName()
	writeJSON(w, http.StatusOK, types.WatchInfo{
		Subscribed: st.Watching, Ignored: !st.Watching, Reason: nil, CreatedAt: is.Created,
		URL:           repoURL + "/issues/" + strconv.FormatInt(is.Index, 10) + "/subscriptions",
		RepositoryURL: repoURL,
	})
}

// setIssueSubscription serves PUT and DELETE .../issues/{index}/subscriptions/{user}:
// users change their own subscription, site administrators anyone's (403
// otherwise). It answers 201 when the subscription changed and 200 when it
// already was as asked, as Gitea does (for DELETE too).
func (a *API) setIssueSubscription(watch bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, is, ok := a.loadIssue(w, r)
		if !ok {
			return
		}
		ctx := r.Context()
		name := chi.URLParam(r, "user")
		u, err := a.visibleIndividual(r, name)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		d := doer(r)
		if u.ID != d.ID && !d.IsAdmin {
			a.fail(w, r, errs.Forbidden("%s is not permitted to change subscriptions for %s", d.Name, u.Name))
			return
		}
		changed, err := a.Issues.SetSubscription(ctx, u.ID, is, watch)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if changed {
			empty(w, http.StatusCreated)
			return
		}
		empty(w, http.StatusOK)
	}
}

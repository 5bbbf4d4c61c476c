package v1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// listFollowersOf writes the visible users following u.
func (a *API) listFollowersOf(w http.ResponseWriter, r *http.Request, u *user.User) {
	cond, args := access.UserCond(viewer(r))
	a.listUsersWhere(w, r, a.paging(r), "u.id IN (SELECT f.user_id FROM follow f WHERE f.follow_id = ?) AND "+cond,
		append([]any{u.ID}, args...), "u.lower_name", nil)
}

// listFollowingOf writes the visible users u follows.
func (a *API) listFollowingOf(w http.ResponseWriter, r *http.Request, u *user.User) {
	cond, args := access.UserCond(viewer(r))
	a.listUsersWhere(w, r, a.paging(r), "u.id IN (SELECT f.follow_id FROM follow f WHERE f.user_id = ?) AND "+cond,
		append([]any{u.ID}, args...), "u.lower_name", nil)
}

func (a *API) listMyFollowers(w http.ResponseWriter, r *http.Request) {
	a.listFollowersOf(w, r, doer(r))
}
func (a *API) listMyFollowing(w http.ResponseWriter, r *http.Request) {
	a.listFollowingOf(w, r, doer(r))
}

// listUserFollowers serves GET /users/{username}/followers.
func (a *API) listUserFollowers(w http.ResponseWriter, r *http.Request) {
	if !a.requireSignedIn(w, r) {
		return
	}
	if u, ok := a.loadVisibleUser(w, r); ok {
		a.listFollowersOf(w, r, u)
	}
}

// listUserFollowing serves GET /users/{username}/following.
func (a *API) listUserFollowing(w http.ResponseWriter, r *http.Request) {
	if !a.requireSignedIn(w, r) {
		return
	}
	if u, ok := a.loadVisibleUser(w, r); ok {
		a.listFollowingOf(w, r, u)
	}
}

// answerFollowing writes 204 when follower follows target, else 404.
func (a *API) answerFollowing(w http.ResponseWriter, r *http.Request, follower, target *user.User) {
	ok, err := a.Users.IsFollowing(r.Context(), follower.ID, target.ID)
	if err == nil && !ok {
		err = errs.NotFound("%s does not follow %s", follower.Name, target.Name)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// checkMyFollowing serves GET /user/following/{username}.
func (a *API) checkMyFollowing(w http.ResponseWriter, r *http.Request) {
	if target, ok := a.loadVisibleUser(w, r); ok {
		a.answerFollowing(w, r, doer(r), target)
	}
}

// checkUserFollowing serves GET /users/{username}/following/{target}.
func (a *API) checkUserFollowing(w http.ResponseWriter, r *http.Request) {
	if !a.requireSignedIn(w, r) {
		return
	}
	u, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	target, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "target"))
	if !ok {
		return
	}
	a.answerFollowing(w, r, u, target)
}

// follow serves PUT /user/following/{username}.
func (a *API) follow(w http.ResponseWriter, r *http.Request) {
	target, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	if target.ID != doer(r).ID {
		if err := a.Users.Follow(r.Context(), doer(r), target); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	empty(w, http.StatusNoContent)
}

// unfollow serves DELETE /user/following/{username}.
func (a *API) unfollow(w http.ResponseWriter, r *http.Request) {
	target, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	if err := a.Users.Unfollow(r.Context(), doer(r), target); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

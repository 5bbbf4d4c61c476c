package v1

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/user"
)

// loadVisibleUser loads the individual user named by the {username} path
// parameter, answering 404 when it does not exist or the caller may not see it.
func (a *API) loadVisibleUser(w http.ResponseWriter, r *http.Request) (*user.User, bool) {
	return a.visibleUserNamed(w, r, chi.URLParam(r, "username"))
}

// visibleUserNamed is loadVisibleUser for a name from elsewhere.
func (a *API) visibleUserNamed(w http.ResponseWriter, r *http.Request, name string, known ...relation) (*user.User, bool) {
	u, err := a.visibleIndividual(r, name, known...)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return u, true
}

// getAuthenticatedUser serves GET /user.
func (a *API) getAuthenticatedUser(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.toUser(doer(r), doer(r)))
}

// getUser serves GET /users/{username}.
func (a *API) getUser(w http.ResponseWriter, r *http.Request) {
	u, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, a.toUser(u, doer(r)))
}

// searchUsers serves GET /users/search: individuals the caller may see, by
// name, full name or (visible) e-mail.
func (a *API) searchUsers(w http.ResponseWriter, r *http.Request) {
	v := viewer(r)
	pg := a.paging(r)
	q := r.URL.Query()
	if uid := q.Get("uid"); uid != "" {
		id, _ := strconv.ParseInt(uid, 10, 64)
		if id == user.GhostID {
			a.setTotal(w, r, pg, 1)
			writeJSON(w, http.StatusOK, types.UserSearchResult{OK: true, Data: []*types.User{a.toUser(user.Ghost(), doer(r))}})
			return
		}
	}
	cond, args := access.UserCond(v)
	where := "u.type = 0 AND " + cond
	if uid, _ := strconv.ParseInt(q.Get("uid"), 10, 64); uid > 0 {
		where += " AND u.id = ?"
		args = append(args, uid)
	}
	if kw := strings.TrimSpace(q.Get("q")); kw != "" {
		kwCond, kwArgs := user.KeywordCond(kw, v)
		where += " AND " + kwCond
		args = append(args, kwArgs...)
	}
	a.listUsersWhere(w, r, pg, where, args, "u.lower_name", func(list []*types.User) any {
		return types.UserSearchResult{OK: true, Data: list}
	})
}

// listUsersWhere runs one count and one page query over users alias u and writes the page.
func (a *API) listUsersWhere(w http.ResponseWriter, r *http.Request, pg page, where string, args []any, order string, wrap func([]*types.User) any) {
	list, total, err := a.Users.Store.ListPage(r.Context(), where, args, order, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	out := a.toUsers(list, doer(r))
	if wrap != nil {
		writeJSON(w, http.StatusOK, wrap(out))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// getUserSettings serves GET /user/settings.
func (a *API) getUserSettings(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, toSettings(doer(r)))
}

func toSettings(u *user.User) types.UserSettings {
	return types.UserSettings{FullName: u.FullName, Website: u.Website, Description: u.Description, Location: u.Location,
		Language: u.Language, Theme: u.Theme, DiffViewStyle: u.DiffViewStyle, HideEmail: u.KeepEmailPrivate, HideActivity: u.HideActivity}
}

// updateUserSettings serves PATCH /user/settings.
func (a *API) updateUserSettings(w http.ResponseWriter, r *http.Request) {
	var o types.UserSettingsOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	u := *doer(r)
	set := func(dst *string, src *string, field string, n int) error {
		if src == nil {
			return nil
		}
		if err := maxLen(field, *src, n); err != nil {
			return err
		}
		*dst = strings.TrimSpace(*src)
		return nil
	}
	err := firstErr(
		set(&u.FullName, o.FullName, "full_name", 100),
		set(&u.Website, o.Website, "website", 255),
		set(&u.Description, o.Description, "description", 255),
		set(&u.Location, o.Location, "location", 50),
		set(&u.Language, o.Language, "language", 5),
		set(&u.Theme, o.Theme, "theme", 30),
		set(&u.DiffViewStyle, o.DiffViewStyle, "diff_view_style", 30),
		validWebsite(u.Website),
	)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if o.HideEmail != nil {
		u.KeepEmailPrivate = *o.HideEmail
	}
	if o.HideActivity != nil {
		u.HideActivity = *o.HideActivity
	}
	if err := a.Users.Store.Update(r.Context(), &u); err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSettings(&u))
}

// validWebsite accepts an empty value or an http(s) URL.
func validWebsite(s string) error { return user.ValidateWebsite(s) }

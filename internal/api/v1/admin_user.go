package v1

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// parseVisibility reads an optional visibility value ("" means def).
func parseVisibility(s string, def user.Visibility) (user.Visibility, error) {
	if s == "" {
		return def, nil
	}
	v, ok := user.ParseVisibility(s)
	if !ok {
		return 0, errs.InvalidField("visibility", "[Visibility]: In (must be one of public, limited, private; got %q)", s)
	}
	return v, nil
}

// passwordStatus400 turns a password validation failure into Gitea's 400.
func passwordStatus400(err error) error {
	if e, ok := err.(*errs.Error); ok && len(e.Fields) == 1 && e.Fields[0] == "password" {
		return e.WithStatus(http.StatusBadRequest)
	}
	return err
}

// adminCreateUser serves POST /admin/users.
func (a *API) adminCreateUser(w http.ResponseWriter, r *http.Request) {
	var o types.CreateUserOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	def, _ := user.ParseVisibility(a.Config.Service.DefaultUserVisibility)
	vis, err := parseVisibility(o.Visibility, def)
	if err == nil {
		err = firstErr(required("username", o.Username), required("email", o.Email), maxLen("username", o.Username, 40),
			maxLen("email", o.Email, user.MaxEmailLength), maxLen("full_name", o.FullName, 100), maxLen("password", o.Password, 255))
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	loginType, err := a.sourceType(r, o.SourceID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	mustChange := o.MustChangePassword == nil || *o.MustChangePassword
	restricted := o.Restricted != nil && *o.Restricted
	// With send_notify (and mail on), the welcome mail is queued in the
	// account's transaction, as Gitea sends it.
	var u *user.User
	err = a.DB.WithTx(r.Context(), func(ctx context.Context) error {
		var err error
		u, err = a.Users.Create(ctx, user.CreateOptions{
			Name: o.Username, Email: o.Email, Password: o.Password, FullName: o.FullName, LoginName: o.LoginName,
			SourceID: o.SourceID, LoginType: loginType, MustChangePassword: mustChange, IsRestricted: restricted, Visibility: vis, Active: true,
		})
		if err != nil || !o.SendNotify || a.Mail == nil {
			return err
		}
		return a.Mail.SendRegisterNotify(ctx, u)
	})
	if err != nil {
		a.fail(w, r, passwordStatus400(err))
		return
	}
	if o.Created != nil && !o.Created.IsZero() {
		if _, err := a.DB.Exec(r.Context(), "UPDATE users SET created_unix = ? WHERE id = ?", o.Created.Unix(), u.ID); err == nil {
			u.Created = *o.Created
		}
	}
	writeJSON(w, http.StatusCreated, a.toUser(u, doer(r)))
}

// sourceType checks that a source_id names an existing sign-in source (0:
// a local account) and returns its type, the account's login type; an
// unknown id is Gitea's 422.
func (a *API) sourceType(r *http.Request, id int64) (int, error) {
	if id == 0 {
		return 0, nil
	}
	if a.Sources == nil {
		return 0, authsource.ErrNotExist(id).WithStatus(http.StatusUnprocessableEntity)
	}
	t, ok, err := a.Sources.Exists(r.Context(), id)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, authsource.ErrNotExist(id).WithStatus(http.StatusUnprocessableEntity)
	}
	return int(t), nil
}

// adminListUsers serves GET /admin/users.
func (a *API) adminListUsers(w http.ResponseWriter, r *http.Request) {
	where, args := "u.type = 0", []any{}
	q := r.URL.Query()
	if sid, _ := strconv.ParseInt(q.Get("source_id"), 10, 64); sid > 0 {
		where += " AND u.login_source = ?"
		args = append(args, sid)
	}
	if ln := strings.TrimSpace(q.Get("login_name")); ln != "" {
		where += " AND u.login_name = ?"
		args = append(args, ln)
	}
	a.listUsersWhere(w, r, a.paging(r), where, args, "u.lower_name", nil)
}

// adminTarget loads the individual user named by {username}.
func (a *API) adminTarget(w http.ResponseWriter, r *http.Request) (*user.User, bool) {
	name := chi.URLParam(r, "username")
	u, err := a.Users.Store.GetByName(r.Context(), name)
	if err == nil && u.IsOrganization() {
		err = errs.Invalid("%s is an organization not a user", u.Name)
	}
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return u, true
}

// adminEditUser serves PATCH /admin/users/{username}.
func (a *API) adminEditUser(w http.ResponseWriter, r *http.Request) {
	u, ok := a.adminTarget(w, r)
	if !ok {
		return
	}
	var o types.EditUserOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	var loginType *int
	if o.SourceID != nil {
		t, err := a.sourceType(r, *o.SourceID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		loginType = &t
	}
	err := a.Users.AdminEdit(r.Context(), u, user.AdminEditOptions{
		FullName: o.FullName, Website: o.Website, Location: o.Location, Description: o.Description,
		Visibility: o.Visibility, LoginName: o.LoginName, SourceID: o.SourceID, LoginType: loginType, Admin: o.Admin, Active: o.Active,
		AllowGitHook: o.AllowGitHook, AllowImportLocal: o.AllowImportLocal, AllowCreateOrganization: o.AllowCreateOrganization,
		ProhibitLogin: o.ProhibitLogin, Restricted: o.Restricted, MustChangePassword: o.MustChangePassword,
		MaxRepoCreation: o.MaxRepoCreation, Password: o.Password, Email: o.Email,
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toUser(u, doer(r)))
}

// adminDeleteUser serves DELETE /admin/users/{username}[?purge=true].
func (a *API) adminDeleteUser(w http.ResponseWriter, r *http.Request) {
	u, ok := a.adminTarget(w, r)
	if !ok {
		return
	}
	if u.ID == doer(r).ID {
		a.fail(w, r, errs.Invalid("you cannot delete yourself"))
		return
	}
	if err := a.Users.Delete(r.Context(), u, queryBool(r, "purge")); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// adminRenameUser serves POST /admin/users/{username}/rename.
func (a *API) adminRenameUser(w http.ResponseWriter, r *http.Request) {
	u, ok := a.adminTarget(w, r)
	if !ok {
		return
	}
	var o types.RenameUserOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := required("new_username", o.NewName); err != nil {
		a.fail(w, r, err)
		return
	}
	if o.NewName == u.Name {
		empty(w, http.StatusNoContent)
		return
	}
	if err := a.Users.Rename(r.Context(), u, o.NewName); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// adminCreateKey serves POST /admin/users/{username}/keys.
func (a *API) adminCreateKey(w http.ResponseWriter, r *http.Request) {
	if u, ok := a.adminTarget(w, r); ok {
		a.createKeyFor(w, r, u)
	}
}

// adminDeleteKey serves DELETE /admin/users/{username}/keys/{id}.
func (a *API) adminDeleteKey(w http.ResponseWriter, r *http.Request) {
	if u, ok := a.adminTarget(w, r); ok {
		a.deleteKeyOf(w, r, u)
	}
}

// adminListEmails serves GET /admin/emails and /admin/emails/search.
func (a *API) adminListEmails(w http.ResponseWriter, r *http.Request) {
	pg := a.paging(r)
	where, args := "1 = 1", []any{}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		where = "(e.lower_email LIKE ?" + likeEscape + " OR u.lower_name LIKE ?" + likeEscape + ")"
		args = []any{likePattern(q), likePattern(q)}
	}
	ctx := r.Context()
	total, err := a.DB.Count(ctx, "SELECT COUNT(*) FROM email_address e JOIN users u ON u.id = e.uid WHERE "+where, args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rows, err := a.DB.Query(ctx, "SELECT e.email, e.is_activated, e.is_primary, u.id, u.name FROM email_address e JOIN users u ON u.id = e.uid WHERE "+
		where+" ORDER BY e.lower_email LIMIT ? OFFSET ?", append(args, pg.Limit, pg.Offset())...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer rows.Close()
	out := []*types.Email{}
	for rows.Next() {
		e := &types.Email{}
		if err := rows.Scan(&e.Email, &e.Verified, &e.Primary, &e.UserID, &e.UserName); err != nil {
			a.fail(w, r, err)
			return
		}
		out = append(out, e)
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

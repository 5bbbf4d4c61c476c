package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

const adminPerPage = 50

// adminUsersPage is the data of /-/admin/users.
type adminUsersPage struct {
	adminPage
	Users []*user.User
	Query string
	Pager listPager
}

// adminUsers serves GET /-/admin/users (?q= searches names, full names
// and e-mail addresses).
func (h *Handler) adminUsers(w http.ResponseWriter, r *http.Request) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	where, args := "u.type = 0", []any{}
	if q != "" {
		cond, cargs := user.KeywordCond(q, doer(r))
		where, args = where+" AND "+cond, cargs
	}
	pg := newListPager(r, 0, adminPerPage)
	list, total, err := h.Users.Store.ListPage(r.Context(), where, args, "u.lower_name", adminPerPage, pg.offset(adminPerPage))
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "admin_users", "User accounts", adminUsersPage{adminPage: newAdminPage("users"),
		Users: list, Query: q, Pager: newListPager(r, total, adminPerPage)})
}

// adminUserForm is the data of the new-account form and of an account's
// edit form (User set).
type adminUserForm struct {
	adminPage
	User *user.User
	// The new account's fields, kept after a refusal.
	Name, Email, FullName, Visibility string
	Restricted, MustChange            bool
	Visibilities                      []string
}

var visibilityNames = []string{"public", "limited", "private"}

// adminNewUser serves GET /-/admin/users/new.
func (h *Handler) adminNewUser(w http.ResponseWriter, r *http.Request) error {
	vis, _ := user.ParseVisibility(h.Config.Service.DefaultUserVisibility)
	return h.render(w, r, http.StatusOK, "admin_user_new", "New account", adminUserForm{adminPage: newAdminPage("users"),
		Visibility: vis.String(), MustChange: true, Visibilities: visibilityNames})
}

// adminCreateUser serves POST /-/admin/users/new: an active account, which
// must change its password at first sign-in when asked.
func (h *Handler) adminCreateUser(w http.ResponseWriter, r *http.Request) error {
	f := adminUserForm{adminPage: newAdminPage("users"), Name: strings.TrimSpace(r.PostFormValue("user_name")),
		Email: strings.TrimSpace(r.PostFormValue("email")), FullName: strings.TrimSpace(r.PostFormValue("full_name")),
		Visibility: r.PostFormValue("visibility"), Restricted: formChecked(r, "restricted"),
		MustChange: formChecked(r, "must_change_password"), Visibilities: visibilityNames}
	vis, ok := user.ParseVisibility(f.Visibility)
	var u *user.User
	var err error = errs.InvalidField("visibility", "The visibility must be public, limited or private.")
	if ok {
		u, err = h.Users.Create(r.Context(), user.CreateOptions{Name: f.Name, Email: f.Email, FullName: f.FullName,
			Password: r.PostFormValue("password"), MustChangePassword: f.MustChange, IsRestricted: f.Restricted,
			Visibility: vis, Active: true})
	}
	if err != nil {
		if !userError(err) {
			return err
		}
		f.Error = errMessage(err, "The account could not be created.")
		return h.render(w, r, http.StatusUnprocessableEntity, "admin_user_new", "New account", f)
	}
	return h.adminDone(w, r, adminUserLink(u), "The account "+u.Name+" has been created.")
}

// adminUserLink is the edit page of u.
func adminUserLink(u *user.User) string {
	return "/-/admin/users/" + strconv.FormatInt(u.ID, 10) + "/edit"
}

// adminTargetUser loads the individual account {id}; organizations are
// not accounts here.
func (h *Handler) adminTargetUser(r *http.Request) (*user.User, error) {
	id, err := formID(chi.URLParam(r, "id"))
	if err != nil {
		return nil, err
	}
	u, err := h.Users.Store.GetByID(r.Context(), id)
	if err == nil && u.IsOrganization() {
		err = errs.NotFound("%s is an organization", u.Name)
	}
	return u, err
}

// adminEditUser serves GET /-/admin/users/{id}/edit.
func (h *Handler) adminEditUser(w http.ResponseWriter, r *http.Request) error {
	u, err := h.adminTargetUser(r)
	if err != nil {
		return err
	}
	return h.renderAdminEditUser(w, r, u, http.StatusOK, "")
}

func (h *Handler) renderAdminEditUser(w http.ResponseWriter, r *http.Request, u *user.User, status int, msg string) error {
	f := adminUserForm{adminPage: newAdminPage("users"), User: u, Visibility: u.Visibility.String(), Visibilities: visibilityNames}
	f.Error = msg
	return h.render(w, r, status, "admin_user_edit", "Edit account "+u.Name, f)
}

// adminUpdateUser serves POST /-/admin/users/{id}/edit with the API's
// admin edit: a blank password keeps the current one.
func (h *Handler) adminUpdateUser(w http.ResponseWriter, r *http.Request) error {
	u, err := h.adminTargetUser(r)
	if err != nil {
		return err
	}
	text := func(name string) *string {
		v := r.PostFormValue(name)
		return &v
	}
	check := func(name string) *bool {
		v := formChecked(r, name)
		return &v
	}
	o := user.AdminEditOptions{FullName: text("full_name"), Website: text("website"), Location: text("location"),
		Email: text("email"), Visibility: r.PostFormValue("visibility"), Password: r.PostFormValue("password"),
		Admin: check("admin"), Restricted: check("restricted"), Active: check("active"), ProhibitLogin: check("prohibit_login"),
		MustChangePassword: check("must_change_password"), AllowCreateOrganization: check("allow_create_organization")}
	if v := strings.TrimSpace(r.PostFormValue("max_repo_creation")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			return h.renderAdminEditUser(w, r, u, http.StatusUnprocessableEntity, "The repository limit must be -1 (the site's default) or a number.")
		}
		o.MaxRepoCreation = &n
	}
	if err := h.Users.AdminEdit(r.Context(), u, o); err != nil {
		if !userError(err) {
			return err
		}
		fresh, ferr := h.Users.Store.GetByID(r.Context(), u.ID)
		if ferr != nil {
			return ferr
		}
		return h.renderAdminEditUser(w, r, fresh, http.StatusUnprocessableEntity, errMessage(err, "The account was not changed."))
	}
	return h.adminDone(w, r, adminUserLink(u), "The account "+u.Name+" has been updated.")
}

// adminDeleteUser serves POST /-/admin/users/{id}/delete (purge: with the
// repositories and organization memberships the account has).
func (h *Handler) adminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	u, err := h.adminTargetUser(r)
	if err != nil {
		return err
	}
	if u.ID == doer(r).ID {
		return h.renderAdminEditUser(w, r, u, http.StatusUnprocessableEntity, "You cannot delete your own account here.")
	}
	if err := h.Users.Delete(r.Context(), u, formChecked(r, "purge")); err != nil {
		if !userError(err) {
			return err
		}
		return h.renderAdminEditUser(w, r, u, http.StatusUnprocessableEntity, errMessage(err, "The account was not deleted."))
	}
	return h.adminDone(w, r, "/-/admin/users", "The account "+u.Name+" has been deleted.")
}

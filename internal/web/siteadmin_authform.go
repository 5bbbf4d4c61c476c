package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// adminAuthForm is the data of the new-source page and of a source's edit
// page (Source set). The kind's own fields come from its authsource.Form.
type adminAuthForm struct {
	adminPage
	// Source is the stored source being edited (nil on the new page).
	Source *authsource.Source
	// Type is the kind shown; Types the kinds the new page offers.
	Type  authsource.Type
	Types []authsource.Type
	// Editable tells whether the kind has a web form; Problem why this
	// binary cannot use the stored source ("" when it can).
	Editable                bool
	Problem                 string
	Name                    string
	IsActive, IsSyncEnabled bool
	Syncable                bool
	Fields                  []adminAuthField
	// Invalid is the field a refusal names ("" for none).
	Invalid  string
	Accounts int64
}

// adminAuthField is one of the kind's inputs with its value.
type adminAuthField struct {
	authsource.Field
	Value   string
	Invalid bool
}

// adminAuthLink is the edit page of the source id.
func adminAuthLink(id int64) string {
	return "/-/admin/auths/" + strconv.FormatInt(id, 10)
}

// sourceAccounts counts the accounts that sign in through the source id.
func (h *Handler) sourceAccounts(ctx context.Context, id int64) (int64, error) {
	return h.DB.Count(ctx, "SELECT COUNT(*) FROM users WHERE login_source = ?", id)
}

// formTypes are the kinds of this binary that have a web form.
func (h *Handler) formTypes() []authsource.Type {
	var out []authsource.Type
	for _, k := range h.Sources.Kinds() {
		if k.Form != nil {
			out = append(out, k.Type)
		}
	}
	return out
}

// fill sets the kind's fields of f from values (a source's settings or
// the submitted form); secrets are never shown back.
func (f *adminAuthForm) fill(kind authsource.Kind, values func(name string) string) {
	f.Editable = kind.Form != nil
	if kind.Form == nil {
		return
	}
	f.Syncable = kind.Form.Syncable
	f.Fields = nil
	for _, fd := range kind.Form.Fields {
		v := ""
		if fd.Input != authsource.InputSecret {
			v = values(fd.Name)
		}
		f.Fields = append(f.Fields, adminAuthField{Field: fd, Value: v, Invalid: fd.Name == f.Invalid})
	}
}

// adminNewAuth serves GET /-/admin/auths/new: the form of the kind ?type=
// (the first kind with a form by default).
func (h *Handler) adminNewAuth(w http.ResponseWriter, r *http.Request) error {
	if h.Sources == nil {
		return errs.NotFound("no such page")
	}
	types := h.formTypes()
	if len(types) == 0 {
		return errs.NotFound("no kind of source can be added on the web")
	}
	t := types[0]
	if v := r.URL.Query().Get("type"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !slices.Contains(types, authsource.Type(n)) {
			return errs.NotFound("no such kind of source")
		}
		t = authsource.Type(n)
	}
	kind, _ := h.Sources.Kind(t)
	f := adminAuthForm{adminPage: newAdminPage("auths"), Type: t, Types: types, IsActive: true}
	values := kind.Form.Values(nil)
	f.fill(kind, func(name string) string { return values[name] })
	return h.render(w, r, http.StatusOK, "admin_auth_form", "New authentication source", f)
}

// adminCreateAuth serves POST /-/admin/auths/new: the source of the kind
// "type", checked by the service as the CLI's are.
func (h *Handler) adminCreateAuth(w http.ResponseWriter, r *http.Request) error {
	if h.Sources == nil {
		return errs.NotFound("no such page")
	}
	types := h.formTypes()
	n, err := strconv.Atoi(r.PostFormValue("type"))
	if err != nil || !slices.Contains(types, authsource.Type(n)) {
		return errs.InvalidField("type", "choose a kind of source this instance supports")
	}
	kind, _ := h.Sources.Kind(authsource.Type(n))
	src := &authsource.Source{Type: kind.Type}
	if err := h.saveAuth(r, kind, src, false); err != nil {
		if !userError(err) {
			return err
		}
		f := adminAuthForm{adminPage: newAdminPage("auths"), Type: kind.Type, Types: types}
		return h.renderAuthRefusal(w, r, f, kind, err, "New authentication source")
	}
	return h.adminDone(w, r, adminAuthLink(src.ID), "The authentication source "+src.Name+" has been added.")
}

// saveAuth sets src from the submitted form and stores it.
func (h *Handler) saveAuth(r *http.Request, kind authsource.Kind, src *authsource.Source, update bool) error {
	cfg, err := kind.Form.Apply(src.Config, r.PostFormValue)
	if err != nil {
		return err
	}
	changed := *src
	changed.Name, changed.IsActive, changed.Config = r.PostFormValue("name"), formChecked(r, "is_active"), cfg
	changed.IsSyncEnabled = kind.Form.Syncable && formChecked(r, "is_sync_enabled")
	if update {
		err = h.Sources.Update(r.Context(), &changed)
	} else {
		err = h.Sources.Create(r.Context(), &changed)
	}
	if err == nil {
		*src = changed
	}
	return err
}

// renderAuthRefusal shows the form again with the submitted values (the
// secrets blank) and the refusal, its field marked.
func (h *Handler) renderAuthRefusal(w http.ResponseWriter, r *http.Request, f adminAuthForm, kind authsource.Kind, err error, title string) error {
	f.Error = errMessage(err, "The authentication source was not saved.")
	var e *errs.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		f.Invalid = e.Fields[0]
	}
	f.Name, f.IsActive, f.IsSyncEnabled = r.PostFormValue("name"), formChecked(r, "is_active"), formChecked(r, "is_sync_enabled")
	f.fill(kind, r.PostFormValue)
	return h.render(w, r, http.StatusUnprocessableEntity, "admin_auth_form", title, f)
}

// adminTargetAuth loads the source {id} and its kind (a source this
// binary cannot use comes with its Problem and no kind).
func (h *Handler) adminTargetAuth(r *http.Request) (authsource.Listed, authsource.Kind, error) {
	if h.Sources == nil {
		return authsource.Listed{}, authsource.Kind{}, errs.NotFound("no such page")
	}
	id, err := formID(chi.URLParam(r, "id"))
	if err != nil {
		return authsource.Listed{}, authsource.Kind{}, err
	}
	src, err := h.Sources.Lookup(r.Context(), id)
	if err != nil || src.Problem != "" {
		return src, authsource.Kind{}, err
	}
	kind, _ := h.Sources.Kind(src.Type) // a usable source is of a known kind
	return src, kind, nil
}

// editForm is the edit page's data for the stored source src, with its
// settings in the form.
func (h *Handler) editForm(r *http.Request, src authsource.Listed, kind authsource.Kind) (adminAuthForm, error) {
	n, err := h.sourceAccounts(r.Context(), src.ID)
	f := adminAuthForm{adminPage: newAdminPage("auths"), Source: src.Source, Type: src.Type, Name: src.Name,
		IsActive: src.IsActive, IsSyncEnabled: src.IsSyncEnabled, Accounts: n, Problem: src.Problem}
	var values map[string]string
	if kind.Form != nil {
		values = kind.Form.Values(src.Config)
	}
	f.fill(kind, func(name string) string { return values[name] })
	return f, err
}

// adminEditAuth serves GET /-/admin/auths/{id}.
func (h *Handler) adminEditAuth(w http.ResponseWriter, r *http.Request) error {
	src, kind, err := h.adminTargetAuth(r)
	if err != nil {
		return err
	}
	f, err := h.editForm(r, src, kind)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "admin_auth_form", "Authentication source "+src.Name, f)
}

// adminUpdateAuth serves POST /-/admin/auths/{id}: a blank secret keeps
// the stored one.
func (h *Handler) adminUpdateAuth(w http.ResponseWriter, r *http.Request) error {
	src, kind, err := h.adminTargetAuth(r)
	if err != nil {
		return err
	}
	if src.Problem != "" {
		return errs.Invalid("this source cannot be changed: %s", src.Problem)
	}
	if kind.Form == nil {
		return errs.Invalid("the settings of a %s source are changed with 'cairn admin auth'", src.Type)
	}
	f, err := h.editForm(r, src, kind)
	if err != nil {
		return err
	}
	if err := h.saveAuth(r, kind, src.Source, true); err != nil {
		if !userError(err) {
			return err
		}
		return h.renderAuthRefusal(w, r, f, kind, err, "Authentication source "+src.Name)
	}
	return h.adminDone(w, r, adminAuthLink(src.ID), "The authentication source "+src.Name+" has been updated.")
}

// adminDeleteAuth serves POST /-/admin/auths/{id}/delete; the service
// refuses while accounts sign in through the source.
func (h *Handler) adminDeleteAuth(w http.ResponseWriter, r *http.Request) error {
	src, kind, err := h.adminTargetAuth(r)
	if err != nil {
		return err
	}
	if err := h.Sources.Delete(r.Context(), src.ID); err != nil {
		if !userError(err) {
			return err
		}
		f, ferr := h.editForm(r, src, kind)
		if ferr != nil {
			return ferr
		}
		f.Error = errMessage(err, "The authentication source was not deleted.")
		return h.render(w, r, http.StatusUnprocessableEntity, "admin_auth_form", "Authentication source "+src.Name, f)
	}
	return h.adminDone(w, r, "/-/admin/auths", "The authentication source "+src.Name+" has been deleted.")
}

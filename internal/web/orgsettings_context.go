package web

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// orgNeed is who may open an organization page.
type orgNeed int

const (
	// orgAnyone: everyone who may see the organization.
	orgAnyone orgNeed = iota
	// orgInsider: its members (and site administrators).
	orgInsider
	// orgOwnerOnly: its owners (and site administrators).
	orgOwnerOnly
)

// orgCtx is an organization page's organization, the visitor's role there
// and the organization's navigation.
type orgCtx struct {
	Org  *user.User
	Role access.OrgRole
	// Link is /org/{name}; Home is the organization's profile.
	Link, Home string
	Nav        []settingsLink
	// Error is the message of a refused form.
	Error string
}

// insider reports whether the visitor is a member (site administrators count).
func (oc *orgCtx) insider() bool { return oc.Role.Member || oc.Role.Owner }

// loadOrgPage loads the organization {org} for a page that need allows: an
// organization the visitor may not see is not found, a signed-out visitor
// is sent to sign in, and anyone else is refused (403). active marks the
// navigation entry.
func (h *Handler) loadOrgPage(r *http.Request, need orgNeed, active string) (*orgCtx, error) {
	ctx := r.Context()
	name := chi.URLParam(r, "org")
	o, err := h.Orgs.GetByName(ctx, name)
	if err != nil {
		return nil, err
	}
	d := doer(r)
	visible, err := h.Access.CanSeeOrg(ctx, d, o)
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, org.ErrNameNotExist(name)
	}
	role, err := h.Access.RoleInOrg(ctx, d, o)
	if err != nil {
		return nil, err
	}
	oc := &orgCtx{Org: o, Role: role, Link: "/org/" + url.PathEscape(o.Name), Home: "/" + url.PathEscape(o.Name)}
	switch {
	case need == orgInsider && !oc.insider(), need == orgOwnerOnly && !role.Owner:
		if d == nil {
			return nil, errs.Unauthorized("sign in first")
		}
		if need == orgOwnerOnly {
			return nil, errs.Forbidden("Only the owners of %s may do this.", o.Name)
		}
		return nil, errs.Forbidden("Only the members of %s may see this.", o.Name)
	}
	oc.Nav = []settingsLink{{Name: "Repositories", Link: oc.Home}, {Name: "Members", Link: oc.Link + "/members", Active: active == "members"}}
	if oc.insider() {
		oc.Nav = append(oc.Nav, settingsLink{Name: "Teams", Link: oc.Link + "/teams", Active: active == "teams"})
	}
	if role.Owner {
		oc.Nav = append(oc.Nav, settingsLink{Name: "Settings", Link: oc.Link + "/settings", Active: active == "settings"})
	}
	return oc, nil
}

// orgPageData is what an organization page's template receives: .Data.O
// (the organization) and .Data.Page (the page's own data).
type orgPageData struct {
	O    *orgCtx
	Page any
}

// renderOrg renders an organization page.
func (h *Handler) renderOrg(w http.ResponseWriter, r *http.Request, status int, tmpl, title string, oc *orgCtx, page any) error {
	return h.render(w, r, status, tmpl, title+" · "+oc.Org.Name, orgPageData{O: oc, Page: page})
}

// orgDone ends a successful organization form: a flash message and a
// redirect to path (below the site).
func (h *Handler) orgDone(w http.ResponseWriter, r *http.Request, path, msg string) error {
	if msg != "" {
		h.flash(w, "success", msg)
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
	return nil
}

// orgRefused returns to path with the message of a refused action, or
// returns err when it is not the visitor's mistake (or means "not found" or
// "forbidden", which get their own pages).
func (h *Handler) orgRefused(w http.ResponseWriter, r *http.Request, path string, err error) error {
	if userError(err) && !errs.IsNotFound(err) && !errs.Is(err, errs.KindForbidden) && !errs.Is(err, errs.KindUnauthorized) {
		h.flash(w, "error", errMessage(err, "The change was refused."))
		http.Redirect(w, r, path, http.StatusSeeOther)
		return nil
	}
	return err
}

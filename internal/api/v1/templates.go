package v1

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/templates"
)

// licenseImplementation is the fixed "implementation" text of
// GET /licenses/{name}, kept for GitHub API compatibility as Gitea does.
const licenseImplementation = "Create a text file (typically named LICENSE or LICENSE.txt) in the root of your source code and copy the text of the license into the file"

// templateHandlers serve the read-only template catalogue: gitignore
// templates, licenses and label templates. No sign-in or token scope is
// needed, as in Gitea.
type templateHandlers struct {
	set     *templates.Set
	rootURL string // ends in "/"
	fail    func(http.ResponseWriter, *http.Request, error)
}

// newTemplateHandlers wires the handlers; a.fail maps errs.NotFound to 404.
func newTemplateHandlers(set *templates.Set, rootURL string, fail func(http.ResponseWriter, *http.Request, error)) *templateHandlers {
	return &templateHandlers{set: set, rootURL: rootURL, fail: fail}
}

// routes registers the routes on the /api/v1 router.
func (h *templateHandlers) routes(r chi.Router) {
	r.Get("/gitignore/templates", h.listGitignores)
	r.Get("/gitignore/templates/{name}", h.getGitignore)
	r.Get("/licenses", h.listLicenses)
	r.Get("/licenses/{name}", h.getLicense)
	r.Get("/label/templates", h.listLabelTemplates)
	r.Get("/label/templates/{name}", h.getLabelTemplate)
}

// templateName reads the {name} path parameter. chi matches on the escaped
// path when the request escaped it (C%2B%2B), so unescape it here.
func templateName(r *http.Request) string {
	name := chi.URLParam(r, "name")
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
	}
	return name
}

func (h *templateHandlers) licenseURL(key string) string {
	return h.rootURL + "api/v1/licenses/" + url.PathEscape(key)
}

// listGitignores serves GET /gitignore/templates.
func (h *templateHandlers) listGitignores(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, nonNil(h.set.Gitignores()))
}

// getGitignore serves GET /gitignore/templates/{name}.
func (h *templateHandlers) getGitignore(w http.ResponseWriter, r *http.Request) {
	name := templateName(r)
	body, err := h.set.Gitignore(name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, types.GitignoreTemplateInfo{Name: name, Source: string(body)})
}

// listLicenses serves GET /licenses. Like Gitea, key and name are both the SPDX id.
func (h *templateHandlers) listLicenses(w http.ResponseWriter, r *http.Request) {
	list := h.set.Licenses()
	out := make([]types.LicensesTemplateListEntry, len(list))
	for i, l := range list {
		out[i] = types.LicensesTemplateListEntry{Key: l.ID, Name: l.ID, URL: h.licenseURL(l.ID)}
	}
	writeJSON(w, http.StatusOK, out)
}

// getLicense serves GET /licenses/{name}.
func (h *templateHandlers) getLicense(w http.ResponseWriter, r *http.Request) {
	name := templateName(r)
	body, err := h.set.License(name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, types.LicenseTemplateInfo{Key: name, Name: name, URL: h.licenseURL(name),
		Implementation: licenseImplementation, Body: string(body)})
}

// listLabelTemplates serves GET /label/templates.
func (h *templateHandlers) listLabelTemplates(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, nonNil(h.set.LabelTemplates()))
}

// getLabelTemplate serves GET /label/templates/{name}.
func (h *templateHandlers) getLabelTemplate(w http.ResponseWriter, r *http.Request) {
	labels, err := h.set.LabelTemplate(templateName(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]types.LabelTemplate, len(labels))
	for i, l := range labels {
		out[i] = types.LabelTemplate{Name: l.Name, Exclusive: l.Exclusive, Color: l.Color, Description: l.Description}
	}
	writeJSON(w, http.StatusOK, out)
}

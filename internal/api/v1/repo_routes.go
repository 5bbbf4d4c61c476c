package v1

import "github.com/go-chi/chi/v5"

// repoRoutes registers the routes under /repos/{owner}/{repo} that need the
// repository scope; the repository is already loaded (repoAssignment).
func (a *API) repoRoutes(r chi.Router) {
	r.Get("/", a.getRepo)
	r.With(a.reqRepoAdmin).Patch("/", a.editRepo)
	r.With(a.reqRepoOwner).Delete("/", a.deleteRepo)
	a.deployKeyRoutes(r)
	a.repoRelationRoutes(r)
	a.gitRoutes(r)
	a.contentsRoutes(r)
	a.pullRoutes(r)
	a.branchProtectionRoutes(r)
	a.tagProtectionRoutes(r)
	a.releaseRoutes(r)
	r.Group(func(r chi.Router) {
		r.Use(a.reqRepoAdmin)
		a.hookRoutes(r, "", repoHookOwner)
		r.Post("/hooks/{id}/tests", a.handle(a.testHook))
	})
}

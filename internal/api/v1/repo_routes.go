package v1

import "github.com/go-chi/chi/v5"

// repoRoutes registers the routes under /repos/{owner}/{repo} that need the
// repository scope; the repository is already loaded (repoAssignment).
func (a *API) repoRoutes(r chi.Router) {
	r.Get("/", a.getRepo)
	r.With(a.reqRepoAdmin).Patch("/", a.editRepo)
	r.With(a.reqRepoOwner).Delete("/", a.deleteRepo)
	// The key the instance signs this repository's commits with (one key
	// for every repository).
	r.Get("/signing-key.gpg", a.getSigningKey)
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

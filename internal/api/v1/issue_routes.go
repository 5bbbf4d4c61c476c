package v1

import "github.com/go-chi/chi/v5"

// issueRoutes registers the routes under /repos/{owner}/{repo} that need the
// issue scope; the repository is already loaded.
func (a *API) issueRoutes(r chi.Router) {
	r.Get("/issues", a.listIssues)
	r.With(a.signedIn).Post("/issues", a.createIssue)
	r.Get("/issues/pinned", a.listPinnedIssues)
	r.Get("/issues/comments", a.listRepoComments)
	r.Get("/issues/comments/{id}", a.getComment)
	r.With(a.signedIn).Patch("/issues/comments/{id}", a.editComment)
	r.With(a.signedIn).Delete("/issues/comments/{id}", a.deleteComment)
	r.Get("/issues/{index}", a.getIssue)
	r.With(a.signedIn).Patch("/issues/{index}", a.editIssue)
	r.With(a.signedIn).Delete("/issues/{index}", a.deleteIssue)
	r.Get("/issues/{index}/comments", a.listIssueComments)
	r.With(a.signedIn).Post("/issues/{index}/comments", a.createComment)
	r.With(a.signedIn).Patch("/issues/{index}/comments/{id}", a.editComment)
	r.With(a.signedIn).Delete("/issues/{index}/comments/{id}", a.deleteComment)
	r.With(a.signedIn).Post("/issues/{index}/deadline", a.updateDeadline)
	r.With(a.reqRepoAdmin).Put("/issues/{index}/lock", a.lockIssue)
	r.With(a.reqRepoAdmin).Delete("/issues/{index}/lock", a.unlockIssue)
	r.With(a.reqRepoAdmin).Post("/issues/{index}/pin", a.pinIssue(true))
	r.With(a.reqRepoAdmin).Delete("/issues/{index}/pin", a.pinIssue(false))
	r.With(a.reqRepoAdmin).Patch("/issues/{index}/pin/{position}", a.movePin)
	a.labelRoutes(r)
	a.issueWatchRoutes(r)
	a.issueActivityRoutes(r)
}

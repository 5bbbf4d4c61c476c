package web

import "github.com/go-chi/chi/v5"

// codeRoutes are the pages that read a repository's code: home, tree and
// file views, raw files, history, commits, branches and tags.
func (h *Handler) codeRoutes(r chi.Router) {
	c := newCodePages(h)
	h.Repos.AddPushListener(c.onPush)
	const repo = "/{owner}/{repo}"
	r.Get(repo, h.page(c.home))
	for _, kind := range []string{codeRefBranch, codeRefTag, codeRefCommit} {
		r.Get(repo+"/src/"+kind+"/*", h.page(c.src(kind)))
		r.Get(repo+"/raw/"+kind+"/*", h.page(c.raw(kind)))
		r.Get(repo+"/media/"+kind+"/*", h.page(c.raw(kind)))
		r.Get(repo+"/blame/"+kind+"/*", h.page(c.blame(kind)))
		r.Get(repo+"/commits/"+kind+"/*", h.page(c.commits(kind)))
	}
	// The older addresses without the kind of reference redirect.
	r.Get(repo+"/src/*", h.page(c.legacy("src")))
	r.Get(repo+"/raw/*", h.page(c.legacy("raw")))
	r.Get(repo+"/media/*", h.page(c.legacy("media")))
	r.Get(repo+"/commits/*", h.page(c.legacy("commits")))
	r.Get(repo+"/commit/{sha}", h.page(c.commit))
	r.Get(repo+"/branches", h.page(c.branches))
	r.Get(repo+"/tags", h.page(c.tags))
	r.Get(repo+"/compare/*", h.page(c.compare))
	r.Get(repo+"/archive/*", h.page(c.archive))
}

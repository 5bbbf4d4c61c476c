package web

import "github.com/go-chi/chi/v5"

// codeRoutes are the pages that read a repository's code: home, tree and
// file views, raw files, history, commits, branches and tags.
func (h *Handler) codeRoutes(r chi.Router) {
}

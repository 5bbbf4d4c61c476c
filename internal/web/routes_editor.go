package web

import "github.com/go-chi/chi/v5"

// editorRoutes are the web file editor's pages, at Gitea's addresses:
// /_new/{branch}/{dir}, /_edit/{branch}/{path}, /_delete/{branch}/{path} and
// /_upload/{branch}/{dir}, each a form (GET) and its commit (POST).
func (h *Handler) editorRoutes(r chi.Router) {
	e := &editorPages{h: h}
	const repo = "/{owner}/{repo}"
	r.Get(repo+"/_new/*", h.page(e.newFile))
	r.Post(repo+"/_new/*", h.page(e.newFilePost))
	r.Get(repo+"/_edit/*", h.page(e.editFile))
	r.Post(repo+"/_edit/*", h.page(e.editFilePost))
	r.Get(repo+"/_delete/*", h.page(e.deleteFile))
	r.Post(repo+"/_delete/*", h.page(e.deleteFilePost))
	r.Get(repo+"/_upload/*", h.page(e.uploadFile))
	r.Post(repo+"/_upload/*", h.page(e.uploadFilePost))
}

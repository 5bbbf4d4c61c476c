package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/markup"
)

// previewMarkdown serves POST /-/markup: the text of a Markdown editor
// rendered as its comment would be (sanitized HTML), for the editor's
// Preview tab. "context" is the repository's path (/owner/repo), whose
// issues #N references link to; it names no data, so no permission is
// needed beyond the form's CSRF token.
func (h *Handler) previewMarkdown(w http.ResponseWriter, r *http.Request) error {
	text := r.PostFormValue("text")
	opts := markup.Options{Mode: markup.ModeComment}
	if c := r.PostFormValue("context"); c != "" {
		if safeRedirect(c) != c || strings.Count(strings.Trim(c, "/"), "/") != 1 {
			return errs.InvalidField("context", "context must be a repository path, /owner/repo")
		}
		opts.RepoLink = strings.TrimSuffix(h.rootURL, "/") + c
	}
	if r.PostFormValue("mode") == markup.ModeMarkdown {
		opts.Mode = markup.ModeMarkdown
	}
	out, err := h.Markup.Render(r.Context(), []byte(text), opts)
	if errors.Is(err, markup.ErrTooLarge) {
		return errs.Invalid("the text is larger than 1 MiB")
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, err = w.Write(out)
	return err
}

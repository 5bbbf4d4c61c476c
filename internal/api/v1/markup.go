package v1

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/markup"
)

// maxMarkupBody bounds a text sent for rendering.
const maxMarkupBody = 8 << 20

// renderMarkdown serves POST /markdown: Text rendered in Mode ("markdown",
// "comment" or "gfm", "wiki"; Wiki forces "wiki") with Context ("owner/repo"
// or a URL of it) for #N links. No sign-in needed, as in Gitea.
func (a *API) renderMarkdown(w http.ResponseWriter, r *http.Request) {
	var in types.MarkdownOption
	if err := decode(r, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRendered(w, r, in.Text, in.Mode, in.Wiki, in.Context, "")
}

// renderMarkup serves POST /markup: as /markdown, plus "file" mode that
// renders FilePath by its extension.
func (a *API) renderMarkup(w http.ResponseWriter, r *http.Request) {
	var in types.MarkupOption
	if err := decode(r, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRendered(w, r, in.Text, in.Mode, in.Wiki, in.Context, in.FilePath)
}

// renderMarkdownRaw serves POST /markdown/raw: the request body is the
// Markdown document.
func (a *API) renderMarkdownRaw(w http.ResponseWriter, r *http.Request) {
	text, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMarkupBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		a.fail(w, r, &errs.Error{Kind: errs.KindTooLarge, Message: "the text to render is too large"})
		return
	}
	if err != nil {
		a.fail(w, r, errs.BadRequest("reading the body: %v", err))
		return
	}
	a.writeRendered(w, r, string(text), markup.ModeMarkdown, false, "", "")
}

func (a *API) writeRendered(w http.ResponseWriter, r *http.Request, text, mode string, wiki bool, context, filePath string) {
	if wiki {
		mode = markup.ModeWiki
	}
	out, err := a.Markup.Render(r.Context(), []byte(text), markup.Options{Mode: mode, RepoLink: a.repoLinkOf(context), FilePath: filePath})
	var unsupported markup.ErrUnsupported
	if errors.Is(err, markup.ErrTooLarge) {
		a.fail(w, r, &errs.Error{Kind: errs.KindTooLarge, Message: "the text to render is larger than 1 MiB"})
		return
	}
	if errors.As(err, &unsupported) {
		a.fail(w, r, errs.Invalid("%s", unsupported.What))
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// repoLinkOf turns a rendering context ("owner/repo", "/owner/repo/..." or
// a URL on this server) into the repository's web address, "" otherwise.
func (a *API) repoLinkOf(context string) string {
	p := strings.TrimSpace(context)
	if p == "" {
		return ""
	}
	if u, err := url.Parse(p); err == nil && u.IsAbs() {
		root, err := url.Parse(a.rootURL)
		if err != nil || u.Host != root.Host || !strings.HasPrefix(u.Path, root.Path) {
			return ""
		}
		p = strings.TrimPrefix(u.Path, root.Path)
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) < 2 || !alphaDashDot.MatchString(parts[0]) || !alphaDashDot.MatchString(parts[1]) {
		return ""
	}
	return a.rootURL + parts[0] + "/" + parts[1]
}

package web

import (
	"bufio"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/cairn-forge/cairn/internal/errs"
)

// codeRawPolicy is the Content-Security-Policy of raw files: nothing loads and
// the document is sandboxed, so an HTML or SVG file cannot run script on
// this site.
const codeRawPolicy = "default-src 'none'; sandbox"

// raw serves /raw/{kind}/{ref}/{path} (and /media/...): the blob streamed
// as git reads it, with a Content-Type that cannot be turned into a page:
// text as text/plain, images as themselves, the rest as a download.
func (c *codePages) raw(kind string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, repoPath, ref, err := c.loadRef(r, kind)
		if err != nil {
			return err
		}
		ctx := r.Context()
		if ref.Path == "" {
			return errs.NotFound("not a file")
		}
		e, err := c.h.Git.GetTreeEntry(ctx, repoPath, ref.Commit, ref.Path)
		if err != nil {
			return gitNotFound(err)
		}
		if e.IsDir() || e.IsSubmodule() {
			return errs.NotFound("not a file")
		}
		etag := `"` + e.SHA + `"`
		hd := w.Header()
		hd.Set("ETag", etag)
		hd.Set("Cache-Control", "private, no-cache")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		blob, size, err := c.h.Git.ReadBlob(ctx, repoPath, e.SHA)
		if err != nil {
			return gitNotFound(err)
		}
		defer blob.Close()
		br := bufio.NewReaderSize(blob, 8192)
		typ := codeRawType(e.Name, br)
		disposition := "inline"
		if typ == "application/octet-stream" {
			disposition = "attachment"
		}
		hd.Set("Content-Type", typ)
		if cd := mime.FormatMediaType(disposition, map[string]string{"filename": e.Name}); cd != "" {
			hd.Set("Content-Disposition", cd)
		} else {
			hd.Set("Content-Disposition", disposition)
		}
		hd.Set("Content-Length", strconv.FormatInt(size, 10))
		hd.Set("Content-Security-Policy", codeRawPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		if _, err := io.Copy(w, br); err != nil {
			abortCodeStream(r, "raw file", err)
		}
		return nil
	}
}

// abortCodeStream ends a response whose body git could not finish: the
// client sees a cut connection, not a complete-looking file.
func abortCodeStream(r *http.Request, what string, err error) {
	if r.Context().Err() == nil {
		slog.Error("web: streaming "+what, "path", r.URL.Path, "err", err)
	}
	panic(http.ErrAbortHandler)
}

package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var staticFS embed.FS

// assets are the embedded static files, served under content-hashed names
// (/assets/cairn.<hash>.css) so browsers may cache them for good, each
// compressed once at start.
type assets struct {
	byName map[string]*asset // by the hashed name
	urls   map[string]string // plain name -> /assets/hashed name
}

type asset struct {
	typ  string
	raw  []byte
	gzip []byte
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]*asset{}, urls: map[string]string{}}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		name := strings.TrimPrefix(p, "static/")
		ext := path.Ext(name)
		hashed := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		typ := mime.TypeByExtension(ext)
		if typ == "" {
			typ = "application/octet-stream"
		}
		a.byName[hashed] = &asset{typ: typ, raw: raw, gzip: gz.Bytes()}
		a.urls[name] = "/assets/" + hashed
		return nil
	})
	return a, err
}

// url is the hashed URL of the static file name.
func (a *assets) url(name string) string { return a.urls[name] }

// ServeHTTP serves /assets/{name}.
func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := a.byName[strings.TrimPrefix(r.URL.Path, "/assets/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.typ)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	body := f.raw
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = f.gzip
	}
	_, _ = w.Write(body)
}

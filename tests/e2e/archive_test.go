package e2e

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"mime"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// gdTreeFiles lists path -> content of the files at rev, as git has them.
func gdTreeFiles(t testing.TB, g *gdRepo, rev string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range strings.Split(g.git(t, "ls-tree", "-r", "--name-only", rev), "\n") {
		out[p] = g.git(t, "cat-file", "blob", rev+":"+p) + "\n"
	}
	return out
}

// gdSameFiles compares two path -> content maps.
func gdSameFiles(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(got) != len(want) {
		t.Errorf("%s: files %v, want %d files", what, keys, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], v)
		}
	}
}

func TestArchiveFormats(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client("")

	// zip of a branch, entries under "demo/".
	data, resp, err := c.GetArchive("owner", "demo", "main", gitea.ZipArchive)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/zip" {
		t.Errorf("zip Content-Type %q", ct)
	}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err != nil || params["filename"] != "demo-main.zip" {
		t.Errorf("zip Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		name, ok := strings.CutPrefix(f.Name, "demo/")
		if !ok {
			t.Errorf("zip entry %q outside demo/", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[name] = string(b)
	}
	gdSameFiles(t, "zip", files, gdTreeFiles(t, g, "main"))

	// tar.gz of a branch with a slash, streamed.
	rd, resp, err := c.GetArchiveReader("owner", "demo", "feature/x", gitea.TarGZArchive)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); params["filename"] != "demo-feature-x.tar.gz" {
		t.Errorf("tar.gz Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	gz, err := gzip.NewReader(rd)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files = map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, _ := io.ReadAll(tr)
		files[strings.TrimPrefix(h.Name, "demo/")] = string(b)
	}
	gdSameFiles(t, "tar.gz", files, gdTreeFiles(t, g, "feature/x"))

	// An archive of a tag and of a commit.
	for _, ref := range []string{"v1.0", "v2.0", g.c["c1"], g.c["c2"][:10]} {
		r := s.Do("GET", g.api()+"archive/"+ref+".zip")
		gdExpect(t, r, 200, "zip of "+ref)
	}

	// A bundle that git accepts, holding the history of the reference.
	r := s.Do("GET", g.api()+"archive/feature/x.bundle")
	gdExpect(t, r, 200, "bundle")
	dir := t.TempDir()
	bundle := filepath.Join(dir, "x.bundle")
	if err := os.WriteFile(bundle, r.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	check := filepath.Join(dir, "check")
	gdGit(t, dir, nil, "init", "-q", "--bare", check)
	if out := gdGit(t, check, nil, "bundle", "verify", bundle); !strings.Contains(out, "okay") {
		t.Errorf("git bundle verify: %s", out)
	}
	clone := filepath.Join(dir, "clone")
	gdGit(t, dir, nil, "clone", "-q", bundle, clone)
	if got := gdGit(t, clone, nil, "rev-parse", "HEAD"); got != g.c["c4"] {
		t.Errorf("bundle HEAD %s, want %s", got, g.c["c4"])
	}
	if got := gdGit(t, clone, nil, "rev-list", "--count", "HEAD"); got != "3" {
		t.Errorf("bundle history: %s commits", got)
	}

	// Refusals.
	for path, want := range map[string]int{
		"nope.zip":               404,
		"main.rar":               400,
		"main":                   400,
		"--output=x.zip":         404,
		"main~1.zip":             404,
		"..%2F..%2Fconfig.zip":   404,
		"main:README.md.tar.gz":  404,
		".zip":                   404,
		"refs/heads/main.tar.gz": 200,
	} {
		gdExpect(t, s.Do("GET", g.api()+"archive/"+path), want, "archive "+path)
	}
	// Dot segments never reach the handler: the path is cleaned first.
	r = s.Do("GET", g.api()+"archive/../../etc/passwd.zip")
	if r.Status == 200 || strings.Contains(r.Header.Get("Location"), "/archive/") {
		t.Errorf("dot segments: %d %v", r.Status, r.Header)
	}
}

func TestArchivePermissionsAndLanguages(t *testing.T) {
	s, g := gdSetup(t, true)
	gdExpect(t, s.Do("GET", g.api()+"archive/main.zip"), 404, "signed-out archive of a private repository")
	gdExpect(t, s.Do("GET", g.api()+"archive/main.zip", Token(s.CreateUser("other").Token)), 404, "stranger's archive")
	gdExpect(t, s.Do("GET", g.api()+"languages"), 404, "signed-out languages of a private repository")

	langs, _, err := s.Client(g.owner.Token).GetRepoLanguages("owner", "demo")
	if err != nil {
		t.Fatal(err)
	}
	size := func(rev, p string) int64 {
		return int64(len(g.git(t, "cat-file", "blob", rev+":"+p)) + 1)
	}
	want := map[string]int64{
		"Go":         size("main", "main.go"),
		"Python":     size("main", "lib/helpers.py"),
		"JavaScript": size("main", "web/app.js"),
		"CSS":        size("main", "web/style.css"),
	}
	if len(langs) != len(want) {
		t.Errorf("languages %v, want %v", langs, want)
	}
	for k, v := range want {
		if langs[k] != v {
			t.Errorf("languages[%s] = %d, want %d (all: %v)", k, langs[k], v, langs)
		}
	}
}

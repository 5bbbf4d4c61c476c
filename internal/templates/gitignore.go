package templates

import (
	"bytes"
	"io/fs"
	"path"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

func (s *Set) loadGitignores() error {
	list, err := names(s.fsys, gitignoreDir)
	if err != nil {
		return err
	}
	for _, n := range list {
		s.gitignore[n] = path.Join(gitignoreDir, n)
	}
	s.gitignores = list
	return nil
}

// Gitignores lists the .gitignore template names, sorted.
func (s *Set) Gitignores() []string { return clone(s.gitignores) }

// Gitignore returns one .gitignore template; errs.NotFound for an unknown name.
// Names are case-sensitive, as Gitea's.
func (s *Set) Gitignore(name string) ([]byte, error) {
	p, ok := s.gitignore[name]
	if !ok {
		return nil, errs.NotFound("gitignore template %q does not exist", name)
	}
	return fs.ReadFile(s.fsys, p)
}

// GitignoreCombined builds a repository's initial .gitignore from a
// comma-separated list of template names (CreateRepoOption.gitignores): each
// template under a "# ---> Name" header, separated by a blank line. Blank and
// repeated names are skipped; an unknown name is errs.NotFound. No names give
// an empty result.
func (s *Set) GitignoreCombined(names string) ([]byte, error) {
	var buf bytes.Buffer
	seen := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		body, err := s.Gitignore(n)
		if err != nil {
			return nil, err
		}
		if buf.Len() > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString("# ---> " + n + "\n")
		buf.Write(body)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes(), nil
}

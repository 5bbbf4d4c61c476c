// Package templates holds the repository templates shipped inside the binary:
// .gitignore templates, license texts, the README template and issue label
// sets. They are offered when a repository is created and served read-only by
// the API (/gitignore/templates, /licenses, /label/templates).
//
// The files live under data/ and are embedded at build time:
//
//	data/gitignore/<Name>      one .gitignore template per file, named as Gitea lists it ("Go", "C++")
//	data/license/<SPDX id>     license texts; see licenseTable for names and placeholders
//	data/label/<Name>.json     {"labels": [{"name", "color", "description", "exclusive"}]}
package templates

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed data
var embedded embed.FS

const (
	gitignoreDir = "data/gitignore"
	licenseDir   = "data/license"
	labelDir     = "data/label"
)

// Set is the template catalogue. It is read-only after New and safe for
// concurrent use.
type Set struct {
	fsys fs.FS

	gitignores []string          // sorted names
	gitignore  map[string]string // name -> file path

	licenses []LicenseInfo // sorted by ID
	license  map[string]licenseEntry

	labelNames []string // sorted
	labels     map[string][]Label

	licenseIndex licenseIndex
}

// New indexes the embedded templates. It reads directory listings and parses
// the small label files only (tens of microseconds); gitignore and license
// texts are read from the embedded data when asked for.
func New() (*Set, error) { return newSet(embedded) }

func newSet(fsys fs.FS) (*Set, error) {
	s := &Set{fsys: fsys, gitignore: map[string]string{}, license: map[string]licenseEntry{}, labels: map[string][]Label{}}
	if err := s.loadGitignores(); err != nil {
		return nil, fmt.Errorf("templates: gitignore: %w", err)
	}
	if err := s.loadLicenses(); err != nil {
		return nil, fmt.Errorf("templates: license: %w", err)
	}
	if err := s.loadLabels(); err != nil {
		return nil, fmt.Errorf("templates: label: %w", err)
	}
	return s, nil
}

// names returns the regular files of dir, sorted.
func names(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

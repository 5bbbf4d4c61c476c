package templates

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// LicenseInfo names one license template.
type LicenseInfo struct {
	ID   string // SPDX identifier, also the template's name in the API ("MIT", "Apache-2.0")
	Name string // full name ("MIT License")
}

type licenseEntry struct {
	LicenseInfo
	file string // under data/license
	// fill marks texts whose copyright line carries <year> and
	// <copyright holders>, filled by RenderLicense. Long licenses (GPL,
	// Apache) only carry placeholders in their "how to apply" appendix,
	// which stays as published.
	fill bool
}

// Placeholders in the texts that RenderLicense fills.
const (
	yearPlaceholder  = "<year>"
	ownerPlaceholder = "<copyright holders>"
)

// licenseTable lists the shipped licenses. Texts of the long licenses are
// Debian's /usr/share/common-licenses; BSD-3-Clause is Debian's BSD with the
// Regents generalised to the copyright holder; MIT, ISC, BSD-2-Clause,
// 0BSD and Unlicense are the standard short texts. The deprecated SPDX ids
// (GPL-3.0, ...) and their -only / -or-later forms share one text, as the
// license text itself is the same.
var licenseTable = []licenseEntry{
	{LicenseInfo{"0BSD", "BSD Zero Clause License"}, "0BSD", true},
	{LicenseInfo{"Apache-2.0", "Apache License 2.0"}, "Apache-2.0", false},
	{LicenseInfo{"Artistic-1.0-Perl", "Artistic License 1.0 (Perl)"}, "Artistic-1.0-Perl", false},
	{LicenseInfo{"BSD-2-Clause", `BSD 2-Clause "Simplified" License`}, "BSD-2-Clause", true},
	{LicenseInfo{"BSD-3-Clause", `BSD 3-Clause "New" or "Revised" License`}, "BSD-3-Clause", true},
	{LicenseInfo{"CC0-1.0", "Creative Commons Zero v1.0 Universal"}, "CC0-1.0", false},
	{LicenseInfo{"GFDL-1.2", "GNU Free Documentation License v1.2"}, "GFDL-1.2", false},
	{LicenseInfo{"GFDL-1.2-only", "GNU Free Documentation License v1.2 only"}, "GFDL-1.2", false},
	{LicenseInfo{"GFDL-1.2-or-later", "GNU Free Documentation License v1.2 or later"}, "GFDL-1.2", false},
	{LicenseInfo{"GFDL-1.3", "GNU Free Documentation License v1.3"}, "GFDL-1.3", false},
	{LicenseInfo{"GFDL-1.3-only", "GNU Free Documentation License v1.3 only"}, "GFDL-1.3", false},
	{LicenseInfo{"GFDL-1.3-or-later", "GNU Free Documentation License v1.3 or later"}, "GFDL-1.3", false},
	{LicenseInfo{"GPL-1.0", "GNU General Public License v1.0 only"}, "GPL-1.0", false},
	{LicenseInfo{"GPL-1.0-only", "GNU General Public License v1.0 only"}, "GPL-1.0", false},
	{LicenseInfo{"GPL-1.0-or-later", "GNU General Public License v1.0 or later"}, "GPL-1.0", false},
	{LicenseInfo{"GPL-2.0", "GNU General Public License v2.0 only"}, "GPL-2.0", false},
	{LicenseInfo{"GPL-2.0-only", "GNU General Public License v2.0 only"}, "GPL-2.0", false},
	{LicenseInfo{"GPL-2.0-or-later", "GNU General Public License v2.0 or later"}, "GPL-2.0", false},
	{LicenseInfo{"GPL-3.0", "GNU General Public License v3.0 only"}, "GPL-3.0", false},
	{LicenseInfo{"GPL-3.0-only", "GNU General Public License v3.0 only"}, "GPL-3.0", false},
	{LicenseInfo{"GPL-3.0-or-later", "GNU General Public License v3.0 or later"}, "GPL-3.0", false},
	{LicenseInfo{"ISC", "ISC License"}, "ISC", true},
	{LicenseInfo{"LGPL-2.0", "GNU Library General Public License v2 only"}, "LGPL-2.0", false},
	{LicenseInfo{"LGPL-2.0-only", "GNU Library General Public License v2 only"}, "LGPL-2.0", false},
	{LicenseInfo{"LGPL-2.0-or-later", "GNU Library General Public License v2 or later"}, "LGPL-2.0", false},
	{LicenseInfo{"LGPL-2.1", "GNU Lesser General Public License v2.1 only"}, "LGPL-2.1", false},
	{LicenseInfo{"LGPL-2.1-only", "GNU Lesser General Public License v2.1 only"}, "LGPL-2.1", false},
	{LicenseInfo{"LGPL-2.1-or-later", "GNU Lesser General Public License v2.1 or later"}, "LGPL-2.1", false},
	{LicenseInfo{"LGPL-3.0", "GNU Lesser General Public License v3.0 only"}, "LGPL-3.0", false},
	{LicenseInfo{"LGPL-3.0-only", "GNU Lesser General Public License v3.0 only"}, "LGPL-3.0", false},
	{LicenseInfo{"LGPL-3.0-or-later", "GNU Lesser General Public License v3.0 or later"}, "LGPL-3.0", false},
	{LicenseInfo{"MIT", "MIT License"}, "MIT", true},
	{LicenseInfo{"MPL-1.1", "Mozilla Public License 1.1"}, "MPL-1.1", false},
	{LicenseInfo{"MPL-2.0", "Mozilla Public License 2.0"}, "MPL-2.0", false},
	{LicenseInfo{"Unlicense", "The Unlicense"}, "Unlicense", false},
}

func (s *Set) loadLicenses() error {
	for _, e := range licenseTable {
		if _, dup := s.license[e.ID]; dup {
			return fmt.Errorf("%s listed twice", e.ID)
		}
		if fi, err := fs.Stat(s.fsys, path.Join(licenseDir, e.file)); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: text %s is missing", e.ID, e.file)
		}
		s.license[e.ID] = e
		s.licenses = append(s.licenses, e.LicenseInfo)
	}
	sort.Slice(s.licenses, func(i, j int) bool { return s.licenses[i].ID < s.licenses[j].ID })
	return nil
}

// Licenses lists the license templates, sorted by SPDX id.
func (s *Set) Licenses() []LicenseInfo { return clone(s.licenses) }

// License returns a license text as published, placeholders included;
// errs.NotFound for an unknown id. Ids are case-sensitive, as Gitea's.
func (s *Set) License(name string) ([]byte, error) {
	e, ok := s.license[name]
	if !ok {
		return nil, errs.NotFound("license template %q does not exist", name)
	}
	return fs.ReadFile(s.fsys, path.Join(licenseDir, e.file))
}

// RenderLicense returns a license text for a new repository: in licenses
// whose copyright line has placeholders (MIT, ISC, BSD-*, 0BSD) the year and
// owner are filled in; other texts are returned as published.
func (s *Set) RenderLicense(name, owner string, year int) ([]byte, error) {
	text, err := s.License(name)
	if err != nil {
		return nil, err
	}
	if !s.license[name].fill {
		return text, nil
	}
	owner = strings.TrimSpace(owner)
	if owner == "" {
		return nil, errs.Invalid("license %s needs a copyright holder", name)
	}
	if year < 1 {
		return nil, errs.Invalid("license %s needs a year, got %d", name, year)
	}
	r := strings.NewReplacer(yearPlaceholder, strconv.Itoa(year), ownerPlaceholder, owner)
	return []byte(r.Replace(string(text))), nil
}

package templates

import (
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// DefaultReadmeName is the README template used when auto_init asks for none.
const DefaultReadmeName = "Default"

const defaultReadme = "# {Name}\n\n{Description}\n"

// DefaultReadme renders the "Default" README template: "# {Name}\n\n{Description}\n".
func DefaultReadme(name, description string) []byte {
	// One pass, so a description containing "{Name}" stays as written.
	r := strings.NewReplacer("{Name}", name, "{Description}", description)
	return []byte(r.Replace(defaultReadme))
}

// Readmes lists the README template names.
func (s *Set) Readmes() []string { return []string{DefaultReadmeName} }

// Readme renders a README template for a new repository; an empty template
// name means "Default". errs.NotFound for an unknown template.
func (s *Set) Readme(template, name, description string) ([]byte, error) {
	if template != "" && template != DefaultReadmeName {
		return nil, errs.NotFound("readme template %q does not exist", template)
	}
	return DefaultReadme(name, description), nil
}

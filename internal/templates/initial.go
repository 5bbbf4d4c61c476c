package templates

import (
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// InitialFiles renders the first files of an auto-initialized repository:
// README.md from a README template, .gitignore from gitignore templates
// (comma-separated) and LICENSE from a license template with the owner and
// this year filled in. Empty names are skipped; unknown ones are 422 errors.
func (s *Set) InitialFiles(readme, gitignores, license, repoName, description, ownerName string) (map[string][]byte, error) {
	out := map[string][]byte{}
	body, err := s.Readme(readme, repoName, description)
	if err != nil {
		return nil, asInvalid("readme", readme, err)
	}
	out["README.md"] = body
	if gitignores != "" {
		g, err := s.GitignoreCombined(gitignores)
		if err != nil {
			return nil, asInvalid("gitignores", gitignores, err)
		}
		out[".gitignore"] = g
	}
	if license != "" {
		l, err := s.RenderLicense(license, ownerName, time.Now().Year())
		if err != nil {
			return nil, asInvalid("license", license, err)
		}
		out["LICENSE"] = l
	}
	return out, nil
}

// asInvalid turns an unknown template into a 422 naming the field.
func asInvalid(field, name string, err error) error {
	if errs.IsNotFound(err) {
		return errs.InvalidField(field, "%s template %q does not exist", field, name)
	}
	return err
}

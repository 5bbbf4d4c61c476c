package user

import (
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// ValidateWebsite accepts an empty website or an http(s) URL without
// spaces (the profile's, a repository's, an organization's).
func ValidateWebsite(s string) error {
	if s == "" {
		return nil
	}
	if !(strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) || strings.ContainsAny(s, " \t\r\n") {
		return errs.InvalidField("website", "[Website]: ValidUrl (must be an http or https URL)")
	}
	return nil
}

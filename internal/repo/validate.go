package repo

import (
	"regexp"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
)

// MaxNameLength is the longest repository name.
const MaxNameLength = 100

// MaxDefaultBranchLength is the longest default branch name, as Gitea's.
const MaxDefaultBranchLength = 100

// ValidateDefaultBranch refuses a default branch that is not a valid branch
// name of at most MaxDefaultBranchLength characters (422 naming the field).
func ValidateDefaultBranch(branch string) error {
	if len(branch) > MaxDefaultBranchLength {
		return errs.InvalidField("default_branch", "[DefaultBranch]: MaxSize (at most %d characters)", MaxDefaultBranchLength)
	}
	if !git.ValidBranchName(branch) {
		return errs.InvalidField("default_branch", "invalid default branch name %q", branch)
	}
	return nil
}

var repoNameChars = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

var reservedRepoNames = map[string]bool{".": true, "..": true, "-": true}

var reservedRepoSuffixes = []string{".git", ".wiki", ".rss", ".atom"}

// ValidateName checks a repository name: letters, digits, '-', '_' and '.',
// at most 100 characters, not reserved.
func ValidateName(name string) error {
	if name == "" {
		return errs.InvalidField("name", "[Name]: Required")
	}
	if !repoNameChars.MatchString(name) {
		return errs.InvalidField("name", "repository name %q is invalid: only letters, digits, dash ('-'), underscore ('_') and dot ('.') are allowed", name)
	}
	if len(name) > MaxNameLength {
		return errs.InvalidField("name", "repository name is too long: at most %d characters", MaxNameLength)
	}
	lower := strings.ToLower(name)
	if reservedRepoNames[lower] {
		return errs.InvalidField("name", "repository name %q is reserved", name)
	}
	for _, s := range reservedRepoSuffixes {
		if strings.HasSuffix(lower, s) {
			return errs.InvalidField("name", "repository name %q is not allowed: names ending in %q are reserved", name, s)
		}
	}
	return nil
}

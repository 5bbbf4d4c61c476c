package user

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
)

// MaxNameLength is the longest user, organization or repository owner name.
const MaxNameLength = 40

// MaxEmailLength is the longest accepted e-mail address.
const MaxEmailLength = 254

var (
	nameChars         = regexp.MustCompile(`^[0-9A-Za-z._-]+$`)
	nameDoubleSpecial = regexp.MustCompile(`[._-]{2,}`)
)

// reservedNames cannot be taken by users or organizations: they collide with
// top-level web routes.
var reservedNames = map[string]bool{
	".": true, "..": true, ".well-known": true, "admin": true, "api": true, "assets": true,
	"attachments": true, "avatar": true, "avatars": true, "captcha": true, "commits": true,
	"debug": true, "error": true, "explore": true, "favicon.ico": true, "ghost": true,
	"issues": true, "login": true, "manifest.json": true, "metrics": true, "milestones": true,
	"new": true, "notifications": true, "org": true, "pulls": true, "raw": true, "repo": true,
	"repo-avatars": true, "robots.txt": true, "search": true, "serviceworker.js": true,
	"ssh_info": true, "swagger.v1.json": true, "user": true, "v2": true, "gitea-actions": true,
}

var reservedSuffixes = []string{".keys", ".gpg", ".rss", ".atom", ".png"}

// ValidateName checks a user or organization name against the naming rules and
// reserved names, returning a 422 error that says what is wrong.
func ValidateName(name string) error {
	if name == "" {
		return errs.InvalidField("username", "username is empty")
	}
	if len(name) > MaxNameLength {
		return errs.InvalidField("username", "username %q is too long: at most %d characters", name, MaxNameLength)
	}
	if !nameChars.MatchString(name) {
		return errs.InvalidField("username", "username %q is invalid: only letters, digits, dash ('-'), underscore ('_') and dot ('.') are allowed", name)
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return errs.InvalidField("username", "username %q is invalid: it must start and end with a letter or digit", name)
	}
	if nameDoubleSpecial.MatchString(name) {
		return errs.InvalidField("username", "username %q is invalid: it cannot contain consecutive dashes, underscores or dots", name)
	}
	lower := strings.ToLower(name)
	if reservedNames[lower] {
		return errs.InvalidField("username", "name %q is reserved", name)
	}
	for _, s := range reservedSuffixes {
		if strings.HasSuffix(lower, s) {
			return errs.InvalidField("username", "name %q is not allowed: names ending in %q are reserved", name, s)
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ValidateEmail checks an e-mail address's form and length.
func ValidateEmail(email string) error {
	if email == "" {
		return errs.InvalidField("email", "e-mail address is empty")
	}
	if len(email) > MaxEmailLength {
		return errs.InvalidField("email", "e-mail address is too long: at most %d characters", MaxEmailLength)
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || !strings.Contains(email, "@") || strings.ContainsAny(email, " \t\r\n<>") {
		return errs.InvalidField("email", "e-mail address %q is invalid", email)
	}
	at := strings.LastIndexByte(email, '@')
	if at == 0 || at == len(email)-1 || email[0] == '-' {
		return errs.InvalidField("email", "e-mail address %q is invalid", email)
	}
	return nil
}

// ValidateFullName checks a display name.
func ValidateFullName(s string) error {
	if utf8.RuneCountInString(s) > 100 {
		return errs.InvalidField("full_name", "full name is too long: at most 100 characters")
	}
	return nil
}

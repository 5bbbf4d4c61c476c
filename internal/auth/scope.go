package auth

import (
	"fmt"
	"strings"
)

// Category is a token scope category: the kind of API a route belongs to.
type Category int

// The scope categories, in Gitea's canonical order.
const (
	CatActivityPub Category = iota
	CatAdmin
	CatMisc
	CatNotification
	CatOrganization
	CatPackage
	CatIssue
	CatRepository
	CatUser
	numCategories
)

var categoryNames = [numCategories]string{"activitypub", "admin", "misc", "notification", "organization", "package", "issue", "repository", "user"}

func (c Category) String() string { return categoryNames[c] }

// Level is the access a scope grants within a category.
type Level int

// Levels: write implies read.
const (
	LevelNone  Level = 0
	LevelRead  Level = 1
	LevelWrite Level = 2
)

// Scope is a parsed, normalized set of token scopes.
type Scope struct {
	levels     [numCategories]Level
	PublicOnly bool
}

// ParseScopes reads scope names (e.g. "read:user", "write:repository", "all",
// "public-only"); items may also be comma-separated. Unknown names are an error.
func ParseScopes(items []string) (Scope, error) {
	var s Scope
	for _, raw := range items {
		for _, it := range strings.Split(raw, ",") {
			it = strings.TrimSpace(it)
			if it == "" {
				continue
			}
			switch it {
			case "all":
				for c := range s.levels {
					s.levels[c] = LevelWrite
				}
				continue
			case "public-only":
				s.PublicOnly = true
				continue
			}
			lvl, cat, ok := strings.Cut(it, ":")
			if !ok {
				return Scope{}, fmt.Errorf("invalid access token scope: %s", it)
			}
			var l Level
			switch lvl {
			case "read":
				l = LevelRead
			case "write":
				l = LevelWrite
			default:
				return Scope{}, fmt.Errorf("invalid access token scope: %s", it)
			}
			found := false
			for c, name := range categoryNames {
				if name == cat {
					found = true
					if s.levels[c] < l {
						s.levels[c] = l
					}
				}
			}
			if !found {
				return Scope{}, fmt.Errorf("invalid access token scope: %s", it)
			}
		}
	}
	return s, nil
}

// Empty reports whether the scope grants no category at all.
func (s Scope) Empty() bool {
	for _, l := range s.levels {
		if l != LevelNone {
			return false
		}
	}
	return true
}

// Has reports whether the scope grants at least level l in category c.
func (s Scope) Has(c Category, l Level) bool { return s.levels[c] >= l }

// Names returns the normalized list: public-only first, then "all" or each
// category's strongest level, in canonical order.
func (s Scope) Names() []string {
	var out []string
	if s.PublicOnly {
		out = append(out, "public-only")
	}
	all := true
	for _, l := range s.levels {
		if l != LevelWrite {
			all = false
		}
	}
	if all {
		return append(out, "all")
	}
	for c, l := range s.levels {
		switch l {
		case LevelWrite:
			out = append(out, "write:"+categoryNames[c])
		case LevelRead:
			out = append(out, "read:"+categoryNames[c])
		}
	}
	return out
}

// String is the stored form: the names joined by commas.
func (s Scope) String() string { return strings.Join(s.Names(), ",") }

// Required names a scope a route needs, for error messages.
func Required(c Category, l Level) string {
	if l == LevelWrite {
		return "write:" + c.String()
	}
	return "read:" + c.String()
}

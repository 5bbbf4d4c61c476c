// Package protect holds branch and tag protection: the rules of a
// repository, their matching (Gitea's), the push rule every ref change
// passes (repo.PushRule) and the merge checks of pull requests.
package protect

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gobwas/glob"
	"github.com/gobwas/glob/syntax"
)

// BranchRule is one branch protection rule; field meanings are Gitea's.
type BranchRule struct {
	ID       int64
	RepoID   int64
	RuleName string
	Priority int64

	CanPush             bool
	EnableWhitelist     bool
	WhitelistUserIDs    []int64
	WhitelistTeamIDs    []int64
	WhitelistDeployKeys bool

	CanForcePush                 bool
	EnableForcePushAllowlist     bool
	ForcePushAllowlistUserIDs    []int64
	ForcePushAllowlistTeamIDs    []int64
	ForcePushAllowlistDeployKeys bool

	EnableMergeWhitelist  bool
	MergeWhitelistUserIDs []int64
	MergeWhitelistTeamIDs []int64

	EnableStatusCheck   bool
	StatusCheckContexts []string

	EnableApprovalsWhitelist  bool
	ApprovalsWhitelistUserIDs []int64
	ApprovalsWhitelistTeamIDs []int64
	RequiredApprovals         int64

	BlockOnRejectedReviews        bool
	BlockOnOfficialReviewRequests bool
	BlockOnOutdatedBranch         bool
	DismissStaleApprovals         bool
	IgnoreStaleApprovals          bool
	RequireSignedCommits          bool
	ProtectedFilePatterns         string
	UnprotectedFilePatterns       string
	BlockAdminMergeOverride       bool

	Created time.Time
	Updated time.Time

	glob  glob.Glob
	plain bool
}

// IsPlainName reports a rule name without glob syntax: it names one branch.
func IsPlainName(name string) bool {
	for i := 0; i < len(name); i++ {
		if syntax.Special(name[i]) {
			return false
		}
	}
	return true
}

// CompileBranchGlob compiles a rule name as Gitea does: a gobwas glob with
// '/' as separator ("*" stays within a path segment, "**" crosses them).
func CompileBranchGlob(name string) (glob.Glob, error) { return glob.Compile(name, '/') }

// compile prepares the rule for matching; a name that does not compile
// (only possible for rows written by an older version) matches literally.
func (b *BranchRule) compile() {
	if b.glob != nil {
		return
	}
	g, err := CompileBranchGlob(b.RuleName)
	if err != nil {
		g = glob.MustCompile(glob.QuoteMeta(b.RuleName), '/')
	}
	b.glob, b.plain = g, IsPlainName(b.RuleName)
}

// Match reports whether the rule applies to branch.
func (b *BranchRule) Match(branch string) bool {
	b.compile()
	if b.plain {
		return b.RuleName == branch
	}
	return b.glob.Match(branch)
}

// Rules are a repository's branch rules in matching order.
type Rules []*BranchRule

// sortRules orders rules for matching: by priority, then plain names before
// globs, then oldest first.
func sortRules(rules Rules) {
	for _, r := range rules {
		r.compile()
	}
	sort.SliceStable(rules, func(i, j int) bool {
		a, b := rules[i], rules[j]
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		if a.plain != b.plain {
			return a.plain
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID < b.ID
	})
}

// Match returns the first rule applying to branch, or nil.
func (rs Rules) Match(branch string) *BranchRule {
	for _, r := range rs {
		if r.Match(branch) {
			return r
		}
	}
	return nil
}

// filePatterns compiles a ';'-separated list of file globs as Gitea does:
// lower-cased, with '.' and '/' as separators. Invalid ones are dropped.
func filePatterns(list string) []glob.Glob {
	var out []glob.Glob
	for _, p := range strings.Split(list, ";") {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		if g, err := glob.Compile(p, '.', '/'); err == nil {
			out = append(out, g)
		}
	}
	return out
}

// ValidFilePatterns reports the first pattern of list that does not compile.
func ValidFilePatterns(list string) (string, bool) {
	for _, p := range strings.Split(list, ";") {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		if _, err := glob.Compile(p, '.', '/'); err != nil {
			return p, false
		}
	}
	return "", true
}

// matchAny reports whether path (lower-cased) matches one of globs.
func matchAny(globs []glob.Glob, path string) bool {
	path = strings.ToLower(path)
	for _, g := range globs {
		if g.Match(path) {
			return true
		}
	}
	return false
}

// firstProtected returns the first of files a protected pattern matches.
func firstProtected(patterns string, files []string) string {
	globs := filePatterns(patterns)
	if len(globs) == 0 {
		return ""
	}
	for _, f := range files {
		if matchAny(globs, f) {
			return f
		}
	}
	return ""
}

// onlyUnprotected reports whether every file matches an unprotected pattern.
func onlyUnprotected(patterns string, files []string) bool {
	globs := filePatterns(patterns)
	if len(globs) == 0 {
		return false
	}
	for _, f := range files {
		if !matchAny(globs, f) {
			return false
		}
	}
	return true
}

// Status states, Gitea's, best first.
var statusRank = map[string]int{"success": 0, "warning": 1, "pending": 2, "failure": 3, "error": 4}

// Status is the state of one commit status context.
type Status struct{ Context, State string }

// RequiredStatusesPass applies a rule's status check to the latest statuses
// of a commit, as Gitea: without contexts every status must be successful;
// otherwise each context glob takes the first status it matches (pending
// when none) and all must be successful.
func RequiredStatusesPass(statuses []Status, contexts []string) bool {
	worst := "success"
	worse := func(s string) {
		if r, ok := statusRank[s]; !ok || r > statusRank[worst] {
			worst = s
		}
	}
	if len(contexts) == 0 {
		for _, s := range statuses {
			worse(s.State)
		}
		return worst == "success"
	}
	for _, c := range contexts {
		g, err := glob.Compile(c)
		state := "pending"
		for _, s := range statuses {
			if err == nil && g.Match(s.Context) || err != nil && s.Context == c {
				state = s.State
				break
			}
		}
		worse(state)
	}
	return worst == "success"
}

// TagRule is one tag protection rule: tags matching NamePattern (a glob, or
// a regular expression between slashes) may be created, moved or deleted
// only by the listed users and team members.
type TagRule struct {
	ID               int64
	RepoID           int64
	NamePattern      string
	AllowlistUserIDs []int64
	AllowlistTeamIDs []int64
	Created, Updated time.Time
}

// CompileTagPattern checks a tag pattern and returns its matcher.
func CompileTagPattern(p string) (func(string) bool, error) {
	if len(p) >= 2 && strings.HasPrefix(p, "/") && strings.HasSuffix(p, "/") {
		re, err := regexp.Compile(p[1 : len(p)-1])
		if err != nil {
			return nil, err
		}
		return re.MatchString, nil
	}
	g, err := glob.Compile(p)
	if err != nil {
		return nil, err
	}
	return g.Match, nil
}

// tagAllowed reports whether a user (with teams) may control tag under
// rules, as Gitea: allowed when no rule matches, or when one matching rule
// lists the user or one of their teams.
func tagAllowed(rules []*TagRule, tag string, uid int64, teams []int64) bool {
	allowed := true
	for _, r := range rules {
		m, err := CompileTagPattern(r.NamePattern)
		if err != nil || !m(tag) {
			continue
		}
		allowed = slices.Contains(r.AllowlistUserIDs, uid) || intersects(r.AllowlistTeamIDs, teams)
		if allowed {
			break
		}
	}
	return allowed
}

func intersects(a, b []int64) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// ValidStatusContext reports whether a status check context pattern
// compiles (a gobwas glob without separators, as Gitea matches them).
func ValidStatusContext(c string) bool {
	_, err := glob.Compile(c)
	return c != "" && err == nil
}

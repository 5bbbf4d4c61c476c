package protect

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
)

// CheckRuleFields validates what creating and editing a branch rule both
// accept: status check contexts and file patterns must compile.
func CheckRuleFields(b *BranchRule) error {
	for _, c := range b.StatusCheckContexts {
		if !ValidStatusContext(c) {
			return errs.InvalidField("status_check_contexts", "invalid status check context pattern %q", c)
		}
	}
	if p, ok := ValidFilePatterns(b.ProtectedFilePatterns); !ok {
		return errs.InvalidField("protected_file_patterns", "invalid file pattern %q", p)
	}
	if p, ok := ValidFilePatterns(b.UnprotectedFilePatterns); !ok {
		return errs.InvalidField("unprotected_file_patterns", "invalid file pattern %q", p)
	}
	return nil
}

// CheckNewBranchRule refuses a new rule's name that is not a valid pattern
// or that the repository already has, and negative required approvals.
func (s *Service) CheckNewBranchRule(ctx context.Context, repoID int64, name string, requiredApprovals int64) error {
	if _, err := CompileBranchGlob(name); err != nil || len(name) > 255 {
		return errs.InvalidField("rule_name", "invalid rule name pattern %q", name)
	}
	if requiredApprovals < 0 {
		return errs.InvalidField("required_approvals", "required_approvals must not be negative")
	}
	if _, err := s.GetBranchRule(ctx, repoID, name); err == nil {
		return errs.Forbidden("Branch protection already exist")
	} else if !errs.IsNotFound(err) {
		return err
	}
	return nil
}

// UserIDsByName resolves the user names of an allowlist (422 naming field
// for an unknown one).
func (s *Service) UserIDsByName(ctx context.Context, field string, names []string) ([]int64, error) {
	out := []int64{}
	for _, name := range names {
		u, err := s.users.GetByName(ctx, name)
		if errs.IsNotFound(err) {
			return nil, errs.InvalidField(field, "user does not exist [name: %s]", name)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, u.ID)
	}
	return out, nil
}

// CheckTagPattern refuses an empty or invalid tag pattern (422) and one the
// repository already protects with another rule than self (403, as Gitea).
func (s *Service) CheckTagPattern(ctx context.Context, repoID, self int64, p string) error {
	if p == "" {
		return errs.InvalidField("name_pattern", "[NamePattern]: Required")
	}
	if _, err := CompileTagPattern(p); err != nil {
		return errs.InvalidField("name_pattern", "invalid tag name pattern %q: %v", p, err)
	}
	old, err := s.TagRuleByPattern(ctx, repoID, p)
	if err != nil {
		return err
	}
	if old != nil && old.ID != self {
		return errs.Forbidden("Tag protection already exist")
	}
	return nil
}

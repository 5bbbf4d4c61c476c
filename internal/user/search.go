package user

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
)

// LikeEscape is the clause that goes after "LIKE ?" for patterns made by
// LikePattern ("!" escapes, portable across the three dialects).
const LikeEscape = " ESCAPE '!'"

// LikePattern escapes a search keyword for LIKE (with LikeEscape) and wraps
// it in wildcards, lower-cased.
func LikePattern(q string) string {
	q = strings.ToLower(q)
	q = strings.NewReplacer(`!`, `!!`, `%`, `!%`, `_`, `!_`).Replace(q)
	return "%" + q + "%"
}

// NameCond matches keyword kw in the name or full name of users alias "u".
func NameCond(kw string) (string, []any) {
	pat := LikePattern(strings.TrimSpace(kw))
	return "(u.lower_name LIKE ?" + LikeEscape + " OR LOWER(u.full_name) LIKE ?" + LikeEscape + ")", []any{pat, pat}
}

// KeywordCond matches keyword kw in the name, full name or e-mail address of
// users alias "u", searching addresses as viewer (nil: signed out) may: a
// site administrator every address, a signed-in user those not kept private,
// a signed-out visitor none.
func KeywordCond(kw string, viewer *User) (string, []any) {
	pat := LikePattern(strings.TrimSpace(kw))
	emailCond, emailArgs := "(u.keep_email_private = ? AND LOWER(u.email) LIKE ?"+LikeEscape+")", []any{false, pat}
	if viewer != nil && viewer.IsAdmin {
		emailCond, emailArgs = "LOWER(u.email) LIKE ?"+LikeEscape, []any{pat}
	} else if viewer == nil {
		emailCond, emailArgs = "1 = 0", nil
	}
	return "(u.lower_name LIKE ?" + LikeEscape + " OR LOWER(u.full_name) LIKE ?" + LikeEscape + " OR " + emailCond + ")",
		append([]any{pat, pat}, emailArgs...)
}

// ListPage returns one page (limit <= 0: all) of the accounts matching where
// (over alias "u") in order, with the total count: two queries.
func (s *Store) ListPage(ctx context.Context, where string, args []any, order string, limit, offset int) ([]*User, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users u WHERE "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	tail := "WHERE " + where + " ORDER BY " + order
	if limit > 0 {
		tail += db.LimitOffset(limit, max(offset, 0))
	}
	list, err := s.List(ctx, tail, args...)
	if err != nil {
		return nil, 0, err
	}
	return list, total, nil
}

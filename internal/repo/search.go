package repo

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// SearchOptions are the filters of a repository search (the API's GET
// /repos/search, the explore page). The zero value matches every repository.
type SearchOptions struct {
	// Keyword matches the name or a topic exactly; with IncludeDesc also the
	// description; with TopicOnly only an exact topic.
	Keyword     string
	TopicOnly   bool
	IncludeDesc bool
	// OwnerID keeps repositories the account owns or collaborates on; with
	// Exclusive only those it owns.
	OwnerID   int64
	Exclusive bool
	// StarredBy keeps repositories the account starred; TeamID those of a team.
	StarredBy int64
	TeamID    int64
	// Private, Template and Archived keep repositories whose flag has the value.
	Private, Template, Archived *bool
	// PublicOnly leaves out private repositories.
	PublicOnly bool
	// Mode is "", "fork", "source", "mirror" or "collaborative" (repositories
	// not owned by DoerID).
	Mode   string
	DoerID int64
}

// Cond returns the search's condition over aliases r (repository) and o
// (owner) with its arguments; an unknown Mode is invalid.
func (o SearchOptions) Cond() (string, []any, error) {
	where, args := []string{"1 = 1"}, []any{}
	if kw := strings.TrimSpace(o.Keyword); kw != "" {
		if o.TopicOnly {
			where = append(where, "r.id IN (SELECT t.repo_id FROM repo_topic t WHERE t.topic = ?)")
			args = append(args, strings.ToLower(kw))
		} else {
			pat := user.LikePattern(kw)
			c := "r.lower_name LIKE ?" + user.LikeEscape + " OR r.id IN (SELECT t.repo_id FROM repo_topic t WHERE t.topic = ?)"
			args = append(args, pat, strings.ToLower(kw))
			if o.IncludeDesc {
				c += " OR LOWER(r.description) LIKE ?" + user.LikeEscape
				args = append(args, pat)
			}
			where = append(where, "("+c+")")
		}
	}
	if o.OwnerID > 0 {
		if o.Exclusive {
			where = append(where, "r.owner_id = ?")
			args = append(args, o.OwnerID)
		} else {
			where = append(where, "(r.owner_id = ? OR r.id IN (SELECT c.repo_id FROM collaboration c WHERE c.user_id = ?))")
			args = append(args, o.OwnerID, o.OwnerID)
		}
	}
	if o.StarredBy > 0 {
		where = append(where, "r.id IN (SELECT s.repo_id FROM star s WHERE s.uid = ?)")
		args = append(args, o.StarredBy)
	}
	if o.TeamID > 0 {
		where = append(where, "r.id IN (SELECT tr.repo_id FROM team_repo tr WHERE tr.team_id = ?)")
		args = append(args, o.TeamID)
	}
	for _, f := range []struct {
		col string
		v   *bool
	}{{"r.is_private", o.Private}, {"r.is_template", o.Template}, {"r.is_archived", o.Archived}} {
		if f.v != nil {
			where = append(where, f.col+" = ?")
			args = append(args, *f.v)
		}
	}
	if o.PublicOnly {
		where = append(where, "r.is_private = ?")
		args = append(args, false)
	}
	switch o.Mode {
	case "":
	case "fork":
		where = append(where, "r.is_fork = ?")
		args = append(args, true)
	case "source":
		where = append(where, "r.is_fork = ? AND r.is_mirror = ?")
		args = append(args, false, false)
	case "mirror":
		where = append(where, "r.is_mirror = ?")
		args = append(args, true)
	case "collaborative":
		if o.DoerID > 0 {
			where = append(where, "r.owner_id <> ?")
			args = append(args, o.DoerID)
		}
	default:
		return "", nil, errs.InvalidField("mode", "invalid search mode: %q", o.Mode)
	}
	return strings.Join(where, " AND "), args, nil
}

// SearchOrder maps Gitea's sort (alpha, created, updated, size, id, stars,
// forks; "" is updated) and order (asc, desc; "" is newest first for the
// times, ascending for the rest) to an ORDER BY over alias r.
func SearchOrder(sort, order string) (string, error) {
	cols := map[string]string{
		"": "r.updated_unix", "alpha": "r.lower_name", "created": "r.created_unix", "updated": "r.updated_unix",
		"size": "r.size", "id": "r.id", "stars": "r.num_stars", "forks": "r.num_forks",
	}
	col, ok := cols[sort]
	if !ok {
		return "", errs.InvalidField("sort", "invalid sort option %q", sort)
	}
	switch order {
	case "", "asc":
		if order == "" && (sort == "" || sort == "updated" || sort == "created") {
			return col + " DESC, r.id DESC", nil
		}
		return col + " ASC, r.id ASC", nil
	case "desc":
		return col + " DESC, r.id DESC", nil
	}
	return "", errs.InvalidField("order", "invalid sort order %q", order)
}

// ownerMode is access.ModeOwner (a team's authorize value); the access
// package depends on this one, so the value is repeated here.
const ownerMode = 4

// AccessibleCond is the condition (aliases r, o) of the repositories uid owns
// or has access to, as Gitea counts them for GET /user/repos: as a
// collaborator, through an organization team (its repositories, or all of
// them), or as a member of a private organization whose public repositories
// they read.
func AccessibleCond(uid int64) (string, []any) {
	return `r.owner_id = ?
		OR r.id IN (SELECT c.repo_id FROM collaboration c WHERE c.user_id = ?)
		OR r.id IN (SELECT tr.repo_id FROM team_repo tr JOIN team_user tu ON tu.team_id = tr.team_id WHERE tu.uid = ?)
		OR r.owner_id IN (SELECT t.org_id FROM team t JOIN team_user tu ON tu.team_id = t.id
			WHERE tu.uid = ? AND (t.includes_all_repositories = ? OR t.authorize = ?))
		OR (r.is_private = ? AND r.owner_id IN (SELECT ou.org_id FROM org_user ou JOIN users uo ON uo.id = ou.org_id
			WHERE ou.uid = ? AND uo.visibility = ?))`,
		[]any{uid, uid, uid, uid, true, ownerMode, false, uid, int(user.VisibilityPrivate)}
}

// ListVisible returns one page (limit <= 0: all) of the repositories
// matching where (aliases r and o) that the caller may see, visible being
// the caller's access.RepoCond, in order, with the total count.
func (s *Service) ListVisible(ctx context.Context, where string, args []any, visible string, visibleArgs []any, order string, limit, offset int) ([]*Repository, int64, error) {
	where = "(" + where + ") AND " + visible
	args = append(append([]any{}, args...), visibleArgs...)
	total, err := s.Store.Count(ctx, where, args...)
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

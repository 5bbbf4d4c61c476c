package activity

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Query selects a feed: that of User (a user or an organization), of Team
// (with User its organization) or of Repo, as Viewer may see it.
type Query struct {
	// Viewer is who reads the feed (nil: signed out, or a token limited to
	// public data).
	Viewer *user.User
	// User is whose feed it is. A user's feed is what the user did and what
	// happened in the repositories the user owns or watches; an
	// organization's is what happened in its repositories.
	User *user.User
	// Team narrows an organization's feed to the team's repositories.
	Team *org.Team
	// Repo is a repository's feed (User then stays nil).
	Repo *repo.Repository
	// OnlyPerformedBy keeps only what User did.
	OnlyPerformedBy bool
	// IncludePrivate keeps actions in private repositories (the caller
	// decides: the user's own feed, an organization's for its members, a
	// repository's or a team's). Otherwise they are left out even for a
	// viewer who may read them, as Gitea does.
	IncludePrivate bool
	// Date ("YYYY-MM-DD") keeps one day, in the server's time zone; a
	// malformed date is ignored, as Gitea does.
	Date string
	// Page (from 1) and Limit select a page, newest first.
	Page, Limit int
}

// FeedOptions select a page of a signed-in user's dashboard feed.
type FeedOptions struct {
	// Date ("YYYY-MM-DD") keeps one day, in the server's time zone.
	Date string
	// Page (from 1) and Limit select a page, newest first.
	Page, Limit int
}

// defaultLimit is the page size when none is given.
const defaultLimit = 20

// heatmapWindow is how far back a heatmap looks (Gitea's one year).
const heatmapWindow = 365 * 24 * time.Hour

// heatmapBucket is the heatmap's interval in seconds: 15 minutes, so that
// clients can move counts into any time zone (offsets such as +05:45).
const heatmapBucket = 900

// joins are the tables a feed reads besides its actions ("a"): their
// repository ("r") and its owner ("o"), as access.RepoCond expects.
const joins = " JOIN repository r ON r.id = a.repo_id JOIN users o ON o.id = r.owner_id"

const columns = `a.id, a.op_type, a.act_user_id, a.repo_id, a.owner_id, a.comment_id, COALESCE(a.ref_name, ''),
	a.is_private, a.is_deleted, COALESCE(a.content, ''), a.created_unix`

// conds is a conjunction of SQL conditions and their arguments, over the
// actions of a scope when one is set.
type conds struct {
	// scope, when set, selects the ids of the actions to consider as a
	// union of index lookups (what a user did, what happened in the
	// repositories they own, watch, ...), so that a feed reads the rows
	// it concerns rather than filtering the whole table.
	scope     []string
	scopeArgs []any
	parts     []string
	args      []any
}

// within adds a set of action ids (a SELECT of one id column) to the scope.
func (c *conds) within(sql string, args ...any) {
	c.scope = append(c.scope, sql)
	c.scopeArgs = append(c.scopeArgs, args...)
}

// from is the FROM clause and its arguments, which come before where's.
func (c *conds) from() (string, []any) {
	if len(c.scope) == 0 {
		return " FROM action a" + joins, c.args
	}
	return " FROM (" + strings.Join(c.scope, " UNION ") + ") ids JOIN action a ON a.id = ids.id" + joins,
		append(append([]any{}, c.scopeArgs...), c.args...)
}

func (c *conds) add(sql string, args ...any) {
	c.parts = append(c.parts, "("+sql+")")
	c.args = append(c.args, args...)
}

func (c *conds) where() string {
	if len(c.parts) == 0 {
		return " WHERE 1 = 1"
	}
	return " WHERE " + strings.Join(c.parts, " AND ")
}

// Readable reports whether viewer may read u's activity: u must be visible
// to viewer, and a user who hides their activity shows it only to
// themselves and site administrators.
func (s *Service) Readable(ctx context.Context, viewer, u *user.User) (bool, error) {
	if viewer != nil && (viewer.IsAdmin || viewer.ID == u.ID) {
		return true, nil
	}
	if u.HideActivity {
		return false, nil
	}
	return s.access.CanSeeOwner(ctx, viewer, u)
}

// List returns a page of the feed q selects and the number of actions in
// it, newest first, with their actors, repositories, comments and issues
// loaded. A feed viewer may not read is empty.
func (s *Service) List(ctx context.Context, q Query) ([]*Action, int64, error) {
	if q.User == nil && q.Repo == nil {
		return nil, 0, errors.New("activity: a feed needs a user, an organization, a team or a repository")
	}
	v := q.Viewer
	c := &conds{}
	c.add("a.is_deleted = ?", false)
	self := false
	if q.User != nil {
		ok, err := s.Readable(ctx, v, q.User)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			return []*Action{}, 0, nil
		}
		self = v != nil && (v.IsAdmin || v.ID == q.User.ID)
		u := q.User
		switch {
		case q.OnlyPerformedBy:
			c.add("a.act_user_id = ?", u.ID)
		case u.IsOrganization():
			c.add("r.owner_id = ?", u.ID)
		default:
			c.within("SELECT a1.id FROM action a1 WHERE a1.act_user_id = ?", u.ID)
			c.within("SELECT a2.id FROM action a2 JOIN repository r2 ON r2.id = a2.repo_id WHERE r2.owner_id = ?", u.ID)
			c.within("SELECT a3.id FROM action a3 JOIN watch w ON w.repo_id = a3.repo_id WHERE w.user_id = ?", u.ID)
		}
	}
	if q.Team != nil {
		if q.Team.IncludesAllRepositories {
			c.add("r.owner_id = ?", q.Team.OrgID)
		} else {
			c.add("a.repo_id IN (SELECT tr.repo_id FROM team_repo tr WHERE tr.team_id = ?)", q.Team.ID)
		}
	}
	if q.Repo != nil {
		c.add("a.repo_id = ?", q.Repo.ID)
	}
	repoCond(c, v)
	if !self {
		actorCond(c, v)
	}
	if !q.IncludePrivate {
		c.add("a.is_private = ? AND r.is_private = ?", false, false)
	}
	dateCond(c, q.Date)
	receiver := int64(0)
	if q.User != nil {
		receiver = q.User.ID
	}
	return s.page(ctx, v, c, q.Page, q.Limit, receiver)
}

// Feed returns a page of doer's dashboard: what doer did and what happened
// in the repositories doer owns, watches, collaborates on or reaches
// through a team, newest first, with actors, repositories, comments and
// issues loaded. Repositories doer may no longer read are left out.
func (s *Service) Feed(ctx context.Context, doer *user.User, o FeedOptions) ([]*Action, int64, error) {
	if doer == nil {
		return nil, 0, errors.New("activity: the dashboard feed needs a signed-in user")
	}
	c := &conds{}
	c.add("a.is_deleted = ?", false)
	c.within("SELECT a1.id FROM action a1 WHERE a1.act_user_id = ?", doer.ID)
	c.within("SELECT a2.id FROM action a2 JOIN repository r2 ON r2.id = a2.repo_id WHERE r2.owner_id = ?", doer.ID)
	c.within("SELECT a3.id FROM action a3 JOIN watch w ON w.repo_id = a3.repo_id WHERE w.user_id = ?", doer.ID)
	c.within("SELECT a4.id FROM action a4 JOIN collaboration cl ON cl.repo_id = a4.repo_id WHERE cl.user_id = ?", doer.ID)
	c.within(`SELECT a5.id FROM action a5 JOIN team_repo tr ON tr.repo_id = a5.repo_id
		JOIN team_user tu5 ON tu5.team_id = tr.team_id WHERE tu5.uid = ?`, doer.ID)
	c.within(`SELECT a6.id FROM action a6 JOIN repository r6 ON r6.id = a6.repo_id JOIN team t ON t.org_id = r6.owner_id
		JOIN team_user tu6 ON tu6.team_id = t.id WHERE tu6.uid = ? AND (t.includes_all_repositories = ? OR t.authorize = ?)`,
		doer.ID, true, int(access.ModeOwner))
	repoCond(c, doer)
	dateCond(c, o.Date)
	return s.page(ctx, doer, c, o.Page, o.Limit, doer.ID)
}

// Heatmap counts what viewer may see of u's activity in the last year, in
// 15-minute intervals, oldest first: for a user their own actions, for an
// organization every action in its repositories. Actions in repositories
// viewer cannot read do not count; deleted comments still do.
func (s *Service) Heatmap(ctx context.Context, viewer, u *user.User) ([]HeatmapEntry, error) {
	ok, err := s.Readable(ctx, viewer, u)
	if err != nil || !ok {
		return []HeatmapEntry{}, err
	}
	c := &conds{}
	if u.IsOrganization() {
		c.add("r.owner_id = ?", u.ID)
	} else {
		c.add("a.act_user_id = ?", u.ID)
	}
	c.add("a.created_unix > ?", s.now().Add(-heatmapWindow).Unix())
	repoCond(c, viewer)
	if viewer == nil || (!viewer.IsAdmin && viewer.ID != u.ID) {
		actorCond(c, viewer)
	}
	bucket := "a.created_unix / 900 * 900"
	if s.db.Dialect == db.MySQL {
		bucket = "a.created_unix DIV 900 * 900"
	}
	from, args := c.from()
	rows, err := s.db.Query(ctx, "SELECT "+bucket+", COUNT(*)"+from+c.where()+" GROUP BY "+bucket+" ORDER BY "+bucket, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []HeatmapEntry{}
	for rows.Next() {
		var e HeatmapEntry
		if err := rows.Scan(&e.Timestamp, &e.Contributions); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// repoCond keeps the repositories viewer may read.
func repoCond(c *conds, viewer *user.User) {
	if viewer != nil && viewer.IsAdmin {
		return
	}
	sql, args := access.RepoCond(viewer)
	c.add(sql, args...)
}

// actorCond keeps the actions of actors whose activity viewer may see:
// visible to viewer and not hiding their activity (viewer's own always).
func actorCond(c *conds, viewer *user.User) {
	if viewer != nil && viewer.IsAdmin {
		return
	}
	uc, uargs := access.UserCond(viewer)
	oc, oargs := access.OrgCond(viewer)
	sql := "a.act_user_id IN (SELECT u.id FROM users u WHERE u.hide_activity = ? AND ((u.type = ? AND " + uc + ") OR (u.type = ? AND " + oc + ")))"
	args := append([]any{false, int(user.TypeIndividual)}, uargs...)
	args = append(append(args, int(user.TypeOrganization)), oargs...)
	if viewer != nil {
		sql += " OR a.act_user_id = ?"
		args = append(args, viewer.ID)
	}
	c.add(sql, args...)
}

// dateCond keeps one day ("YYYY-MM-DD", server time zone); anything else
// keeps every day.
func dateCond(c *conds, date string) {
	if date == "" {
		return
	}
	day, err := time.ParseInLocation("2006-01-02", date, time.Local)
	if err != nil {
		return
	}
	c.add("a.created_unix >= ? AND a.created_unix < ?", day.Unix(), day.AddDate(0, 0, 1).Unix())
}

// page counts the actions c selects and loads the page asked for.
func (s *Service) page(ctx context.Context, viewer *user.User, c *conds, page, limit int, receiver int64) ([]*Action, int64, error) {
	if page < 1 {
		page = 1
	}
	if limit < 1 {
		limit = defaultLimit
	}
	from, args := c.from()
	total, err := s.db.Count(ctx, "SELECT COUNT(*)"+from+c.where(), args...)
	if err != nil {
		return nil, 0, err
	}
	offset := (page - 1) * limit
	if int64(offset) >= total {
		return []*Action{}, total, nil
	}
	rows, err := s.db.Query(ctx, "SELECT "+columns+from+c.where()+" ORDER BY a.created_unix DESC, a.id DESC"+db.LimitOffset(limit, offset), args...)
	if err != nil {
		return nil, 0, err
	}
	var list []*Action
	for rows.Next() {
		a := &Action{}
		var op int
		var created int64
		if err := rows.Scan(&a.ID, &op, &a.ActUserID, &a.RepoID, &a.OwnerID, &a.CommentID, &a.RefName,
			&a.IsPrivate, &a.IsDeleted, &a.Content, &created); err != nil {
			rows.Close()
			return nil, 0, err
		}
		a.OpType, a.Created, a.UserID = OpType(op), time.Unix(created, 0), receiver
		if receiver == 0 {
			a.UserID = a.ActUserID
		}
		list = append(list, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	list, err = s.load(ctx, viewer, list)
	return list, total, err
}

// load fills in actors, repositories, comments and issues with one query
// each (and the few of the permission check), and drops the actions of
// units viewer may not read (a repository's issues, its code, ...).
func (s *Service) load(ctx context.Context, viewer *user.User, list []*Action) ([]*Action, error) {
	if len(list) == 0 {
		return []*Action{}, nil
	}
	repoIDs := make([]int64, 0, len(list))
	userIDs := make([]int64, 0, 2*len(list))
	for _, a := range list {
		repoIDs = append(repoIDs, a.RepoID)
		userIDs = append(userIDs, a.ActUserID)
	}
	repos, err := s.repos.Store.GetByIDs(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	repoList := make([]*repo.Repository, 0, len(repos))
	for _, r := range repos {
		repoList = append(repoList, r)
		userIDs = append(userIDs, r.OwnerID)
	}
	users, err := s.users.GetByIDs(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	perms, err := s.access.RepoPermissions(ctx, viewer, repoList, users)
	if err != nil {
		return nil, err
	}
	kept := make([]*Action, 0, len(list))
	var commentIDs []int64
	type issueKey struct{ repoID, index int64 }
	wanted := map[issueKey]bool{}
	var pairs []any
	for _, a := range list {
		r := repos[a.RepoID]
		if r == nil {
			continue
		}
		p := perms[r.ID]
		if unit := a.OpType.unit(); (unit == "" && !p.HasAccess()) || (unit != "" && !p.CanRead(unit)) {
			continue
		}
		if owner := users[r.OwnerID]; owner != nil && r.OwnerName == "" {
			r.OwnerName = owner.Name
		}
		a.Repo = r
		if a.ActUser = users[a.ActUserID]; a.ActUser == nil {
			a.ActUser = user.Ghost()
		}
		if a.CommentID > 0 {
			commentIDs = append(commentIDs, a.CommentID)
		}
		if idx := a.IssueIndex(); idx > 0 {
			k := issueKey{a.RepoID, idx}
			if !wanted[k] {
				wanted[k] = true
				pairs = append(pairs, k.repoID, k.index)
			}
		}
		kept = append(kept, a)
	}
	comments, err := s.issues.CommentsByIDs(ctx, commentIDs)
	if err != nil {
		return nil, err
	}
	issues := map[issueKey]*issue.Issue{}
	if len(pairs) > 0 {
		where := strings.TrimSuffix(strings.Repeat("(i.repo_id = ? AND i.idx = ?) OR ", len(pairs)/2), " OR ")
		found, err := s.issues.ListIssues(ctx, "WHERE "+where, pairs...)
		if err != nil {
			return nil, err
		}
		for _, is := range found {
			issues[issueKey{is.RepoID, is.Index}] = is
		}
	}
	for _, a := range kept {
		if a.CommentID > 0 {
			a.Comment = comments[a.CommentID]
		}
		if idx := a.IssueIndex(); idx > 0 {
			a.Issue = issues[issueKey{a.RepoID, idx}]
		}
	}
	return kept, nil
}

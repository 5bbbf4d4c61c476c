package issue

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
)

// ListOptions filters and orders issue lists (one repository or a search
// across repositories).
type ListOptions struct {
	// RepoIDs restricts to these repositories; RepoCond/RepoArgs (a condition
	// on "i.repo_id") restricts to repositories the caller may see.
	RepoIDs  []int64
	RepoCond string
	RepoArgs []any
	// UnitRepos, when set, keeps only issues of UnitRepos.Issues and pull
	// requests of UnitRepos.Pulls (the repositories whose unit the caller
	// may read).
	UnitRepos *UnitRepos
	// Loaded is the repository of RepoIDs as the caller loaded it: an
	// unfiltered list then takes its total from those counters instead of
	// reading them again.
	Loaded *repo.Repository
	// State is "open" (default), "closed" or "all".
	State string
	// IsPull: nil for both, else issues only or pull requests only.
	IsPull *bool
	// LabelIDs: every one must be on the issue. NoLabel selects issues without labels.
	LabelIDs []int64
	NoLabel  bool
	// MilestoneIDs: any of them; NoMilestone selects issues without one.
	MilestoneIDs []int64
	NoMilestone  bool
	AssigneeID   int64
	PosterID     int64
	MentionedID  int64
	// Since/Before bound the update time.
	Since  time.Time
	Before time.Time
	// Keyword matches title or body (case-insensitive), or "#N"/"N" the number.
	Keyword string
	// Sort: "" / "latest" (newest), "oldest", "recentupdate", "leastupdate",
	// "mostcomment", "leastcomment", "nearduedate", "farduedate", "priority".
	Sort string
	// Pinned selects pinned issues only, in pin order.
	Pinned bool
	Limit  int
	Offset int
}

// UnitRepos lists the repositories whose issues, and those whose pull
// requests, a list may show.
type UnitRepos struct {
	Issues []int64
	Pulls  []int64
}

// cond renders u as a condition on "i".
func (u *UnitRepos) cond(col func(string) string) (string, []any) {
	if slices.Equal(u.Issues, u.Pulls) {
		if len(u.Issues) == 0 {
			return "1 = 0", nil
		}
		return col("i.repo_id") + " IN " + db.In(len(u.Issues)), db.Int64Args(u.Issues)
	}
	var parts []string
	var args []any
	for _, k := range []struct {
		pull bool
		ids  []int64
	}{{false, u.Issues}, {true, u.Pulls}} {
		if len(k.ids) > 0 {
			parts = append(parts, "(i.is_pull = ? AND "+col("i.repo_id")+" IN "+db.In(len(k.ids))+")")
			args = append(append(args, k.pull), db.Int64Args(k.ids)...)
		}
	}
	if len(parts) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// likePattern escapes a keyword for LIKE ... ESCAPE '!' and wraps it in wildcards.
func likePattern(q string) string {
	q = strings.ToLower(q)
	q = strings.NewReplacer(`!`, `!!`, `%`, `!%`, `_`, `!_`).Replace(q)
	return "%" + q + "%"
}

// where builds the condition and arguments of o for the given dialect.
// With fromText set, the query is driven from the full-text matches (then
// issues are looked up by id) instead of walking every issue of the
// repositories: a unary plus keeps SQLite off the repository and state
// indexes. That wins when few issues match.
func (o ListOptions) where(dialect db.Dialect, fromText bool) (string, []any, error) {
	var conds []string
	var args []any
	col := func(c string) string { return c }
	if fromText && dialect == db.SQLite {
		col = func(c string) string { return "+" + c }
	}
	if len(o.RepoIDs) > 0 {
		conds = append(conds, col("i.repo_id")+" IN "+db.In(len(o.RepoIDs)))
		args = append(args, db.Int64Args(o.RepoIDs)...)
	}
	if o.UnitRepos != nil {
		c, cargs := o.UnitRepos.cond(col)
		conds = append(conds, c)
		args = append(args, cargs...)
	}
	if o.RepoCond != "" {
		conds = append(conds, strings.ReplaceAll(o.RepoCond, "i.repo_id IN", col("i.repo_id")+" IN"))
		args = append(args, o.RepoArgs...)
	}
	switch o.State {
	case "", "open":
		conds = append(conds, col("i.is_closed")+" = ?")
		args = append(args, false)
	case "closed":
		conds = append(conds, col("i.is_closed")+" = ?")
		args = append(args, true)
	case "all":
	default:
		return "", nil, errs.InvalidField("state", "invalid state %q: open, closed or all", o.State)
	}
	if o.IsPull != nil {
		conds = append(conds, "i.is_pull = ?")
		args = append(args, *o.IsPull)
	}
	for _, lid := range uniq(o.LabelIDs) {
		conds = append(conds, "i.id IN (SELECT il.issue_id FROM issue_label il WHERE il.label_id = ?)")
		args = append(args, lid)
	}
	if o.NoLabel {
		conds = append(conds, "i.id NOT IN (SELECT il.issue_id FROM issue_label il)")
	}
	if len(o.MilestoneIDs) > 0 || o.NoMilestone {
		var ms []string
		if len(o.MilestoneIDs) > 0 {
			ms = append(ms, "i.milestone_id IN "+db.In(len(o.MilestoneIDs)))
			args = append(args, db.Int64Args(o.MilestoneIDs)...)
		}
		if o.NoMilestone {
			ms = append(ms, "i.milestone_id = 0")
		}
		conds = append(conds, "("+strings.Join(ms, " OR ")+")")
	}
	if o.AssigneeID != 0 {
		conds = append(conds, "i.id IN (SELECT a.issue_id FROM issue_assignees a WHERE a.assignee_id = ?)")
		args = append(args, o.AssigneeID)
	}
	if o.PosterID != 0 {
		conds = append(conds, "i.poster_id = ?")
		args = append(args, o.PosterID)
	}
	if o.MentionedID != 0 {
		conds = append(conds, "i.id IN (SELECT iu.issue_id FROM issue_user iu WHERE iu.uid = ? AND iu.is_mentioned = ?)")
		args = append(args, o.MentionedID, true)
	}
	if !o.Since.IsZero() {
		conds = append(conds, "i.updated_unix >= ?")
		args = append(args, o.Since.Unix())
	}
	if !o.Before.IsZero() {
		conds = append(conds, "i.updated_unix <= ?")
		args = append(args, o.Before.Unix())
	}
	if kw := strings.TrimSpace(o.Keyword); kw != "" {
		c, cargs := keywordCond(dialect, kw)
		args = append(args, cargs...)
		conds = append(conds, c)
	}
	if o.Pinned {
		conds = append(conds, "i.pin_order > 0")
	}
	if len(conds) == 0 {
		return "1 = 1", args, nil
	}
	return strings.Join(conds, " AND "), args, nil
}

func parseIndex(s string) (int64, bool) {
	s = strings.TrimPrefix(s, "#")
	var n int64
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func (o ListOptions) order() (string, error) {
	if o.Pinned {
		return "i.pin_order ASC", nil
	}
	switch o.Sort {
	case "", "latest", "newest":
		return "i.created_unix DESC, i.id DESC", nil
	case "oldest":
		return "i.created_unix ASC, i.id ASC", nil
	case "recentupdate":
		return "i.updated_unix DESC, i.id DESC", nil
	case "leastupdate":
		return "i.updated_unix ASC, i.id ASC", nil
	case "mostcomment":
		return "i.num_comments DESC, i.created_unix DESC, i.id DESC", nil
	case "leastcomment":
		return "i.num_comments ASC, i.created_unix DESC, i.id DESC", nil
	case "nearduedate":
		return "CASE WHEN i.deadline_unix = 0 THEN 1 ELSE 0 END, i.deadline_unix ASC, i.id DESC", nil
	case "farduedate":
		return "i.deadline_unix DESC, i.id DESC", nil
	case "priority":
		return "i.priority DESC, i.created_unix DESC, i.id DESC", nil
	}
	return "", errs.InvalidField("sort", "invalid sort %q", o.Sort)
}

// Search returns one page of issues matching o and the total: one count
// query and one page query.
func (s *Service) Search(ctx context.Context, o ListOptions) ([]*Issue, int64, error) {
	fromText := false
	if words := searchWords(o.Keyword); len(words) > 0 && s.db.Dialect == db.SQLite {
		// Few matches (counted up to a bound): start from them and check
		// each against the issue table. Many: answer from the full-text
		// index alone when it holds every filter, else walk the list's
		// index and check each issue.
		n, err := s.db.Count(ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM issue_fts WHERE issue_fts MATCH ? LIMIT ?)",
			ftsQuery(words), maxFromText+1)
		if err != nil {
			return nil, 0, err
		}
		if n > fewMatches {
			if match := o.textOnlyMatch(); match != "" {
				return s.searchText(ctx, o, match)
			}
		}
		fromText = n <= maxFromText
	}
	where, args, err := o.where(s.db.Dialect, fromText)
	if err != nil {
		return nil, 0, err
	}
	order, err := o.order()
	if err != nil {
		return nil, 0, err
	}
	total, ok, err := s.countFromRepository(ctx, o)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		if total, err = s.countSearch(ctx, o, where, args); err != nil {
			return nil, 0, err
		}
	}
	offset, limit, reversed, ok := o.window(total)
	if !ok {
		return nil, total, nil
	}
	if reversed {
		order = reverseOrder(order)
	}
	// Find the page's ids on the indexes first, then load only those rows.
	list, err := s.ListIssues(ctx, "JOIN (SELECT i.id FROM issue i WHERE "+where+" ORDER BY "+order+db.LimitOffset(limit, offset)+
		") page ON page.id = i.id ORDER BY "+order, args...)
	if reversed {
		for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
			list[i], list[j] = list[j], list[i]
		}
	}
	return list, total, err
}

// Bounds on the number of full-text matches of a search's words: up to
// fewMatches the matches are checked against the issue table (cheaper than
// intersecting them with the index's large tag lists); up to maxFromText
// they still drive a search the index cannot answer alone.
const (
	fewMatches  = 1000
	maxFromText = 5000
)

// maxTagTerms bounds the tag tokens of a search answered from the full-text
// index alone (two per repository); a caller who may read more repositories
// is searched through the issue table.
const maxTagTerms = 400

// textOnlyMatch returns the FTS5 query that answers o from SQLite's
// full-text index alone — its words, repositories, kind and state are all
// tokens of the index — or "" when o filters on anything else, sorts other
// than by creation, or could match an issue by number.
func (o ListOptions) textOnlyMatch() string {
	kw := strings.TrimSpace(o.Keyword)
	words := searchWords(kw)
	if len(words) == 0 {
		return ""
	}
	if _, number := parseIndex(kw); number {
		return ""
	}
	if o.RepoCond != "" || len(o.LabelIDs) > 0 || o.NoLabel || len(o.MilestoneIDs) > 0 || o.NoMilestone || o.AssigneeID != 0 ||
		o.PosterID != 0 || o.MentionedID != 0 || !o.Since.IsZero() || !o.Before.IsZero() || o.Pinned {
		return ""
	}
	switch o.Sort {
	case "", "latest", "newest", "oldest":
	default:
		return ""
	}
	var issues, pulls []int64
	switch {
	case o.UnitRepos != nil && len(o.RepoIDs) == 0:
		issues, pulls = o.UnitRepos.Issues, o.UnitRepos.Pulls
	case o.UnitRepos == nil && len(o.RepoIDs) > 0:
		issues, pulls = o.RepoIDs, o.RepoIDs
	default:
		return ""
	}
	if o.IsPull != nil {
		if *o.IsPull {
			issues = nil
		} else {
			pulls = nil
		}
	}
	var state string
	switch o.State {
	case "", "open":
		state = "o"
	case "closed":
		state = "c"
	case "all":
	default:
		return "" // an invalid state, reported by the general path
	}
	// Tokens name kind, repository and state: "i12" is an issue of
	// repository 12, "i12o" an open one (see migration 6).
	var tags []string
	for _, k := range []struct {
		prefix string
		ids    []int64
	}{{"i", issues}, {"p", pulls}} {
		for _, id := range k.ids {
			tags = append(tags, k.prefix+strconv.FormatInt(id, 10)+state)
		}
	}
	if len(tags) == 0 || len(tags) > maxTagTerms {
		return ""
	}
	return ftsQuery(words) + " AND tags : (" + strings.Join(tags, " OR ") + ")"
}

// searchText answers a search from the full-text index alone (see
// textOnlyMatch): the count and the page's ids come from the index, and only
// the page's rows are read from the issue table. Results are ordered by id,
// which is the order issues were created in.
func (s *Service) searchText(ctx context.Context, o ListOptions, match string) ([]*Issue, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM issue_fts WHERE issue_fts MATCH ?", match)
	if err != nil {
		return nil, 0, err
	}
	offset, limit, reversed, ok := o.window(total)
	if !ok {
		return nil, total, nil
	}
	desc := (o.Sort != "oldest") != reversed
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	list, err := s.ListIssues(ctx, "JOIN (SELECT rowid AS id FROM issue_fts WHERE issue_fts MATCH ? ORDER BY rowid"+dir+
		db.LimitOffset(limit, offset)+") page ON page.id = i.id ORDER BY i.id"+dir, match)
	if reversed {
		slices.Reverse(list)
	}
	return list, total, err
}

// window places the page of o among total results (see db.Window); the
// limit defaults to 30.
func (o ListOptions) window(total int64) (offset, limit int, reversed, ok bool) {
	limit = o.Limit
	if limit <= 0 {
		limit = 30
	}
	return db.Window(o.Offset, limit, total)
}

// reverseOrder flips every term of an ORDER BY list.
func reverseOrder(order string) string {
	terms := strings.Split(order, ", ")
	for i, t := range terms {
		switch {
		case strings.HasSuffix(t, " DESC"):
			terms[i] = strings.TrimSuffix(t, " DESC") + " ASC"
		case strings.HasSuffix(t, " ASC"):
			terms[i] = strings.TrimSuffix(t, " ASC") + " DESC"
		default:
			terms[i] = t + " DESC"
		}
	}
	return strings.Join(terms, ", ")
}

// countFromRepository answers the count of an unfiltered list of one
// repository (all, open or closed; issues, pulls or both) from the
// repository's counters instead of counting rows.
func (s *Service) countFromRepository(ctx context.Context, o ListOptions) (int64, bool, error) {
	simple := len(o.RepoIDs) == 1 && o.RepoCond == "" && len(o.LabelIDs) == 0 && !o.NoLabel && len(o.MilestoneIDs) == 0 &&
		!o.NoMilestone && o.AssigneeID == 0 && o.PosterID == 0 && o.MentionedID == 0 && o.Since.IsZero() && o.Before.IsZero() &&
		strings.TrimSpace(o.Keyword) == "" && !o.Pinned
	if !simple {
		return 0, false, nil
	}
	var issues, closedIssues, pulls, closedPulls int64
	if r := o.Loaded; r != nil && r.ID == o.RepoIDs[0] {
		issues, closedIssues, pulls, closedPulls = int64(r.NumIssues), int64(r.NumClosedIssues), int64(r.NumPulls), int64(r.NumClosedPulls)
	} else {
		err := s.db.QueryRow(ctx, "SELECT num_issues, num_closed_issues, num_pulls, num_closed_pulls FROM repository WHERE id = ?", o.RepoIDs[0]).
			Scan(&issues, &closedIssues, &pulls, &closedPulls)
		if err != nil {
			return 0, false, err
		}
	}
	if o.IsPull != nil && *o.IsPull {
		issues, closedIssues = 0, 0
	}
	if o.IsPull != nil && !*o.IsPull {
		pulls, closedPulls = 0, 0
	}
	switch o.State {
	case "", "open":
		return issues - closedIssues + pulls - closedPulls, true, nil
	case "closed":
		return closedIssues + closedPulls, true, nil
	}
	return issues + pulls, true, nil
}

// searchWords splits a keyword into lower-case words of letters and digits.
func searchWords(kw string) []string {
	return strings.FieldsFunc(strings.ToLower(kw), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// keywordCond matches issues whose title or body contain every word of kw
// (words match as prefixes), using the database's full-text index, or whose
// number is kw ("#12" or "12").
func keywordCond(dialect db.Dialect, kw string) (string, []any) {
	words := searchWords(kw)
	var parts []string
	var args []any
	if len(words) > 0 {
		switch dialect {
		case db.SQLite:
			parts = append(parts, "i.id IN (SELECT rowid FROM issue_fts WHERE issue_fts MATCH ?)")
			args = append(args, ftsQuery(words))
		case db.Postgres:
			q := make([]string, len(words))
			for i, w := range words {
				q[i] = w + ":*"
			}
			parts = append(parts, pgSearchVector+" @@ to_tsquery('simple', ?)")
			args = append(args, strings.Join(q, " & "))
		default:
			// InnoDB indexes words of three or more characters that are not
			// on its default stop list; the others are matched with LIKE.
			var long []string
			var short []string
			for _, w := range words {
				if len([]rune(w)) >= 3 && !innodbStopwords[w] {
					long = append(long, "+"+w+"*")
				} else {
					short = append(short, w)
				}
			}
			var c []string
			if len(long) > 0 {
				c = append(c, "MATCH(i.title, i.content) AGAINST (? IN BOOLEAN MODE)")
				args = append(args, strings.Join(long, " "))
			}
			// LIKE finds the word anywhere; the regular expression keeps it
			// to the start of a word (words hold only letters and digits).
			for _, w := range short {
				c = append(c, "((LOWER(i.title) LIKE ? ESCAPE '!' AND LOWER(i.title) REGEXP ?) OR "+
					"(LOWER(i.content) LIKE ? ESCAPE '!' AND LOWER(i.content) REGEXP ?))")
				start := "(^|[^[:alnum:]])" + w
				args = append(args, likePattern(w), start, likePattern(w), start)
			}
			parts = append(parts, "("+strings.Join(c, " AND ")+")")
		}
	}
	if n, ok := parseIndex(kw); ok {
		parts = append(parts, "i.idx = ?")
		args = append(args, n)
	}
	if len(parts) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// pgSearchVector is the text vector of issue i that PostgreSQL's index
// ix_issue_fts holds (migration 10): the words of title and body, split at
// every run of ASCII punctuation as searchWords splits a search. A query
// must use this very expression for the index to serve it.
const pgSearchVector = "to_tsvector('simple', regexp_replace(i.title || ' ' || COALESCE(i.content, ''), '[!-/:-@[-`{-~]+', ' ', 'g'))"

// innodbStopwords are the words of three letters or more on InnoDB's
// default full-text stop list: they are not indexed, and a search that
// requires one finds nothing.
var innodbStopwords = map[string]bool{"about": true, "are": true, "com": true, "for": true, "from": true, "how": true,
	"that": true, "the": true, "this": true, "was": true, "what": true, "when": true, "where": true, "who": true,
	"will": true, "with": true, "und": true, "www": true}

// ftsQuery is the SQLite FTS5 query matching every word as a prefix of a
// word of the title or the body (never of the tags column).
func ftsQuery(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"*`
	}
	return "{title content} : (" + strings.Join(q, " AND ") + ")"
}

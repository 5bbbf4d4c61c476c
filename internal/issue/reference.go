package issue

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// RefAction is what a cross reference asks of the issue it names once the
// referencing pull request is merged (Gitea's values).
type RefAction int

// Cross-reference actions.
const (
	// RefActionNone: a plain mention of the issue.
	RefActionNone RefAction = 0
	// RefActionCloses: "fixes #1" and the like, from a pull request.
	RefActionCloses RefAction = 1
	// RefActionReopens: "reopens #1", from a pull request.
	RefActionReopens RefAction = 2
	// RefActionNeutered: the referencing text changed and no longer names the issue.
	RefActionNeutered RefAction = 3
)

func (a RefAction) String() string {
	switch a {
	case RefActionCloses:
		return "closes"
	case RefActionReopens:
		return "reopens"
	case RefActionNeutered:
		return "neutered"
	}
	return "none"
}

// IsRefType reports whether t is a cross reference from another issue,
// pull request or comment.
func IsRefType(t CommentType) bool {
	return t == CommentIssueRef || t == CommentCommentRef || t == CommentPullRef
}

// Reference is an unverified "#12" or "owner/repo#12" found in a text.
type Reference struct {
	// Owner and Name are empty for a reference within the same repository.
	Owner, Name string
	Index       int64
	Action      RefAction
}

// maxReferences and maxMentions bound what one text can trigger.
const (
	maxReferences = 50
	maxMentions   = 50
)

var (
	// refToken matches "#12", "!12" and "owner/repo#12"; the characters
	// around a match are checked separately so that adjacent references
	// ("#1 #2") are all found.
	refToken = regexp.MustCompile(`(?:([0-9A-Za-z_.-]+)/([0-9A-Za-z_.-]+))?[#!]([0-9]{1,18})`)
	// mentionToken matches "@name"; the surroundings are checked separately.
	mentionToken = regexp.MustCompile(`@([0-9A-Za-z_][0-9A-Za-z_.-]*)`)
	// mentionName matches a user, organization or team name in a mention.
	mentionName = regexp.MustCompile(`^[0-9A-Za-z_][0-9A-Za-z_.-]*`)

	closeWords  = map[string]bool{"close": true, "closes": true, "closed": true, "fix": true, "fixes": true, "fixed": true, "resolve": true, "resolves": true, "resolved": true}
	reopenWords = map[string]bool{"reopen": true, "reopens": true, "reopened": true}
)

// openingBoundary reports whether a reference or mention may start right
// after the text before (it ends with whitespace or an opening bracket, or is empty).
func openingBoundary(before string) bool {
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsSpace(r) || strings.ContainsRune(`([{"'`, r)
}

// closingBoundary reports whether a reference may end right before after.
func closingBoundary(after string) bool {
	if after == "" {
		return true
	}
	r, size := utf8.DecodeRuneInString(after)
	if unicode.IsSpace(r) || strings.ContainsRune(`)]}"'`, r) {
		return true
	}
	// Sentence punctuation counts when the text or a space follows it.
	if strings.ContainsRune(`.,:;!?`, r) {
		rest := after[size:]
		if rest == "" {
			return true
		}
		n, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsSpace(n) || strings.ContainsRune(`)]}"'`, n)
	}
	return false
}

// stripCode blanks out fenced code blocks and inline code spans of Markdown
// text: mentions and references inside code are not meant.
func stripCode(text string) string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			lines[i] = ""
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			lines[i] = "" // indented code block
			continue
		}
		lines[i] = stripInlineCode(line)
	}
	return strings.Join(lines, "\n")
}

// stripInlineCode replaces `code` spans with spaces.
func stripInlineCode(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	var b strings.Builder
	for {
		start := strings.IndexByte(line, '`')
		if start < 0 {
			b.WriteString(line)
			break
		}
		n := 1
		for start+n < len(line) && line[start+n] == '`' {
			n++
		}
		ticks := line[start : start+n]
		end := strings.Index(line[start+n:], ticks)
		if end < 0 {
			b.WriteString(line)
			break
		}
		b.WriteString(line[:start])
		b.WriteString(strings.Repeat(" ", n+end+n))
		line = line[start+n+end+n:]
	}
	return b.String()
}

// actionBefore reads a closing or reopening keyword right before a
// reference ("fixes #1", "Closes: #1").
func actionBefore(before string) RefAction {
	s := strings.TrimRight(before, " \t")
	if len(s) == len(before) && before != "" {
		return RefActionNone // no space between the word and the reference
	}
	s = strings.TrimSuffix(s, ":")
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	word := strings.ToLower(s[i+1:])
	if i >= 0 && !openingBoundary(s[:i+1]) {
		return RefActionNone
	}
	switch {
	case closeWords[word]:
		return RefActionCloses
	case reopenWords[word]:
		return RefActionReopens
	}
	return RefActionNone
}

// FindReferences returns the issue references of a Markdown text, in order,
// without duplicates, at most maxReferences of them. Code is ignored.
func FindReferences(text string) []Reference {
	text = stripCode(text)
	var out []Reference
	seen := map[string]bool{}
	for _, m := range refToken.FindAllStringSubmatchIndex(text, -1) {
		if !openingBoundary(text[:m[0]]) || !closingBoundary(text[m[1]:]) {
			continue
		}
		ref := Reference{}
		if m[2] >= 0 {
			ref.Owner, ref.Name = text[m[2]:m[3]], text[m[4]:m[5]]
		}
		n, err := strconv.ParseInt(text[m[6]:m[7]], 10, 64)
		if err != nil || n <= 0 {
			continue
		}
		ref.Index = n
		ref.Action = actionBefore(text[:m[0]])
		key := strings.ToLower(ref.Owner+"/"+ref.Name) + "#" + strconv.FormatInt(n, 10)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, ref)
		if len(out) == maxReferences {
			break
		}
	}
	return out
}

// FindMentions returns the lower-cased names mentioned with "@name" in a
// Markdown text, without duplicates, at most maxMentions of them. Code, e-mail
// addresses and team mentions ("@org/team", see FindTeamMentions) are left out.
func FindMentions(text string) []string {
	users, _ := scanMentions(text)
	return users
}

// FindTeamMentions returns the lower-cased "org/team" names mentioned with
// "@org/team" in a Markdown text, without duplicates, at most maxMentions.
func FindTeamMentions(text string) []string {
	_, teams := scanMentions(text)
	return teams
}

// scanMentions finds the user mentions ("@name") and team mentions
// ("@org/team") of a Markdown text outside code.
func scanMentions(text string) (users, teams []string) {
	text = stripCode(text)
	seen := map[string]bool{}
	// name reads a name at the start of s (a letter, digit or "_", then also
	// "." and "-"), without trailing punctuation.
	name := func(s string) string {
		m := mentionName.FindString(s)
		return strings.TrimRight(m, ".-_")
	}
	for _, m := range mentionToken.FindAllStringIndex(text, -1) {
		if !openingBoundary(text[:m[0]]) {
			continue
		}
		rest := text[m[0]+1:]
		first := name(rest)
		after := rest[len(first):]
		if first == "" || strings.HasPrefix(after, "@") || len(first) > user.MaxNameLength {
			continue
		}
		found, list := strings.ToLower(first), &users
		if team, ok := strings.CutPrefix(after, "/"); ok {
			second := name(team)
			if second == "" || strings.HasPrefix(team[len(second):], "/") || strings.HasPrefix(team[len(second):], "@") {
				continue
			}
			found, list = found+"/"+strings.ToLower(second), &teams
		}
		if seen[found] || len(*list) == maxMentions {
			continue
		}
		seen[found] = true
		*list = append(*list, found)
	}
	return users, teams
}

// ReadersFunc returns which of users may read the issues (isPull false) or
// pull requests (isPull true) of repository r.
type ReadersFunc func(ctx context.Context, r *repo.Repository, isPull bool, users []*user.User) (map[int64]bool, error)

// PermFunc computes u's permission on repository r.
type PermFunc func(ctx context.Context, u *user.User, r *repo.Repository) (access.RepoPerm, error)

// RecordMentions finds the mentions of text (written by doer in issue is of
// repository r), marks the people mentioned (issue_user) and returns them:
// for "@name", the existing, active individual account other than doer, if
// it may read the issue; for "@org/team" (the organization that owns r), the
// active members of that team when the team has r and reads its issues (pull
// requests for a pull request), as Gitea expands them. Names that match
// nobody are ignored.
func (s *Service) RecordMentions(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, text string, readers ReadersFunc) ([]*user.User, error) {
	names, teams := scanMentions(text)
	if len(names) == 0 && len(teams) == 0 {
		return nil, nil
	}
	var mentioned []*user.User
	var ids []int64
	seen := map[int64]bool{}
	add := func(u *user.User) {
		if !seen[u.ID] {
			seen[u.ID] = true
			mentioned = append(mentioned, u)
			ids = append(ids, u.ID)
		}
	}
	if len(names) > 0 {
		args := make([]any, 0, len(names)+4)
		for _, n := range names {
			args = append(args, n)
		}
		args = append(args, int(user.TypeIndividual), true, false, doer.ID)
		found, err := s.users.List(ctx, "WHERE u.lower_name IN "+db.In(len(names))+
			" AND u.type = ? AND u.is_active = ? AND u.prohibit_login = ? AND u.id <> ?", args...)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			ok, err := readers(ctx, r, is.IsPull, found)
			if err != nil {
				return nil, err
			}
			for _, u := range found {
				if ok[u.ID] {
					add(u)
				}
			}
		}
	}
	members, err := s.teamMentions(ctx, doer, r, is.IsPull, teams)
	if err != nil {
		return nil, err
	}
	for _, u := range members {
		add(u)
	}
	return mentioned, s.SetMentioned(ctx, is.ID, ids)
}

// teamMentions returns the active members (other than doer) of the teams
// named "org/team" in mentions that belong to r's owner, have r and read its
// issues (or pull requests).
func (s *Service) teamMentions(ctx context.Context, doer *user.User, r *repo.Repository, isPull bool, mentions []string) ([]*user.User, error) {
	var names []any
	for _, m := range mentions {
		org, team, _ := strings.Cut(m, "/")
		if org == strings.ToLower(r.OwnerName) {
			names = append(names, team)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, "SELECT t.id, t.authorize, COALESCE(t.units, '') FROM team t WHERE t.org_id = ? AND t.lower_name IN "+db.In(len(names))+
		" AND (t.includes_all_repositories = ? OR t.id IN (SELECT tr.team_id FROM team_repo tr WHERE tr.repo_id = ?))",
		append(append([]any{r.OwnerID}, names...), true, r.ID)...)
	if err != nil {
		return nil, err
	}
	unit := repo.UnitIssues
	if isPull {
		unit = repo.UnitPulls
	}
	var teamIDs []int64
	for rows.Next() {
		var id int64
		var authorize int
		var units string
		if err := rows.Scan(&id, &authorize, &units); err != nil {
			rows.Close()
			return nil, err
		}
		if access.TeamUnitMode(access.Mode(authorize), units, unit) >= access.ModeRead {
			teamIDs = append(teamIDs, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(teamIDs) == 0 || !r.HasUnit(unit) {
		return nil, err
	}
	return s.users.List(ctx, "WHERE u.id IN (SELECT tu.uid FROM team_user tu WHERE tu.team_id IN "+db.In(len(teamIDs))+
		") AND u.type = ? AND u.is_active = ? AND u.prohibit_login = ? AND u.id <> ?",
		append(db.Int64Args(teamIDs), int(user.TypeIndividual), true, false, doer.ID)...)
}

// SetMentioned marks users mentioned in issue issueID (issue_user rows), for
// the "mentioned_by" filter of issue lists.
func (s *Service) SetMentioned(ctx context.Context, issueID int64, uids []int64) error {
	uids = uniq(uids)
	if len(uids) == 0 {
		return nil
	}
	if _, err := s.db.Exec(ctx, "UPDATE issue_user SET is_mentioned = ? WHERE issue_id = ? AND uid IN "+db.In(len(uids)),
		append([]any{true, issueID}, db.Int64Args(uids)...)...); err != nil {
		return err
	}
	rows, err := s.db.Query(ctx, "SELECT uid FROM issue_user WHERE issue_id = ? AND uid IN "+db.In(len(uids)),
		append([]any{issueID}, db.Int64Args(uids)...)...)
	if err != nil {
		return err
	}
	have := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		have[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range uids {
		if have[id] {
			continue
		}
		_, err := s.db.Insert(ctx, "INSERT INTO issue_user (uid, issue_id, is_read, is_mentioned) VALUES (?, ?, ?, ?)", id, issueID, false, true)
		if err != nil && !db.IsUniqueViolation(err) {
			return err
		}
	}
	return nil
}

// crossRef is a verified reference: the issue named and the action asked.
type crossRef struct {
	target *Issue
	repo   *repo.Repository
	action RefAction
}

// UpdateCrossReferences records, on every issue that the text of issue is
// (or of its comment c, when c is not nil) references, a timeline event
// pointing back at it: issue_ref, pull_ref or comment_ref. References the
// doer cannot read, to unknown repositories or issues, and to the issue itself
// are ignored. Events recorded for an earlier version of the same text are kept
// when the new text still names the issue (so editing creates no duplicates),
// and neutered otherwise.
func (s *Service) UpdateCrossReferences(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, c *Comment, perm PermFunc) error {
	typ := CommentIssueRef
	text := is.Title + "\n" + is.Content
	var commentID int64
	switch {
	case c != nil:
		if c.Type != CommentPlain && c.Type != CommentCode && c.Type != CommentReview {
			return nil
		}
		typ, text, commentID = CommentCommentRef, c.Content, c.ID
	case is.IsPull:
		typ = CommentPullRef
	}
	refs, err := s.verifyReferences(ctx, doer, r, is, c != nil, FindReferences(text), perm)
	if err != nil {
		return err
	}
	old, err := s.ListComments(ctx, "WHERE c.ref_issue_id = ? AND c.ref_comment_id = ? AND c.type IN (?, ?, ?) AND c.ref_action IN (?, ?, ?)",
		is.ID, commentID, CommentIssueRef, CommentCommentRef, CommentPullRef, RefActionNone, RefActionCloses, RefActionReopens)
	if err != nil {
		return err
	}
	var stale []int64
	for _, o := range old {
		kept := false
		for i, x := range refs {
			if x.target.ID == o.IssueID && RefAction(o.RefAction) == x.action {
				refs = append(refs[:i], refs[i+1:]...)
				kept = true
				break
			}
		}
		if !kept {
			stale = append(stale, o.ID)
		}
	}
	if len(stale) == 0 && len(refs) == 0 {
		return nil
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if len(stale) > 0 {
			if _, err := s.db.Exec(ctx, "UPDATE comment SET ref_action = ? WHERE id IN "+db.In(len(stale)),
				append([]any{RefActionNeutered}, db.Int64Args(stale)...)...); err != nil {
				return err
			}
		}
		now := time.Now()
		for _, x := range refs {
			ev := &Comment{Type: typ, PosterID: doer.ID, IssueID: x.target.ID, RefRepoID: is.RepoID, RefIssueID: is.ID,
				RefCommentID: commentID, RefAction: int(x.action), RefIsPull: is.IsPull, Created: now}
			if err := s.insertComment(ctx, ev); err != nil {
				return err
			}
		}
		return nil
	})
}

// verifyReferences resolves refs to issues the doer may read, one per issue.
func (s *Service) verifyReferences(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, fromComment bool, refs []Reference, perm PermFunc) ([]crossRef, error) {
	var out []crossRef
	repos := map[string]*repo.Repository{}
	perms := map[int64]access.RepoPerm{}
	for _, ref := range refs {
		target := r
		if ref.Owner != "" {
			key := strings.ToLower(ref.Owner + "/" + ref.Name)
			var ok bool
			if target, ok = repos[key]; !ok {
				var err error
				target, err = s.repos.Store.GetByName(ctx, ref.Owner, ref.Name)
				if err != nil && !isNotFound(err) {
					return nil, err
				}
				repos[key] = target
			}
			if target == nil {
				continue
			}
		}
		ti, err := s.GetByIndex(ctx, target.ID, ref.Index)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if ti.ID == is.ID {
			continue
		}
		action := ref.Action
		// Closing and reopening keywords only act from a pull request on an issue.
		if ti.IsPull || !is.IsPull {
			action = RefActionNone
		}
		if target.ID != r.ID || ti.IsPull != is.IsPull || action != RefActionNone {
			p, ok := perms[target.ID]
			if !ok {
				if p, err = perm(ctx, doer, target); err != nil {
					return nil, err
				}
				perms[target.ID] = p
			}
			unit := repo.UnitIssues
			if ti.IsPull {
				unit = repo.UnitPulls
			}
			if !target.HasUnit(unit) || !p.CanRead(unit) {
				continue
			}
			// Only those who could close the issue by hand may have a
			// pull request close it (the poster of a new pull request in
			// the same repository excepted: the merger decides then).
			if action != RefActionNone && doer.ID != ti.PosterID && !p.CanWrite(unit) && (target.ID != r.ID || fromComment) {
				action = RefActionNone
			}
		}
		dup := false
		for i := range out {
			if out[i].target.ID == ti.ID {
				if action != RefActionNone {
					out[i].action = action
				}
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, crossRef{target: ti, repo: target, action: action})
		}
	}
	return out, nil
}

// NeuterCrossReferences marks the references made by issue issueID (by its
// comment commentID, or by its title and body when 0) as no longer active,
// e.g. when the comment is deleted.
func (s *Service) NeuterCrossReferences(ctx context.Context, issueID, commentID int64) error {
	_, err := s.db.Exec(ctx, `UPDATE comment SET ref_action = ? WHERE ref_issue_id = ? AND ref_comment_id = ?
		AND type IN (?, ?, ?) AND ref_action IN (?, ?, ?)`, RefActionNeutered, issueID, commentID,
		CommentIssueRef, CommentCommentRef, CommentPullRef, RefActionNone, RefActionCloses, RefActionReopens)
	return err
}

func isNotFound(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Kind == errs.KindNotFound
}

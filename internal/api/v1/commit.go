package v1

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/user"
)

// commitOptions are the optional parts of a rendered commit.
type commitOptions struct {
	Stat, Files, Verification bool
}

// commitOptionsOf reads ?stat=, ?files= and ?verification=, each on unless
// given (and not true).
func commitOptionsOf(r *http.Request) commitOptions {
	on := func(name string) bool {
		v := r.URL.Query().Get(name)
		if v == "" {
			return true
		}
		b, err := strconv.ParseBool(v)
		return err == nil && b
	}
	return commitOptions{Stat: on("stat"), Files: on("files"), Verification: on("verification")}
}

// commitUser renders a git identity; utc converts the date to UTC (tags),
// otherwise the recorded offset is kept (commits).
func commitUser(s git.Signature, utc bool) *types.CommitUser {
	when := s.When
	if utc {
		when = when.UTC()
	}
	return &types.CommitUser{Name: s.Name, Email: s.Email, Date: when.Format(time.RFC3339)}
}

// verification describes a signature without checking it (tags, and
// callers without a verifier): a signed object is reported unverified.
func verification(sig, payload string) *types.PayloadCommitVerification {
	if sig == "" {
		return &types.PayloadCommitVerification{Reason: signature.ReasonNotSigned}
	}
	return &types.PayloadCommitVerification{Reason: signature.ReasonNoKeyFound, Signature: sig, Payload: payload}
}

// verifications checks the signatures of commits with a fixed number of
// queries, as Gitea reports them: the signer is named when verified.
func (a *API) verifications(ctx context.Context, commits []git.CommitObject) ([]*types.PayloadCommitVerification, error) {
	out := make([]*types.PayloadCommitVerification, len(commits))
	if a.Signatures == nil {
		for i, c := range commits {
			out[i] = verification(c.Signature, c.Payload)
		}
		return out, nil
	}
	results, err := a.Signatures.Verify(ctx, commits)
	if err != nil {
		return nil, err
	}
	for i, res := range results {
		pv := &types.PayloadCommitVerification{Verified: res.Verified, Reason: res.Reason, Signature: commits[i].Signature, Payload: commits[i].Payload}
		if res.Verified {
			pv.Signer = &types.PayloadUser{Name: res.SignerName, Email: res.SignerEmail}
			if res.Signer != nil {
				pv.Signer.UserName = res.Signer.Name
			}
		}
		out[i] = pv
	}
	return out, nil
}

// usersByEmail finds the accounts behind commit e-mail addresses, keyed by
// lower-case address: an activated address of an account, or an account's
// no-reply address. Only accounts the viewer v may see are returned. Two
// queries at most, whatever the number of addresses.
func (a *API) usersByEmail(ctx context.Context, v *user.User, emails []string) (map[string]*user.User, error) {
	out := map[string]*user.User{}
	seen := map[string]bool{}
	var addrs []any
	var names []any
	byName := map[string]string{}
	for _, e := range emails {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		addrs = append(addrs, e)
		if name, ok := strings.CutSuffix(e, "@"+a.noReply); ok && name != "" {
			names = append(names, name)
			byName[name] = e
		}
	}
	if len(addrs) == 0 {
		return out, nil
	}
	cond, condArgs := access.UserCond(v)
	args := append([]any{true, int(user.TypeIndividual)}, addrs...)
	args = append(args, condArgs...)
	rows, err := a.DB.Query(ctx, "SELECT e.lower_email, "+user.Columns+` FROM email_address e JOIN users u ON u.id = e.uid
		WHERE e.is_activated = ? AND u.type = ? AND e.lower_email IN `+db.In(len(addrs))+" AND "+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var email string
		u, err := user.Scan(rows, &email)
		if err != nil {
			return nil, err
		}
		out[email] = u
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return out, nil
	}
	args = append([]any{int(user.TypeIndividual)}, names...)
	args = append(args, condArgs...)
	list, err := a.Users.Store.List(ctx, "WHERE u.type = ? AND u.lower_name IN "+db.In(len(names))+" AND "+cond, args...)
	if err != nil {
		return nil, err
	}
	for _, u := range list {
		if e := byName[u.LowerName]; e != "" && out[e] == nil {
			out[e] = u
		}
	}
	return out, nil
}

// commitEmails lists the author and committer addresses of commits.
func commitEmails(commits []git.CommitObject) []string {
	out := make([]string, 0, 2*len(commits))
	for _, c := range commits {
		out = append(out, c.Author.Email, c.Committer.Email)
	}
	return out
}

// fileStatusNames maps git's name-status letters to Gitea's words.
func fileStatusName(s string) string {
	switch s {
	case "A":
		return "added"
	case "D":
		return "removed"
	}
	return "modified"
}

// toCommits renders commits for the caller with a fixed number of git
// processes and queries: one for the accounts of all addresses, one diff
// per option for all commits.
func (a *API) toCommits(ctx context.Context, r *http.Request, rc *repoContext, commits []git.CommitObject, opts commitOptions) ([]*types.Commit, error) {
	v := viewer(r)
	users, err := a.usersByEmail(ctx, v, commitEmails(commits))
	if err != nil {
		return nil, err
	}
	plain := make([]git.Commit, len(commits))
	for i, c := range commits {
		plain[i] = c.Commit
	}
	path := a.Repos.Path(rc.Repo)
	var stats map[string]git.DiffStats
	if opts.Stat {
		if stats, err = a.Repos.Git.CommitsNumstat(ctx, path, plain); err != nil {
			return nil, err
		}
	}
	var files map[string][]git.FileStatus
	if opts.Files {
		if files, err = a.Repos.Git.CommitsFiles(ctx, path, plain); err != nil {
			return nil, err
		}
	}
	var verifs []*types.PayloadCommitVerification
	if opts.Verification {
		if verifs, err = a.verifications(ctx, commits); err != nil {
			return nil, err
		}
	}
	base := a.repoAPIURL(rc)
	html := a.repoHTMLURL(rc)
	out := make([]*types.Commit, 0, len(commits))
	for i, c := range commits {
		tc := &types.Commit{
			URL: base + "/git/commits/" + c.SHA, SHA: c.SHA, Created: c.Committer.When, HTMLURL: html + "/commit/" + c.SHA,
			Commit: &types.RepoCommit{
				URL: base + "/git/commits/" + c.SHA, Author: commitUser(c.Author, false), Committer: commitUser(c.Committer, false),
				Message: c.Message, Tree: &types.CommitMeta{URL: base + "/git/trees/" + c.Tree, SHA: c.Tree, Created: c.Committer.When},
			},
			Parents: make([]*types.CommitMeta, 0, len(c.Parents)),
		}
		if u := users[strings.ToLower(c.Author.Email)]; u != nil {
			tc.Author = a.toUser(u, v)
		}
		if u := users[strings.ToLower(c.Committer.Email)]; u != nil {
			tc.Committer = a.toUser(u, v)
		}
		for _, p := range c.Parents {
			tc.Parents = append(tc.Parents, &types.CommitMeta{URL: base + "/git/commits/" + p, SHA: p})
		}
		if opts.Verification {
			tc.Commit.Verification = verifs[i]
		}
		if opts.Stat {
			st := stats[c.SHA]
			tc.Stats = &types.CommitStats{Total: st.Additions + st.Deletions, Additions: st.Additions, Deletions: st.Deletions}
		}
		if opts.Files {
			tc.Files = make([]*types.CommitAffectedFiles, 0, len(files[c.SHA]))
			for _, f := range files[c.SHA] {
				tc.Files = append(tc.Files, &types.CommitAffectedFiles{Filename: f.Path, Status: fileStatusName(f.Status)})
			}
		}
		out = append(out, tc)
	}
	return out, nil
}

// toPayloadCommit renders the tip of a branch.
func (a *API) toPayloadCommit(rc *repoContext, c git.CommitObject, users map[string]*user.User) *types.PayloadCommit {
	who := func(s git.Signature) *types.PayloadUser {
		pu := &types.PayloadUser{Name: s.Name, Email: s.Email}
		if u := users[strings.ToLower(s.Email)]; u != nil {
			pu.UserName = u.Name
		}
		return pu
	}
	return &types.PayloadCommit{
		ID: c.SHA, Message: c.Message, URL: a.repoHTMLURL(rc) + "/commit/" + c.SHA,
		Author: who(c.Author), Committer: who(c.Committer), Timestamp: c.Author.When,
		Verification: verification(c.Signature, c.Payload),
	}
}

// commitNotFound maps a revision git does not know to 404.
func commitNotFound(err error, rev string) error {
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
		return errs.NotFound("commit %q does not exist", rev)
	}
	return err
}

// listCommits serves GET /commits: a page of the history of ?sha= (default
// branch by default), limited to ?path= and without what ?not= reaches, with
// Gitea's paging headers. Only the page is read from git.
func (a *API) listCommits(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if rc.Repo.IsEmpty {
		a.errorJSON(w, http.StatusConflict, "Git Repository is empty.")
		return
	}
	q := r.URL.Query()
	sha, p, not := q.Get("sha"), q.Get("path"), q.Get("not")
	if sha == "" {
		sha = rc.Repo.DefaultBranch
	}
	if !validRevision(sha) {
		a.fail(w, r, errs.InvalidField("sha", "no valid ref or sha: %s", sha))
		return
	}
	if not != "" && !validRevision(not) {
		a.fail(w, r, errs.InvalidField("not", "no valid ref or sha: %s", not))
		return
	}
	cleanPath, err := git.CleanTreePath(p)
	if err != nil {
		a.fail(w, r, errs.InvalidField("path", "invalid path %q: it must be relative, without '..' or '.git'", p))
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	head, err := a.Repos.Git.ResolveCommit(ctx, path, sha)
	if err != nil {
		a.fail(w, r, commitNotFound(err, sha))
		return
	}
	opts := git.RevListOptions{Revs: []string{head}, Path: cleanPath}
	if not != "" {
		notSHA, err := a.Repos.Git.ResolveCommit(ctx, path, not)
		if err != nil {
			a.fail(w, r, commitNotFound(err, not))
			return
		}
		opts.Not = []string{notSHA}
	}
	total, err := a.Repos.Git.CountCommits(ctx, path, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if cleanPath != "" && total == 0 {
		a.fail(w, r, errs.NotFound("no commit touches %q", cleanPath))
		return
	}
	pg := a.paging(r)
	opts.Skip, opts.Limit = pg.Offset(), pg.Limit
	shas, err := a.Repos.Git.RevList(ctx, path, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	commits, err := a.Repos.Git.ReadCommits(ctx, path, shas)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.toCommits(ctx, r, rc, commits, commitOptionsOf(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, int64(total))
	pages := (total + pg.Limit - 1) / pg.Limit
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(pg.Page))
	h.Set("X-PerPage", strconv.Itoa(pg.Limit))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-PageCount", strconv.Itoa(pages))
	h.Set("X-HasMore", strconv.FormatBool(pg.Page < pages))
	h.Set("Access-Control-Expose-Headers", h.Get("Access-Control-Expose-Headers")+", X-Page, X-PerPage, X-Total, X-PageCount, X-HasMore")
	writeJSON(w, http.StatusOK, list)
}

// getNote serves GET /git/notes/{sha}: the git note of a commit (under
// refs/notes/commits) with the commit of the notes history that last changed
// it, as Gitea answers; 404 when the commit has no note.
func (a *API) getNote(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	sha := pathParam(r, "sha")
	if !validRevision(sha) {
		a.fail(w, r, errs.Invalid("no valid ref or sha: %s", sha))
		return
	}
	ctx := r.Context()
	gitDir := a.Repos.Path(rc.Repo)
	id, err := a.Repos.Git.ResolveCommit(ctx, gitDir, sha)
	if err != nil {
		a.fail(w, r, commitNotFound(err, sha))
		return
	}
	message, changed, err := a.Repos.Git.Note(ctx, gitDir, id)
	if errors.Is(err, git.ErrNotFound) {
		err = errs.NotFound("commit %s has no note", sha)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	commits, err := a.Repos.Git.ReadCommits(ctx, gitDir, []string{changed})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	opts := commitOptionsOf(r)
	opts.Stat = true
	list, err := a.toCommits(ctx, r, rc, commits, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, types.Note{Message: string(message), Commit: list[0]})
}

// getGitCommit serves GET /git/commits/{sha} (one commit) and
// GET /git/commits/{sha}.diff|.patch (its raw diff or patch).
func (a *API) getGitCommit(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	sha := pathParam(r, "sha")
	for _, kind := range []string{"diff", "patch"} {
		if rev, ok := strings.CutSuffix(sha, "."+kind); ok && rev != "" {
			a.commitDiff(w, r, rev, kind)
			return
		}
	}
	if !validRevision(sha) {
		a.fail(w, r, errs.Invalid("no valid ref or sha: %s", sha))
		return
	}
	ctx := r.Context()
	commits, err := a.Repos.Git.ReadCommits(ctx, a.Repos.Path(rc.Repo), []string{sha})
	if err != nil {
		a.fail(w, r, commitNotFound(err, sha))
		return
	}
	list, err := a.toCommits(ctx, r, rc, commits, commitOptionsOf(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list[0])
}

package v1

import (
	"context"
	"errors"
	"net/http"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
)

// maxRefNameLen is Gitea's bound on branch and tag names given in a body.
const maxRefNameLen = 100

// toBranches renders branches for the caller: their tips are read in one
// git process, their authors' accounts in one query and their signatures
// checked with a fixed number of queries.
func (a *API) toBranches(ctx context.Context, r *http.Request, rc *repoContext, branches []git.Branch) ([]*types.Branch, error) {
	out := make([]*types.Branch, 0, len(branches))
	if len(branches) == 0 {
		return out, nil
	}
	shas := make([]string, len(branches))
	for i, b := range branches {
		shas[i] = b.Commit.SHA
	}
	commits, err := a.Repos.Git.ReadCommits(ctx, a.Repos.Path(rc.Repo), shas)
	if err != nil {
		return nil, err
	}
	users, err := a.usersByEmail(ctx, viewer(r), commitEmails(commits))
	if err != nil {
		return nil, err
	}
	verified, err := a.verifications(ctx, commits)
	if err != nil {
		return nil, err
	}
	d := doer(r)
	canWrite := d != nil && rc.Perm.CanWrite(repo.UnitCode)
	// The repository's rules are loaded once, the caller's teams only
	// when a matching rule names teams.
	rules, err := a.Protect.BranchRules(ctx, rc.Repo.ID)
	if err != nil {
		return nil, err
	}
	var teams []int64
	teamsLoaded := false
	for i, b := range branches {
		br := &types.Branch{
			Name: b.Name, Commit: a.toPayloadCommit(rc, commits[i], users), StatusCheckContexts: []string{},
			UserCanPush: canWrite, UserCanMerge: canWrite,
		}
		br.Commit.Verification = verified[i]
		if rule := rules.Match(b.Name); rule != nil {
			br.Protected, br.RequiredApprovals, br.EnableStatusCheck = true, rule.RequiredApprovals, rule.EnableStatusCheck
			br.EffectiveBranchProtectionName = rule.RuleName
			if rule.StatusCheckContexts != nil {
				br.StatusCheckContexts = rule.StatusCheckContexts
			}
			br.UserCanPush, br.UserCanMerge = false, false
			if d != nil {
				if !teamsLoaded && rule.UsesTeams() {
					if teams, err = a.Protect.UserTeams(ctx, d.ID); err != nil {
						return nil, err
					}
					teamsLoaded = true
				}
				br.UserCanPush = rule.UserCanPush(d.ID, teams) && (rule.EnableWhitelist || canWrite)
				br.UserCanMerge = rule.UserCanMerge(d.ID, teams, canWrite)
			}
		}
		out = append(out, br)
	}
	return out, nil
}

// listBranches serves GET /branches: a page of the branches by name. The
// references are read as a stream; only the page is kept.
func (a *API) listBranches(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	pg := a.paging(r)
	ctx := r.Context()
	branches, total, err := a.Repos.Git.ListBranches(ctx, a.Repos.Path(rc.Repo), git.ListOptions{Skip: pg.Offset(), Limit: pg.Limit})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.toBranches(ctx, r, rc, branches)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, int64(total))
	writeJSON(w, http.StatusOK, list)
}

// branchNotFound is the answer for a branch that does not exist.
func branchNotFound(name string) error {
	return errs.NotFound("branch %q does not exist", name)
}

// loadBranch returns the branch name of the repository, or 404.
func (a *API) loadBranch(ctx context.Context, rc *repoContext, name string) (git.Branch, error) {
	if !git.ValidBranchName(name) {
		return git.Branch{}, branchNotFound(name)
	}
	b, err := a.Repos.Git.GetBranch(ctx, a.Repos.Path(rc.Repo), name)
	if errors.Is(err, git.ErrNotFound) {
		return git.Branch{}, branchNotFound(name)
	}
	return b, err
}

// writeBranch answers with one branch.
func (a *API) writeBranch(w http.ResponseWriter, r *http.Request, rc *repoContext, status int, b git.Branch) {
	list, err := a.toBranches(r.Context(), r, rc, []git.Branch{b})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, list[0])
}

// getBranch serves GET /branches/{branch} (the name may hold slashes).
func (a *API) getBranch(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	b, err := a.loadBranch(r.Context(), rc, wildcardName(r, "branch"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeBranch(w, r, rc, http.StatusOK, b)
}

// refNameField checks a branch or tag name given in a body: required, at
// most 100 characters, a valid reference name.
func refNameField(field, title, v string, required bool) error {
	if v == "" {
		if required {
			return errs.InvalidField(field, "[%s]: Required", title)
		}
		return nil
	}
	if len([]rune(v)) > maxRefNameLen {
		return errs.InvalidField(field, "[%s]: MaxSize", title)
	}
	if !git.ValidBranchName(v) {
		return errs.InvalidField(field, "[%s]: GitRefName", title)
	}
	return nil
}

// writableRefs refuses reference changes in empty repositories (404) and
// mirrors (403), as Gitea does.
func writableRefs(rc *repoContext) error {
	if rc.Repo.IsEmpty {
		return errEmptyRepo()
	}
	if rc.Repo.IsMirror {
		return errs.Forbidden("Git Repository is a mirror.")
	}
	return nil
}

// createBranch serves POST /branches (201): a new branch at old_ref_name (any
// branch, tag or commit), old_branch_name (a branch), or the default branch.
func (a *API) createBranch(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var opt types.CreateBranchRepoOption
	if err := decode(r, &opt); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := firstErr(
		refNameField("new_branch_name", "BranchName", opt.BranchName, true),
		refNameField("old_branch_name", "OldBranchName", opt.OldBranchName, false),
	); err != nil {
		a.fail(w, r, err)
		return
	}
	if opt.OldRefName != "" && (len(opt.OldRefName) > maxRefNameLen || !validRevision(opt.OldRefName)) {
		a.fail(w, r, errs.InvalidField("old_ref_name", "[OldRefName]: GitRefName"))
		return
	}
	if err := writableRefs(rc); err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	oldMissing := errs.NotFound("The old branch does not exist")
	var start string
	switch {
	case opt.OldRefName != "":
		sha, err := a.Repos.Git.ResolveCommit(ctx, path, opt.OldRefName)
		if err != nil {
			a.fail(w, r, commitNotFound(err, opt.OldRefName))
			return
		}
		start = sha
	default:
		from := opt.OldBranchName
		if from == "" {
			from = rc.Repo.DefaultBranch
		}
		b, err := a.Repos.Git.GetBranch(ctx, path, from)
		if err != nil {
			if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
				err = oldMissing
			}
			a.fail(w, r, err)
			return
		}
		start = b.Commit.SHA
	}
	if _, err := a.Repos.Git.GetBranch(ctx, path, opt.BranchName); err == nil {
		a.fail(w, r, errs.Conflict("The branch already exists."))
		return
	}
	if _, err := a.Repos.Git.GetTag(ctx, path, opt.BranchName); err == nil {
		a.fail(w, r, errs.Conflict("The branch with the same tag already exists."))
		return
	}
	ref := git.BranchPrefix + opt.BranchName
	up := []hooks.RefUpdate{{OldSHA: zeroSHA(start), NewSHA: start, Ref: ref}}
	err := a.changeRefs(r, rc, up, up, func() error {
		_, err := a.Repos.Git.CreateBranch(ctx, path, opt.BranchName, start)
		switch {
		case errors.Is(err, git.ErrAlreadyExists):
			return errs.Conflict("The branch already exists.")
		case errors.Is(err, git.ErrConflict):
			return errs.Conflict("The branch with the same name already exists.")
		case errors.Is(err, git.ErrNotFound):
			return oldMissing
		}
		return err
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	b, err := a.loadBranch(ctx, rc, opt.BranchName)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeBranch(w, r, rc, http.StatusCreated, b)
}

// deleteBranch serves DELETE /branches/{branch} (204). The default branch
// cannot be deleted (403), nor a branch the push rules protect.
func (a *API) deleteBranch(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if err := writableRefs(rc); err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	name := wildcardName(r, "branch")
	b, err := a.loadBranch(ctx, rc, name)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if name == rc.Repo.DefaultBranch {
		a.fail(w, r, errs.Forbidden("can not delete default branch"))
		return
	}
	sha := b.Commit.SHA
	up := []hooks.RefUpdate{{OldSHA: sha, NewSHA: zeroSHA(sha), Ref: git.BranchPrefix + name}}
	err = a.changeRefs(r, rc, up, up, func() error {
		err := a.Repos.Git.DeleteBranch(ctx, a.Repos.Path(rc.Repo), name, sha)
		switch {
		case errors.Is(err, git.ErrNotFound):
			return branchNotFound(name)
		case errors.Is(err, git.ErrConflict):
			return errs.Conflict("branch %q moved while it was being deleted", name)
		}
		return err
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// renameBranch serves PATCH /branches/{branch} (204) with {"name": new}.
// Renaming the default branch needs repository administration, and moves
// the default branch along.
func (a *API) renameBranch(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var opt types.UpdateBranchRepoOption
	if err := decode(r, &opt); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := refNameField("name", "Name", opt.Name, true); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := writableRefs(rc); err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	oldName := wildcardName(r, "branch")
	b, err := a.loadBranch(ctx, rc, oldName)
	if err != nil {
		a.fail(w, r, errs.NotFound("Branch doesn't exist."))
		return
	}
	isDefault := oldName == rc.Repo.DefaultBranch
	if isDefault && !rc.Perm.IsAdmin() {
		a.fail(w, r, errs.Forbidden("User must be a repo or site admin to rename default or protected branches."))
		return
	}
	taken := errs.Invalid("Cannot rename a branch using the same name or rename to a branch that already exists.")
	if opt.Name == oldName {
		a.fail(w, r, taken)
		return
	}
	if _, err := a.Repos.Git.GetBranch(ctx, path, opt.Name); err == nil {
		a.fail(w, r, taken)
		return
	}
	sha := b.Commit.SHA
	updates := []hooks.RefUpdate{
		{OldSHA: zeroSHA(sha), NewSHA: sha, Ref: git.BranchPrefix + opt.Name},
		{OldSHA: sha, NewSHA: zeroSHA(sha), Ref: git.BranchPrefix + oldName},
	}
	// Administrators may rename protected and default branches: the rules
	// only see the new branch then.
	check := updates
	if rc.Perm.IsAdmin() {
		check = updates[:1]
	}
	err = a.changeRefs(r, rc, check, updates, func() error {
		err := a.Repos.Git.RenameBranch(ctx, path, oldName, opt.Name)
		switch {
		case errors.Is(err, git.ErrAlreadyExists), errors.Is(err, git.ErrConflict):
			return taken
		case errors.Is(err, git.ErrNotFound):
			return errs.NotFound("Branch doesn't exist.")
		case err != nil:
			return err
		}
		if !isDefault {
			return nil
		}
		// The record is reloaded so that nothing else of it is written back.
		fresh, err := a.Repos.Store.GetByID(context.WithoutCancel(ctx), rc.Repo.ID)
		if err != nil {
			return err
		}
		fresh.DefaultBranch = opt.Name
		rc.Repo.DefaultBranch = opt.Name
		return a.Repos.Store.Update(context.WithoutCancel(ctx), fresh)
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

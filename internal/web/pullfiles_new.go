package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// pullNewMaxCommits bounds the commits the new pull request form lists.
const pullNewMaxCommits = 50

// pullNewPage is the data of the new pull request form.
type pullNewPage struct {
	// Base is the base branch; Head the head as given ("branch",
	// "owner:branch" or "owner/repo:branch"), HeadBranch its branch.
	Base, Head, HeadBranch string
	HeadRepo               *repo.Repository
	Title, Body            string
	// Commits are the head's commits the base lacks (same repository only).
	Commits []git.Commit
	Total   int
	// Branches are offered as bases.
	Branches []string
	// Action is where the form posts; CompareLink the comparison page
	// (empty when the visitor cannot read the code).
	Action, CompareLink string
	Error               string
	// Existing links to the open pull request of the same branches.
	Existing string
}

// pullHead finds the repository and branch head names for a pull request
// into rc's repository: "branch" (this repository), "owner:branch" (this
// repository, its parent, or a fork of either, owned by owner) or
// "owner/repo:branch" (a repository of the same fork network). A repository
// the visitor cannot read the code of is not found.
func (h *Handler) pullHead(ctx context.Context, rc *repoCtx, d *user.User, head string) (*repo.Repository, string, error) {
	who, branch, found := strings.Cut(head, ":")
	if !found {
		return rc.Repo, head, nil
	}
	missing := errs.NotFound("head repository does not exist [head: %s]", head)
	if who == "" || branch == "" {
		return nil, "", errs.InvalidField("head", "invalid head %q", head)
	}
	base := rc.Repo
	parent := int64(-1)
	if base.IsFork && base.ForkID > 0 {
		parent = base.ForkID
	}
	var cand *repo.Repository
	if ownerName, name, ok := strings.Cut(who, "/"); ok {
		rp, err := h.Repos.Get(ctx, ownerName, name)
		if errs.IsNotFound(err) {
			return nil, "", missing
		}
		if err != nil {
			return nil, "", err
		}
		cand = rp
	} else if strings.EqualFold(who, rc.Owner.Name) {
		cand = base
	} else {
		owner, err := h.Users.Store.GetByName(ctx, who)
		if errs.IsNotFound(err) {
			return nil, "", missing
		}
		if err != nil {
			return nil, "", err
		}
		list, err := h.Repos.List(ctx, "WHERE r.owner_id = ? AND (r.id = ? OR r.fork_id = ? OR r.fork_id = ?) ORDER BY r.id LIMIT 1",
			owner.ID, parent, base.ID, parent)
		if err != nil {
			return nil, "", err
		}
		if len(list) == 0 {
			return nil, "", missing
		}
		cand = list[0]
	}
	// One fork network: the repository itself, its parent, its forks, or
	// forks of its parent.
	root := func(r *repo.Repository) int64 {
		if r.IsFork && r.ForkID > 0 {
			return r.ForkID
		}
		return r.ID
	}
	if root(cand) != root(base) {
		return nil, "", missing
	}
	if cand.ID != base.ID {
		owner, err := h.Users.Store.GetByID(ctx, cand.OwnerID)
		if err != nil {
			return nil, "", err
		}
		perm, err := h.Access.RepoPermission(ctx, d, cand, owner)
		if err != nil {
			return nil, "", err
		}
		if !cand.HasUnit(repo.UnitCode) || !perm.CanRead(repo.UnitCode) {
			return nil, "", missing
		}
	} else if !rc.Perm.CanRead(repo.UnitCode) {
		return nil, "", errs.NotFound("The target couldn't be found.")
	}
	return cand, branch, nil
}

// pullCompareSpec splits {base}...{head} of a comparison address; a base
// naming this repository ("owner:branch") is reduced to its branch.
func pullCompareSpec(rc *repoCtx, spec string) (string, string, error) {
	base, head, ok := strings.Cut(spec, "...")
	if !ok {
		base, head = rc.Repo.DefaultBranch, spec
	}
	if prefix, branch, ok := strings.Cut(base, ":"); ok {
		if !strings.EqualFold(prefix, rc.Owner.Name) && !strings.EqualFold(prefix, rc.Owner.Name+"/"+rc.Repo.Name) {
			return "", "", errs.InvalidField("base", "the base must be a branch of this repository")
		}
		base = branch
	}
	return base, head, nil
}

// pullNewData fills the form's data for base and head: the branches, and
// for a head in this repository its commits and a title from them.
func (h *Handler) pullNewData(ctx context.Context, rc *repoCtx, d *user.User, base, head string) (*pullNewPage, error) {
	headRepo, branch, err := h.pullHead(ctx, rc, d, head)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(base, "-") || !git.ValidBranchName(base) {
		return nil, errs.InvalidField("base", "invalid base branch %q", base)
	}
	if strings.HasPrefix(branch, "-") || !git.ValidBranchName(branch) {
		return nil, errs.InvalidField("head", "invalid head branch %q", branch)
	}
	data := &pullNewPage{Base: base, Head: head, HeadBranch: branch, HeadRepo: headRepo, Branches: h.releaseBranches(ctx, rc),
		Action: rc.Link + "/compare/" + escapeSegments(base) + "..." + escapeSegments(head)}
	if rc.Perm.CanRead(repo.UnitCode) {
		data.CompareLink = data.Action
	}
	if headRepo.ID == rc.Repo.ID {
		path := h.Repos.Path(rc.Repo)
		opts := git.RevListOptions{Revs: []string{git.BranchPrefix + branch}, Not: []string{git.BranchPrefix + base}}
		if data.Total, err = h.Git.CountCommits(ctx, path, opts); err == nil && data.Total > 0 {
			opts.Limit = pullNewMaxCommits
			if shas, err := h.Git.RevList(ctx, path, opts); err == nil {
				objs, err := h.Git.ReadCommits(ctx, path, shas)
				if err != nil {
					return nil, err
				}
				for _, o := range objs {
					data.Commits = append(data.Commits, o.Commit)
				}
			}
		}
	}
	data.Title = branch
	if len(data.Commits) == 1 {
		data.Title = data.Commits[0].Subject()
	}
	return data, nil
}

// newPullForm serves /pulls/new/{head}: the form of a pull request from
// head into the default branch (or ?base=).
func (h *Handler) newPullForm(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoUnit(r, repo.UnitPulls, "pulls")
	if err != nil {
		return err
	}
	if err := signedIn(r); err != nil {
		return err
	}
	if rc.Repo.IsEmpty {
		return errs.NotFound("empty repository")
	}
	base := r.URL.Query().Get("base")
	if base == "" {
		base = rc.Repo.DefaultBranch
	}
	data, err := h.pullNewData(r.Context(), rc, doer(r), base, routeWildcard(r))
	if err != nil {
		return err
	}
	if _, err := h.Git.ResolveCommit(r.Context(), h.Repos.Path(data.HeadRepo), git.BranchPrefix+data.HeadBranch); err != nil {
		if errors.Is(err, git.ErrNotFound) {
			return errs.NotFound("no such branch")
		}
		return err
	}
	return h.renderRepo(w, r, http.StatusOK, "pull_new", "New pull request", rc, data)
}

// createPullFromCompare serves POST /compare/{base}...{head}: a new pull
// request with the form's title and body, checked as the API's create (409
// when one is open for the same branches, 422 when head is base), then
// its page.
func (h *Handler) createPullFromCompare(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoUnit(r, repo.UnitPulls, "pulls")
	if err != nil {
		return err
	}
	if err := signedIn(r); err != nil {
		return err
	}
	if rc.Repo.IsEmpty {
		return errs.NotFound("empty repository")
	}
	base, head, err := pullCompareSpec(rc, routeWildcard(r))
	if err != nil {
		return err
	}
	ctx := r.Context()
	data, err := h.pullNewData(ctx, rc, doer(r), base, head)
	if err != nil {
		return err
	}
	data.Title, data.Body = strings.TrimSpace(r.PostFormValue("title")), r.PostFormValue("body")
	var p *pull.PullRequest
	switch {
	case data.Title == "":
		err = errs.InvalidField("title", "The title is required.")
	case utf8.RuneCountInString(data.Title) > issue.MaxTitleLength:
		err = errs.InvalidField("title", "The title is longer than %d characters.", issue.MaxTitleLength)
	default:
		p, err = h.Pulls.Create(ctx, doer(r), rc.Repo, pull.CreateOptions{HeadRepo: data.HeadRepo, HeadBranch: data.HeadBranch,
			BaseBranch: data.Base, Issue: issue.CreateOptions{Title: data.Title, Body: data.Body}})
	}
	if err != nil {
		var e *errs.Error
		if !errors.As(err, &e) {
			return err
		}
		status := http.StatusUnprocessableEntity
		data.Error = e.Message
		switch e.Kind {
		case errs.KindConflict, errs.KindAlreadyExists:
			status = http.StatusConflict
			data.Error = "A pull request from " + data.Head + " into " + data.Base + " is already open."
			if old, err := h.Pulls.GetByBaseHead(ctx, rc.Repo, data.Base, data.HeadRepo.ID, data.HeadBranch); err == nil {
				data.Existing = rc.Link + "/pulls/" + strconv.FormatInt(old.Index, 10)
			}
		case errs.KindInvalid, errs.KindBadRequest:
		case errs.KindForbidden:
			status = http.StatusForbidden
		default:
			return err
		}
		return h.renderRepo(w, r, status, "pull_new", "New pull request", rc, data)
	}
	h.flash(w, "success", "Pull request #"+strconv.FormatInt(p.Index, 10)+" opened.")
	http.Redirect(w, r, rc.Link+"/pulls/"+strconv.FormatInt(p.Index, 10), http.StatusSeeOther)
	return nil
}

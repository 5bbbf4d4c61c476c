package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
)

// Kinds of codeRef, the second segment of /src/{kind}/... addresses.
const (
	codeRefBranch = "branch"
	codeRefTag    = "tag"
	codeRefCommit = "commit"
)

// codeRef is the revision and path a code page shows: a branch, a tag or a
// commit, the commit it resolves to, and a clean tree path.
type codeRef struct {
	Kind string
	// Name is the branch or tag name, or the commit name as written.
	Name string
	// Commit is the full name of the commit shown.
	Commit string
	// Path is the clean tree path ("" for the root).
	Path string
}

// URLPart is the escaped "{kind}/{name}" of the ref's addresses.
func (c *codeRef) URLPart() string { return c.Kind + "/" + escapeSegments(c.Name) }

// PathURL is the escaped "{kind}/{name}/{path}" of a path at this ref.
func (c *codeRef) PathURL(p string) string {
	if p == "" {
		return c.URLPart()
	}
	return c.URLPart() + "/" + escapeSegments(p)
}

// ShortName is the name to show: a commit's first ten digits.
func (c *codeRef) ShortName() string {
	if c.Kind == codeRefCommit && len(c.Name) > 10 {
		return c.Name[:10]
	}
	return c.Name
}

// codeWildcard is the decoded "*" of the route: chi matches the escaped path
// when the request has one, the decoded path otherwise.
func codeWildcard(r *http.Request) (string, error) {
	v := chi.URLParam(r, "*")
	if r.URL.RawPath == "" {
		return v, nil
	}
	s, err := url.PathUnescape(v)
	if err != nil {
		return "", errs.NotFound("bad path")
	}
	return s, nil
}

// gitNotFound turns git's "no such thing" and refused arguments (names a
// visitor typed) into a 404 page.
func gitNotFound(err error) error {
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
		return errs.NotFound("%v", err)
	}
	return err
}

// isCommitName reports 7 to 64 lower-case hexadecimal digits: a commit name
// in an address.
func isCommitName(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// resolveRef reads "{name}/{path}" after /{kind}/ in an address. A branch
// or tag name may contain slashes: the longest leading run of segments that
// names an existing branch (tag) wins, read from the ref store without
// starting git. A commit is named by 7 to 64 hex digits.
func (c *codePages) resolveRef(ctx context.Context, repoPath, kind, rest string) (*codeRef, error) {
	rest = strings.Trim(rest, "/")
	if rest == "" {
		return nil, errs.NotFound("no reference")
	}
	ref := &codeRef{Kind: kind}
	var pathPart string
	switch kind {
	case codeRefCommit:
		name, p, _ := strings.Cut(rest, "/")
		if !isCommitName(name) {
			return nil, errs.NotFound("not a commit name")
		}
		sha, err := c.h.Git.ResolveCommit(ctx, repoPath, name)
		if err != nil {
			return nil, gitNotFound(err)
		}
		ref.Name, ref.Commit, pathPart = name, sha, p
	case codeRefBranch, codeRefTag:
		prefix := git.BranchPrefix
		if kind == codeRefTag {
			prefix = git.TagPrefix
		}
		segs := strings.Split(rest, "/")
		var candidates []string
		for i := 1; i <= len(segs); i++ {
			if name := strings.Join(segs[:i], "/"); git.ValidBranchName(name) {
				candidates = append(candidates, prefix+name)
			}
		}
		if len(candidates) == 0 {
			return nil, errs.NotFound("no such %s", kind)
		}
		tips, err := c.h.Git.RefTips(ctx, repoPath, candidates)
		if err != nil {
			return nil, err
		}
		for i := len(candidates) - 1; i >= 0; i-- {
			if tip, ok := tips[candidates[i]]; ok {
				ref.Name, ref.Commit = strings.TrimPrefix(candidates[i], prefix), tip
				break
			}
		}
		if ref.Name == "" {
			return nil, errs.NotFound("no such %s", kind)
		}
		pathPart = strings.TrimPrefix(strings.TrimPrefix(rest, ref.Name), "/")
		if kind == codeRefTag {
			// An annotated tag points at a tag object: peel it.
			if ref.Commit, err = c.h.Git.ResolveCommit(ctx, repoPath, ref.Commit); err != nil {
				return nil, gitNotFound(err)
			}
		}
	default:
		return nil, errs.NotFound("no such reference kind")
	}
	p, err := git.CleanTreePath(pathPart)
	if err != nil {
		return nil, errs.NotFound("bad path")
	}
	ref.Path = p
	return ref, nil
}

// loadRef loads the repository of a /{kind}/{ref}/{path} code page (the
// code unit readable, not empty) and resolves the reference and path.
func (c *codePages) loadRef(r *http.Request, kind string) (*repoCtx, string, *codeRef, error) {
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return nil, "", nil, err
	}
	if rc.Repo.IsEmpty {
		return nil, "", nil, errs.NotFound("empty repository")
	}
	rest, err := codeWildcard(r)
	if err != nil {
		return nil, "", nil, err
	}
	repoPath := c.h.Repos.Path(rc.Repo)
	ref, err := c.resolveRef(r.Context(), repoPath, kind, rest)
	if err != nil {
		return nil, "", nil, err
	}
	return rc, repoPath, ref, nil
}

// resolveLegacy reads the older "/src/{name}/{path}" addresses, where name
// may be a branch, a tag or a commit (in that order), into a ref whose
// canonical address the caller redirects to.
func (c *codePages) resolveLegacy(ctx context.Context, repoPath, rest string) (*codeRef, error) {
	for _, kind := range []string{codeRefBranch, codeRefTag} {
		ref, err := c.resolveRef(ctx, repoPath, kind, rest)
		if err == nil {
			return ref, nil
		}
		if !errs.IsNotFound(err) {
			return nil, err
		}
	}
	return c.resolveRef(ctx, repoPath, codeRefCommit, rest)
}

// defaultRef is the root of the repository's default branch; ErrNotFound
// (as a git error) when the branch does not exist.
func (c *codePages) defaultRef(ctx context.Context, repoPath, branch string) (*codeRef, error) {
	if !git.ValidBranchName(branch) {
		return nil, git.ErrNotFound
	}
	tips, err := c.h.Git.RefTips(ctx, repoPath, []string{git.BranchPrefix + branch})
	if err != nil {
		return nil, err
	}
	tip, ok := tips[git.BranchPrefix+branch]
	if !ok {
		return nil, git.ErrNotFound
	}
	return &codeRef{Kind: codeRefBranch, Name: branch, Commit: tip}, nil
}

// refNames lists up to codeMaxRefChoices branch and tag names (for the
// selector) and whether there were more of either; they are read again
// after a push or once refNamesTTL has passed.
func (c *codePages) refNames(ctx context.Context, repoPath string) (branches, tags []string, more bool, err error) {
	if n, ok := c.refNamesCache.get(repoPath); ok && c.h.Now().Sub(n.at) < refNamesTTL {
		return n.branches, n.tags, n.more, nil
	}
	errEnough := errors.New("enough")
	for _, side := range []struct {
		prefix string
		out    *[]string
	}{{git.BranchPrefix, &branches}, {git.TagPrefix, &tags}} {
		err = c.h.Git.WalkRefs(ctx, repoPath, side.prefix, func(ref git.Ref) error {
			if len(*side.out) == codeMaxRefChoices {
				more = true
				return errEnough
			}
			*side.out = append(*side.out, strings.TrimPrefix(ref.Name, side.prefix))
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return nil, nil, false, err
		}
	}
	c.refNamesCache.put(repoPath, &codeRefNames{branches: branches, tags: tags, more: more, at: c.h.Now()}, 1)
	return branches, tags, more, nil
}

// codeRefNames are a repository's branch and tag names as the menus list
// them, and when they were read.
type codeRefNames struct {
	branches, tags []string
	more           bool
	at             time.Time
}

// refNamesTTL is how long reference names are reused without a change
// announced by Cairn.
const refNamesTTL = 10 * time.Second

// onPush forgets the reference names of a repository whose references
// Cairn changed (pushes, merges, branch and tag APIs, the web editor).
func (c *codePages) onPush(_ context.Context, r *repo.Repository, _ hooks.Request) {
	c.refNamesCache.drop(c.h.Repos.Path(r))
}

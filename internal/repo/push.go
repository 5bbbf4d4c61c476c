package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
)

// PushRule checks ref updates before they are applied (branch protection
// plugs in here). It returns a message refusing the push, or "".
type PushRule func(ctx context.Context, r *Repository, req hooks.Request) (string, error)

// AddPushRule registers a rule; call it only while wiring.
func (s *Service) AddPushRule(rule PushRule) { s.pushRules = append(s.pushRules, rule) }

// PushListener is told about every applied push (events, webhooks, issue references).
type PushListener func(ctx context.Context, r *Repository, req hooks.Request)

// PushTxListener is told about ref updates in two steps: before the
// transaction that records them it prepares what to write (reading git and
// the database: commit summaries, payloads), and the function it returns
// (nil: nothing) writes that inside the transaction (webhook deliveries,
// activity), so the transaction holds no lock while git runs. An error of
// either step fails the recording.
type PushTxListener func(ctx context.Context, r *Repository, req hooks.Request) (func(ctx context.Context) error, error)

// AddPushTxListener registers a listener; call it only while wiring.
func (s *Service) AddPushTxListener(l PushTxListener) { s.pushTx = append(s.pushTx, l) }

// AddPushListener registers a listener; call it only while wiring.
func (s *Service) AddPushListener(l PushListener) { s.pushListeners = append(s.pushListeners, l) }

// MsgNoPush refuses a push to someone who may not write the code.
const MsgNoPush = "You do not have permission to push to this repository."

func isZeroSHA(s string) bool { return strings.Trim(s, "0") == "" }

// PreReceive implements hooks.Decider: a push is refused when the repository
// is gone, archived or a mirror, when it deletes the default branch, when a
// pusher who may only open pull requests (hooks.Request.PullsOnly) updates
// anything but refs/for/, or when a push rule refuses it. refs/for/ updates
// go on to the proc-receive hook, which opens or updates pull requests.
func (s *Service) PreReceive(ctx context.Context, req hooks.Request) (hooks.Response, error) {
	r, err := s.GetByID(ctx, req.RepoID)
	if errs.IsNotFound(err) {
		return hooks.Response{Message: "Cairn: the repository no longer exists."}, nil
	}
	if err != nil {
		return hooks.Response{}, err
	}
	if r.IsArchived {
		return hooks.Response{Message: "Cairn: the repository is archived and read-only."}, nil
	}
	if r.IsMirror {
		return hooks.Response{Message: "Cairn: the repository is a mirror and read-only."}, nil
	}
	for _, u := range req.Updates {
		if req.PullsOnly && !strings.HasPrefix(u.Ref, "refs/for/") {
			return hooks.Response{Message: MsgNoPush}, nil
		}
		if msg := badRefName(u); msg != "" {
			return hooks.Response{Message: msg}, nil
		}
		if u.Ref == "refs/heads/"+r.DefaultBranch && isZeroSHA(u.NewSHA) && !r.IsEmpty {
			return hooks.Response{Message: "Cairn: branch " + r.DefaultBranch + " is the default branch and cannot be deleted."}, nil
		}
	}
	for _, rule := range s.pushRules {
		msg, err := rule(ctx, r, req)
		if err != nil {
			return hooks.Response{}, err
		}
		if msg != "" {
			return hooks.Response{Message: msg}, nil
		}
	}
	return hooks.Response{Allowed: true}, nil
}

// badRefName refuses to create or move a branch or tag whose name git
// itself would not accept as one (a leading '-', "HEAD", "refs/..."): such
// names could not be managed through the API and read like options. Deleting
// one stays possible.
func badRefName(u hooks.RefUpdate) string {
	if isZeroSHA(u.NewSHA) {
		return ""
	}
	for kind, prefix := range map[string]string{"branch": "refs/heads/", "tag": "refs/tags/"} {
		if name, ok := strings.CutPrefix(u.Ref, prefix); ok && !git.ValidBranchName(name) {
			return fmt.Sprintf("Cairn: invalid %s name %q.", kind, name)
		}
	}
	return ""
}

// PostReceive implements hooks.Decider: it records the push (emptiness,
// default branch of a first push, size, update time) and tells listeners.
func (s *Service) PostReceive(ctx context.Context, req hooks.Request) (hooks.Response, error) {
	r, err := s.GetByID(ctx, req.RepoID)
	if err != nil {
		return hooks.Response{Allowed: true}, nil
	}
	if err := s.AfterPush(ctx, r, req); err != nil {
		return hooks.Response{}, err
	}
	return hooks.Response{Allowed: true}, nil
}

// AfterPush records ref updates made by a push or by Cairn itself (API file
// edits, merges): emptiness, default branch, size and update time.
func (s *Service) AfterPush(ctx context.Context, r *Repository, req hooks.Request) error {
	path := s.Path(r)
	// A branch or tag the update set exists: only an update that set none
	// needs git to tell whether any is left.
	empty := false
	if !setsBranchOrTag(req.Updates) {
		var err error
		if empty, err = s.Git.IsEmpty(ctx, path); err != nil {
			return err
		}
	}
	branch := r.DefaultBranch
	if r.IsEmpty && !empty {
		// A first push that does not contain the default branch makes its
		// first branch the default.
		pushed := map[string]bool{}
		var first string
		for _, u := range req.Updates {
			if name, ok := strings.CutPrefix(u.Ref, "refs/heads/"); ok && !isZeroSHA(u.NewSHA) {
				pushed[name] = true
				// Git allows longer branch names than a default branch may have.
				if first == "" && ValidateDefaultBranch(name) == nil {
					first = name
				}
			}
		}
		if !pushed[branch] && first != "" {
			if _, err := s.Git.GetBranch(ctx, path, branch); err != nil {
				branch = first
				if err := s.Git.SetHeadBranch(ctx, path, branch); err != nil {
					return err
				}
			}
		}
	}
	size := r.Size
	if s.sizeLater == nil {
		size = dirSize(path)
	}
	after := *r
	after.IsEmpty, after.DefaultBranch, after.Size = empty, branch, size
	var records []func(ctx context.Context) error
	for _, l := range s.pushTx {
		rec, err := l(ctx, &after, req)
		if err != nil {
			return err
		}
		if rec != nil {
			records = append(records, rec)
		}
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE repository SET is_empty = ?, default_branch = ?, size = ?, updated_unix = ? WHERE id = ?",
			empty, branch, size, time.Now().Unix(), r.ID); err != nil {
			return err
		}
		if s.sizeLater != nil {
			// Walking the directory is left to the background.
			if err := s.sizeLater(ctx, r.ID); err != nil {
				return err
			}
		}
		for _, rec := range records {
			if err := rec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.IsEmpty, r.DefaultBranch = empty, branch
	for _, l := range s.pushListeners {
		l(ctx, r, req)
	}
	return nil
}

// SizeLater records, in the transaction ctx carries, that the size of a
// repository must be measured again (UpdateSize, from a background job).
type SizeLater func(ctx context.Context, repoID int64) error

// SetSizeLater moves the measuring of a repository's size after a push off
// the push's path; call it only while wiring. Without it, pushes measure it
// at once.
func (s *Service) SetSizeLater(f SizeLater) { s.sizeLater = f }

// Housekeep tidies repository id after a burst of pushes, off their path:
// it packs the loose references (a push, a merge and every pull request's
// refs/pull/N/head each leave a file that every later push reads when it
// advertises and checks refs), then measures the directory and stores its
// size. A repository deleted meanwhile is skipped.
func (s *Service) Housekeep(ctx context.Context, id int64) error {
	path := s.PathByID(id)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := s.Git.PackRefs(ctx, path); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "UPDATE repository SET size = ? WHERE id = ?", dirSize(path), id)
	return err
}

// dirSize sums the sizes of the files of a repository directory.
func dirSize(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// setsBranchOrTag tells whether updates point a branch or a tag at a commit.
func setsBranchOrTag(updates []hooks.RefUpdate) bool {
	for _, u := range updates {
		if (strings.HasPrefix(u.Ref, "refs/heads/") || strings.HasPrefix(u.Ref, "refs/tags/")) && !isZeroSHA(u.NewSHA) {
			return true
		}
	}
	return false
}

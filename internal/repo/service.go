package repo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/user"
)

// InitialFiles renders the files of an auto-initialized repository. The
// template set implements it; it is given at construction.
type InitialFiles interface {
	// InitialFiles returns path → content for the README, .gitignore and
	// LICENSE of a new repository; unknown template names are errors.
	InitialFiles(readme, gitignores, license, repoName, description, ownerName string) (map[string][]byte, error)
}

// DeleteHook removes what another package keeps about a repository; it runs
// inside the transaction that deletes the repository's records.
type DeleteHook func(ctx context.Context, r *Repository) error

// AddDeleteHook registers a hook; call it only while wiring.
func (s *Service) AddDeleteHook(h DeleteHook) { s.deleteHooks = append(s.deleteHooks, h) }

// CreateHook runs inside the transaction that records a new repository
// (a fork, a mirror, a generated one included), before its directory is
// filled: default webhooks are copied and the event recorded there. doer
// may be nil (created by the system).
type CreateHook func(ctx context.Context, doer *user.User, r *Repository) error

// AddCreateHook registers a hook; call it only while wiring.
func (s *Service) AddCreateHook(h CreateHook) { s.createHooks = append(s.createHooks, h) }

// MoveHook runs inside the transaction that renames r or gives it to a new
// owner, with r as it is afterwards and the owner and name it had before:
// the event is recorded there. doer may be nil (done by the system).
type MoveHook func(ctx context.Context, doer *user.User, r *Repository, oldOwner, oldName string) error

// AddMoveHook registers a hook; call it only while wiring.
func (s *Service) AddMoveHook(h MoveHook) { s.moveHooks = append(s.moveHooks, h) }

// runMoveHooks runs the move hooks for r, moved from oldOwner/oldName.
func (s *Service) runMoveHooks(ctx context.Context, doer *user.User, r *Repository, oldOwner, oldName string) error {
	for _, h := range s.moveHooks {
		if err := h(ctx, doer, r, oldOwner, oldName); err != nil {
			return err
		}
	}
	return nil
}

// LabelInitializer applies an issue label template to a new repository.
type LabelInitializer interface {
	ApplyLabelTemplate(ctx context.Context, repoID int64, template string) error
}

// SetLabelInitializer registers the label service; call it only while wiring.
func (s *Service) SetLabelInitializer(l LabelInitializer) { s.labels = l }

// Service applies the repository rules and owns the bare directories.
type Service struct {
	db      *db.DB
	Store   *Store
	Git     *git.Git
	users   *user.Service
	cfg     *config.Config
	root    string
	initial InitialFiles

	labels        LabelInitializer
	deleteHooks   []DeleteHook
	createHooks   []CreateHook
	moveHooks     []MoveHook
	sizeLater     SizeLater
	pushTx        []PushTxListener
	statusTx      []StatusTxListener
	pushRules     []PushRule
	pushListeners []PushListener
	// statusListeners hear of new commit statuses.
	statusListeners []StatusListener
	// signing decides whether the commits Cairn writes are signed (nil:
	// never).
	signing CommitSigning
}

// CommitSigning decides, by [repository.signing], whether the instance
// signs a commit it writes for doer, and returns the signing function (nil:
// unsigned).
type CommitSigning interface {
	// Initial is for the first commit of a new repository.
	Initial(ctx context.Context, doer *user.User) (func(payload []byte) (string, error), error)
	// CRUD is for a contents API commit on parent ("" for none).
	CRUD(ctx context.Context, doer *user.User, repoPath, parent string) (func(payload []byte) (string, error), error)
}

// SetCommitSigning sets the signing decisions; call it only while wiring.
func (s *Service) SetCommitSigning(c CommitSigning) { s.signing = c }

// NewService returns the repository service; repositories live under
// <data>/repositories/<id>.git, so renames and transfers touch no files.
func NewService(d *db.DB, g *git.Git, users *user.Service, cfg *config.Config, initial InitialFiles) *Service {
	return &Service{db: d, Store: NewStore(d), Git: g, users: users, cfg: cfg,
		root: cfg.RepositoryRoot(), initial: initial}
}

// Path is the bare directory of r.
func (s *Service) Path(r *Repository) string { return s.PathByID(r.ID) }

// PathByID is the bare directory of repository id.
func (s *Service) PathByID(id int64) string {
	return filepath.Join(s.root, strconv.FormatInt(id, 10)+".git")
}

// CreateOptions describes a new repository.
type CreateOptions struct {
	Name          string
	Description   string
	DefaultBranch string
	ObjectFormat  string
	Private       bool
	AutoInit      bool
	IsTemplate    bool
	Readme        string
	Gitignores    string
	License       string
	IssueLabels   string
	// Fork, template and mirror origins.
	IsFork      bool
	ForkID      int64
	TemplateID  int64
	IsMirror    bool
	OriginalURL string
	Status      int
}

// DefaultUnits are the units a new repository gets: [repository]
// DEFAULT_REPO_UNITS without DISABLED_REPO_UNITS.
func (s *Service) DefaultUnits() map[string]bool {
	out := map[string]bool{}
	for _, u := range s.cfg.Repository.DefaultRepoUnits {
		out[u] = true
	}
	for _, u := range s.cfg.Repository.DisabledRepoUnits {
		delete(out, u)
	}
	return out
}

// UnitDisabled reports whether unit is disabled site-wide.
func (s *Service) UnitDisabled(unit string) bool {
	for _, u := range s.cfg.Repository.DisabledRepoUnits {
		if u == unit {
			return true
		}
	}
	return false
}

// effective removes site-wide disabled units from a loaded repository.
func (s *Service) effective(r *Repository) *Repository {
	for _, u := range s.cfg.Repository.DisabledRepoUnits {
		delete(r.Units, u)
	}
	return r
}

// Get loads owner/name with site-wide disabled units removed.
func (s *Service) Get(ctx context.Context, owner, name string) (*Repository, error) {
	r, err := s.Store.GetByName(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	return s.effective(r), nil
}

// GetWithOwner loads owner/name, with site-wide disabled units removed, and
// its owner's account, in one query.
func (s *Service) GetWithOwner(ctx context.Context, owner, name string) (*Repository, *user.User, error) {
	r, u, err := s.Store.GetWithOwner(ctx, owner, name)
	if err != nil {
		return nil, nil, err
	}
	return s.effective(r), u, nil
}

// GetByID loads a repository by id with site-wide disabled units removed.
func (s *Service) GetByID(ctx context.Context, id int64) (*Repository, error) {
	r, err := s.Store.GetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.effective(r), nil
}

// List selects repositories (see Store.List) with disabled units removed.
func (s *Service) List(ctx context.Context, tail string, args ...any) ([]*Repository, error) {
	list, err := s.Store.List(ctx, tail, args...)
	for _, r := range list {
		s.effective(r)
	}
	return list, err
}

// Create makes a new repository for owner: the record, the bare directory and,
// with AutoInit, a first commit from the templates. On failure nothing is left.
func (s *Service) Create(ctx context.Context, doer, owner *user.User, o CreateOptions) (*Repository, error) {
	if err := ValidateName(o.Name); err != nil {
		return nil, err
	}
	if len(o.Description) > 2048 {
		return nil, errs.InvalidField("description", "[Description]: MaxSize (at most 2048 characters)")
	}
	branch := o.DefaultBranch
	if branch == "" {
		branch = s.cfg.Repository.DefaultBranch
	}
	if err := ValidateDefaultBranch(branch); err != nil {
		return nil, err
	}
	format := o.ObjectFormat
	if format == "" {
		format = "sha1"
	}
	if format != "sha1" && format != "sha256" {
		return nil, errs.InvalidField("object_format_name", "object format must be sha1 or sha256, got %q", format)
	}
	limit := owner.MaxRepoCreation
	if limit < 0 { // the account has no limit of its own: [repository] MAX_CREATION_LIMIT
		limit = s.cfg.Repository.MaxCreationLimit
	}
	if limit >= 0 && !owner.IsOrganization() && !(doer != nil && doer.IsAdmin) && owner.NumRepos >= limit {
		return nil, errs.Forbidden("the user has reached the maximum number of repositories (%d)", limit)
	}
	if o.IssueLabels != "" && s.labels == nil {
		return nil, errs.InvalidField("issue_labels", "issue label templates cannot be applied: labels are not available on this server yet")
	}
	var files map[string][]byte
	if o.AutoInit && s.initial != nil {
		var err error
		if files, err = s.initial.InitialFiles(o.Readme, o.Gitignores, o.License, o.Name, o.Description, owner.Name); err != nil {
			return nil, err
		}
	}
	r := &Repository{
		OwnerID: owner.ID, OwnerName: owner.Name, Name: o.Name, Description: o.Description, DefaultBranch: branch,
		ObjectFormat: format, IsPrivate: o.Private || s.cfg.Repository.ForcePrivate, IsEmpty: true,
		IsTemplate: o.IsTemplate, IsFork: o.IsFork, ForkID: o.ForkID, TemplateID: o.TemplateID, IsMirror: o.IsMirror,
		OriginalURL: o.OriginalURL, Status: o.Status, Units: s.DefaultUnits(),
		Settings: DefaultSettings(s.cfg.Service.EnableTimetracking, s.cfg.Service.EnableDependencies),
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		exists, err := s.db.Exists(ctx, "SELECT 1 FROM repository WHERE owner_id = ? AND lower_name = ?", owner.ID, strings.ToLower(o.Name))
		if err != nil {
			return err
		}
		if exists {
			return errs.Conflict("The repository with the same name already exists.")
		}
		if err := s.Store.Insert(ctx, r); err != nil {
			return err
		}
		if doer != nil {
			// The creator watches the new repository, as with Gitea's
			// [service] AUTO_WATCH_NEW_REPOS default.
			if err := s.setWatch(ctx, doer.ID, r.ID, true); err != nil {
				return err
			}
			r.NumWatches = 1
		}
		if err := s.makeCreatorAdmin(ctx, doer, owner, r); err != nil {
			return err
		}
		if err := s.users.Store.AddToCounter(ctx, owner.ID, "num_repos", 1); err != nil {
			return err
		}
		for _, h := range s.createHooks {
			if err := h(ctx, doer, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	path := s.Path(r)
	cleanup := func(cause error) error {
		_ = os.RemoveAll(path)
		_ = s.deleteRecord(context.WithoutCancel(ctx), r)
		return cause
	}
	if o.IssueLabels != "" {
		if err := s.labels.ApplyLabelTemplate(ctx, r.ID, o.IssueLabels); err != nil {
			return nil, cleanup(err)
		}
	}
	if o.IsMirror || o.IsFork || o.TemplateID > 0 {
		// The caller fills the directory (clone, fork, generate).
		return r, nil
	}
	if err := s.Git.InitBare(ctx, path, git.InitOptions{DefaultBranch: branch, ObjectFormat: format}); err != nil {
		return nil, cleanup(err)
	}
	if len(files) > 0 {
		var changes []git.FileChange
		for _, p := range sortedKeys(files) {
			changes = append(changes, git.FileChange{Op: git.ChangeCreate, Path: p, Content: strings.NewReader(string(files[p]))})
		}
		sig := s.Signature(doer)
		co := git.CommitFilesOptions{Branch: branch, Message: "Initial commit", Author: sig, Changes: changes}
		if s.signing != nil {
			if co.Sign, err = s.signing.Initial(ctx, doer); err != nil {
				return nil, cleanup(err)
			}
		}
		if _, err := s.Git.CommitFiles(ctx, path, co); err != nil {
			return nil, cleanup(err)
		}
		r.IsEmpty = false
		if _, err := s.db.Exec(ctx, "UPDATE repository SET is_empty = ? WHERE id = ?", false, r.ID); err != nil {
			return nil, cleanup(err)
		}
	}
	return r, nil
}

// makeCreatorAdmin gives the member who creates a repository in an
// organization admin access to it, as a collaborator, unless a team already
// gives them that on every repository of the organization (owners, or an
// admin team that includes all repositories). Without it a member allowed
// to create repositories could not even push to the one they just created.
func (s *Service) makeCreatorAdmin(ctx context.Context, doer, owner *user.User, r *Repository) error {
	if doer == nil || doer.IsAdmin || doer.ID == owner.ID || !owner.IsOrganization() {
		return nil
	}
	admin, err := s.db.Exists(ctx, `SELECT 1 FROM team t JOIN team_user tu ON tu.team_id = t.id
		WHERE tu.uid = ? AND t.org_id = ? AND (t.authorize >= ? OR (t.authorize >= ? AND t.includes_all_repositories = ?))`,
		doer.ID, owner.ID, CollabAdmin+1, CollabAdmin, true)
	if err != nil || admin {
		return err
	}
	now := db.Now()
	_, err = s.db.Insert(ctx, "INSERT INTO collaboration (repo_id, user_id, mode, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?)",
		r.ID, doer.ID, CollabAdmin, now, now)
	return err
}

// Signature is the git identity of doer for commits Cairn makes for them.
func (s *Service) Signature(doer *user.User) git.Signature {
	if doer == nil {
		return git.Signature{Name: "Cairn", Email: "cairn@localhost", When: time.Now()}
	}
	name := doer.FullName
	if name == "" {
		name = doer.Name
	}
	return git.Signature{Name: name, Email: doer.Email, When: time.Now()}
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// deleteRecord removes the rows of r and what hangs off it.
func (s *Service) deleteRecord(ctx context.Context, r *Repository) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, h := range s.deleteHooks {
			if err := h(ctx, r); err != nil {
				return err
			}
		}
		for _, q := range []string{
			"DELETE FROM collaboration WHERE repo_id = ?",
			"DELETE FROM star WHERE repo_id = ?",
			"DELETE FROM watch WHERE repo_id = ?",
			"DELETE FROM repo_topic WHERE repo_id = ?",
			"DELETE FROM deploy_key WHERE repo_id = ?",
			"DELETE FROM repo_transfer WHERE repo_id = ?",
			"DELETE FROM mirror WHERE repo_id = ?",
			"DELETE FROM team_repo WHERE repo_id = ?",
			"DELETE FROM commit_status WHERE repo_id = ?",
		} {
			if _, err := s.db.Exec(ctx, q, r.ID); err != nil {
				return err
			}
		}
		// Stars given to r no longer count for their users.
		res, err := s.db.Exec(ctx, "DELETE FROM repository WHERE id = ?", r.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := s.db.Exec(ctx, "UPDATE repository SET fork_id = 0 WHERE fork_id = ?", r.ID); err != nil {
			return err
		}
		if r.IsFork && r.ForkID > 0 {
			if err := s.Store.AddToCounter(ctx, r.ForkID, "num_forks", -1); err != nil {
				return err
			}
		}
		return s.users.Store.AddToCounter(ctx, r.OwnerID, "num_repos", -1)
	})
}

// Delete removes r: its records, then its directory. Forks keep their own
// full copy, so they stay usable.
func (s *Service) Delete(ctx context.Context, r *Repository) error {
	if err := s.fixStarCounts(ctx, r.ID); err != nil {
		return err
	}
	if err := s.deleteRecord(ctx, r); err != nil {
		return err
	}
	if err := os.RemoveAll(s.Path(r)); err != nil {
		slog.Warn("remove repository directory", "repo", r.ID, "err", err)
	}
	return nil
}

// fixStarCounts lowers the star count of the users who starred repository id.
func (s *Service) fixStarCounts(ctx context.Context, id int64) error {
	_, err := s.db.Exec(ctx, "UPDATE users SET num_stars = num_stars - 1 WHERE id IN (SELECT uid FROM star WHERE repo_id = ?)", id)
	return err
}

// CountOwnedRepos implements org.RepoCounter and the user delete guard.
func (s *Service) CountOwnedRepos(ctx context.Context, ownerID int64) (int64, error) {
	return s.db.Count(ctx, "SELECT COUNT(*) FROM repository WHERE owner_id = ?", ownerID)
}

// PurgeOwnedRepos deletes every repository of an owner (organization
// deletion while purging a user).
func (s *Service) PurgeOwnedRepos(ctx context.Context, ownerID int64) error {
	list, err := s.List(ctx, "WHERE r.owner_id = ?", ownerID)
	if err != nil {
		return err
	}
	for _, r := range list {
		if err := s.Delete(ctx, r); err != nil {
			return fmt.Errorf("purge repository %s: %w", r.FullName(), err)
		}
	}
	return nil
}

// UserDeleteHook keeps users who own repositories from being deleted, and
// deletes their repositories when purging.
func (s *Service) UserDeleteHook() user.DeleteHook { return repoDeleteHook{s} }

type repoDeleteHook struct{ s *Service }

func (h repoDeleteHook) CheckDelete(ctx context.Context, u *user.User) error {
	n, err := h.s.CountOwnedRepos(ctx, u.ID)
	if err != nil {
		return err
	}
	if n > 0 {
		return errs.Invalid("user still has ownership of repositories [uid: %d, count: %d]", u.ID, n)
	}
	return nil
}

func (h repoDeleteHook) Purge(ctx context.Context, u *user.User) error {
	list, err := h.s.List(ctx, "WHERE r.owner_id = ?", u.ID)
	if err != nil {
		return err
	}
	for _, r := range list {
		if err := h.s.Delete(ctx, r); err != nil {
			return fmt.Errorf("purge repository %s: %w", r.FullName(), err)
		}
	}
	// Their collaborations, stars and watches elsewhere go too.
	for _, q := range []string{
		"UPDATE repository SET num_stars = num_stars - 1 WHERE id IN (SELECT repo_id FROM star WHERE uid = ?)",
		"UPDATE repository SET num_watches = num_watches - 1 WHERE id IN (SELECT repo_id FROM watch WHERE user_id = ?)",
		"DELETE FROM star WHERE uid = ?",
		"DELETE FROM watch WHERE user_id = ?",
		"DELETE FROM collaboration WHERE user_id = ?",
	} {
		if _, err := h.s.db.Exec(ctx, q, u.ID); err != nil {
			return err
		}
	}
	return nil
}

// CheckDefaultBranch refuses a default branch that is not a valid name, or
// that does not exist in a repository that has branches.
func (s *Service) CheckDefaultBranch(ctx context.Context, r *Repository, branch string) error {
	if err := ValidateDefaultBranch(branch); err != nil {
		return err
	}
	if r.IsEmpty {
		return nil
	}
	if _, err := s.Git.GetBranch(ctx, s.Path(r), branch); err != nil {
		if errors.Is(err, git.ErrNotFound) {
			return errs.NotFound("branch %q does not exist", branch)
		}
		return err
	}
	return nil
}

// Update writes r and points HEAD at its default branch.
func (s *Service) Update(ctx context.Context, r *Repository) error {
	old, err := s.Store.GetByID(ctx, r.ID)
	if err != nil {
		return err
	}
	if !strings.EqualFold(old.Name, r.Name) {
		exists, err := s.db.Exists(ctx, "SELECT 1 FROM repository WHERE owner_id = ? AND lower_name = ? AND id <> ?", r.OwnerID, strings.ToLower(r.Name), r.ID)
		if err != nil {
			return err
		}
		if exists {
			return errs.InvalidField("name", "repository name %q is already taken", r.Name)
		}
	}
	if err := s.Store.Update(ctx, r); err != nil {
		return err
	}
	if old.DefaultBranch != r.DefaultBranch {
		if err := s.Git.SetHeadBranch(ctx, s.Path(r), r.DefaultBranch); err != nil {
			return err
		}
	}
	return nil
}

// UpdateMirrorSettings changes the sync interval (Go duration, at least 10
// minutes, or 0 to disable) and pruning of a mirror.
func (s *Service) UpdateMirrorSettings(ctx context.Context, repoID int64, interval *string, prune *bool) error {
	if interval != nil {
		d, err := time.ParseDuration(*interval)
		if err != nil || (d != 0 && d < 10*time.Minute) {
			return errs.InvalidField("mirror_interval", "invalid mirror interval %q: a duration of at least 10m, or 0 to disable", *interval)
		}
		next := int64(0)
		if d > 0 {
			next = time.Now().Add(d).Unix()
		}
		if _, err := s.db.Exec(ctx, "UPDATE mirror SET interval_seconds = ?, next_update_unix = ? WHERE repo_id = ?", int64(d/time.Second), next, repoID); err != nil {
			return err
		}
	}
	if prune != nil {
		if _, err := s.db.Exec(ctx, "UPDATE mirror SET enable_prune = ? WHERE repo_id = ?", *prune, repoID); err != nil {
			return err
		}
	}
	return nil
}

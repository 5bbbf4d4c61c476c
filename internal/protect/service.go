package protect

import (
	"context"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// CommitVerifier checks the signatures of the commits a ref update adds
// (those reachable from newSHA and not from oldSHA, or from no existing ref
// when oldSHA is all zeros). It returns the first commit without a valid
// signature of a known key, "" when all are verified. env holds the
// quarantine's object directories during a push.
type CommitVerifier interface {
	VerifyRange(ctx context.Context, repoPath string, env []string, oldSHA, newSHA string) (unverifiedSHA string, err error)
}

// Service stores the rules and enforces them.
type Service struct {
	db       *db.DB
	git      *git.Git
	repos    *repo.Service
	repoPath func(*repo.Repository) string
	users    *user.Store
	access   *access.Checker
	issues   *issue.Service
	verifier CommitVerifier
}

// NewService returns the protection service.
func NewService(d *db.DB, g *git.Git, repos *repo.Service, users *user.Store, ac *access.Checker, issues *issue.Service) *Service {
	return &Service{db: d, git: g, repos: repos, repoPath: repos.Path, users: users, access: ac, issues: issues}
}

// SetVerifier sets the signature verifier of require_signed_commits; call
// it only while wiring. Without one, pushes to such branches are refused.
func (s *Service) SetVerifier(v CommitVerifier) { s.verifier = v }

// DeleteRepoData is the repository delete hook: it removes the rules.
func (s *Service) DeleteRepoData(ctx context.Context, r *repo.Repository) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM protected_branch WHERE repo_id = ?", r.ID); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "DELETE FROM protected_tag WHERE repo_id = ?", r.ID)
	return err
}

// permission returns what uid may do in r (nil user: none).
func (s *Service) permission(ctx context.Context, uid int64, r *repo.Repository) (access.RepoPerm, *user.User, error) {
	if uid <= 0 {
		return access.RepoPerm{}, nil, nil
	}
	u, err := s.users.GetByID(ctx, uid)
	if err != nil {
		return access.RepoPerm{}, nil, err
	}
	owner, err := s.users.GetByID(ctx, r.OwnerID)
	if err != nil {
		return access.RepoPerm{}, nil, err
	}
	p, err := s.access.RepoPermission(ctx, u, r, owner)
	return p, u, err
}

// inList reports whether uid (member of teams) is among users or teams.
func inList(uid int64, teams, users, allowTeams []int64) bool {
	for _, id := range users {
		if id == uid && uid > 0 {
			return true
		}
	}
	return intersects(allowTeams, teams)
}

// UserCanPush reports whether a user with write access to the code (and
// member of teams) may push to a branch under b, as Gitea's CanUserPush.
func (b *BranchRule) UserCanPush(uid int64, teams []int64) bool {
	if !b.CanPush {
		return false
	}
	if !b.EnableWhitelist {
		return true
	}
	return inList(uid, teams, b.WhitelistUserIDs, b.WhitelistTeamIDs)
}

// UserCanForcePush is Gitea's CanUserForcePush for a writer.
func (b *BranchRule) UserCanForcePush(uid int64, teams []int64) bool {
	if !b.CanForcePush {
		return false
	}
	if !b.EnableForcePushAllowlist {
		return true
	}
	return inList(uid, teams, b.ForcePushAllowlistUserIDs, b.ForcePushAllowlistTeamIDs)
}

// UserCanMerge is Gitea's IsUserMergeWhitelisted: without a merge allowlist
// writers of the code may merge.
func (b *BranchRule) UserCanMerge(uid int64, teams []int64, canWrite bool) bool {
	if !b.EnableMergeWhitelist {
		return canWrite
	}
	return inList(uid, teams, b.MergeWhitelistUserIDs, b.MergeWhitelistTeamIDs)
}

// UsesTeams reports whether any allowlist of the rule names teams.
func (b *BranchRule) UsesTeams() bool {
	return len(b.WhitelistTeamIDs)+len(b.ForcePushAllowlistTeamIDs)+len(b.MergeWhitelistTeamIDs)+len(b.ApprovalsWhitelistTeamIDs) > 0
}

// UserTeams returns the ids of the teams a user belongs to (for the
// allowlists).
func (s *Service) UserTeams(ctx context.Context, uid int64) ([]int64, error) {
	return s.userTeams(ctx, uid)
}

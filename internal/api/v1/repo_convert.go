package v1

import (
	"context"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// sshURL is the clone address over SSH.
func (a *API) sshURL(fullName string) string { return a.Config.SSHCloneURL(fullName) }

// repoExtras are the related rows a list of repositories needs, loaded in batches.
type repoExtras struct {
	owners  map[int64]*user.User
	parents map[int64]*repo.Repository
	perms   map[int64]access.RepoPerm
	topics  map[int64][]string
	mirrors map[int64]repo.Mirror
}

// loadExtras loads owners, parents, permissions, topics and mirror state of
// list with a fixed number of queries.
func (a *API) loadExtras(ctx context.Context, d *user.User, list []*repo.Repository) (*repoExtras, error) {
	ex := &repoExtras{}
	ids := make([]int64, 0, len(list))
	ownerIDs := make([]int64, 0, len(list))
	var parentIDs []int64
	var mirrorIDs []int64
	for _, r := range list {
		ids = append(ids, r.ID)
		ownerIDs = append(ownerIDs, r.OwnerID)
		if r.IsFork && r.ForkID > 0 {
			parentIDs = append(parentIDs, r.ForkID)
		}
		if r.IsMirror {
			mirrorIDs = append(mirrorIDs, r.ID)
		}
	}
	var err error
	if ex.parents, err = a.Repos.Store.GetByIDs(ctx, parentIDs); err != nil {
		return nil, err
	}
	for _, p := range ex.parents {
		ownerIDs = append(ownerIDs, p.OwnerID)
	}
	if ex.owners, err = a.Users.Store.GetByIDs(ctx, ownerIDs); err != nil {
		return nil, err
	}
	if ex.perms, err = a.Access.RepoPermissions(ctx, d, list, ex.owners); err != nil {
		return nil, err
	}
	if ex.topics, err = a.Repos.TopicsOf(ctx, ids); err != nil {
		return nil, err
	}
	if ex.mirrors, err = a.Repos.MirrorsOf(ctx, mirrorIDs); err != nil {
		return nil, err
	}
	return ex, nil
}

// toRepos renders a list for the caller.
func (a *API) toRepos(ctx context.Context, d *user.User, list []*repo.Repository) ([]*types.Repository, error) {
	ex, err := a.loadExtras(ctx, d, list)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Repository, 0, len(list))
	for _, r := range list {
		out = append(out, a.toRepo(r, ex, d, true))
	}
	return out, nil
}

// toRepoOne renders a single repository for the caller.
func (a *API) toRepoOne(ctx context.Context, d *user.User, r *repo.Repository) (*types.Repository, error) {
	list, err := a.toRepos(ctx, d, []*repo.Repository{r})
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

func (a *API) toRepo(r *repo.Repository, ex *repoExtras, d *user.User, withParent bool) *types.Repository {
	owner := ex.owners[r.OwnerID]
	if owner == nil {
		owner = user.Ghost()
	}
	r.OwnerName = owner.Name
	full := r.FullName()
	s := r.Settings
	out := &types.Repository{
		ID: r.ID, Owner: a.toUser(owner, d), Name: r.Name, FullName: full, Description: r.Description,
		Empty: r.IsEmpty, Private: r.IsPrivate, Fork: r.IsFork, Template: r.IsTemplate, Mirror: r.IsMirror,
		Size: int(r.Size / 1024), HTMLURL: a.rootURL + full, URL: a.rootURL + "api/v1/repos/" + full,
		LanguagesURL: a.rootURL + "api/v1/repos/" + full + "/languages", SSHURL: a.sshURL(full),
		CloneURL: a.rootURL + full + ".git", OriginalURL: r.OriginalURL, Website: r.Website,
		Stars: r.NumStars, Forks: r.NumForks, Watchers: r.NumWatches,
		OpenIssues: r.NumIssues - r.NumClosedIssues, OpenPulls: r.NumPulls - r.NumClosedPulls, Releases: r.NumReleases,
		DefaultBranch: r.DefaultBranch, Archived: r.IsArchived, Created: r.Created, Updated: r.Updated,
		ArchivedAt: r.Archived, HasIssues: r.HasUnit(repo.UnitIssues), HasWiki: r.HasUnit(repo.UnitWiki),
		HasPullRequests: r.HasUnit(repo.UnitPulls), HasProjects: r.HasUnit(repo.UnitProjects),
		HasReleases: r.HasUnit(repo.UnitReleases), HasPackages: r.HasUnit(repo.UnitPackages),
		HasActions: r.HasUnit(repo.UnitActions), ProjectsMode: s.ProjectsMode,
		IgnoreWhitespaceConflicts: s.IgnoreWhitespaceConflicts, AllowMerge: s.AllowMergeCommits, AllowRebase: s.AllowRebase,
		AllowRebaseMerge: s.AllowRebaseExplicit, AllowSquash: s.AllowSquashMerge, AllowFastForwardOnly: s.AllowFastForwardOnly,
		AllowRebaseUpdate: s.AllowRebaseUpdate, DefaultDeleteBranchAfterMerge: s.DefaultDeleteBranchAfterMerge,
		DefaultMergeStyle: s.DefaultMergeStyle, DefaultAllowMaintainerEdit: s.DefaultAllowMaintainerEdit,
		AvatarURL: a.repoAvatarURL(r), Internal: !r.IsPrivate && owner.Visibility == user.VisibilityLimited,
		ObjectFormatName: r.ObjectFormat, Topics: ex.topics[r.ID], Licenses: []string{},
	}
	if out.Topics == nil {
		out.Topics = []string{}
	}
	if r.HasUnit(repo.UnitIssues) {
		out.InternalTracker = &types.InternalTracker{EnableTimeTracker: s.EnableTimeTracker,
			AllowOnlyContributorsToTrackTime: s.AllowOnlyContributorsToTrack, EnableIssueDependencies: s.EnableIssueDependencies}
	}
	if r.HasUnit(repo.UnitExtIssues) {
		out.ExternalTracker = &types.ExternalTracker{ExternalTrackerURL: s.ExternalTrackerURL, ExternalTrackerFormat: s.ExternalTrackerFormat,
			ExternalTrackerStyle: s.ExternalTrackerStyle, ExternalTrackerRegexp: s.ExternalTrackerRegexp}
	}
	if r.HasUnit(repo.UnitExtWiki) {
		out.ExternalWiki = &types.ExternalWiki{ExternalWikiURL: s.ExternalWikiURL}
	}
	if m, ok := ex.mirrors[r.ID]; ok {
		out.MirrorInterval = m.Interval.String()
		if !m.Updated.IsZero() {
			out.MirrorUpdated = m.Updated
		}
	}
	if p, ok := ex.perms[r.ID]; ok && d != nil {
		out.Permissions = &types.Permission{Admin: p.IsAdmin(), Push: p.CanWrite(repo.UnitCode), Pull: p.CanRead(repo.UnitCode)}
	}
	if withParent && r.IsFork {
		if parent, ok := ex.parents[r.ForkID]; ok && a.parentVisible(parent, ex, d) {
			out.Parent = a.toRepo(parent, ex, d, false)
		}
	}
	return out
}

// parentVisible decides whether the original of a fork may be shown: public
// repositories of visible owners, or any repository to administrators.
func (a *API) parentVisible(p *repo.Repository, ex *repoExtras, d *user.User) bool {
	if d != nil && (d.IsAdmin || d.ID == p.OwnerID) {
		return true
	}
	owner := ex.owners[p.OwnerID]
	if p.IsPrivate || owner == nil {
		return false
	}
	return owner.Visibility == user.VisibilityPublic || (owner.Visibility == user.VisibilityLimited && d != nil && !d.IsRestricted)
}

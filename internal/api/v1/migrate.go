package v1

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoTopLevelRoutes registers, in /api/v1, the repository routes that are
// not under /repos/{owner}/{repo}: migration, topic search, and generation
// from a template (whose path names its parameters differently).
func (a *API) repoTopLevelRoutes(r chi.Router) {
	r.With(a.scope(auth.CatRepository), a.signedIn).Post("/repos/migrate", a.migrateRepo)
	r.With(a.scope(auth.CatRepository)).Get("/topics/search", a.searchTopics)
	r.With(a.scope(auth.CatRepository), a.signedIn, a.templateAssignment, a.reqUnitRead(repo.UnitCode)).
		Post("/repos/{template_owner}/{template_repo}/generate", a.generateRepo)
}

// mirrorRoutes: syncing a mirror needs write access to its code.
func (a *API) mirrorRoutes(r chi.Router) {
	r.With(a.signedIn).Post("/mirror-sync", a.mirrorSync)
}

// migrateRepo serves POST /repos/migrate: 201 with the new repository.
func (a *API) migrateRepo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d := doer(r)
	var o types.MigrateRepoOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := firstErr(required("clone_addr", o.CloneAddr), required("repo_name", o.RepoName),
		maxLen("repo_name", o.RepoName, repo.MaxNameLength), maxLen("description", o.Description, 2048)); err != nil {
		a.fail(w, r, err)
		return
	}
	// An owner the caller may not see answers as a missing one.
	var owner *user.User
	var err error
	switch {
	case o.RepoOwner != "":
		owner, err = a.visibleAccount(r, o.RepoOwner)
	case o.RepoOwnerID != 0:
		owner, err = a.visibleAccountByID(r, o.RepoOwnerID)
	default:
		owner = d
	}
	if err != nil {
		if errs.IsNotFound(err) {
			err = errs.Invalid("user does not exist [name: %s, uid: %d]", o.RepoOwner, o.RepoOwnerID)
		}
		a.fail(w, r, err)
		return
	}
	if !d.IsAdmin {
		if !owner.IsOrganization() && owner.ID != d.ID {
			a.errorJSON(w, http.StatusForbidden, "Given user is not an organization.")
			return
		}
		if owner.IsOrganization() {
			isOwner, err := a.Access.IsOrgOwner(ctx, owner.ID, d.ID)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			if !isOwner {
				a.errorJSON(w, http.StatusForbidden, "Given user is not owner of organization.")
				return
			}
		}
	}
	if a.Config.Repository.DisableMigrations {
		a.errorJSON(w, http.StatusForbidden, "the site administrator has disabled migrations")
		return
	}
	if err := checkMigrationContent(&o); err != nil {
		a.fail(w, r, err)
		return
	}
	rp, err := a.Repos.Migrate(ctx, d, owner, repo.MigrateOptions{
		CloneAddr: o.CloneAddr, AuthUsername: o.AuthUsername, AuthPassword: o.AuthPassword, AuthToken: o.AuthToken,
		Name: o.RepoName, Description: o.Description, Private: o.Private, Mirror: o.Mirror, MirrorInterval: o.MirrorInterval,
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRepo(w, r, http.StatusCreated, rp)
}

// checkMigrationContent decides what a migration can bring. Cairn migrates
// git data only, from any service: with "git" (or no service), issues,
// labels, milestones, releases and pull requests are ignored as Gitea does
// for plain git; from a named forge, asking for them is refused (422)
// rather than silently dropped. A mirror carries code only, as in Gitea.
// The wiki is refused everywhere; LFS is off, as on a Gitea whose LFS server
// is disabled.
func checkMigrationContent(o *types.MigrateRepoOptions) error {
	service := strings.ToLower(strings.TrimSpace(o.Service))
	if o.Wiki && !o.Mirror {
		return errs.InvalidField("wiki", "migrating the wiki is not supported: only the git data is migrated")
	}
	if service == "" || service == "git" || o.Mirror {
		return nil
	}
	var asked []string
	for name, on := range map[string]bool{"issues": o.Issues, "labels": o.Labels, "milestones": o.Milestones,
		"releases": o.Releases, "pull_requests": o.PullRequests} {
		if on {
			asked = append(asked, name)
		}
	}
	if len(asked) > 0 {
		return errs.Invalid("migrating %s from %s is not supported: only the git data is migrated (unset those options)",
			strings.Join(sortedStrings(asked), ", "), service)
	}
	return nil
}

func sortedStrings(in []string) []string {
	for i := 1; i < len(in); i++ {
		for j := i; j > 0 && in[j] < in[j-1]; j-- {
			in[j], in[j-1] = in[j-1], in[j]
		}
	}
	return in
}

// mirrorSync serves POST /repos/{owner}/{repo}/mirror-sync: the mirror is
// fetched now; 400 for a repository that is not a mirror. Mirrors are
// read-only for everybody, so the check is the caller's write access to
// the code as if the repository were not a mirror.
func (a *API) mirrorSync(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rc := currentRepo(r)
	if !rc.Repo.HasUnit(repo.UnitCode) || !rc.Perm.CanRead(repo.UnitCode) {
		a.notFound(w, r)
		return
	}
	plain := *rc.Repo
	plain.IsMirror = false
	perm, err := a.Access.RepoPermission(ctx, doer(r), &plain, rc.Owner)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !perm.CanWrite(repo.UnitCode) {
		a.errorJSON(w, http.StatusForbidden, "user should have a permission to write to a repo")
		return
	}
	if !rc.Repo.IsMirror {
		a.errorJSON(w, http.StatusBadRequest, "Repository is not a mirror")
		return
	}
	if err := a.Repos.SyncMirror(ctx, rc.Repo); err != nil {
		a.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

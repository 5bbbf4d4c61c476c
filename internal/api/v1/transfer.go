package v1

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// transferRoutes: only the owner (an organization owner, a site admin)
// starts a transfer.
func (a *API) transferRoutes(r chi.Router) {
	r.With(a.reqRepoOwner).Post("/transfer", a.transferRepo)
}

// transferDecisionRoutes registers accept and reject in the
// /repos/{owner}/{repo} route but outside repoAssignment: the recipient of a
// transfer may not see the repository yet.
func (a *API) transferDecisionRoutes(r chi.Router) {
	r.With(a.scope(auth.CatRepository), a.signedIn).Post("/transfer/accept", a.acceptTransfer)
	r.With(a.scope(auth.CatRepository), a.signedIn).Post("/transfer/reject", a.rejectTransfer)
}

func newOwnerNotFound() error {
	return errs.NotFound("The new owner does not exist or cannot be found")
}

// transferRepo serves POST /repos/{owner}/{repo}/transfer: 202 when the
// repository moved, 201 when the transfer waits for the recipient.
func (a *API) transferRepo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rc := currentRepo(r)
	d := doer(r)
	var o types.TransferRepoOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := required("new_owner", o.NewOwner); err != nil {
		a.fail(w, r, err)
		return
	}
	to, err := a.visibleAccount(r, o.NewOwner)
	if err != nil {
		if errs.IsNotFound(err) {
			err = newOwnerNotFound()
		}
		a.fail(w, r, err)
		return
	}
	var teamIDs []int64
	var teams []*org.Team
	if o.TeamIDs != nil {
		if !to.IsOrganization() {
			a.fail(w, r, errs.Invalid("Teams can only be added to organization-owned repositories"))
			return
		}
		for _, id := range *o.TeamIDs {
			// A team of another organization answers like a missing one:
			// its existence is none of the caller's business.
			t, err := a.Orgs.GetTeam(ctx, id)
			if err == nil && t.OrgID != to.ID {
				err = org.ErrTeamNotExist(id)
			}
			if err != nil {
				if errs.IsNotFound(err) {
					err = errs.Invalid("team %d not found", id)
				}
				a.fail(w, r, err)
				return
			}
			teamIDs = append(teamIDs, id)
			teams = append(teams, t)
		}
	}
	immediate, err := a.Access.TransfersAtOnce(ctx, d, to)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	pending, err := a.Repos.StartTransfer(ctx, d, rc.Repo, to, teamIDs, immediate)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	fresh, err := a.Repos.GetByID(ctx, rc.Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toRepoOne(ctx, d, fresh)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !pending {
		writeJSON(w, http.StatusAccepted, out)
		return
	}
	out.RepoTransfer = &types.RepoTransfer{Doer: a.toUser(d, d), Recipient: a.toUser(to, d), Teams: a.toTeams(teams, map[int64]*user.User{to.ID: to}, d)}
	writeJSON(w, http.StatusCreated, out)
}

// pendingTransferFor loads {owner}/{repo} and its pending transfer for a
// caller who may decide it: the recipient, an owner of a recipient
// organization, or a site admin. Others get 404 when they cannot see the
// repository, and 403 when they can.
func (a *API) pendingTransferFor(w http.ResponseWriter, r *http.Request) (*repo.Repository, *repo.Transfer, *user.User, bool) {
	ctx := r.Context()
	d := doer(r)
	ownerName, name := chi.URLParam(r, "owner"), chi.URLParam(r, "repo")
	notFound := errs.NotFound("repository does not exist [owner: %s, name: %s]", ownerName, name)
	rp, err := a.Repos.Get(ctx, ownerName, name)
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, nil, false
	}
	_, seeErr := a.loadRepo(ctx, r, ownerName, name)
	visible := seeErr == nil
	t, err := a.Repos.PendingTransfer(ctx, rp.ID)
	if err != nil {
		if !visible {
			err = notFound
		}
		a.fail(w, r, err)
		return nil, nil, nil, false
	}
	to, err := a.Users.Store.GetByID(ctx, t.RecipientID)
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, nil, false
	}
	allowed := d.IsAdmin || d.ID == to.ID
	if !allowed && to.IsOrganization() {
		if allowed, err = a.Access.IsOrgOwner(ctx, to.ID, d.ID); err != nil {
			a.fail(w, r, err)
			return nil, nil, nil, false
		}
	}
	if !allowed {
		if !visible {
			a.fail(w, r, notFound)
			return nil, nil, nil, false
		}
		a.errorJSON(w, http.StatusForbidden, "user does not have permissions to do this")
		return nil, nil, nil, false
	}
	if id := identity(r); id != nil && id.Token != nil && id.Token.Scope.PublicOnly && rp.IsPrivate {
		a.errorJSON(w, http.StatusForbidden, "token scope is limited to public repos")
		return nil, nil, nil, false
	}
	return rp, t, to, true
}

// acceptTransfer serves POST /repos/{owner}/{repo}/transfer/accept: 202.
func (a *API) acceptTransfer(w http.ResponseWriter, r *http.Request) {
	rp, t, to, ok := a.pendingTransferFor(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if err := a.Repos.TransferOwnership(ctx, doer(r), rp, to, t.TeamIDs); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeDecidedRepo(w, r, http.StatusAccepted, rp.ID)
}

// rejectTransfer serves POST /repos/{owner}/{repo}/transfer/reject: 200.
func (a *API) rejectTransfer(w http.ResponseWriter, r *http.Request) {
	rp, _, _, ok := a.pendingTransferFor(w, r)
	if !ok {
		return
	}
	if err := a.Repos.CancelTransfer(r.Context(), rp.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeDecidedRepo(w, r, http.StatusOK, rp.ID)
}

func (a *API) writeDecidedRepo(w http.ResponseWriter, r *http.Request, status int, id int64) {
	ctx := context.WithoutCancel(r.Context())
	fresh, err := a.Repos.GetByID(ctx, id)
	if err != nil {
		a.fail(w, r, fmt.Errorf("reload repository %d: %w", id, err))
		return
	}
	a.writeRepo(w, r, status, fresh)
}

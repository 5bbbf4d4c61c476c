package v1

import (
	"context"
	"net/http"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// What a caller may not see answers exactly like what does not exist: the
// same status and the same message, built by the domain package's not-found
// constructor (user.ErrNameNotExist, org.ErrNameNotExist, repo.ErrNotExist,
// repo.ErrIDNotExist, ...) from what the caller typed, never from the stored
// object. Routes that take a user or organization name load it here;
// repositories go through loadRepo and loadRepoByID, teams through loadTeam.

// relation reports whether u is known to the caller through the object a
// route acts on (a member of the caller's organization, a collaborator of a
// repository the caller administers), which makes u visible there.
type relation func(ctx context.Context, u *user.User) (bool, error)

// visibleIndividual loads the individual user called name. A name that is
// unknown, names an organization, or names a user the caller may not see
// (and who is in none of the relations) is user.ErrNameNotExist(name).
func (a *API) visibleIndividual(r *http.Request, name string, known ...relation) (*user.User, error) {
	u, err := a.Users.Store.GetByName(r.Context(), name)
	if err == nil && u.IsOrganization() {
		err = user.ErrNameNotExist(name)
	}
	if err != nil {
		return nil, err
	}
	return a.seen(r, u, user.ErrNameNotExist(name), known)
}

// visibleOrg loads the organization called name; org.ErrNameNotExist(name)
// when there is none or the caller may not see it.
func (a *API) visibleOrg(r *http.Request, name string) (*user.User, error) {
	o, err := a.Orgs.GetByName(r.Context(), name)
	if err != nil {
		return nil, err
	}
	return a.seen(r, o, org.ErrNameNotExist(name), nil)
}

// visibleAccount loads the user or organization called name;
// user.ErrNameNotExist(name) when there is none or the caller may not see it.
func (a *API) visibleAccount(r *http.Request, name string) (*user.User, error) {
	u, err := a.Users.Store.GetByName(r.Context(), name)
	if err != nil {
		return nil, err
	}
	return a.seen(r, u, user.ErrNameNotExist(name), nil)
}

// visibleAccountByID is visibleAccount for an id (user.ErrIDNotExist).
func (a *API) visibleAccountByID(r *http.Request, id int64) (*user.User, error) {
	u, err := a.Users.Store.GetByID(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return a.seen(r, u, user.ErrIDNotExist(id), nil)
}

// noSuchID is an id no row has: a list filtered on it is empty.
const noSuchID = -1

// seenAccountID is id when the caller may see that account, else noSuchID:
// a list filtered by a hidden account is as empty as one filtered by a
// missing account.
func (a *API) seenAccountID(r *http.Request, id int64) (int64, error) {
	_, err := a.visibleAccountByID(r, id)
	if errs.IsNotFound(err) {
		return noSuchID, nil
	}
	return id, err
}

// seen returns u when the caller (as far as visibility goes: a token limited
// to public data sees what a signed-out caller sees) may see it or is in one
// of the relations with it, else hidden.
func (a *API) seen(r *http.Request, u *user.User, hidden *errs.Error, known []relation) (*user.User, error) {
	ok, err := a.Access.CanSeeOwner(r.Context(), viewer(r), u)
	for _, rel := range known {
		if err != nil || ok {
			break
		}
		ok, err = rel(r.Context(), u)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, hidden
	}
	return u, nil
}

// orgMemberRelation: members of organization orgID.
func (a *API) orgMemberRelation(orgID int64) relation {
	return func(ctx context.Context, u *user.User) (bool, error) { return a.Orgs.IsMember(ctx, orgID, u.ID) }
}

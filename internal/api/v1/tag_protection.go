package v1

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/protect"
)

// tagProtectionRoutes registers /repos/{owner}/{repo}/tag_protections, for
// repository administrators.
func (a *API) tagProtectionRoutes(r chi.Router) {
	r.With(a.reqRepoAdmin).Get("/tag_protections", a.listTagProtections)
	r.With(a.reqRepoAdmin).Post("/tag_protections", a.createTagProtection)
	r.With(a.reqRepoAdmin).Get("/tag_protections/{id}", a.getTagProtection)
	r.With(a.reqRepoAdmin).Patch("/tag_protections/{id}", a.editTagProtection)
	r.With(a.reqRepoAdmin).Delete("/tag_protections/{id}", a.deleteTagProtection)
}

// toTagProtections renders rules with two queries in all.
func (a *API) toTagProtections(ctx context.Context, rc *repoContext, rules []*protect.TagRule) ([]*types.TagProtection, error) {
	var uids, tids []int64
	for _, t := range rules {
		uids, tids = append(uids, t.AllowlistUserIDs...), append(tids, t.AllowlistTeamIDs...)
	}
	users, teams, err := protectNames{a, rc.Owner}.lookup(ctx, uids, tids)
	if err != nil {
		return nil, err
	}
	out := make([]*types.TagProtection, 0, len(rules))
	for _, t := range rules {
		out = append(out, &types.TagProtection{ID: t.ID, NamePattern: t.NamePattern,
			WhitelistUsernames: names(t.AllowlistUserIDs, users), WhitelistTeams: names(t.AllowlistTeamIDs, teams),
			Created: t.Created, Updated: t.Updated})
	}
	return out, nil
}

func (a *API) writeTagProtection(w http.ResponseWriter, r *http.Request, rc *repoContext, status int, t *protect.TagRule) {
	list, err := a.toTagProtections(r.Context(), rc, []*protect.TagRule{t})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, list[0])
}

// listTagProtections serves GET /tag_protections.
func (a *API) listTagProtections(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	rules, err := a.Protect.TagRules(r.Context(), rc.Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.toTagProtections(r.Context(), rc, rules)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (a *API) loadTagProtection(w http.ResponseWriter, r *http.Request) (*protect.TagRule, bool) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return nil, false
	}
	t, err := a.Protect.GetTagRule(r.Context(), currentRepo(r).Repo.ID, id)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return t, true
}

// getTagProtection serves GET /tag_protections/{id}.
func (a *API) getTagProtection(w http.ResponseWriter, r *http.Request) {
	if t, ok := a.loadTagProtection(w, r); ok {
		a.writeTagProtection(w, r, currentRepo(r), http.StatusOK, t)
	}
}

// createTagProtection serves POST /tag_protections (201).
func (a *API) createTagProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	var o types.CreateTagProtectionOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	p := strings.TrimSpace(o.NamePattern)
	t := &protect.TagRule{RepoID: rc.Repo.ID, NamePattern: p}
	n := protectNames{a, rc.Owner}
	err := a.Protect.CheckTagPattern(ctx, rc.Repo.ID, 0, p)
	if err == nil {
		t.AllowlistUserIDs, err = n.userIDs(ctx, "whitelist_usernames", o.WhitelistUsernames)
	}
	if err == nil {
		t.AllowlistTeamIDs, err = n.teamIDs(ctx, "whitelist_teams", o.WhitelistTeams)
	}
	if err == nil {
		err = a.Protect.SaveTagRule(ctx, t)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeTagProtection(w, r, rc, http.StatusCreated, t)
}

// editTagProtection serves PATCH /tag_protections/{id}: only the fields
// given change.
func (a *API) editTagProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	var o types.EditTagProtectionOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	t, ok := a.loadTagProtection(w, r)
	if !ok {
		return
	}
	var err error
	if o.NamePattern != nil {
		t.NamePattern = strings.TrimSpace(*o.NamePattern)
		err = a.Protect.CheckTagPattern(ctx, rc.Repo.ID, t.ID, t.NamePattern)
	}
	n := protectNames{a, rc.Owner}
	if err == nil && o.WhitelistUsernames != nil {
		t.AllowlistUserIDs, err = n.userIDs(ctx, "whitelist_usernames", o.WhitelistUsernames)
	}
	if err == nil && o.WhitelistTeams != nil {
		t.AllowlistTeamIDs, err = n.teamIDs(ctx, "whitelist_teams", o.WhitelistTeams)
	}
	if err == nil {
		err = a.Protect.SaveTagRule(ctx, t)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeTagProtection(w, r, rc, http.StatusOK, t)
}

// deleteTagProtection serves DELETE /tag_protections/{id} (204).
func (a *API) deleteTagProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	if err := a.Protect.DeleteTagRule(r.Context(), rc.Repo.ID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

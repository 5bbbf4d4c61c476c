package v1

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/protect"
	"github.com/cairn-forge/cairn/internal/user"
)

// branchProtectionRoutes registers /repos/{owner}/{repo}/branch_protections,
// for repository administrators.
func (a *API) branchProtectionRoutes(r chi.Router) {
	r.With(a.reqRepoAdmin).Get("/branch_protections", a.listBranchProtections)
	r.With(a.reqRepoAdmin).Post("/branch_protections", a.createBranchProtection)
	r.With(a.reqRepoAdmin).Post("/branch_protections/priority", a.setBranchProtectionPriorities)
	// Rule names may hold slashes, escaped or not.
	for _, p := range []string{"/branch_protections/{name}", "/branch_protections/{name}/*"} {
		r.With(a.reqRepoAdmin).Get(p, a.getBranchProtection)
		r.With(a.reqRepoAdmin).Patch(p, a.editBranchProtection)
		r.With(a.reqRepoAdmin).Delete(p, a.deleteBranchProtection)
	}
}

// protectNames resolves user and team names to ids, and back.
type protectNames struct {
	a     *API
	owner *user.User
}

// userIDs resolves user names (422 for an unknown one).
func (n protectNames) userIDs(ctx context.Context, field string, names []string) ([]int64, error) {
	return n.a.Protect.UserIDsByName(ctx, field, names)
}

// teamIDs resolves team names of the owning organization (422 for an
// unknown one); a user's repository has no teams and ignores them.
func (n protectNames) teamIDs(ctx context.Context, field string, names []string) ([]int64, error) {
	out := []int64{}
	if !n.owner.IsOrganization() {
		return out, nil
	}
	for _, name := range names {
		t, err := n.a.Orgs.GetTeamByName(ctx, n.owner, name)
		if errs.IsNotFound(err) {
			return nil, errs.InvalidField(field, "team does not exist [name: %s]", name)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t.ID)
	}
	return out, nil
}

// lookup loads the accounts and teams rules name, in one query each;
// deleted ones are left out of the rendering.
func (n protectNames) lookup(ctx context.Context, userIDs, teamIDs []int64) (map[int64]string, map[int64]string, error) {
	users, teams := map[int64]string{}, map[int64]string{}
	if len(userIDs) > 0 {
		m, err := n.a.Users.Store.GetByIDs(ctx, userIDs)
		if err != nil {
			return nil, nil, err
		}
		for id, u := range m {
			users[id] = u.Name
		}
	}
	if len(teamIDs) > 0 {
		m, err := n.a.Orgs.TeamsByIDs(ctx, teamIDs)
		if err != nil {
			return nil, nil, err
		}
		for id, t := range m {
			teams[id] = t.Name
		}
	}
	return users, teams, nil
}

func names(ids []int64, m map[int64]string) []string {
	out := []string{}
	for _, id := range ids {
		if n, ok := m[id]; ok {
			out = append(out, n)
		}
	}
	return out
}

// toBranchProtections renders rules with two queries in all.
func (a *API) toBranchProtections(ctx context.Context, rc *repoContext, rules []*protect.BranchRule) ([]*types.BranchProtection, error) {
	var uids, tids []int64
	for _, b := range rules {
		uids = append(append(append(append(uids, b.WhitelistUserIDs...), b.ForcePushAllowlistUserIDs...), b.MergeWhitelistUserIDs...), b.ApprovalsWhitelistUserIDs...)
		tids = append(append(append(append(tids, b.WhitelistTeamIDs...), b.ForcePushAllowlistTeamIDs...), b.MergeWhitelistTeamIDs...), b.ApprovalsWhitelistTeamIDs...)
	}
	users, teams, err := protectNames{a, rc.Owner}.lookup(ctx, uids, tids)
	if err != nil {
		return nil, err
	}
	out := make([]*types.BranchProtection, 0, len(rules))
	for _, b := range rules {
		ctxs := b.StatusCheckContexts
		if ctxs == nil {
			ctxs = []string{}
		}
		out = append(out, &types.BranchProtection{
			BranchName: b.RuleName, RuleName: b.RuleName, Priority: b.Priority,
			EnablePush: b.CanPush, EnablePushWhitelist: b.EnableWhitelist,
			PushWhitelistUsernames: names(b.WhitelistUserIDs, users), PushWhitelistTeams: names(b.WhitelistTeamIDs, teams),
			PushWhitelistDeployKeys: b.WhitelistDeployKeys,
			EnableForcePush:         b.CanForcePush, EnableForcePushAllowlist: b.EnableForcePushAllowlist,
			ForcePushAllowlistUsernames:  names(b.ForcePushAllowlistUserIDs, users),
			ForcePushAllowlistTeams:      names(b.ForcePushAllowlistTeamIDs, teams),
			ForcePushAllowlistDeployKeys: b.ForcePushAllowlistDeployKeys,
			EnableMergeWhitelist:         b.EnableMergeWhitelist,
			MergeWhitelistUsernames:      names(b.MergeWhitelistUserIDs, users), MergeWhitelistTeams: names(b.MergeWhitelistTeamIDs, teams),
			EnableStatusCheck: b.EnableStatusCheck, StatusCheckContexts: ctxs, RequiredApprovals: b.RequiredApprovals,
			EnableApprovalsWhitelist:    b.EnableApprovalsWhitelist,
			ApprovalsWhitelistUsernames: names(b.ApprovalsWhitelistUserIDs, users),
			ApprovalsWhitelistTeams:     names(b.ApprovalsWhitelistTeamIDs, teams),
			BlockOnRejectedReviews:      b.BlockOnRejectedReviews, BlockOnOfficialReviewRequests: b.BlockOnOfficialReviewRequests,
			BlockOnOutdatedBranch: b.BlockOnOutdatedBranch, DismissStaleApprovals: b.DismissStaleApprovals,
			IgnoreStaleApprovals: b.IgnoreStaleApprovals, RequireSignedCommits: b.RequireSignedCommits,
			ProtectedFilePatterns: b.ProtectedFilePatterns, UnprotectedFilePatterns: b.UnprotectedFilePatterns,
			BlockAdminMergeOverride: b.BlockAdminMergeOverride, Created: b.Created, Updated: b.Updated,
		})
	}
	return out, nil
}

func (a *API) writeBranchProtection(w http.ResponseWriter, r *http.Request, rc *repoContext, status int, b *protect.BranchRule) {
	list, err := a.toBranchProtections(r.Context(), rc, []*protect.BranchRule{b})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, list[0])
}

// listBranchProtections serves GET /branch_protections, in matching order.
func (a *API) listBranchProtections(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	rules, err := a.Protect.BranchRules(r.Context(), rc.Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.toBranchProtections(r.Context(), rc, rules)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// getBranchProtection serves GET /branch_protections/{name}.
func (a *API) getBranchProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	b, err := a.Protect.GetBranchRule(r.Context(), rc.Repo.ID, wildcardName(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeBranchProtection(w, r, rc, http.StatusOK, b)
}

// createBranchProtection serves POST /branch_protections (201). As in
// Gitea the push and force-push settings only hold when pushing is enabled.
func (a *API) createBranchProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	var o types.CreateBranchProtectionOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	name := o.RuleName
	if name == "" {
		name = o.BranchName
	}
	if name == "" {
		a.fail(w, r, errs.BadRequest("both rule_name and branch_name are empty"))
		return
	}
	if err := a.Protect.CheckNewBranchRule(ctx, rc.Repo.ID, name, o.RequiredApprovals); err != nil {
		a.fail(w, r, err)
		return
	}
	n := protectNames{a, rc.Owner}
	b := &protect.BranchRule{
		RepoID: rc.Repo.ID, RuleName: name, Priority: o.Priority,
		CanPush: o.EnablePush, EnableWhitelist: o.EnablePush && o.EnablePushWhitelist,
		WhitelistDeployKeys:          o.EnablePush && o.EnablePushWhitelist && o.PushWhitelistDeployKeys,
		CanForcePush:                 o.EnablePush && o.EnableForcePush,
		EnableForcePushAllowlist:     o.EnablePush && o.EnableForcePush && o.EnableForcePushAllowlist,
		ForcePushAllowlistDeployKeys: o.EnablePush && o.EnableForcePush && o.EnableForcePushAllowlist && o.ForcePushAllowlistDeployKeys,
		EnableMergeWhitelist:         o.EnableMergeWhitelist, EnableStatusCheck: o.EnableStatusCheck,
		StatusCheckContexts: o.StatusCheckContexts, EnableApprovalsWhitelist: o.EnableApprovalsWhitelist,
		RequiredApprovals: o.RequiredApprovals, BlockOnRejectedReviews: o.BlockOnRejectedReviews,
		BlockOnOfficialReviewRequests: o.BlockOnOfficialReviewRequests, BlockOnOutdatedBranch: o.BlockOnOutdatedBranch,
		DismissStaleApprovals: o.DismissStaleApprovals, IgnoreStaleApprovals: o.IgnoreStaleApprovals,
		RequireSignedCommits: o.RequireSignedCommits, ProtectedFilePatterns: o.ProtectedFilePatterns,
		UnprotectedFilePatterns: o.UnprotectedFilePatterns, BlockAdminMergeOverride: o.BlockAdminMergeOverride,
	}
	var err error
	set := func(dst *[]int64, f func(context.Context, string, []string) ([]int64, error), field string, v []string) {
		if err == nil {
			*dst, err = f(ctx, field, v)
		}
	}
	set(&b.WhitelistUserIDs, n.userIDs, "push_whitelist_usernames", o.PushWhitelistUsernames)
	set(&b.ForcePushAllowlistUserIDs, n.userIDs, "force_push_allowlist_usernames", o.ForcePushAllowlistUsernames)
	set(&b.MergeWhitelistUserIDs, n.userIDs, "merge_whitelist_usernames", o.MergeWhitelistUsernames)
	set(&b.ApprovalsWhitelistUserIDs, n.userIDs, "approvals_whitelist_username", o.ApprovalsWhitelistUsernames)
	set(&b.WhitelistTeamIDs, n.teamIDs, "push_whitelist_teams", o.PushWhitelistTeams)
	set(&b.ForcePushAllowlistTeamIDs, n.teamIDs, "force_push_allowlist_teams", o.ForcePushAllowlistTeams)
	set(&b.MergeWhitelistTeamIDs, n.teamIDs, "merge_whitelist_teams", o.MergeWhitelistTeams)
	set(&b.ApprovalsWhitelistTeamIDs, n.teamIDs, "approvals_whitelist_teams", o.ApprovalsWhitelistTeams)
	if err == nil {
		err = protect.CheckRuleFields(b)
	}
	if err == nil {
		err = a.Protect.CreateBranchRule(ctx, b)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeBranchProtection(w, r, rc, http.StatusCreated, b)
}

// editBranchProtection serves PATCH /branch_protections/{name}: only the
// fields given change, with Gitea's dependencies between the push fields.
func (a *API) editBranchProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	var o types.EditBranchProtectionOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	b, err := a.Protect.GetBranchRule(ctx, rc.Repo.ID, wildcardName(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if o.RequiredApprovals != nil && *o.RequiredApprovals < 0 {
		a.fail(w, r, errs.InvalidField("required_approvals", "required_approvals must not be negative"))
		return
	}
	if o.EnablePush != nil {
		b.CanPush = *o.EnablePush
		if !b.CanPush {
			b.EnableWhitelist, b.WhitelistDeployKeys = false, false
		} else if o.EnablePushWhitelist != nil {
			b.EnableWhitelist = *o.EnablePushWhitelist
			if !b.EnableWhitelist {
				b.WhitelistDeployKeys = false
			} else if o.PushWhitelistDeployKeys != nil {
				b.WhitelistDeployKeys = *o.PushWhitelistDeployKeys
			}
		}
	}
	if o.EnableForcePush != nil {
		b.CanForcePush = *o.EnableForcePush
		if !b.CanForcePush {
			b.EnableForcePushAllowlist, b.ForcePushAllowlistDeployKeys = false, false
		} else if o.EnableForcePushAllowlist != nil {
			b.EnableForcePushAllowlist = *o.EnableForcePushAllowlist
			if !b.EnableForcePushAllowlist {
				b.ForcePushAllowlistDeployKeys = false
			} else if o.ForcePushAllowlistDeployKeys != nil {
				b.ForcePushAllowlistDeployKeys = *o.ForcePushAllowlistDeployKeys
			}
		}
	}
	setInt := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setStr := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setInt(&b.Priority, o.Priority)
	setInt(&b.RequiredApprovals, o.RequiredApprovals)
	setBool(&b.EnableMergeWhitelist, o.EnableMergeWhitelist)
	setBool(&b.EnableStatusCheck, o.EnableStatusCheck)
	setBool(&b.EnableApprovalsWhitelist, o.EnableApprovalsWhitelist)
	setBool(&b.BlockOnRejectedReviews, o.BlockOnRejectedReviews)
	setBool(&b.BlockOnOfficialReviewRequests, o.BlockOnOfficialReviewRequests)
	setBool(&b.BlockOnOutdatedBranch, o.BlockOnOutdatedBranch)
	setBool(&b.DismissStaleApprovals, o.DismissStaleApprovals)
	setBool(&b.IgnoreStaleApprovals, o.IgnoreStaleApprovals)
	setBool(&b.RequireSignedCommits, o.RequireSignedCommits)
	setBool(&b.BlockAdminMergeOverride, o.BlockAdminMergeOverride)
	setStr(&b.ProtectedFilePatterns, o.ProtectedFilePatterns)
	setStr(&b.UnprotectedFilePatterns, o.UnprotectedFilePatterns)
	if o.StatusCheckContexts != nil {
		b.StatusCheckContexts = o.StatusCheckContexts
	}
	n := protectNames{a, rc.Owner}
	set := func(dst *[]int64, f func(context.Context, string, []string) ([]int64, error), field string, v []string) {
		if err == nil && v != nil {
			*dst, err = f(ctx, field, v)
		}
	}
	set(&b.WhitelistUserIDs, n.userIDs, "push_whitelist_usernames", o.PushWhitelistUsernames)
	set(&b.ForcePushAllowlistUserIDs, n.userIDs, "force_push_allowlist_usernames", o.ForcePushAllowlistUsernames)
	set(&b.MergeWhitelistUserIDs, n.userIDs, "merge_whitelist_usernames", o.MergeWhitelistUsernames)
	set(&b.ApprovalsWhitelistUserIDs, n.userIDs, "approvals_whitelist_username", o.ApprovalsWhitelistUsernames)
	set(&b.WhitelistTeamIDs, n.teamIDs, "push_whitelist_teams", o.PushWhitelistTeams)
	set(&b.ForcePushAllowlistTeamIDs, n.teamIDs, "force_push_allowlist_teams", o.ForcePushAllowlistTeams)
	set(&b.MergeWhitelistTeamIDs, n.teamIDs, "merge_whitelist_teams", o.MergeWhitelistTeams)
	set(&b.ApprovalsWhitelistTeamIDs, n.teamIDs, "approvals_whitelist_teams", o.ApprovalsWhitelistTeams)
	if err == nil {
		err = protect.CheckRuleFields(b)
	}
	if err == nil {
		err = a.Protect.UpdateBranchRule(ctx, b)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeBranchProtection(w, r, rc, http.StatusOK, b)
}

// deleteBranchProtection serves DELETE /branch_protections/{name} (204).
func (a *API) deleteBranchProtection(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if err := a.Protect.DeleteBranchRule(r.Context(), rc.Repo.ID, wildcardName(r, "name")); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// setBranchProtectionPriorities serves POST /branch_protections/priority
// (204): the rules listed get priorities in that order.
func (a *API) setBranchProtectionPriorities(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var o types.UpdateBranchProtectionPriories
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.Protect.SetPriorities(r.Context(), rc.Repo.ID, o.IDs); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/protect"
)

// branchRuleRow is a branch rule as the list shows it.
type branchRuleRow struct {
	Rule *protect.BranchRule
	// PushUsers are the names of the push allowlist.
	PushUsers []string
	EditLink  string
}

// branchRulesPage is the data of /{owner}/{repo}/settings/branches.
type branchRulesPage struct {
	settingsPage
	Rules []branchRuleRow
}

// branchRuleForm is the data of .../settings/branches/edit.
type branchRuleForm struct {
	settingsPage
	// Rule is the rule edited, or the defaults of a new one (ID 0).
	Rule *protect.BranchRule
	// Push is none, all or allowlist; PushUsers the allowlist's names.
	Push      string
	PushUsers string
	Contexts  string
}

// userNames maps user ids to names with one query; deleted accounts are left out.
func (h *Handler) userNames(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	m, err := h.Users.Store.GetByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	for id, u := range m {
		out[id] = u.Name
	}
	return out, nil
}

// namesOf lists the names of ids found in m.
func namesOf(ids []int64, m map[int64]string) []string {
	var out []string
	for _, id := range ids {
		if n, ok := m[id]; ok {
			out = append(out, n)
		}
	}
	return out
}

// branchRules serves GET /{owner}/{repo}/settings/branches: the rules in
// matching order.
func (h *Handler) branchRules(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	rules, err := h.Protect.BranchRules(ctx, rc.Repo.ID)
	if err != nil {
		return err
	}
	var ids []int64
	for _, b := range rules {
		ids = append(ids, b.WhitelistUserIDs...)
	}
	names, err := h.userNames(ctx, ids)
	if err != nil {
		return err
	}
	p := branchRulesPage{settingsPage: h.newSettingsPage(rc, "branches")}
	for _, b := range rules {
		p.Rules = append(p.Rules, branchRuleRow{Rule: b, PushUsers: namesOf(b.WhitelistUserIDs, names),
			EditLink: rc.Link + "/settings/branches/edit?rule_name=" + url.QueryEscape(b.RuleName)})
	}
	return h.renderRepo(w, r, http.StatusOK, "repo_settings_branches", "Branch protection", rc, p)
}

// branchRuleEdit serves GET .../settings/branches/edit: a new rule, or the
// rule named by ?rule_name=.
func (h *Handler) branchRuleEdit(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	b := &protect.BranchRule{RepoID: rc.Repo.ID}
	if name := r.URL.Query().Get("rule_name"); name != "" {
		if b, err = h.Protect.GetBranchRule(r.Context(), rc.Repo.ID, name); err != nil {
			return err
		}
	}
	return h.renderBranchRuleForm(w, r, rc, b, http.StatusOK, "")
}

func (h *Handler) renderBranchRuleForm(w http.ResponseWriter, r *http.Request, rc *repoCtx, b *protect.BranchRule, status int, msg string) error {
	names, err := h.userNames(r.Context(), b.WhitelistUserIDs)
	if err != nil {
		return err
	}
	p := branchRuleForm{settingsPage: h.newSettingsPage(rc, "branches"), Rule: b, Push: "none",
		PushUsers: strings.Join(namesOf(b.WhitelistUserIDs, names), ", "), Contexts: strings.Join(b.StatusCheckContexts, "\n")}
	p.Error = msg
	switch {
	case b.CanPush && b.EnableWhitelist:
		p.Push = "allowlist"
	case b.CanPush:
		p.Push = "all"
	}
	title := "New branch rule"
	if b.ID != 0 {
		title = "Branch rule " + b.RuleName
	}
	return h.renderRepo(w, r, status, "repo_settings_branch_edit", title, rc, p)
}

// branchRulePost serves POST .../settings/branches/edit: creates the rule
// named rule_name, or changes the one named by the hidden original field
// (whose name stays).
func (h *Handler) branchRulePost(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	b := &protect.BranchRule{RepoID: rc.Repo.ID, RuleName: strings.TrimSpace(r.PostFormValue("rule_name"))}
	original := r.PostFormValue("original")
	if original != "" {
		if b, err = h.Protect.GetBranchRule(ctx, rc.Repo.ID, original); err != nil {
			return err
		}
	}
	err = h.applyBranchRuleForm(ctx, r, b)
	if err == nil && original == "" {
		if b.RuleName == "" {
			err = errs.InvalidField("rule_name", "The rule needs a name: a branch name or a pattern.")
		} else {
			err = h.Protect.CheckNewBranchRule(ctx, rc.Repo.ID, b.RuleName, b.RequiredApprovals)
		}
	}
	if err == nil {
		err = protect.CheckRuleFields(b)
	}
	if err == nil {
		if original == "" {
			err = h.Protect.CreateBranchRule(ctx, b)
		} else {
			err = h.Protect.UpdateBranchRule(ctx, b)
		}
	}
	if err != nil {
		if userError(err) && !errs.IsNotFound(err) {
			return h.renderBranchRuleForm(w, r, rc, b, http.StatusUnprocessableEntity, errMessage(err, "The rule was refused."))
		}
		return err
	}
	return h.settingsDone(w, r, rc, "/branches", "The branch rule "+b.RuleName+" has been saved.")
}

// applyBranchRuleForm sets the form's fields on b; the fields the form
// does not show keep their values. As in Gitea, the push allowlist and
// force pushing only hold while pushing is enabled.
func (h *Handler) applyBranchRuleForm(ctx context.Context, r *http.Request, b *protect.BranchRule) error {
	switch r.PostFormValue("enable_push") {
	case "all":
		b.CanPush, b.EnableWhitelist, b.WhitelistDeployKeys = true, false, false
	case "allowlist":
		b.CanPush, b.EnableWhitelist = true, true
		b.WhitelistDeployKeys = formChecked(r, "whitelist_deploy_keys")
	default:
		b.CanPush, b.EnableWhitelist, b.WhitelistDeployKeys = false, false, false
		b.CanForcePush, b.EnableForcePushAllowlist, b.ForcePushAllowlistDeployKeys = false, false, false
	}
	b.WhitelistUserIDs = []int64{}
	if b.EnableWhitelist {
		ids, err := h.Protect.UserIDsByName(ctx, "push_allowlist_users", splitNames(r.PostFormValue("push_allowlist_users")))
		if err != nil {
			return err
		}
		b.WhitelistUserIDs = ids
	}
	approvals := strings.TrimSpace(r.PostFormValue("required_approvals"))
	if approvals == "" {
		approvals = "0"
	}
	n, err := strconv.ParseInt(approvals, 10, 64)
	if err != nil || n < 0 {
		return errs.InvalidField("required_approvals", "The required approvals must be a number, 0 or more.")
	}
	b.RequiredApprovals = n
	b.EnableStatusCheck = formChecked(r, "enable_status_check")
	b.StatusCheckContexts = []string{}
	for _, c := range strings.Split(r.PostFormValue("status_check_contexts"), "\n") {
		if c = strings.TrimSpace(c); c != "" {
			b.StatusCheckContexts = append(b.StatusCheckContexts, c)
		}
	}
	b.BlockOnRejectedReviews = formChecked(r, "block_on_rejected_reviews")
	b.BlockOnOutdatedBranch = formChecked(r, "block_on_outdated_branch")
	b.DismissStaleApprovals = formChecked(r, "dismiss_stale_approvals")
	b.RequireSignedCommits = formChecked(r, "require_signed_commits")
	b.ProtectedFilePatterns = strings.TrimSpace(r.PostFormValue("protected_file_patterns"))
	b.UnprotectedFilePatterns = strings.TrimSpace(r.PostFormValue("unprotected_file_patterns"))
	return nil
}

// branchRuleDelete serves POST .../settings/branches/{id}/delete.
func (h *Handler) branchRuleDelete(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	id, err := formID(chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	rules, err := h.Protect.BranchRules(r.Context(), rc.Repo.ID)
	if err != nil {
		return err
	}
	for _, b := range rules {
		if b.ID == id {
			if err := h.Protect.DeleteBranchRule(r.Context(), rc.Repo.ID, b.RuleName); err != nil {
				return err
			}
			return h.settingsDone(w, r, rc, "/branches", "The branch rule "+b.RuleName+" has been deleted.")
		}
	}
	return errs.NotFound("no such branch rule")
}

// tagRuleRow is a tag rule as the list shows it.
type tagRuleRow struct {
	Rule  *protect.TagRule
	Users []string
}

// tagRulesPage is the data of /{owner}/{repo}/settings/tags and of the
// form of one rule (Editing).
type tagRulesPage struct {
	settingsPage
	Rules   []tagRuleRow
	Editing *protect.TagRule
	// EditUsers are the allowlist's names of the rule edited.
	EditUsers string
}

// tagRules serves GET /{owner}/{repo}/settings/tags.
func (h *Handler) tagRules(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	return h.renderTagRules(w, r, rc, nil, http.StatusOK, "")
}

func (h *Handler) renderTagRules(w http.ResponseWriter, r *http.Request, rc *repoCtx, editing *protect.TagRule, status int, msg string) error {
	ctx := r.Context()
	rules, err := h.Protect.TagRules(ctx, rc.Repo.ID)
	if err != nil {
		return err
	}
	var ids []int64
	for _, t := range rules {
		ids = append(ids, t.AllowlistUserIDs...)
	}
	if editing != nil {
		ids = append(ids, editing.AllowlistUserIDs...)
	}
	names, err := h.userNames(ctx, ids)
	if err != nil {
		return err
	}
	p := tagRulesPage{settingsPage: h.newSettingsPage(rc, "tags"), Editing: editing}
	p.Error = msg
	for _, t := range rules {
		p.Rules = append(p.Rules, tagRuleRow{Rule: t, Users: namesOf(t.AllowlistUserIDs, names)})
	}
	if editing != nil {
		p.EditUsers = strings.Join(namesOf(editing.AllowlistUserIDs, names), ", ")
	}
	return h.renderRepo(w, r, status, "repo_settings_tags", "Tag protection", rc, p)
}

// tagRuleByID loads the tag rule of rc whose id is v.
func (h *Handler) tagRuleByID(r *http.Request, rc *repoCtx, v string) (*protect.TagRule, error) {
	id, err := formID(v)
	if err != nil {
		return nil, err
	}
	return h.Protect.GetTagRule(r.Context(), rc.Repo.ID, id)
}

// tagRuleEdit serves GET .../settings/tags/{id}.
func (h *Handler) tagRuleEdit(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	t, err := h.tagRuleByID(r, rc, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	return h.renderTagRules(w, r, rc, t, http.StatusOK, "")
}

// tagRulePost serves POST .../settings/tags (a new rule) and
// .../settings/tags/{id} (a change).
func (h *Handler) tagRulePost(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	t := &protect.TagRule{RepoID: rc.Repo.ID}
	var editing *protect.TagRule
	if v := chi.URLParam(r, "id"); v != "" {
		if t, err = h.tagRuleByID(r, rc, v); err != nil {
			return err
		}
		editing = t
	}
	t.NamePattern = strings.TrimSpace(r.PostFormValue("name_pattern"))
	err = h.Protect.CheckTagPattern(ctx, rc.Repo.ID, t.ID, t.NamePattern)
	if err == nil {
		t.AllowlistUserIDs, err = h.Protect.UserIDsByName(ctx, "allowlist_users", splitNames(r.PostFormValue("allowlist_users")))
	}
	if err == nil {
		err = h.Protect.SaveTagRule(ctx, t)
	}
	if err != nil {
		if userError(err) && !errs.IsNotFound(err) {
			return h.renderTagRules(w, r, rc, editing, http.StatusUnprocessableEntity, errMessage(err, "The rule was refused."))
		}
		return err
	}
	return h.settingsDone(w, r, rc, "/tags", "The tag rule "+t.NamePattern+" has been saved.")
}

// tagRuleDelete serves POST .../settings/tags/delete (id).
func (h *Handler) tagRuleDelete(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	t, err := h.tagRuleByID(r, rc, r.PostFormValue("id"))
	if err != nil {
		return err
	}
	if err := h.Protect.DeleteTagRule(r.Context(), rc.Repo.ID, t.ID); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "/tags", "The tag rule "+t.NamePattern+" has been deleted.")
}

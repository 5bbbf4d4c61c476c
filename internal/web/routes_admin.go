package web

import (
	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/webhook"
)

// adminRoutes are repository settings and the site administration at /-/admin.
func (h *Handler) adminRoutes(r chi.Router) {
	const settings = "/{owner}/{repo}/settings"
	r.Get(settings, h.page(h.repoOptions))
	r.Post(settings, h.page(h.repoOptionsPost))

	r.Get(settings+"/collaboration", h.page(h.collaboration))
	r.Post(settings+"/collaboration", h.page(h.addCollaborator))
	r.Post(settings+"/collaboration/access_mode", h.page(h.changeCollaboratorMode))
	r.Post(settings+"/collaboration/delete", h.page(h.removeCollaborator))
	r.Post(settings+"/collaboration/team", h.page(h.changeRepoTeam(true)))
	r.Post(settings+"/collaboration/team/delete", h.page(h.changeRepoTeam(false)))

	r.Get(settings+"/branches", h.page(h.branchRules))
	r.Get(settings+"/branches/edit", h.page(h.branchRuleEdit))
	r.Post(settings+"/branches/edit", h.page(h.branchRulePost))
	r.Post(settings+"/branches/{id}/delete", h.page(h.branchRuleDelete))

	r.Get(settings+"/tags", h.page(h.tagRules))
	r.Post(settings+"/tags", h.page(h.tagRulePost))
	r.Post(settings+"/tags/delete", h.page(h.tagRuleDelete))
	r.Get(settings+"/tags/{id}", h.page(h.tagRuleEdit))
	r.Post(settings+"/tags/{id}", h.page(h.tagRulePost))

	r.Get(settings+"/hooks", h.page(h.repoHooks))
	r.Post(settings+"/hooks/delete", h.page(h.deleteHook))
	r.Get(settings+"/hooks/gitea/new", h.page(h.newHookForm))
	r.Post(settings+"/hooks/gitea/new", h.page(h.createHook))
	r.Get(settings+"/hooks/{id}", h.page(h.hookView))
	r.Post(settings+"/hooks/{id}/test", h.page(h.testHook))
	r.Post(settings+"/hooks/{id}/replay/{uuid}", h.page(h.redeliverHook))
	for _, t := range webhook.Types() { // Gitea's /hooks/{type}/{id}
		r.Post(settings+"/hooks/"+t+"/{id}", h.page(h.editHook(t)))
	}

	r.Get(settings+"/keys", h.page(h.deployKeys))
	r.Post(settings+"/keys", h.page(h.addDeployKey))
	r.Post(settings+"/keys/delete", h.page(h.deleteDeployKey))

	const admin = "/-/admin"
	r.Get(admin, h.adminOnly(h.adminDashboard))
	r.Get(admin+"/users", h.adminOnly(h.adminUsers))
	r.Get(admin+"/users/new", h.adminOnly(h.adminNewUser))
	r.Post(admin+"/users/new", h.adminOnly(h.adminCreateUser))
	r.Get(admin+"/users/{id}/edit", h.adminOnly(h.adminEditUser))
	r.Post(admin+"/users/{id}/edit", h.adminOnly(h.adminUpdateUser))
	r.Post(admin+"/users/{id}/delete", h.adminOnly(h.adminDeleteUser))
	r.Get(admin+"/orgs", h.adminOnly(h.adminOrgs))
	r.Get(admin+"/repos", h.adminOnly(h.adminRepos))
	r.Post(admin+"/repos/delete", h.adminOnly(h.adminDeleteRepo))
	r.Get(admin+"/auths", h.adminOnly(h.adminAuths))
	r.Get(admin+"/auths/new", h.adminOnly(h.adminNewAuth))
	r.Post(admin+"/auths/new", h.adminOnly(h.adminCreateAuth))
	r.Get(admin+"/auths/{id}", h.adminOnly(h.adminEditAuth))
	r.Post(admin+"/auths/{id}", h.adminOnly(h.adminUpdateAuth))
	r.Post(admin+"/auths/{id}/delete", h.adminOnly(h.adminDeleteAuth))
	r.Get(admin+"/config", h.adminOnly(h.adminConfig))
	r.Post(admin+"/config/test_mail", h.adminOnly(h.adminTestMail))
}

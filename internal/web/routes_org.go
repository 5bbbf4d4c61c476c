package web

import "github.com/go-chi/chi/v5"

// orgRoutes are an organization's members, teams and settings, and the
// signed-in user's notifications, at Gitea's URLs.
func (h *Handler) orgRoutes(r chi.Router) {
	r.Get("/org/{org}/members", h.page(h.orgMembers))
	r.Post("/org/{org}/members/action/{action}", h.page(h.orgMemberAction))
	r.Get("/org/{org}/teams", h.page(h.orgTeams))
	r.Get("/org/{org}/teams/new", h.page(h.newTeamForm))
	r.Post("/org/{org}/teams/new", h.page(h.createTeam))
	r.Get("/org/{org}/teams/{team}", h.page(h.orgTeam))
	r.Get("/org/{org}/teams/{team}/repositories", h.page(h.orgTeamRepos))
	r.Get("/org/{org}/teams/{team}/edit", h.page(h.editTeamForm))
	r.Post("/org/{org}/teams/{team}/edit", h.page(h.editTeam))
	r.Post("/org/{org}/teams/{team}/delete", h.page(h.deleteTeam))
	r.Post("/org/{org}/teams/{team}/action/{action}", h.page(h.orgTeamAction))
	r.Post("/org/{org}/teams/{team}/action/repo/{action}", h.page(h.orgTeamRepoAction))
	r.Get("/org/{org}/settings", h.page(h.orgSettings))
	r.Post("/org/{org}/settings", h.page(h.updateOrgSettings))
	r.Post("/org/{org}/settings/avatar", h.page(h.uploadOrgAvatar))
	r.Post("/org/{org}/settings/avatar/delete", h.page(h.deleteOrgAvatar))
	r.Post("/org/{org}/settings/delete", h.page(h.deleteOrg))

	r.Get("/notifications", h.page(h.notifications))
	r.Post("/notifications/status", h.page(h.notificationStatus))
	r.Post("/notifications/purge", h.page(h.markAllNotificationsRead))
}

package v1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/auth"
)

// routes is the API's table of contents. Each group names the token scope
// category its routes need; signedIn and siteAdmin guard what needs a caller.
func (a *API) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(a.common, a.authenticate)
	r.NotFound(a.notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		a.errorJSON(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path)
	})

	// Gitea's web address of a release asset (the repository's releases
	// unit must be readable, as for /attachments/{uuid}).
	r.Get("/{owner}/{repo}/releases/download/{tag}/{name}", a.serveReleaseDownload)

	r.Route("/api/v1", func(r chi.Router) {
		// Miscellaneous, no scope.
		r.Get("/version", a.getVersion)
		r.Get("/signing-key.gpg", a.getSigningKey)
		r.Get("/settings/api", a.getAPISettings)
		r.Get("/settings/ui", a.getUISettings)
		r.Get("/settings/repository", a.getRepoSettings)
		r.Get("/settings/attachment", a.getAttachmentSettings)
		newTemplateHandlers(a.Templates, a.rootURL, a.fail).routes(r)
		r.Post("/markdown", a.renderMarkdown)
		r.Post("/markdown/raw", a.renderMarkdownRaw)
		r.Post("/markup", a.renderMarkup)

		// The signed-in user.
		r.Route("/user", func(r chi.Router) {
			r.Use(a.scope(auth.CatUser), a.signedIn)
			r.Get("/", a.getAuthenticatedUser)
			r.Get("/settings", a.getUserSettings)
			r.Post("/avatar", a.setUserAvatar(true))
			r.Delete("/avatar", a.setUserAvatar(false))
			r.Patch("/settings", a.updateUserSettings)
			r.Get("/emails", a.listEmails)
			r.Post("/emails", a.addEmails)
			r.Delete("/emails", a.deleteEmails)
			r.Get("/keys", a.listMyKeys)
			r.Post("/keys", a.createMyKey)
			r.Get("/keys/{id}", a.getMyKey)
			r.Delete("/keys/{id}", a.deleteMyKey)
			r.Get("/gpg_keys", a.listMyGPGKeys)
			r.Post("/gpg_keys", a.createMyGPGKey)
			r.Get("/gpg_keys/{id}", a.getMyGPGKey)
			r.Delete("/gpg_keys/{id}", a.deleteMyGPGKey)
			r.Get("/gpg_key_token", a.getGPGKeyToken)
			r.Post("/gpg_key_verify", a.verifyMyGPGKey)
			r.Get("/followers", a.listMyFollowers)
			r.Get("/following", a.listMyFollowing)
			r.Get("/following/{username}", a.checkMyFollowing)
			r.Put("/following/{username}", a.follow)
			r.Delete("/following/{username}", a.unfollow)
			a.userOrgRoutes(r)
			a.hookRoutes(r, "", userHookOwner)
			a.userStarWatchRoutes(r)
			a.userTimeRoutes(r)
			a.oauth2AppRoutes(r)
			r.With(a.scope(auth.CatRepository)).Get("/repos", a.listMyRepos)
			r.With(a.scope(auth.CatRepository)).Post("/repos", a.createMyRepo)
		})

		// Users.
		r.Route("/users", func(r chi.Router) {
			r.Use(a.scope(auth.CatUser))
			r.Get("/search", a.searchUsers)
			r.Get("/{username}", a.getUser)
			r.Get("/{username}/keys", a.listUserKeys)
			r.Get("/{username}/gpg_keys", a.listUserGPGKeys)
			r.Get("/{username}/followers", a.listUserFollowers)
			r.Get("/{username}/following", a.listUserFollowing)
			r.Get("/{username}/following/{target}", a.checkUserFollowing)
			r.Get("/{username}/activities/feeds", a.listUserActivityFeeds)
			r.Get("/{username}/heatmap", a.getUserHeatmap)
			r.Group(func(r chi.Router) {
				r.Use(a.signedIn, a.passwordAuth)
				r.Get("/{username}/tokens", a.listTokens)
				r.Post("/{username}/tokens", a.createToken)
				r.Delete("/{username}/tokens/{token}", a.deleteToken)
			})
			a.usersOrgRoutes(r)
			a.usersStarWatchRoutes(r)
			r.With(a.scope(auth.CatRepository)).Get("/{username}/repos", a.listUserRepos)
		})

		// Site administration.
		r.Route("/admin", func(r chi.Router) {
			r.Use(a.scope(auth.CatAdmin), a.siteAdmin)
			r.Get("/users", a.adminListUsers)
			r.Post("/users", a.adminCreateUser)
			r.Patch("/users/{username}", a.adminEditUser)
			r.Delete("/users/{username}", a.adminDeleteUser)
			r.Post("/users/{username}/rename", a.adminRenameUser)
			r.Post("/users/{username}/keys", a.adminCreateKey)
			r.Delete("/users/{username}/keys/{id}", a.adminDeleteKey)
			r.Get("/cron", a.adminListCron)
			r.Post("/cron/{task}", a.adminRunCron)
			r.Get("/emails", a.adminListEmails)
			r.Get("/emails/search", a.adminListEmails)
			a.adminOrgRoutes(r)
			a.hookRoutes(r, "", adminHookOwner)
			r.Post("/users/{username}/repos", a.adminCreateRepo)
		})

		a.orgRoutes(r)
		a.orgLabelRoutes(r)
		r.Group(func(r chi.Router) {
			r.Use(a.scope(auth.CatOrganization), a.signedIn)
			a.hookRoutes(r, "/orgs/{org}", a.orgHookOwner)
		})
		a.notificationRoutes(r)
		r.With(a.scope(auth.CatOrganization)).Get("/orgs/{org}/repos", a.listOrgRepos)
		r.With(a.scope(auth.CatOrganization)).Get("/orgs/{org}/activities/feeds", a.listOrgActivityFeeds)
		r.With(a.scope(auth.CatOrganization), a.signedIn).Get("/teams/{id}/activities/feeds", a.listTeamActivityFeeds)
		r.With(a.scope(auth.CatOrganization), a.signedIn).Post("/orgs/{org}/repos", a.createOrgRepo)
		r.With(a.scope(auth.CatOrganization, auth.CatRepository), a.signedIn).Post("/org/{org}/repos", a.createOrgRepo)

		// Repositories.
		r.With(a.scope(auth.CatRepository)).Get("/repos/search", a.searchRepos)
		a.repoTopLevelRoutes(r)
		r.With(a.scope(auth.CatRepository)).Get("/repositories/{id}", a.getRepoByID)
		r.With(a.scope(auth.CatIssue)).Get("/repos/issues/search", a.searchIssues)
		r.Route("/repos/{owner}/{repo}", func(r chi.Router) {
			a.transferDecisionRoutes(r)
			r.Group(func(r chi.Router) {
				r.Use(a.scope(auth.CatRepository), a.repoAssignment)
				a.repoRoutes(r)
				r.Get("/activities/feeds", a.listRepoActivityFeeds)
				a.repoTimeRoutes(r)
				a.repoTeamRoutes(r)
				a.repoIssueHelperRoutes(r)
				a.statusRoutes(r)
				r.With(a.reqRepoAdminBeforeToken).Post("/avatar", a.setRepoAvatar(true))
				r.With(a.reqRepoAdminBeforeToken).Delete("/avatar", a.setRepoAvatar(false))
			})
			r.Group(func(r chi.Router) {
				r.Use(a.scope(auth.CatIssue), a.repoAssignment)
				a.issueRoutes(r)
			})
		})
	})
	return r
}

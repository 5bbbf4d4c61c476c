package web

import "github.com/go-chi/chi/v5"

// issueRoutes are the pages of issues and pull requests: the lists, the
// conversations, the new issue form, the forms that change an issue (at
// both /issues/{index} and /pulls/{index}, as Gitea), the merge, and the
// signed-in user's lists across repositories.
func (h *Handler) issueRoutes(r chi.Router) {
	r.Get("/issues", h.page(h.myIssues))
	r.Get("/pulls", h.page(h.myPulls))

	const base = "/{owner}/{repo}"
	r.Get(base+"/issues", h.page(h.listRepoIssues))
	r.Get(base+"/issues/new", h.page(h.newIssueForm))
	r.Get(base+"/issues/new/choose", h.page(h.newIssueForm))
	r.Post(base+"/issues/new", h.page(h.createIssue))
	r.Get(base+"/issues/{index}", h.page(h.viewIssue))
	r.Get(base+"/pulls", h.page(h.listRepoPulls))
	r.Get(base+"/pulls/{index}", h.page(h.viewPullConversation))
	r.Post(base+"/pulls/{index}/merge", h.page(h.postPullMerge))
	r.Post(base+"/pulls/{index}/cancel_auto_merge", h.page(h.postCancelAutoMerge))
	for _, kind := range []string{"/issues", "/pulls"} {
		one := base + kind + "/{index}"
		r.Post(one+"/comments", h.page(h.postComment))
		r.Post(one+"/title", h.page(h.postTitle))
		r.Post(one+"/content", h.page(h.postContent))
		r.Post(one+"/deadline", h.page(h.postDeadline))
		r.Post(one+"/watch", h.page(h.postWatch))
		r.Post(one+"/pin", h.page(h.postPin))
		r.Post(one+"/lock", h.page(h.postLock(true)))
		r.Post(one+"/unlock", h.page(h.postLock(false)))
		r.Post(one+"/reactions/{action}", h.page(h.postReaction))
		r.Post(one+"/dependency/add", h.page(h.postDependency(true)))
		r.Post(one+"/dependency/delete", h.page(h.postDependency(false)))
		r.Post(base+kind+"/labels", h.page(h.postLabels))
		r.Post(base+kind+"/milestone", h.page(h.postMilestone))
		r.Post(base+kind+"/assignee", h.page(h.postAssignees))
		r.Post(base+kind+"/status", h.page(h.postStatus))
	}
	r.Post(base+"/comments/{id}", h.page(h.postCommentEdit))
	r.Post(base+"/comments/{id}/delete", h.page(h.postCommentDelete))
	r.Post(base+"/comments/{id}/reactions/{action}", h.page(h.postCommentReaction))
}

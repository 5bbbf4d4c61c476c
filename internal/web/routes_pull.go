package web

import "github.com/go-chi/chi/v5"

// pullRoutes are the pages of a pull request beyond its conversation (files, commits, reviews), new pull requests from a comparison, releases, labels and milestones.
func (h *Handler) pullRoutes(r chi.Router) {
	// Releases (a tag may hold slashes: the tag routes end in "/*").
	r.Get("/{owner}/{repo}/releases", h.page(h.releases))
	r.Get("/{owner}/{repo}/releases/tag/*", h.page(h.releaseByTag))
	r.Get("/{owner}/{repo}/releases/new", h.page(h.newReleaseForm))
	r.Post("/{owner}/{repo}/releases/new", h.page(h.createRelease))
	r.Get("/{owner}/{repo}/releases/edit/*", h.page(h.editReleaseForm))
	r.Post("/{owner}/{repo}/releases/edit/*", h.page(h.editRelease))
	r.Post("/{owner}/{repo}/releases/delete", h.page(h.deleteRelease))
	r.Post("/{owner}/{repo}/releases/assets/delete", h.page(h.deleteReleaseAsset))

	// Labels and milestones (readers of the repository see them, writers
	// of issues or pull requests change them).
	r.Get("/{owner}/{repo}/labels", h.page(h.labels))
	r.Post("/{owner}/{repo}/labels/new", h.page(h.createLabel))
	r.Post("/{owner}/{repo}/labels/edit", h.page(h.editLabel))
	r.Post("/{owner}/{repo}/labels/delete", h.page(h.deleteLabel))
	r.Get("/{owner}/{repo}/milestones", h.page(h.milestones))
	r.Get("/{owner}/{repo}/milestones/new", h.page(h.newMilestoneForm))
	r.Post("/{owner}/{repo}/milestones/new", h.page(h.createMilestone))
	r.Get("/{owner}/{repo}/milestones/{id}/edit", h.page(h.editMilestoneForm))
	r.Post("/{owner}/{repo}/milestones/{id}/edit", h.page(h.editMilestone))
	r.Post("/{owner}/{repo}/milestones/{id}/close", h.page(h.setMilestoneState(true)))
	r.Post("/{owner}/{repo}/milestones/{id}/open", h.page(h.setMilestoneState(false)))
	r.Post("/{owner}/{repo}/milestones/{id}/delete", h.page(h.deleteMilestone))

	// New pull requests: the form of a branch, and the comparison's POST
	// (its GET page is the code area's).
	r.Get("/{owner}/{repo}/pulls/new/*", h.page(h.newPullForm))
	r.Post("/{owner}/{repo}/compare/*", h.page(h.createPullFromCompare))

	// A pull request's files and commits (next to its conversation, the
	// issue area's), and the review forms of the files page.
	r.Get("/{owner}/{repo}/pulls/{index}/files", h.page(h.pullFiles))
	r.Get("/{owner}/{repo}/pulls/{index}/commits", h.page(h.pullCommits))
	r.Post("/{owner}/{repo}/pulls/{index}/files/reviews/comments", h.page(h.addPullReviewComment))
	r.Post("/{owner}/{repo}/pulls/{index}/files/reviews/submit", h.page(h.submitPullReview))
}

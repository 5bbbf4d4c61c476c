package v1

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/user"
)

// issueActivityRoutes registers reactions, attachments, tracked time,
// stopwatches and dependencies under /repos/{owner}/{repo} (issue scope).
func (a *API) issueActivityRoutes(r chi.Router) {
	a.reactionRoutes(r)
	a.attachmentRoutes(r)
	a.trackedTimeRoutes(r)
	a.dependencyRoutes(r)
}

// reactionRoutes registers the reaction routes of issues and comments.
func (a *API) reactionRoutes(r chi.Router) {
	r.Get("/issues/{index}/reactions", a.listIssueReactions)
	r.With(a.signedIn).Post("/issues/{index}/reactions", a.postIssueReaction)
	r.With(a.signedIn).Delete("/issues/{index}/reactions", a.deleteIssueReaction)
	r.Get("/issues/comments/{id}/reactions", a.listCommentReactions)
	r.With(a.signedIn).Post("/issues/comments/{id}/reactions", a.postCommentReaction)
	r.With(a.signedIn).Delete("/issues/comments/{id}/reactions", a.deleteCommentReaction)
}

// toReactions renders reactions with their users, loaded in one query.
func (a *API) toReactions(ctx context.Context, list []*issue.Reaction, v *user.User) ([]*types.Reaction, error) {
	ids := make([]int64, 0, len(list))
	for _, x := range list {
		ids = append(ids, x.UserID)
	}
	users, err := a.Users.Store.GetByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Reaction, 0, len(list))
	for _, x := range list {
		u, ok := users[x.UserID]
		if !ok {
			u = user.Ghost()
		}
		out = append(out, &types.Reaction{User: a.toUser(u, v), Reaction: x.Type, Created: x.Created})
	}
	return out, nil
}

// writeReactions lists the reactions of an issue (c nil) or of a comment.
// Like Gitea, the list is paged only when ?page= is given.
func (a *API) writeReactions(w http.ResponseWriter, r *http.Request, is *issue.Issue, c *issue.Comment) {
	f := issue.ReactionFilter{IssueID: is.ID, Allowed: a.Config.UI.Reactions}
	if c != nil {
		f.CommentID = c.ID
	}
	pg := a.paging(r)
	if r.URL.Query().Get("page") != "" {
		f.Limit, f.Offset = pg.Limit, pg.Offset()
	}
	list, total, err := a.Issues.FindReactions(r.Context(), f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toReactions(r.Context(), list, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if f.Limit > 0 {
		a.setTotal(w, r, pg, total)
	} else {
		w.Header().Set("X-Total-Count", itoa(total))
	}
	writeJSON(w, http.StatusOK, out)
}

// changeReaction adds (add) or removes a reaction of the caller. On a
// locked issue only writers may react.
func (a *API) changeReaction(w http.ResponseWriter, r *http.Request, rc *repoContext, is *issue.Issue, c *issue.Comment, add bool) {
	var o types.EditReactionOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if is.IsLocked && !canWriteIssue(rc, is) {
		a.errorJSON(w, http.StatusForbidden, "no permission to change reaction: the conversation is locked")
		return
	}
	d := doer(r)
	if !add {
		if err := a.Issues.RemoveReaction(r.Context(), d, is, c, o.Reaction); err != nil {
			a.fail(w, r, err)
			return
		}
		empty(w, http.StatusOK)
		return
	}
	x, created, err := a.Issues.AddReaction(r.Context(), d, is, c, o.Reaction, a.Config.UI.Reactions)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, &types.Reaction{User: a.toUser(d, d), Reaction: x.Type, Created: x.Created})
}

// listIssueReactions serves GET /repos/{owner}/{repo}/issues/{index}/reactions.
func (a *API) listIssueReactions(w http.ResponseWriter, r *http.Request) {
	if _, is, ok := a.loadIssue(w, r); ok {
		a.writeReactions(w, r, is, nil)
	}
}

// postIssueReaction serves POST /repos/{owner}/{repo}/issues/{index}/reactions:
// 201 for a new reaction, 200 when the caller had already reacted so.
func (a *API) postIssueReaction(w http.ResponseWriter, r *http.Request) {
	if rc, is, ok := a.loadIssue(w, r); ok {
		a.changeReaction(w, r, rc, is, nil, true)
	}
}

// deleteIssueReaction serves DELETE /repos/{owner}/{repo}/issues/{index}/reactions.
func (a *API) deleteIssueReaction(w http.ResponseWriter, r *http.Request) {
	if rc, is, ok := a.loadIssue(w, r); ok {
		a.changeReaction(w, r, rc, is, nil, false)
	}
}

// listCommentReactions serves GET /repos/{owner}/{repo}/issues/comments/{id}/reactions.
func (a *API) listCommentReactions(w http.ResponseWriter, r *http.Request) {
	if _, is, c, ok := a.loadComment(w, r); ok {
		a.writeReactions(w, r, is, c)
	}
}

// postCommentReaction serves POST /repos/{owner}/{repo}/issues/comments/{id}/reactions.
func (a *API) postCommentReaction(w http.ResponseWriter, r *http.Request) {
	if rc, is, c, ok := a.loadComment(w, r); ok {
		a.changeReaction(w, r, rc, is, c, true)
	}
}

// deleteCommentReaction serves DELETE /repos/{owner}/{repo}/issues/comments/{id}/reactions.
func (a *API) deleteCommentReaction(w http.ResponseWriter, r *http.Request) {
	if rc, is, c, ok := a.loadComment(w, r); ok {
		a.changeReaction(w, r, rc, is, c, false)
	}
}

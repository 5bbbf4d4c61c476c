package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/user"
)

// issueFormMemory is how much of a multipart form is kept in memory; larger
// files are spooled to temporary files (removed after the request).
const issueFormMemory = 8 << 20

// parseIssueForm parses the posted form, URL-encoded or multipart.
func parseIssueForm(r *http.Request) error {
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		err = r.ParseMultipartForm(issueFormMemory)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return errs.BadRequest("the form could not be read: %v", err)
	}
	return nil
}

// loadIssueForm loads the issue of a form post, after checking that the
// visitor is signed in and the form is readable.
func (h *Handler) loadIssueForm(r *http.Request) (*issueCtx, error) {
	if err := signedIn(r); err != nil {
		return nil, err
	}
	if err := parseIssueForm(r); err != nil {
		return nil, err
	}
	return h.loadIssue(r)
}

// refuseMergedState refuses to reopen (or close) a merged pull request, as
// the API does.
func (h *Handler) refuseMergedState(r *http.Request, c *issueCtx) error {
	if !c.issue.IsPull {
		return nil
	}
	p, err := h.Pulls.GetByIssueID(r.Context(), c.issue.ID)
	if err != nil {
		return err
	}
	if p.HasMerged {
		return errs.Invalid("cannot change state of this pull request, it was already merged")
	}
	return nil
}

// postComment serves POST .../{index}/comments: a comment (Markdown, with
// attachments) and/or closing or reopening ("status" close or reopen).
func (h *Handler) postComment(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	body := r.PostFormValue("content")
	status := r.PostFormValue("status")
	files := issueFormFiles(r)
	hasComment := strings.TrimSpace(body) != "" || len(files) > 0
	if hasComment && !c.canComment() {
		return c.refuse("comment")
	}
	var closeTo *bool
	switch status {
	case "":
	case "close", "reopen":
		if !c.canEdit() {
			return c.refuse("close or reopen this")
		}
		b := status == "close"
		if b != c.issue.IsClosed {
			closeTo = &b
		}
	default:
		return errs.InvalidField("status", "invalid status %q: close or reopen", status)
	}
	back := c.link()
	if !hasComment && closeTo == nil {
		return h.issueBack(w, r, back, errs.InvalidField("content", "The comment is empty."))
	}
	if closeTo != nil {
		if err := h.refuseMergedState(r, c); err != nil {
			return h.issueBack(w, r, back, err)
		}
	}
	if hasComment {
		if len(files) > 0 {
			if err := h.checkIssueUploads(files); err != nil {
				return h.issueBack(w, r, back, err)
			}
		}
		if strings.TrimSpace(body) == "" {
			return h.issueBack(w, r, back, errs.InvalidField("content", "A comment with attachments needs some text too."))
		}
		cm, err := h.Issues.CreateComment(ctx, c.doer, c.rc.Repo, c.issue, body)
		if err != nil {
			return h.issueBack(w, r, back, err)
		}
		if err := h.storeIssueUploads(r, c, cm, files); err != nil {
			return h.issueBack(w, r, back, err)
		}
		back += "#issuecomment-" + strconv.FormatInt(cm.ID, 10)
	}
	if closeTo != nil {
		if err := h.Issues.ChangeStatus(ctx, c.doer, c.rc.Repo, c.issue, *closeTo); err != nil {
			return h.issueBack(w, r, c.link(), err)
		}
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// postTitle serves POST .../{index}/title.
func (h *Handler) postTitle(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	if !c.canEdit() {
		return c.refuse("edit this")
	}
	title := strings.TrimSpace(r.PostFormValue("title"))
	if title == "" {
		return h.issueBack(w, r, c.link(), errs.InvalidField("title", "The title cannot be empty."))
	}
	if title == c.issue.Title {
		return h.issueDone(w, r, c.link(), "")
	}
	return h.issueBack(w, r, c.link(), h.Issues.ChangeTitle(r.Context(), c.doer, c.rc.Repo, c.issue, title))
}

// postContent serves POST .../{index}/content: the issue's body.
func (h *Handler) postContent(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	if !c.canEdit() {
		return c.refuse("edit this")
	}
	return h.issueBack(w, r, c.link(), h.Issues.ChangeContent(r.Context(), c.doer, c.rc.Repo, c.issue, r.PostFormValue("content")))
}

// postDeadline serves POST .../{index}/deadline: "deadline" as YYYY-MM-DD,
// empty to remove it (writers).
func (h *Handler) postDeadline(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	if !c.writer() {
		return c.refuse("set the due date")
	}
	var deadline time.Time
	if v := strings.TrimSpace(r.PostFormValue("deadline")); v != "" {
		d, err := time.Parse("2006-01-02", v)
		if err != nil {
			return h.issueBack(w, r, c.link(), errs.InvalidField("deadline", "invalid date %q: YYYY-MM-DD", v))
		}
		// The end of that day, as the API stores due dates.
		deadline = time.Date(d.Year(), d.Month(), d.Day(), 23, 59, 59, 0, time.UTC)
	}
	return h.issueBack(w, r, c.link(), h.Issues.SetDeadline(r.Context(), c.doer, c.issue, deadline))
}

// postWatch serves POST .../{index}/watch: "watch" true subscribes, false
// unsubscribes.
func (h *Handler) postWatch(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	watch := r.PostFormValue("watch") == "true"
	_, err = h.Issues.SetSubscription(r.Context(), c.doer.ID, c.issue, watch)
	if err != nil {
		return err
	}
	msg := "You are no longer subscribed."
	if watch {
		msg = "You are subscribed: you will be notified of changes."
	}
	return h.issueDone(w, r, c.link(), msg)
}

// postPin serves POST .../{index}/pin: pins an unpinned issue, unpins a
// pinned one (repository administrators).
func (h *Handler) postPin(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	if !c.canAdmin() {
		return c.refuse("pin this")
	}
	pinned := c.issue.PinOrder == 0
	return h.issueBack(w, r, c.link(), h.Issues.SetPinned(r.Context(), c.doer, c.issue, pinned, h.Config.RepositoryIssue.MaxPinned))
}

// postLock serves POST .../{index}/lock and .../unlock (repository
// administrators, as the API).
func (h *Handler) postLock(locked bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := h.loadIssueForm(r)
		if err != nil {
			return err
		}
		if !c.canAdmin() {
			return c.refuse("lock or unlock this conversation")
		}
		reason := strings.TrimSpace(r.PostFormValue("reason"))
		if len(reason) > 255 {
			return h.issueBack(w, r, c.link(), errs.InvalidField("reason", "the reason is too long"))
		}
		return h.issueBack(w, r, c.link(), h.Issues.SetLocked(r.Context(), c.doer, c.issue, locked, reason))
	}
}

// postReaction serves POST .../{index}/reactions/{action} (react or
// unreact) with the reaction in "content".
func (h *Handler) postReaction(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	return h.issueReact(w, r, c, nil, c.link())
}

// issueReact adds or removes the visitor's reaction to the issue (cm nil) or a comment.
func (h *Handler) issueReact(w http.ResponseWriter, r *http.Request, c *issueCtx, cm *issue.Comment, back string) error {
	if !c.canComment() {
		return c.refuse("react")
	}
	typ := r.PostFormValue("content")
	switch chi.URLParam(r, "action") {
	case "react":
		_, _, err := h.Issues.AddReaction(r.Context(), c.doer, c.issue, cm, typ, h.Config.UI.Reactions)
		return h.issueBack(w, r, back, err)
	case "unreact":
		return h.issueBack(w, r, back, h.Issues.RemoveReaction(r.Context(), c.doer, c.issue, cm, typ))
	}
	return errs.NotFound("no such page")
}

// postDependency serves POST .../{index}/dependency/add and /delete:
// "dependency" names the blocking issue as "#N", "N" or "owner/repo#N"
// (writers, with dependencies on).
func (h *Handler) postDependency(add bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := h.loadIssueForm(r)
		if err != nil {
			return err
		}
		if !c.rc.Repo.Settings.EnableIssueDependencies {
			return errs.NotFound("issue dependencies are disabled in this repository")
		}
		if !c.writer() {
			return c.refuse("change dependencies")
		}
		dep, err := h.findIssueRef(r, c.rc, strings.TrimSpace(r.PostFormValue("dependency")))
		if err != nil {
			return h.issueBack(w, r, c.link(), err)
		}
		if add {
			err = h.Issues.AddDependency(r.Context(), c.doer, c.issue, dep)
		} else {
			err = h.Issues.RemoveDependency(r.Context(), c.doer, c.issue, dep)
		}
		return h.issueBack(w, r, c.link(), err)
	}
}

// findIssueRef finds the issue "#N", "N" or "owner/repo#N" names among
// those the visitor may read; anything else is an invalid reference.
func (h *Handler) findIssueRef(r *http.Request, rc *repoCtx, ref string) (*issue.Issue, error) {
	ctx := r.Context()
	bad := errs.InvalidField("dependency", "%q does not name an issue you can see (#N or owner/repo#N)", ref)
	where, num, _ := strings.Cut(strings.TrimSpace(ref), "#")
	if num == "" {
		where, num = "", where
	}
	idx, err := strconv.ParseInt(num, 10, 64)
	if err != nil || idx <= 0 {
		return nil, bad
	}
	target := rc
	if where != "" {
		owner, name, ok := strings.Cut(where, "/")
		if !ok {
			return nil, bad
		}
		if !strings.EqualFold(owner, rc.Owner.Name) || !strings.EqualFold(name, rc.Repo.Name) {
			rp, ow, err := h.Repos.GetWithOwner(ctx, owner, name)
			if errs.IsNotFound(err) {
				return nil, bad
			}
			if err != nil {
				return nil, err
			}
			perm, err := h.Access.RepoPermission(ctx, doer(r), rp, ow)
			if err != nil {
				return nil, err
			}
			target = &repoCtx{Owner: ow, Repo: rp, Perm: perm}
		}
	}
	is, err := h.Issues.GetByIndex(ctx, target.Repo.ID, idx)
	if errs.IsNotFound(err) {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	if !issueUnitReadable(target, issueUnitOf(is)) {
		return nil, bad
	}
	return is, nil
}

// loadCommentForm loads comment {id} of the route's repository for a form:
// it must be a plain comment of an issue the visitor may read.
func (h *Handler) loadCommentForm(r *http.Request) (*issueCtx, *issue.Comment, error) {
	if err := signedIn(r); err != nil {
		return nil, nil, err
	}
	if err := parseIssueForm(r); err != nil {
		return nil, nil, err
	}
	rc, err := h.loadRepo(r)
	if err != nil {
		return nil, nil, err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return nil, nil, issue.ErrCommentNotExist(0)
	}
	ctx := r.Context()
	cm, err := h.Issues.GetComment(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	is, err := h.Issues.GetByID(ctx, cm.IssueID)
	if err != nil {
		return nil, nil, err
	}
	if is.RepoID != rc.Repo.ID || cm.Type != issue.CommentPlain || !issueUnitReadable(rc, issueUnitOf(is)) {
		return nil, nil, issue.ErrCommentNotExist(id)
	}
	return &issueCtx{rc: rc, issue: is, unit: issueUnitOf(is), doer: doer(r)}, cm, nil
}

// postCommentEdit serves POST /{owner}/{repo}/comments/{id}: a new body
// (the poster or a writer).
func (h *Handler) postCommentEdit(w http.ResponseWriter, r *http.Request) error {
	c, cm, err := h.loadCommentForm(r)
	if err != nil {
		return err
	}
	if !c.canChangeComment(cm) {
		return c.refuse("edit this comment")
	}
	back := c.link() + "#issuecomment-" + strconv.FormatInt(cm.ID, 10)
	return h.issueBack(w, r, back, h.Issues.UpdateComment(r.Context(), c.doer, c.rc.Repo, c.issue, cm, r.PostFormValue("content")))
}

// postCommentDelete serves POST /{owner}/{repo}/comments/{id}/delete.
func (h *Handler) postCommentDelete(w http.ResponseWriter, r *http.Request) error {
	c, cm, err := h.loadCommentForm(r)
	if err != nil {
		return err
	}
	if !c.canChangeComment(cm) {
		return c.refuse("delete this comment")
	}
	if err := h.Issues.DeleteComment(r.Context(), c.doer, c.rc.Repo, c.issue, cm); err != nil {
		return h.issueBack(w, r, c.link(), err)
	}
	return h.issueDone(w, r, c.link(), "The comment was deleted.")
}

// postCommentReaction serves POST /{owner}/{repo}/comments/{id}/reactions/{action}.
func (h *Handler) postCommentReaction(w http.ResponseWriter, r *http.Request) error {
	c, cm, err := h.loadCommentForm(r)
	if err != nil {
		return err
	}
	return h.issueReact(w, r, c, cm, c.link()+"#issuecomment-"+strconv.FormatInt(cm.ID, 10))
}

// loadBulk loads the issues of a bulk form ("issue_ids", issue ids of the
// route's repository, comma-separated or repeated) for writers; an id of
// another repository, or of an issue the visitor may not read, is not found.
func (h *Handler) loadBulk(r *http.Request) (*repoCtx, []*issueCtx, error) {
	if err := signedIn(r); err != nil {
		return nil, nil, err
	}
	if err := parseIssueForm(r); err != nil {
		return nil, nil, err
	}
	rc, err := h.loadRepo(r)
	if err != nil {
		return nil, nil, err
	}
	ids, err := issueFormIDs(r, "issue_ids")
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 || len(ids) > 100 {
		return nil, nil, errs.InvalidField("issue_ids", "name between 1 and 100 issues")
	}
	issues, err := h.Issues.GetByIDs(r.Context(), ids)
	if err != nil {
		return nil, nil, err
	}
	var out []*issueCtx
	for _, id := range ids {
		is, ok := issues[id]
		if !ok || is.RepoID != rc.Repo.ID || !issueUnitReadable(rc, issueUnitOf(is)) {
			return nil, nil, errs.NotFound("issue does not exist [id: %d]", id)
		}
		c := &issueCtx{rc: rc, issue: is, unit: issueUnitOf(is), doer: doer(r)}
		if !c.writer() {
			return nil, nil, c.refuse("change this issue")
		}
		out = append(out, c)
	}
	return rc, out, nil
}

// bulkBack is where a bulk form returns: its redirect_to on this site, the
// one issue's page, or the list.
func bulkBack(r *http.Request, rc *repoCtx, list []*issueCtx) string {
	if to := r.PostFormValue("redirect_to"); to != "" {
		return safeRedirect(to)
	}
	if len(list) == 1 {
		return list[0].link()
	}
	if list[0].issue.IsPull {
		return rc.Link + "/pulls"
	}
	return rc.Link + "/issues"
}

// postLabels serves POST /{owner}/{repo}/issues/labels: with "action"
// attach or detach, label "id" is added or removed; clear removes all;
// without an action the issues get exactly the labels of "label_ids".
func (h *Handler) postLabels(w http.ResponseWriter, r *http.Request) error {
	rc, list, err := h.loadBulk(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	back := bulkBack(r, rc, list)
	action := r.PostFormValue("action")
	var ids []int64
	switch action {
	case "attach", "detach":
		id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
		if err != nil {
			return h.issueBack(w, r, back, errs.InvalidField("id", "invalid label"))
		}
		ids = []int64{id}
	case "", "replace":
		if ids, err = issueFormIDs(r, "label_ids"); err != nil {
			return h.issueBack(w, r, back, err)
		}
	case "clear":
	default:
		return h.issueBack(w, r, back, errs.InvalidField("action", "invalid action %q", action))
	}
	labels, err := h.Issues.CheckLabels(ctx, rc.Repo.ID, issueOrgID(rc), ids)
	if err != nil {
		return h.issueBack(w, r, back, err)
	}
	for _, c := range list {
		switch action {
		case "attach":
			err = h.Issues.AddLabels(ctx, c.doer, rc.Repo, c.issue, labels)
		case "detach":
			err = h.Issues.RemoveLabel(ctx, c.doer, rc.Repo, c.issue, labels[0])
		case "clear":
			err = h.Issues.ClearLabels(ctx, c.doer, rc.Repo, c.issue)
		default:
			err = h.Issues.ReplaceLabels(ctx, c.doer, rc.Repo, c.issue, labels)
		}
		if err != nil {
			return h.issueBack(w, r, back, err)
		}
	}
	return h.issueDone(w, r, back, "")
}

// postMilestone serves POST /{owner}/{repo}/issues/milestone: milestone
// "id" (0 removes it).
func (h *Handler) postMilestone(w http.ResponseWriter, r *http.Request) error {
	rc, list, err := h.loadBulk(r)
	if err != nil {
		return err
	}
	back := bulkBack(r, rc, list)
	id, err := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("id")), 10, 64)
	if err != nil || id < 0 {
		return h.issueBack(w, r, back, errs.InvalidField("id", "invalid milestone"))
	}
	if err := h.Issues.CheckMilestone(r.Context(), rc.Repo.ID, id); err != nil {
		return h.issueBack(w, r, back, err)
	}
	for _, c := range list {
		if err := h.Issues.SetMilestone(r.Context(), c.doer, rc.Repo, c.issue, id); err != nil {
			return h.issueBack(w, r, back, err)
		}
	}
	return h.issueDone(w, r, back, "")
}

// postAssignees serves POST /{owner}/{repo}/issues/assignee: with "action"
// attach or detach, user "id" is assigned or unassigned; clear unassigns
// everyone; without an action the issues get exactly the users named in
// "assignees" (comma-separated), each of whom must be able to write.
func (h *Handler) postAssignees(w http.ResponseWriter, r *http.Request) error {
	rc, list, err := h.loadBulk(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	back := bulkBack(r, rc, list)
	action := r.PostFormValue("action")
	for _, c := range list {
		current, err := h.Issues.AssigneeIDs(ctx, c.issue.ID)
		if err != nil {
			return err
		}
		var ids []int64
		switch action {
		case "attach", "detach":
			id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
			if err != nil {
				return h.issueBack(w, r, back, errs.InvalidField("id", "invalid user"))
			}
			for _, x := range current {
				if x != id {
					ids = append(ids, x)
				}
			}
			if action == "attach" {
				u, err := h.Users.Store.GetByID(ctx, id)
				if err != nil {
					return h.issueBack(w, r, back, errs.InvalidField("id", "user %d does not exist", id))
				}
				if err := h.checkAssignable(r, c, u); err != nil {
					return h.issueBack(w, r, back, err)
				}
				ids = append(ids, id)
			}
		case "clear":
		case "", "replace":
			if ids, err = h.assigneeIDsByName(r, c, r.PostFormValue("assignees")); err != nil {
				return h.issueBack(w, r, back, err)
			}
		default:
			return h.issueBack(w, r, back, errs.InvalidField("action", "invalid action %q", action))
		}
		if err := h.Issues.SetAssignees(ctx, c.doer, rc.Repo, c.issue, ids); err != nil {
			return h.issueBack(w, r, back, err)
		}
	}
	return h.issueDone(w, r, back, "")
}

// assigneeIDsByName resolves comma-separated user names; each must be able
// to work on the issue (write access to its unit), as the API requires.
func (h *Handler) assigneeIDsByName(r *http.Request, c *issueCtx, names string) ([]int64, error) {
	var ids []int64
	seen := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimPrefix(strings.TrimSpace(n), "@")
		if n == "" || seen[strings.ToLower(n)] {
			continue
		}
		seen[strings.ToLower(n)] = true
		if len(seen) > 20 {
			return nil, errs.InvalidField("assignees", "at most 20 assignees")
		}
		u, err := h.Users.Store.GetByName(r.Context(), n)
		if errs.IsNotFound(err) || (err == nil && u.IsOrganization()) {
			return nil, errs.InvalidField("assignees", "user %q does not exist", n)
		}
		if err != nil {
			return nil, err
		}
		if err := h.checkAssignable(r, c, u); err != nil {
			return nil, err
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// checkAssignable refuses a user who may not work on the issue
// (access.Checker.CheckAssignable).
func (h *Handler) checkAssignable(r *http.Request, c *issueCtx, u *user.User) error {
	return h.Access.CheckAssignable(r.Context(), doer(r), u, c.rc.Repo, c.rc.Owner, c.unit)
}

// postStatus serves POST /{owner}/{repo}/issues/status: "action" open or
// close (writers).
func (h *Handler) postStatus(w http.ResponseWriter, r *http.Request) error {
	rc, list, err := h.loadBulk(r)
	if err != nil {
		return err
	}
	back := bulkBack(r, rc, list)
	var closed bool
	switch r.PostFormValue("action") {
	case "close":
		closed = true
	case "open":
	default:
		return h.issueBack(w, r, back, errs.InvalidField("action", "invalid action: open or close"))
	}
	for _, c := range list {
		if c.issue.IsClosed == closed {
			continue
		}
		if err := h.refuseMergedState(r, c); err != nil {
			return h.issueBack(w, r, back, err)
		}
		if err := h.Issues.ChangeStatus(r.Context(), c.doer, rc.Repo, c.issue, closed); err != nil {
			return h.issueBack(w, r, back, err)
		}
	}
	return h.issueDone(w, r, back, "")
}

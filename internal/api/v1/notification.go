package v1

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/notify"
	"github.com/cairn-forge/cairn/internal/repo"
)

// notificationRoutes registers /notifications and
// /repos/{owner}/{repo}/notifications: both need the notification scope (and
// only it, as in Gitea) and a signed-in caller.
func (a *API) notificationRoutes(r chi.Router) {
	r.Route("/notifications", func(r chi.Router) {
		r.Use(a.scope(auth.CatNotification), a.signedIn)
		r.Get("/", a.listNotifications)
		r.Put("/", a.readNotifications)
		r.Get("/new", a.newNotifications)
		r.Get("/threads/{id}", a.getThread)
		r.Patch("/threads/{id}", a.readThread)
	})
	r.With(a.scope(auth.CatNotification), a.repoAssignment, a.signedIn).Get("/repos/{owner}/{repo}/notifications", a.listNotifications)
	r.With(a.scope(auth.CatNotification), a.repoAssignment, a.signedIn).Put("/repos/{owner}/{repo}/notifications", a.readNotifications)
}

// threads is the notification thread store.
func (a *API) threads() *notify.Store { return notify.NewStore(a.DB) }

// threadVisibility is the condition keeping threads of repositories the
// caller may (still) see: access is checked when threads are created, and
// again when they are shown (a page at a time), so that losing access hides
// them. Counts (X-Total-Count, /notifications/new) read the index only and
// may still include such threads.
func threadVisibility(r *http.Request) (string, []any) {
	cond, args := access.RepoCond(doer(r))
	if id := identity(r); id != nil && id.Token != nil && id.Token.Scope.PublicOnly {
		cond = "(" + cond + ") AND r.is_private = ?"
		args = append(args, false)
	}
	return cond, args
}

// parseStatuses reads multi-valued status names; unknown names are
// ignored, and when none is given the defaults apply (Gitea's rules: when
// only unknown names are given, no status filter applies).
func parseStatuses(values []string, defaults ...notify.Status) []notify.Status {
	if len(values) == 0 {
		return defaults
	}
	var out []notify.Status
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if st, ok := notify.ParseStatus(part); ok {
				out = append(out, st)
			}
		}
	}
	return out
}

// notificationFilter reads the list filters of GET /notifications: all,
// status-types (default unread and pinned), subject-type, since and before.
func notificationFilter(r *http.Request) (notify.ListOptions, error) {
	q := r.URL.Query()
	o := notify.ListOptions{UserID: doer(r).ID}
	if rc := currentRepo(r); rc != nil {
		o.RepoID = rc.Repo.ID
	}
	if !queryBool(r, "all") {
		o.Statuses = parseStatuses(q["status-types"], notify.StatusUnread, notify.StatusPinned)
	}
	for _, v := range q["subject-type"] {
		for _, part := range strings.Split(v, ",") {
			if src, ok := notify.ParseSubjectType(part); ok {
				o.Sources = append(o.Sources, src)
			}
		}
	}
	var err error
	if o.Since, err = parseTimeParam(r, "since"); err != nil {
		return o, err
	}
	if o.Before, err = parseTimeParam(r, "before"); err != nil {
		return o, err
	}
	return o, nil
}

// listNotifications serves GET /notifications and GET
// /repos/{owner}/{repo}/notifications: one count, one page query, and the
// related rows in batches.
func (a *API) listNotifications(w http.ResponseWriter, r *http.Request) {
	o, err := notificationFilter(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	pg := a.paging(r)
	o.Limit, o.Offset = pg.Limit, pg.Offset()
	ctx := r.Context()
	total, err := a.threads().Count(ctx, o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	o.Total = total
	list, err := a.threads().List(ctx, o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toThreads(r, list)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// targetStatus reads ?to-status= (default read; unknown values mean read, as in Gitea).
func targetStatus(r *http.Request) notify.Status {
	if st, ok := notify.ParseStatus(r.URL.Query().Get("to-status")); ok {
		return st
	}
	return notify.StatusRead
}

// readNotifications serves PUT /notifications and PUT
// /repos/{owner}/{repo}/notifications: threads updated at or before
// last_read_at (default: now) with the given status-types (default unread;
// every status with all=true) move to to-status (default read). It answers 205
// with the threads changed, as Gitea 1.23 does.
func (a *API) readNotifications(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o := notify.ListOptions{UserID: doer(r).ID}
	if rc := currentRepo(r); rc != nil {
		o.RepoID = rc.Repo.ID
	}
	if v := strings.TrimSpace(q.Get("last_read_at")); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			a.fail(w, r, errs.BadRequest("[last_read_at]: must be a date-time in RFC 3339 format, got %q", v))
			return
		}
		o.Before = t
	}
	if !queryBool(r, "all") {
		o.Statuses = parseStatuses(q["status-types"], notify.StatusUnread)
	}
	ctx := r.Context()
	list, err := a.threads().List(ctx, o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if _, err := a.threads().SetStatus(ctx, list, targetStatus(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toThreads(r, list)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusResetContent, out)
}

// newNotifications serves GET /notifications/new: 200 with the number of
// unread threads, 0 included (Gitea 1.23).
func (a *API) newNotifications(w http.ResponseWriter, r *http.Request) {
	n, err := a.threads().CountUnread(r.Context(), doer(r).ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, types.NotificationCount{New: n})
}

// loadThread loads thread {id}: 404 when it does not exist or its repository
// is no longer visible to the caller, 403 when it is someone else's (site
// administrators may read it), as Gitea answers.
func (a *API) loadThread(w http.ResponseWriter, r *http.Request, write bool) (*notify.Thread, bool) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return nil, false
	}
	ctx := r.Context()
	t, err := a.threads().Get(ctx, id)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	d := doer(r)
	if t.UserID != d.ID && (write || !d.IsAdmin) {
		a.fail(w, r, errs.Forbidden("only the user and site administrators may read or change notification thread %d", t.ID))
		return nil, false
	}
	cond, args := threadVisibility(r)
	visible, err := a.threads().VisibleRepos(ctx, []int64{t.RepoID}, cond, args)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	if !visible[t.RepoID] {
		a.fail(w, r, errs.NotFound("notification does not exist [id: %d]", t.ID))
		return nil, false
	}
	return t, true
}

// getThread serves GET /notifications/threads/{id}.
func (a *API) getThread(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadThread(w, r, false)
	if !ok {
		return
	}
	a.writeThread(w, r, http.StatusOK, t)
}

// readThread serves PATCH /notifications/threads/{id}?to-status=: 205 with the thread.
func (a *API) readThread(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadThread(w, r, true)
	if !ok {
		return
	}
	if _, err := a.threads().SetStatus(r.Context(), []*notify.Thread{t}, targetStatus(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeThread(w, r, http.StatusResetContent, t)
}

func (a *API) writeThread(w http.ResponseWriter, r *http.Request, status int, t *notify.Thread) {
	out, err := a.toThreads(r, []*notify.Thread{t})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, out[0])
}

// threadChunk bounds the threads rendered with one round of batched queries.
const threadChunk = 500

// toThreads renders threads for the caller with their repositories, issues
// and latest comments loaded in batches: a fixed number of queries per
// threadChunk threads, whatever the page size. Threads of repositories the
// caller can no longer see are left out.
func (a *API) toThreads(r *http.Request, list []*notify.Thread) ([]*types.NotificationThread, error) {
	out := make([]*types.NotificationThread, 0, len(list))
	for len(list) > 0 {
		n := min(len(list), threadChunk)
		part, err := a.toThreadChunk(r, list[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
		list = list[n:]
	}
	return out, nil
}

func (a *API) toThreadChunk(r *http.Request, list []*notify.Thread) ([]*types.NotificationThread, error) {
	ctx, d := r.Context(), doer(r)
	var issueIDs, repoIDs []int64
	for _, t := range list {
		repoIDs = append(repoIDs, t.RepoID)
		if t.IssueID > 0 {
			issueIDs = append(issueIDs, t.IssueID)
		}
	}
	cond, args := threadVisibility(r)
	visible, err := a.threads().VisibleRepos(ctx, repoIDs, cond, args)
	if err != nil {
		return nil, err
	}
	repoIDs = repoIDs[:0]
	for id := range visible {
		repoIDs = append(repoIDs, id)
	}
	repos, err := a.Repos.Store.GetByIDs(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	issues, err := a.Issues.GetByIDs(ctx, issueIDs)
	if err != nil {
		return nil, err
	}
	repoList := make([]*repo.Repository, 0, len(repos))
	for _, rp := range repos {
		repoList = append(repoList, rp)
	}
	wire, err := a.toRepos(ctx, d, repoList)
	if err != nil {
		return nil, err
	}
	wireByID := make(map[int64]*types.Repository, len(wire))
	for _, w := range wire {
		// The caller's permissions are not what a thread is about: Gitea leaves them out.
		w.Permissions = nil
		if w.Parent != nil {
			w.Parent.Permissions = nil
		}
		wireByID[w.ID] = w
	}
	latest, err := a.Issues.LatestCommentIDs(ctx, issueIDs)
	if err != nil {
		return nil, err
	}
	out := make([]*types.NotificationThread, 0, len(list))
	for _, t := range list {
		rp, ok := repos[t.RepoID]
		if !ok {
			continue
		}
		th := &types.NotificationThread{
			ID: t.ID, Repository: wireByID[t.RepoID], Unread: t.Status == notify.StatusUnread,
			Pinned: t.Status == notify.StatusPinned, UpdatedAt: t.Updated,
			URL: a.rootURL + "api/v1/notifications/threads/" + strconv.FormatInt(t.ID, 10),
		}
		switch t.Source {
		case notify.SourceIssue, notify.SourcePull:
			th.Subject = &types.NotificationSubject{Type: "Issue"}
			if t.Source == notify.SourcePull {
				th.Subject.Type = "Pull"
			}
			if is, ok := issues[t.IssueID]; ok {
				a.fillIssueSubject(th.Subject, rp, is, latest[is.ID])
			}
		case notify.SourceCommit:
			u := a.repoLink(rp) + "/commit/" + t.CommitID
			th.Subject = &types.NotificationSubject{Type: "Commit", URL: u, HTMLURL: u}
		case notify.SourceRepository:
			th.Subject = &types.NotificationSubject{Type: "Repository", Title: rp.FullName(),
				URL: "/" + rp.FullName(), HTMLURL: a.repoLink(rp)}
		}
		out = append(out, th)
	}
	return out, nil
}

// fillIssueSubject sets the title, state and links of an issue or pull
// request subject; latest is the id of its latest comment (0 for none).
func (a *API) fillIssueSubject(s *types.NotificationSubject, rp *repo.Repository, is *issue.Issue, latest int64) {
	idx := strconv.FormatInt(is.Index, 10)
	s.Title, s.State = is.Title, is.State()
	s.URL = a.rootURL + "api/v1/repos/" + rp.FullName() + "/issues/" + idx
	s.HTMLURL = a.repoLink(rp) + "/issues/" + idx
	if is.IsPull {
		s.HTMLURL = a.repoLink(rp) + "/pulls/" + idx
	}
	if latest > 0 {
		id := strconv.FormatInt(latest, 10)
		s.LatestCommentURL = a.rootURL + "api/v1/repos/" + rp.FullName() + "/issues/comments/" + id
		s.LatestCommentHTMLURL = s.HTMLURL + "#issuecomment-" + id
	}
}

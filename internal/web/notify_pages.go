package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/notify"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// notificationTab is one status tab of the notifications page.
type notificationTab struct {
	Key, Label, Link string
	Count            int64
	Active           bool
}

// notificationRow is one thread of the notifications page.
type notificationRow struct {
	ID    int64
	Repo  *repo.Repository
	Issue *issue.Issue
	// Link is the issue or pull request (at the comment that woke the
	// thread, when there is one); By is who touched it last.
	Link    string
	By      *user.User
	Updated time.Time
	Status  string
}

// notificationsPage is the data of /notifications.
type notificationsPage struct {
	Tab   string
	Tabs  []notificationTab
	Rows  []notificationRow
	Pager pager
	// Hidden counts the threads of the page left out because their
	// repository can no longer be read.
	Hidden int
}

// threadStore is the notification thread store the API uses too.
func (h *Handler) threadStore() *notify.Store { return notify.NewStore(h.DB) }

// notificationStatusTab is a tab of the page: its key, label and status.
type notificationStatusTab struct {
	key, label string
	status     notify.Status
}

// notificationStatuses are the tabs of the page.
func notificationStatuses() []notificationStatusTab {
	return []notificationStatusTab{
		{"unread", "Unread", notify.StatusUnread},
		{"read", "Read", notify.StatusRead},
		{"pinned", "Pinned", notify.StatusPinned},
	}
}

// notifications serves GET /notifications?type=unread|read|pinned: the
// signed-in user's threads of one status, most recently updated first, a
// page at a time. Threads of repositories (or units) the user can no longer
// read are left out. Fixed queries: three counts, the page, and the page's
// repositories, owners, permissions, issues and people in batches.
func (h *Handler) notifications(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	ctx := r.Context()
	me := doer(r)
	store := h.threadStore()
	p := notificationsPage{Tab: "unread"}
	var status notify.Status = notify.StatusUnread
	var total int64
	for _, s := range notificationStatuses() {
		n, err := store.Count(ctx, notify.ListOptions{UserID: me.ID, Statuses: []notify.Status{s.status}})
		if err != nil {
			return err
		}
		tab := notificationTab{Key: s.key, Label: s.label, Link: "/notifications?type=" + s.key, Count: n}
		if r.URL.Query().Get("type") == s.key {
			p.Tab, status = s.key, s.status
		}
		p.Tabs = append(p.Tabs, tab)
	}
	for i := range p.Tabs {
		p.Tabs[i].Active = p.Tabs[i].Key == p.Tab
		if p.Tabs[i].Active {
			total = p.Tabs[i].Count
		}
	}
	page := pageNumber(r)
	list, err := store.List(ctx, notify.ListOptions{UserID: me.ID, Statuses: []notify.Status{status},
		Limit: listPageSize, Offset: (page - 1) * listPageSize, Total: total})
	if err != nil {
		return err
	}
	if p.Rows, err = h.notificationRows(r, list, p.Tab); err != nil {
		return err
	}
	p.Hidden = len(list) - len(p.Rows)
	p.Pager = newPager(r, page, total)
	return h.render(w, r, http.StatusOK, "notifications", "Notifications", p)
}

// notificationRows renders threads with their repositories, issues and
// people, keeping those whose issue or pull request the visitor may still
// read: a fixed number of queries.
func (h *Handler) notificationRows(r *http.Request, list []*notify.Thread, status string) ([]notificationRow, error) {
	if len(list) == 0 {
		return nil, nil
	}
	ctx := r.Context()
	var repoIDs, issueIDs, userIDs []int64
	for _, t := range list {
		repoIDs = append(repoIDs, t.RepoID)
		issueIDs = append(issueIDs, t.IssueID)
		userIDs = append(userIDs, t.UpdatedBy)
	}
	repos, err := h.Repos.List(ctx, "WHERE r.id IN "+db.In(len(repoIDs)), db.Int64Args(repoIDs)...)
	if err != nil {
		return nil, err
	}
	ownerIDs := make([]int64, 0, len(repos))
	byID := make(map[int64]*repo.Repository, len(repos))
	for _, rp := range repos {
		ownerIDs = append(ownerIDs, rp.OwnerID)
		byID[rp.ID] = rp
	}
	people, err := h.Users.Store.GetByIDs(ctx, append(ownerIDs, userIDs...))
	if err != nil {
		return nil, err
	}
	perms, err := h.Access.RepoPermissions(ctx, doer(r), repos, people)
	if err != nil {
		return nil, err
	}
	issues, err := h.Issues.GetByIDs(ctx, issueIDs)
	if err != nil {
		return nil, err
	}
	var rows []notificationRow
	for _, t := range list {
		rp, is := byID[t.RepoID], issues[t.IssueID]
		if rp == nil || is == nil || (t.Source != notify.SourceIssue && t.Source != notify.SourcePull) {
			continue
		}
		unit, kind := repo.UnitIssues, "/issues/"
		if is.IsPull {
			unit, kind = repo.UnitPulls, "/pulls/"
		}
		if p, ok := perms[rp.ID]; !ok || !rp.HasUnit(unit) || !p.CanRead(unit) {
			continue
		}
		link := "/" + url.PathEscape(rp.OwnerName) + "/" + url.PathEscape(rp.Name) + kind + strconv.FormatInt(is.Index, 10)
		if t.CommentID > 0 {
			link += "#issuecomment-" + strconv.FormatInt(t.CommentID, 10)
		}
		rows = append(rows, notificationRow{ID: t.ID, Repo: rp, Issue: is, Link: link, By: people[t.UpdatedBy],
			Updated: t.Updated, Status: status})
	}
	return rows, nil
}

// notificationStatus serves POST /notifications/status: thread
// notification_id of the signed-in user moves to status (read, unread or
// pinned); the visitor returns to the tab and page they came from.
func (h *Handler) notificationStatus(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	ctx := r.Context()
	id, err := formID(r.PostFormValue("notification_id"))
	if err != nil {
		return err
	}
	st, ok := notify.ParseStatus(r.PostFormValue("status"))
	if !ok {
		return errs.Invalid("The status must be read, unread or pinned.")
	}
	store := h.threadStore()
	t, err := store.Get(ctx, id)
	if err != nil {
		return err
	}
	if t.UserID != doer(r).ID {
		return errs.NotFound("notification does not exist [id: %d]", id)
	}
	if _, err := store.SetStatus(ctx, []*notify.Thread{t}, st); err != nil {
		return err
	}
	http.Redirect(w, r, notificationsBack(r), http.StatusSeeOther)
	return nil
}

// notificationsBack is the notifications page of the form's type and page.
func notificationsBack(r *http.Request) string {
	q := url.Values{}
	if tab := r.PostFormValue("type"); tab == "read" || tab == "pinned" {
		q.Set("type", tab)
	}
	if n, err := strconv.Atoi(r.PostFormValue("page")); err == nil && n > 1 {
		q.Set("page", strconv.Itoa(min(n, maxListPage)))
	}
	if len(q) == 0 {
		return "/notifications"
	}
	return "/notifications?" + q.Encode()
}

// markAllNotificationsRead serves POST /notifications/purge: every unread
// thread of the signed-in user becomes read (pinned ones stay pinned).
func (h *Handler) markAllNotificationsRead(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	ctx := r.Context()
	store := h.threadStore()
	list, err := store.List(ctx, notify.ListOptions{UserID: doer(r).ID, Statuses: []notify.Status{notify.StatusUnread}, Before: h.Now()})
	if err != nil {
		return err
	}
	if _, err := store.SetStatus(ctx, list, notify.StatusRead); err != nil {
		return err
	}
	h.flash(w, "success", "All notifications have been marked as read.")
	http.Redirect(w, r, "/notifications", http.StatusSeeOther)
	return nil
}

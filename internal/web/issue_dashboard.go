package web

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
)

// issueDashTab is one of the filters of the signed-in user's lists.
type issueDashTab struct {
	Value, Label, Link string
	Selected           bool
}

// issueDashView is the data of /issues and /pulls.
type issueDashView struct {
	Pulls     bool
	Base      string
	Tabs      []issueDashTab
	Type      string
	State     string
	Q         string
	Rows      []issueRow
	Open      int64
	Closed    int64
	OpenLink  string
	ClosedTab string
	Prev      string
	Next      string
	Page      int
	Pages     int
}

// myIssues serves /issues: issues across repositories created by, assigned
// to or mentioning the signed-in user.
func (h *Handler) myIssues(w http.ResponseWriter, r *http.Request) error {
	return h.issueDashboard(w, r, false)
}

// myPulls serves /pulls, the same for pull requests.
func (h *Handler) myPulls(w http.ResponseWriter, r *http.Request) error {
	return h.issueDashboard(w, r, true)
}

// issueDashboard lists the signed-in user's issues or pull requests in the
// repositories they may read (their unit readable), in a fixed number of
// queries.
func (h *Handler) issueDashboard(w http.ResponseWriter, r *http.Request, pulls bool) error {
	if err := signedIn(r); err != nil {
		return err
	}
	me := doer(r)
	ctx := r.Context()
	q := r.URL.Query()
	v := &issueDashView{Pulls: pulls, Base: "/issues", Type: q.Get("type"), State: q.Get("state"), Q: strings.TrimSpace(q.Get("q")),
		Page: issuePageNumber(r)}
	unit, title := repo.UnitIssues, "Your issues"
	if pulls {
		v.Base, unit, title = "/pulls", repo.UnitPulls, "Your pull requests"
	}
	if v.State != "closed" {
		v.State = "open"
	}
	o := issue.ListOptions{IsPull: &pulls, State: v.State, Keyword: v.Q, Sort: "recentupdate", Limit: issueListSize,
		Offset: (v.Page - 1) * issueListSize}
	switch v.Type {
	case "assigned":
		o.AssigneeID = me.ID
	case "mentioned":
		o.MentionedID = me.ID
	default:
		v.Type = "created_by"
		o.PosterID = me.ID
	}
	// Repositories the user may see with the unit on; team unit rights are
	// checked on the page's rows below.
	cond, args := access.RepoCond(me)
	o.RepoCond = "i.repo_id IN (SELECT r.id FROM repository r JOIN users o ON o.id = r.owner_id WHERE (" + cond + ") AND r.units LIKE ?)"
	o.RepoArgs = append(args, "%\""+unit+"\"%")
	if h.Repos.UnitDisabled(unit) {
		o.RepoCond, o.RepoArgs = "1 = 0", nil
	}
	list, total, err := h.Issues.Search(ctx, o)
	if err != nil {
		return err
	}
	other := o
	other.State, other.Offset = "closed", math.MaxInt32
	if v.State == "closed" {
		other.State = "open"
	}
	_, otherTotal, err := h.Issues.Search(ctx, other)
	if err != nil {
		return err
	}
	v.Open, v.Closed = total, otherTotal
	if v.State == "closed" {
		v.Open, v.Closed = otherTotal, total
	}
	repos, err := h.issueReadableRepos(r, list, unit)
	if err != nil {
		return err
	}
	kept := list[:0]
	for _, is := range list {
		if _, ok := repos[is.RepoID]; ok {
			kept = append(kept, is)
		}
	}
	if v.Rows, err = h.issueRows(ctx, kept, repos, ""); err != nil {
		return err
	}
	v.Pages = int((total + issueListSize - 1) / issueListSize)
	link := func(typ, state string, page int) string {
		vals := url.Values{"type": {typ}, "state": {state}}
		if v.Q != "" {
			vals.Set("q", v.Q)
		}
		if page > 1 {
			vals.Set("page", strconv.Itoa(page))
		}
		return v.Base + "?" + vals.Encode()
	}
	for _, t := range []issueDashTab{{Value: "created_by", Label: "Created by you"}, {Value: "assigned", Label: "Assigned to you"},
		{Value: "mentioned", Label: "Mentioning you"}} {
		t.Link, t.Selected = link(t.Value, v.State, 1), t.Value == v.Type
		v.Tabs = append(v.Tabs, t)
	}
	v.OpenLink, v.ClosedTab = link(v.Type, "open", 1), link(v.Type, "closed", 1)
	if v.Page > 1 {
		v.Prev = link(v.Type, v.State, v.Page-1)
	}
	if v.Page < v.Pages {
		v.Next = link(v.Type, v.State, v.Page+1)
	}
	return h.render(w, r, http.StatusOK, "issue_dashboard", title, v)
}

// issueReadableRepos loads the repositories of list and keeps those whose unit
// the visitor may read: three queries.
func (h *Handler) issueReadableRepos(r *http.Request, list []*issue.Issue, unit string) (map[int64]*repo.Repository, error) {
	out := map[int64]*repo.Repository{}
	if len(list) == 0 {
		return out, nil
	}
	ctx := r.Context()
	ids := make([]int64, 0, len(list))
	for _, is := range list {
		ids = append(ids, is.RepoID)
	}
	rl, err := h.Repos.List(ctx, "WHERE r.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	ownerIDs := make([]int64, 0, len(rl))
	for _, rp := range rl {
		ownerIDs = append(ownerIDs, rp.OwnerID)
	}
	owners, err := h.Users.Store.GetByIDs(ctx, ownerIDs)
	if err != nil {
		return nil, err
	}
	perms, err := h.Access.RepoPermissions(ctx, doer(r), rl, owners)
	if err != nil {
		return nil, err
	}
	for _, rp := range rl {
		if p, ok := perms[rp.ID]; ok && rp.HasUnit(unit) && p.CanRead(unit) {
			out[rp.ID] = rp
		}
	}
	return out, nil
}

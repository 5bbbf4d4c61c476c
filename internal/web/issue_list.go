package web

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// issueListSize is how many issues one page of a list shows.
const issueListSize = 25

// issueRow is one issue or pull request of a list.
type issueRow struct {
	Index     int64
	Title     string
	Link      string
	Closed    bool
	Merged    bool
	Draft     bool
	Pinned    bool
	Labels    []issueLabelView
	Poster    *user.User
	Created   time.Time
	Comments  int
	Milestone string
	Assignees []*user.User
	// RepoName and RepoLink name the repository in lists across repositories.
	RepoName, RepoLink string
}

// issueListFilter is what a list is filtered by, as the filter form shows it.
type issueListFilter struct {
	State     string
	Q         string
	Sort      string
	Labels    []issueLabelView // the repository's labels, the selected ones checked
	Milestone string           // a milestone id, "none" or ""
	// Milestones are the choices.
	Milestones []issueChoice
	Assignee   string
	Poster     string
}

// issueChoice is one option of a select.
type issueChoice struct {
	Value, Label string
	Selected     bool
}

// issueListView is the data of /{owner}/{repo}/issues and /pulls.
type issueListView struct {
	Pulls     bool
	Base      string // the list's path
	Rows      []issueRow
	Filter    issueListFilter
	Open      int64
	Closed    int64
	OpenLink  string
	ClosedTab string
	// Prev and Next page the list ("" at the ends).
	Prev, Next  string
	Page, Pages int
	NewLink     string
	// RepoLink leads to the repository's labels and milestones pages.
	RepoLink string
	// Sorts are the orders offered.
	Sorts []issueSortChoice
}

// issueSortChoice is one order a list can be sorted by.
type issueSortChoice struct {
	Value, Label string
	Selected     bool
}

var issueSorts = []issueSortChoice{{"newest", "Newest", false}, {"oldest", "Oldest", false}, {"recentupdate", "Recently updated", false},
	{"leastupdate", "Least recently updated", false}, {"mostcomment", "Most commented", false}, {"leastcomment", "Least commented", false},
	{"nearduedate", "Nearest due date", false}, {"farduedate", "Farthest due date", false}}

// listRepoIssues serves /{owner}/{repo}/issues.
func (h *Handler) listRepoIssues(w http.ResponseWriter, r *http.Request) error {
	return h.issueListOfRepo(w, r, false)
}

// listRepoPulls serves /{owner}/{repo}/pulls.
func (h *Handler) listRepoPulls(w http.ResponseWriter, r *http.Request) error {
	return h.issueListOfRepo(w, r, true)
}

// issueListOfRepo serves the issue or pull request list of a repository: state
// tabs with counts, filters (labels, milestone, assignee, poster, keyword
// through the full-text search) and pages, in a fixed number of queries.
func (h *Handler) issueListOfRepo(w http.ResponseWriter, r *http.Request, pulls bool) error {
	unit, tab, kind := repo.UnitIssues, "issues", "Issues"
	if pulls {
		unit, tab, kind = repo.UnitPulls, "pulls", "Pull requests"
	}
	rc, err := h.loadRepoUnit(r, unit, tab)
	if err != nil {
		return err
	}
	if !rc.Repo.HasUnit(unit) {
		return errs.NotFound("no such page")
	}
	ctx := r.Context()
	q := r.URL.Query()
	v := &issueListView{Pulls: pulls, Base: rc.Link + "/" + tab, Page: issuePageNumber(r), RepoLink: rc.Link}
	f := &v.Filter
	f.State, f.Q, f.Sort = q.Get("state"), strings.TrimSpace(q.Get("q")), q.Get("sort")
	if f.State != "closed" {
		f.State = "open"
	}
	o := issue.ListOptions{RepoIDs: []int64{rc.Repo.ID}, IsPull: &pulls, State: f.State, Keyword: f.Q, Loaded: rc.Repo,
		Limit: issueListSize, Offset: (v.Page - 1) * issueListSize}
	for _, s := range issueSorts {
		s.Selected = s.Value == f.Sort
		v.Sorts = append(v.Sorts, s)
	}
	if f.Sort != "" && f.Sort != "newest" {
		o.Sort = f.Sort
		if _, ok := issueSortValid[f.Sort]; !ok {
			o.Sort, f.Sort = "", ""
		}
	}
	// Labels: the repository's, with the selected ones.
	selected := map[int64]bool{}
	var labelParam []string
	for _, v := range q["labels"] {
		for _, part := range strings.Split(v, ",") {
			if id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64); err == nil && id > 0 && !selected[id] {
				selected[id] = true
				o.LabelIDs = append(o.LabelIDs, id)
				labelParam = append(labelParam, strconv.FormatInt(id, 10))
			}
		}
	}
	all, err := h.Issues.ListLabels(ctx, "WHERE l.repo_id = ? OR (l.org_id = ? AND l.org_id <> 0) ORDER BY l.name, l.id", rc.Repo.ID, issueOrgID(rc))
	if err != nil {
		return err
	}
	for _, l := range all {
		lv := toIssueLabel(l)
		lv.Checked = selected[l.ID]
		f.Labels = append(f.Labels, lv)
	}
	switch m := q.Get("milestone"); {
	case m == "none":
		o.NoMilestone, f.Milestone = true, m
	case m != "":
		if id, err := strconv.ParseInt(m, 10, 64); err == nil && id > 0 {
			o.MilestoneIDs, f.Milestone = []int64{id}, strconv.FormatInt(id, 10)
		}
	}
	miles, err := h.Issues.ListMilestones(ctx, "WHERE m.repo_id = ? ORDER BY m.is_closed, m.name, m.id", rc.Repo.ID)
	if err != nil {
		return err
	}
	f.Milestones = []issueChoice{{Value: "", Label: "All milestones"}, {Value: "none", Label: "No milestone", Selected: f.Milestone == "none"}}
	for _, m := range miles {
		id := strconv.FormatInt(m.ID, 10)
		label := m.Name
		if m.IsClosed {
			label += " (closed)"
		}
		f.Milestones = append(f.Milestones, issueChoice{Value: id, Label: label, Selected: id == f.Milestone})
	}
	f.Assignee, f.Poster = strings.TrimSpace(q.Get("assignee")), strings.TrimSpace(q.Get("poster"))
	if o.AssigneeID, err = h.issueFilterUser(ctx, f.Assignee); err != nil {
		return err
	}
	if o.PosterID, err = h.issueFilterUser(ctx, f.Poster); err != nil {
		return err
	}
	list, total, err := h.Issues.Search(ctx, o)
	if err != nil {
		return err
	}
	// The other tab's count only: a page past any end reads no rows.
	other := o
	other.State, other.Offset = "closed", math.MaxInt32
	if f.State == "closed" {
		other.State = "open"
	}
	_, otherTotal, err := h.Issues.Search(ctx, other)
	if err != nil {
		return err
	}
	v.Open, v.Closed = total, otherTotal
	if f.State == "closed" {
		v.Open, v.Closed = otherTotal, total
	}
	if v.Rows, err = h.issueRows(ctx, list, map[int64]*repo.Repository{rc.Repo.ID: rc.Repo}, rc.Link); err != nil {
		return err
	}
	v.Pages = int((total + issueListSize - 1) / issueListSize)
	link := func(state string, page int) string {
		vals := url.Values{}
		for _, k := range []string{"q", "milestone", "assignee", "poster", "sort"} {
			if x := q.Get(k); x != "" {
				vals.Set(k, x)
			}
		}
		if len(labelParam) > 0 {
			vals.Set("labels", strings.Join(labelParam, ","))
		}
		vals.Set("state", state)
		if page > 1 {
			vals.Set("page", strconv.Itoa(page))
		}
		return v.Base + "?" + vals.Encode()
	}
	v.OpenLink, v.ClosedTab = link("open", 1), link("closed", 1)
	if v.Page > 1 {
		v.Prev = link(f.State, v.Page-1)
	}
	if v.Page < v.Pages {
		v.Next = link(f.State, v.Page+1)
	}
	if !pulls && doer(r) != nil && !rc.Repo.IsArchived {
		v.NewLink = rc.Link + "/issues/new"
	}
	name := "issue_list"
	if pulls {
		name = "pull_list"
	}
	return h.renderRepo(w, r, http.StatusOK, name, kind, rc, v)
}

// issueSortValid are the orders the issue service knows.
var issueSortValid = map[string]struct{}{"oldest": {}, "recentupdate": {}, "leastupdate": {}, "mostcomment": {}, "leastcomment": {},
	"nearduedate": {}, "farduedate": {}}

// issueFilterUser resolves a user filter (a name or an id); a user that does not
// exist matches nothing (-1), so the filter says nothing about accounts.
func (h *Handler) issueFilterUser(ctx context.Context, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	if id, err := strconv.ParseInt(v, 10, 64); err == nil && id > 0 {
		return id, nil
	}
	u, err := h.Users.Store.GetByName(ctx, strings.TrimPrefix(v, "@"))
	if errs.IsNotFound(err) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	return u.ID, nil
}

// issueRows prepares a page of issues for a list: labels, posters,
// assignees, milestones and pull request states are loaded in batches.
// repos holds the issues' repositories; repoLink, when set, is the one
// repository of the list (rows then carry no repository name).
func (h *Handler) issueRows(ctx context.Context, list []*issue.Issue, repos map[int64]*repo.Repository, repoLink string) ([]issueRow, error) {
	if len(list) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(list))
	var userIDs, milestoneIDs, pullIDs []int64
	for _, is := range list {
		ids = append(ids, is.ID)
		userIDs = append(userIDs, is.PosterID)
		if is.MilestoneID > 0 {
			milestoneIDs = append(milestoneIDs, is.MilestoneID)
		}
		if is.IsPull {
			pullIDs = append(pullIDs, is.ID)
		}
	}
	assignees, err := h.Issues.AssigneesOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, as := range assignees {
		userIDs = append(userIDs, as...)
	}
	users, err := h.Users.Store.GetByIDs(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	labels, err := h.Issues.LabelsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	milestones, err := h.Issues.MilestonesByIDs(ctx, milestoneIDs)
	if err != nil {
		return nil, err
	}
	pulls := map[int64]*pull.PullRequest{}
	if len(pullIDs) > 0 {
		if pulls, err = h.Pulls.ByIssueIDs(ctx, pullIDs); err != nil {
			return nil, err
		}
	}
	out := make([]issueRow, 0, len(list))
	for _, is := range list {
		row := issueRow{Index: is.Index, Title: is.Title, Closed: is.IsClosed, Pinned: is.PinOrder > 0,
			Labels: toIssueLabels(labels[is.ID]), Poster: issueUserOr(users, is.PosterID), Created: is.Created, Comments: is.NumComments}
		link := repoLink
		if rp, ok := repos[is.RepoID]; ok && repoLink == "" {
			row.RepoName = rp.OwnerName + "/" + rp.Name
			link = "/" + escapeSegments(row.RepoName)
			row.RepoLink = link
		}
		row.Link = issueLink(link, is)
		if m, ok := milestones[is.MilestoneID]; ok {
			row.Milestone = m.Name
		}
		for _, id := range assignees[is.ID] {
			row.Assignees = append(row.Assignees, issueUserOr(users, id))
		}
		if is.IsPull {
			row.Draft = pull.IsWorkInProgress(is.Title, h.Pulls.WorkInProgressPrefixes())
			if p, ok := pulls[is.ID]; ok {
				row.Merged = p.HasMerged
			}
		}
		out = append(out, row)
	}
	return out, nil
}

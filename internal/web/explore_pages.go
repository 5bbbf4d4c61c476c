package web

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// sortChoice is one entry of a list's sort menu.
type sortChoice struct {
	Key, Label string
	// sort and order are repo.SearchOrder's parameters; column is the
	// ORDER BY of account lists.
	sort, order, column string
}

// repoSorts are the repository lists' orders, at Gitea's ?sort= names; the
// first is the default.
func repoSorts() []sortChoice {
	return []sortChoice{
		{Key: "recentupdate", Label: "Recently updated", sort: "updated", order: "desc"},
		{Key: "leastupdate", Label: "Least recently updated", sort: "updated", order: "asc"},
		{Key: "newest", Label: "Newest", sort: "created", order: "desc"},
		{Key: "oldest", Label: "Oldest", sort: "created", order: "asc"},
		{Key: "alphabetically", Label: "Alphabetically", sort: "alpha", order: "asc"},
		{Key: "reversealphabetically", Label: "Reverse alphabetically", sort: "alpha", order: "desc"},
		{Key: "moststars", Label: "Most stars", sort: "stars", order: "desc"},
		{Key: "feweststars", Label: "Fewest stars", sort: "stars", order: "asc"},
		{Key: "mostforks", Label: "Most forks", sort: "forks", order: "desc"},
		{Key: "fewestforks", Label: "Fewest forks", sort: "forks", order: "asc"},
	}
}

// userSorts are the orders of the account lists; the first is the default.
func userSorts() []sortChoice {
	return []sortChoice{
		{Key: "alphabetically", Label: "Alphabetically", column: "u.lower_name, u.id"},
		{Key: "reversealphabetically", Label: "Reverse alphabetically", column: "u.lower_name DESC, u.id DESC"},
		{Key: "newest", Label: "Newest", column: "u.created_unix DESC, u.id DESC"},
		{Key: "oldest", Label: "Oldest", column: "u.created_unix, u.id"},
	}
}

// pickSort returns the choice named key, or the first one.
func pickSort(choices []sortChoice, key string) sortChoice {
	for _, c := range choices {
		if c.Key == key {
			return c
		}
	}
	return choices[0]
}

// exploreTab is one tab of the explore pages.
type exploreTab struct {
	Link, Label string
	Active      bool
}

// explorePage is the data of the three explore pages.
type explorePage struct {
	Tabs    []exploreTab
	Action  string // the search form's target
	Keyword string
	Sort    string
	Sorts   []sortChoice
	Repos   []*repo.Repository
	Users   []*user.User
	// ShowEmail shows the listed users' public e-mail addresses (signed-in visitors).
	ShowEmail bool
	// CanCreateOrg offers the new-organization form.
	CanCreateOrg bool
	Pager        pager
}

func exploreTabs(active string) []exploreTab {
	tabs := []exploreTab{{"/explore/repos", "Repositories", false}, {"/explore/users", "Users", false},
		{"/explore/organizations", "Organizations", false}}
	for i := range tabs {
		tabs[i].Active = tabs[i].Link == active
	}
	return tabs
}

// exploreRedirect sends /explore to the repositories.
func (h *Handler) exploreRedirect(w http.ResponseWriter, r *http.Request) error {
	http.Redirect(w, r, "/explore/repos", http.StatusSeeOther)
	return nil
}

// exploreRepos lists the repositories the visitor may see (the condition of
// the API's /repos/search), searched by ?q= in names, topics and
// descriptions.
func (h *Handler) exploreRepos(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	data := explorePage{Tabs: exploreTabs("/explore/repos"), Action: "/explore/repos",
		Keyword: strings.TrimSpace(q.Get("q")), Sorts: repoSorts()}
	s := pickSort(data.Sorts, q.Get("sort"))
	data.Sort = s.Key
	where, args, err := repo.SearchOptions{Keyword: data.Keyword, IncludeDesc: true}.Cond()
	if err != nil {
		return err
	}
	order, err := repo.SearchOrder(s.sort, s.order)
	if err != nil {
		return err
	}
	vis, visArgs := access.RepoCond(doer(r))
	page := pageNumber(r)
	list, total, err := h.Repos.ListVisible(r.Context(), where, args, vis, visArgs, order, listPageSize, (page-1)*listPageSize)
	if err != nil {
		return err
	}
	data.Repos, data.Pager = list, newPager(r, page, total)
	return h.render(w, r, http.StatusOK, "explore_repos", "Explore repositories", data)
}

// exploreUsers lists the individual accounts the visitor may see (the
// condition of the API's /users/search), searched by name, full name and
// the e-mail addresses the visitor may search.
func (h *Handler) exploreUsers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := doer(r)
	data := explorePage{Tabs: exploreTabs("/explore/users"), Action: "/explore/users",
		Keyword: strings.TrimSpace(q.Get("q")), Sorts: userSorts(), ShowEmail: d != nil}
	s := pickSort(data.Sorts, q.Get("sort"))
	data.Sort = s.Key
	cond, args := access.UserCond(d)
	where := "u.type = 0 AND " + cond
	if data.Keyword != "" {
		kc, ka := user.KeywordCond(data.Keyword, d)
		where += " AND " + kc
		args = append(args, ka...)
	}
	page := pageNumber(r)
	list, total, err := h.Users.Store.ListPage(r.Context(), where, args, s.column, listPageSize, (page-1)*listPageSize)
	if err != nil {
		return err
	}
	data.Users, data.Pager = list, newPager(r, page, total)
	return h.render(w, r, http.StatusOK, "explore_users", "Explore users", data)
}

// exploreOrgs lists the organizations the visitor may see (access.OrgCond),
// searched by name and full name.
func (h *Handler) exploreOrgs(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	data := explorePage{Tabs: exploreTabs("/explore/organizations"), Action: "/explore/organizations",
		Keyword: strings.TrimSpace(q.Get("q")), Sorts: userSorts(), CanCreateOrg: canCreateOrg(doer(r))}
	s := pickSort(data.Sorts, q.Get("sort"))
	data.Sort = s.Key
	cond, args := access.OrgCond(doer(r))
	where := "u.type = 1 AND " + cond
	if data.Keyword != "" {
		kc, ka := user.NameCond(data.Keyword)
		where += " AND " + kc
		args = append(args, ka...)
	}
	page := pageNumber(r)
	list, total, err := h.Users.Store.ListPage(r.Context(), where, args, s.column, listPageSize, (page-1)*listPageSize)
	if err != nil {
		return err
	}
	data.Users, data.Pager = list, newPager(r, page, total)
	return h.render(w, r, http.StatusOK, "explore_organizations", "Explore organizations", data)
}

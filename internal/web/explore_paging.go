package web

import (
	"net/http"
	"net/url"
	"strconv"
)

// listPageSize is how many rows the explore, profile and dashboard lists
// show per page (Gitea's [ui] EXPLORE_PAGING_NUM default).
const listPageSize = 20

// maxListPage bounds ?page= so that the offset cannot overflow.
const maxListPage = 1 << 20

// pager is the position in a paged list and the links around it.
type pager struct {
	Page, Pages int
	Total       int64
	// Prev and Next are the neighbouring pages' URLs, "" at the ends.
	Prev, Next string
}

// pageNumber reads ?page= (1 when absent or bad).
func pageNumber(r *http.Request) int {
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	return min(max(p, 1), maxListPage)
}

// offset is the number of rows before the page.
func (p pager) offset() int { return (p.Page - 1) * listPageSize }

// newPager places page among total rows; the links keep the request's
// other query parameters.
func newPager(r *http.Request, page int, total int64) pager {
	p := pager{Page: page, Total: total, Pages: int((total + listPageSize - 1) / listPageSize)}
	link := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return (&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()
	}
	if page > 1 {
		p.Prev = link(min(page-1, max(p.Pages, 1)))
	}
	if page < p.Pages {
		p.Next = link(page + 1)
	}
	return p
}

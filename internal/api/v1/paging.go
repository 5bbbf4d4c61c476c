package v1

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// maxPage bounds ?page= so that (page-1)*limit cannot overflow.
const maxPage = 1 << 30

// page is a requested slice of a list.
type page struct {
	Page  int
	Limit int
}

// Offset is the number of items before the page.
func (p page) Offset() int { return (p.Page - 1) * p.Limit }

// paging reads ?page= and ?limit= (or page_size): absent or bad values fall
// back to page 1 and [api] DEFAULT_PAGING_NUM; limits above
// [api] MAX_RESPONSE_ITEMS are capped.
func (a *API) paging(r *http.Request) page {
	q := r.URL.Query()
	p, _ := strconv.Atoi(q.Get("page"))
	if p < 1 {
		p = 1
	}
	if p > maxPage {
		p = maxPage // far past any list; keeps the offset from overflowing
	}
	l, _ := strconv.Atoi(q.Get("limit"))
	if l == 0 {
		l, _ = strconv.Atoi(q.Get("page_size"))
	}
	if l < 1 {
		l = a.Config.API.DefaultPagingNum
	}
	if l > a.Config.API.MaxResponseItems {
		l = a.Config.API.MaxResponseItems
	}
	return page{Page: p, Limit: l}
}

// setTotal writes X-Total-Count and the Link header for a paginated list.
func (a *API) setTotal(w http.ResponseWriter, r *http.Request, pg page, total int64) {
	h := w.Header()
	h.Set("X-Total-Count", strconv.FormatInt(total, 10))
	expose := []string{"X-Total-Count"}
	if link := a.linkHeader(r, pg, total); link != "" {
		h.Set("Link", link)
		expose = []string{"Link", "X-Total-Count"}
	}
	h.Set("Access-Control-Expose-Headers", strings.Join(expose, ", "))
}

func (a *API) linkHeader(r *http.Request, pg page, total int64) string {
	pages := int((total + int64(pg.Limit) - 1) / int64(pg.Limit))
	if pages <= 1 {
		return ""
	}
	base := strings.TrimSuffix(a.rootURL, "/") + r.URL.Path
	q := r.URL.Query()
	link := func(n int, rel string) string {
		q.Set("page", strconv.Itoa(n))
		return fmt.Sprintf("<%s?%s>; rel=\"%s\"", base, q.Encode(), rel)
	}
	var parts []string
	if pg.Page < pages {
		parts = append(parts, link(pg.Page+1, "next"), link(pages, "last"))
	}
	if pg.Page > 1 {
		parts = append(parts, link(1, "first"), link(pg.Page-1, "prev"))
	}
	return strings.Join(parts, ",")
}

package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserPullFilesLoadMore shows a large pull request's files a page at
// a time, loading the next page when the reader scrolls to it.
func TestBrowserPullFilesLoadMore(t *testing.T) {
	ctx := NewBrowser(t)
	s := StartServer(t)
	u := s.CreateUser("lm")
	if r := s.API("POST", "user/repos", u.Token, map[string]any{"name": "many", "auto_init": true}); r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	const n = 95
	var files []map[string]any
	for i := range n {
		files = append(files, map[string]any{"operation": "create", "path": fmt.Sprintf("dir/file%03d.txt", i),
			"content": base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("line %d\n", i)))})
	}
	if r := s.API("POST", "repos/lm/many/contents", u.Token, map[string]any{"files": files, "new_branch": "wide", "message": "Many files"}); r.Status != http.StatusCreated {
		t.Fatalf("commit: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "repos/lm/many/pulls", u.Token, map[string]any{"title": "Wide", "head": "wide", "base": "main"}); r.Status != http.StatusCreated {
		t.Fatalf("pull: %d %s", r.Status, r.Body)
	}
	count := func() int {
		c, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.pull-file").length`))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	Do(t, ctx, "files changed", chromedp.Navigate(s.URL+"lm/many/pulls/1/files"), chromedp.WaitVisible(chromedp.CSS("section.pull-file")))
	first := count()
	if first == 0 || first >= n {
		t.Fatalf("first page shows %d of %d files", first, n)
	}
	got := first
	for deadline := time.Now().Add(20 * time.Second); got < n && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		Do(t, ctx, "scroll", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
		got = count()
	}
	if got != n {
		Screenshot(t, ctx, "failed-load-more")
		t.Fatalf("after scrolling: %d of %d files", got, n)
	}
}

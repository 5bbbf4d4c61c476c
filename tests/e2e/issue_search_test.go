package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// Keyword search of issues (GET /repos/issues/search and the keyword of
// GET /repos/{owner}/{repo}/issues), checked against an answer the test
// computes from the issues it created: every word of q must be a prefix of a
// word of the title or the body (case-insensitive), results come newest
// first, and only repositories whose issues the caller may read count. Totals
// (X-Total-Count) and every page must be exact, whichever way the server
// answers (full-text index alone, or the issue table).

// srchIssue is what the test knows about one issue it created.
type srchIssue struct {
	repo   string // owner/name
	number int64
	id     int64
	title  string
	body   string
	closed bool
}

func (is *srchIssue) key() string { return fmt.Sprintf("%s#%d", is.repo, is.number) }

// srchWords splits text into lower-case words of letters and digits.
func srchWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// matches reports whether every word of q begins a word of the title or body.
func (is *srchIssue) matches(q string) bool {
	qw := srchWords(q)
	if len(qw) == 0 {
		return false
	}
	text := srchWords(is.title + " " + is.body)
	for _, w := range qw {
		if !slices.ContainsFunc(text, func(x string) bool { return strings.HasPrefix(x, w) }) {
			return false
		}
	}
	return true
}

// srchResult is the part of an issue in a search answer the test checks.
type srchResult struct {
	ID     int64  `json:"id"`
	Number int64  `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	State  string `json:"state"`
	Repo   *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

func (r srchResult) key() string {
	name := "?"
	if r.Repo != nil {
		name = r.Repo.FullName
	}
	return fmt.Sprintf("%s#%d", name, r.Number)
}

type srchCaller struct {
	name  string // "anon" when signed out
	token string
}

// srchWorld is a server with the issues the test created and who may read
// which repository's issues.
type srchWorld struct {
	s       *Server
	client  *http.Client
	mu      sync.Mutex
	issues  []*srchIssue               // in creation order (so by id)
	readers map[string]map[string]bool // caller -> repositories whose issues it reads
	users   map[string]*User
}

func newSrchWorld(s *Server) *srchWorld {
	return &srchWorld{s: s, client: &http.Client{Timeout: 30 * time.Second}, readers: map[string]map[string]bool{}, users: map[string]*User{}}
}

// do sends a request and returns status, header and body; transport errors
// fail t (safe to call from subtests).
func (w *srchWorld) do(t testing.TB, method, path, token string, body any) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, w.s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, resp.Header, b
}

// create opens an issue as u in repo (owner/name) and records it.
func (w *srchWorld) create(t testing.TB, u *User, repo, title, body string, closed bool) *srchIssue {
	t.Helper()
	st, _, b := w.do(t, "POST", "api/v1/repos/"+repo+"/issues", u.Token, map[string]any{"title": title, "body": body, "closed": closed})
	if st != 201 {
		t.Fatalf("create issue %q in %s: %d %s", title, repo, st, b)
	}
	var r srchResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("decode created issue: %v: %s", err, b)
	}
	if closed && r.State != "closed" {
		// The server ignored "closed" at creation: close it now.
		w.patchState(t, u, repo, r.Number, "closed")
	}
	is := &srchIssue{repo: repo, number: r.Number, id: r.ID, title: title, body: body, closed: closed}
	w.mu.Lock()
	w.issues = append(w.issues, is)
	w.mu.Unlock()
	return is
}

func (w *srchWorld) patchState(t testing.TB, u *User, repo string, number int64, state string) {
	t.Helper()
	st, _, b := w.do(t, "PATCH", fmt.Sprintf("api/v1/repos/%s/issues/%d", repo, number), u.Token, map[string]any{"state": state})
	if st != 201 {
		t.Fatalf("set %s#%d %s: %d %s", repo, number, state, st, b)
	}
}

// setState closes or reopens is through the API and in the model.
func (w *srchWorld) setState(t testing.TB, u *User, is *srchIssue, closed bool) {
	t.Helper()
	state := "open"
	if closed {
		state = "closed"
	}
	w.patchState(t, u, is.repo, is.number, state)
	is.closed = closed
}

// edit changes the title and body of is through the API and in the model.
func (w *srchWorld) edit(t testing.TB, u *User, is *srchIssue, title, body string) {
	t.Helper()
	st, _, b := w.do(t, "PATCH", fmt.Sprintf("api/v1/repos/%s/issues/%d", is.repo, is.number), u.Token, map[string]any{"title": title, "body": body})
	if st != 201 {
		t.Fatalf("edit %s: %d %s", is.key(), st, b)
	}
	var r srchResult
	if err := json.Unmarshal(b, &r); err != nil || r.Title != title || r.Body != body {
		t.Fatalf("edit %s answered %s (%v)", is.key(), b, err)
	}
	is.title, is.body = title, body
}

// forget drops the issues of which drop reports true from the model.
func (w *srchWorld) forget(drop func(*srchIssue) bool) {
	w.issues = slices.DeleteFunc(w.issues, drop)
}

// want is the expected answer, newest first: issues of repo ("" for every
// repository the caller reads) in state, matching q.
func (w *srchWorld) want(caller, repo, q, state string) []*srchIssue {
	var out []*srchIssue
	for i := len(w.issues) - 1; i >= 0; i-- {
		is := w.issues[i]
		if repo != "" && is.repo != repo {
			continue
		}
		if !w.readers[caller][is.repo] {
			continue
		}
		switch state {
		case "", "open":
			if is.closed {
				continue
			}
		case "closed":
			if !is.closed {
				continue
			}
		}
		if is.matches(q) {
			out = append(out, is)
		}
	}
	return out
}

func srchKeys(list []*srchIssue) []string {
	out := make([]string, len(list))
	for i, is := range list {
		out[i] = is.key()
	}
	return out
}

// srchDiff describes how got differs from want, briefly.
func srchDiff(got, want []string) string {
	if len(got)+len(want) <= 24 {
		return fmt.Sprintf("got %v, want %v", got, want)
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	g, wt := "(end)", "(end)"
	if i < len(got) {
		g = got[i]
	}
	if i < len(want) {
		wt = want[i]
	}
	return fmt.Sprintf("got %d results, want %d; first difference at #%d: got %s, want %s", len(got), len(want), i, g, wt)
}

// srchPath builds a search or list path with its parameters (empty values left out).
func srchPath(base string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// fetch reads one page and checks the status and the total.
func (w *srchWorld) fetch(t testing.TB, path, token string, total int) ([]srchResult, bool) {
	t.Helper()
	st, h, b := w.do(t, "GET", path, token, nil)
	if st != 200 {
		t.Errorf("GET %s: status %d %s", path, st, b)
		return nil, false
	}
	if got := h.Get("X-Total-Count"); got != strconv.Itoa(total) {
		t.Errorf("GET %s: X-Total-Count = %q, want %d", path, got, total)
	}
	var list []srchResult
	if err := json.Unmarshal(b, &list); err != nil {
		t.Errorf("GET %s: decode %q: %v", path, b, err)
		return nil, false
	}
	if list == nil {
		t.Errorf("GET %s: body %q, want a JSON array", path, b)
	}
	return list, true
}

// checkPages reads pages of path (which has its filters but no paging) with
// limit and checks each is exactly its slice of want (newest first) with the
// total in X-Total-Count. pages nil reads every page and the one past the end.
func (w *srchWorld) checkPages(t testing.TB, path, token string, want []*srchIssue, limit int, pages []int) {
	t.Helper()
	n := len(want)
	last := (n + limit - 1) / limit
	if pages == nil {
		for p := 1; p <= last+1; p++ {
			pages = append(pages, p)
		}
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	byKey := map[string]*srchIssue{}
	for _, is := range want {
		byKey[is.key()] = is
	}
	seen := map[string]int{}
	for _, p := range pages {
		pp := fmt.Sprintf("%s%slimit=%d&page=%d", path, sep, limit, p)
		list, ok := w.fetch(t, pp, token, n)
		if !ok {
			return
		}
		lo, hi := min((p-1)*limit, n), min(p*limit, n)
		got := make([]string, len(list))
		for i, r := range list {
			got[i] = r.key()
			if prev, dup := seen[got[i]]; dup {
				t.Errorf("GET %s: %s already on page %d", pp, got[i], prev)
			}
			seen[got[i]] = p
			if is := byKey[got[i]]; is != nil {
				wantState := "open"
				if is.closed {
					wantState = "closed"
				}
				if r.Title != is.title || r.State != wantState || r.ID != is.id {
					t.Errorf("GET %s: %s = id %d %q (%s), want id %d %q (%s)", pp, got[i], r.ID, r.Title, r.State, is.id, is.title, wantState)
				}
			}
		}
		if wk := srchKeys(want[lo:hi]); !slices.Equal(got, wk) {
			t.Errorf("GET %s: page %d of %d: %s", pp, p, last, srchDiff(got, wk))
		}
	}
}

// repoID reads the id of owner/name.
func (w *srchWorld) repoID(t testing.TB, full string, u *User) int64 {
	t.Helper()
	st, _, b := w.do(t, "GET", "api/v1/repos/"+full, u.Token, nil)
	if st != 200 {
		t.Fatalf("get repo %s: %d %s", full, st, b)
	}
	var r struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// srchTexts are the titles and bodies issues are made of: words that begin
// with "lea" ("leak", "Leaky", "leaking", "LEAK", "leakage"), words that
// only contain it ("release", "plea"), "memory" and "parser" in some, and
// words that look like states.
var srchTexts = [][2]string{
	{"Memory leak in parser", "The parser leaks memory on every run"},
	{"Leaky bucket rate limiter", "tokens drain too fast"},
	{"Fix leaking goroutines", "goroutine count keeps growing"},
	{"Parser panics on empty input", "stack trace attached"},
	{"Update documentation", "mention the memory budget"},
	{"LEAK: file handles", "opened files are never closed"},
	{"Crash on start", "no leak here, just a crash"},
	{"Release notes", "please review the release"},
	{"Plea for help", "the parser is slow"},
	{"memory-leak regression", "parser-leak too"},
	{"Open question", "is it open or closed"},
	{"Leakage report", "Parser memory usage"},
}

// srchQueries are the keywords every caller and state is checked with.
var srchQueries = []string{"leak", "lea", "LEAK", "Leak", "memory leak", "parser leak", "leak parser", "memory-leak", "memory",
	"le", "pars", "open", "closed", "release", "plea", "zzzz", "  leak  "}

func srchState(closed bool) string {
	if closed {
		return "closed"
	}
	return "open"
}

// deleteRepo deletes repo as u and forgets its issues and readers.
func (w *srchWorld) deleteRepo(t *testing.T, u *User, repo string) {
	t.Helper()
	if st, _, b := w.do(t, "DELETE", "api/v1/repos/"+repo, u.Token, nil); st != 204 {
		t.Fatalf("delete %s: %d %s", repo, st, b)
	}
	w.forget(func(is *srchIssue) bool { return is.repo == repo })
	for _, r := range w.readers {
		delete(r, repo)
	}
}

// newSrchPeople starts a server with the people and repositories of the
// search tests (see setupSearch) and records who reads which repository.
func newSrchPeople(t *testing.T) *srchWorld {
	s := StartServer(t)
	w := newSrchWorld(s)
	for _, n := range []string{"alice", "bob", "carol", "dave"} {
		w.users[n] = s.CreateUser(n)
	}
	alice, bob := w.users["alice"], w.users["bob"]
	createRepo(t, s, alice, "pub", false)
	createRepo(t, s, alice, "priv", true)
	createRepo(t, s, bob, "other", false)
	createRepo(t, s, bob, "noiss", false)
	addCollaborator(t, s, alice, "priv", "dave", "read")
	public := map[string]bool{"alice/pub": true, "bob/other": true}
	w.readers["anon"] = public
	w.readers["carol"] = public
	w.readers["bob"] = public
	w.readers["alice"] = map[string]bool{"alice/pub": true, "alice/priv": true, "bob/other": true}
	w.readers["dave"] = map[string]bool{"alice/pub": true, "alice/priv": true, "bob/other": true}
	return w
}

// setupSearch creates the users, repositories and issues of the keyword
// search tests:
//
//	alice/pub (public), alice/priv (private, dave reads it as a collaborator),
//	bob/other (public), bob/noiss (public, issues unit turned off after its
//	issues were created); carol is a stranger.
func setupSearch(t *testing.T, perRepo int) (*srchWorld, map[string]int64) {
	w := newSrchPeople(t)
	alice, bob := w.users["alice"], w.users["bob"]
	ids := map[string]int64{}
	for _, r := range []struct {
		full string
		u    *User
	}{{"alice/pub", alice}, {"alice/priv", alice}, {"bob/other", bob}, {"bob/noiss", bob}} {
		ids[r.full] = w.repoID(t, r.full, r.u)
	}

	// Issues go round the repositories so ids and numbers interleave; about
	// a third are closed, some when created and some afterwards.
	repos := []struct {
		full string
		u    *User
	}{{"alice/pub", alice}, {"alice/priv", alice}, {"bob/other", bob}, {"alice/pub", alice}, {"bob/noiss", bob}}
	k := 0
	for range perRepo {
		for _, r := range repos {
			txt := srchTexts[k%len(srchTexts)]
			is := w.create(t, r.u, r.full, txt[0], txt[1], k%6 == 1)
			if k%6 == 4 {
				w.setState(t, r.u, is, true)
			}
			k++
		}
	}
	// Text that looks like the index's tokens for repositories, kinds and
	// states matches only as text.
	w.create(t, alice, "alice/pub", "Tag lookalike", fmt.Sprintf("i%d i%do p%d p%dc i%dc", ids["alice/pub"], ids["alice/pub"], ids["bob/other"], ids["bob/other"], ids["alice/priv"]), false)
	// Issues of bob/noiss stay in the database but nobody reads them.
	if st, _, b := w.do(t, "PATCH", "api/v1/repos/bob/noiss", bob.Token, map[string]any{"has_issues": false}); st != 200 {
		t.Fatalf("turn off issues of bob/noiss: %d %s", st, b)
	}
	return w, ids
}

func (w *srchWorld) callers() []srchCaller {
	out := []srchCaller{{"anon", ""}}
	for _, n := range []string{"alice", "bob", "carol", "dave"} {
		out = append(out, srchCaller{n, w.users[n].Token})
	}
	return out
}

// checkSearchMatrix checks the cross-repository search for every caller,
// state and query, reading every page with limit.
func (w *srchWorld) checkSearchMatrix(t *testing.T, queries []string, limit int) {
	t.Helper()
	for _, c := range w.callers() {
		for _, state := range []string{"", "open", "closed", "all"} {
			t.Run(fmt.Sprintf("%s/state=%s", c.name, state), func(t *testing.T) {
				for _, q := range queries {
					want := w.want(c.name, "", q, state)
					w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", q, "state", state), c.token, want, limit, nil)
				}
			})
		}
	}
}

// checkRepoMatrix checks GET /repos/{owner}/{repo}/issues?q= for every
// caller, repository and state: exact pages where the caller reads the
// repository's issues, 404 where it cannot see it.
func (w *srchWorld) checkRepoMatrix(t *testing.T, repos, queries []string, limit int) {
	t.Helper()
	for _, c := range w.callers() {
		for _, repo := range repos {
			t.Run(fmt.Sprintf("%s/%s", c.name, repo), func(t *testing.T) {
				if !w.readers[c.name][repo] {
					path := srchPath("api/v1/repos/"+repo+"/issues", "q", "leak", "state", "all")
					st, h, b := w.do(t, "GET", path, c.token, nil)
					if repo == "bob/noiss" {
						// Issues unit off, pulls on: the list holds pull requests only (none).
						if st != 404 && (st != 200 || strings.TrimSpace(string(b)) != "[]" || h.Get("X-Total-Count") != "0") {
							t.Errorf("GET %s: %d %s (total %q), want 404 or an empty list", path, st, b, h.Get("X-Total-Count"))
						}
						return
					}
					if st != 404 {
						t.Errorf("GET %s as %s: %d %s, want 404", path, c.name, st, b)
					}
					return
				}
				for _, state := range []string{"", "open", "closed", "all"} {
					for _, q := range queries {
						want := w.want(c.name, repo, q, state)
						w.checkPages(t, srchPath("api/v1/repos/"+repo+"/issues", "q", q, "state", state), c.token, want, limit, nil)
					}
				}
			})
		}
	}
}

func TestIssueSearchKeyword(t *testing.T) {
	start := time.Now()
	w, ids := setupSearch(t, 10)
	alice, bob := w.users["alice"], w.users["bob"]
	t.Logf("set-up: %d issues in %v", len(w.issues), time.Since(start))

	// The model itself: the words chosen cover what they should.
	if len(w.want("alice", "", "lea", "all")) == len(w.want("alice", "", "lea", "open")) || len(w.want("alice", "", "parser leak", "all")) < 3 {
		t.Fatal("fixture does not exercise states or word combinations")
	}

	t.Run("search", func(t *testing.T) { w.checkSearchMatrix(t, srchQueries, 7) })
	t.Run("search limit 3", func(t *testing.T) {
		w.checkSearchMatrix(t, []string{"leak", "parser leak"}, 3)
	})
	t.Run("repo list", func(t *testing.T) {
		w.checkRepoMatrix(t, []string{"alice/pub", "alice/priv", "bob/other", "bob/noiss"}, []string{"leak", "lea", "LEAK", "memory leak", "parser leak", "closed", "zzzz"}, 7)
	})

	t.Run("tag lookalikes", func(t *testing.T) {
		for _, q := range []string{
			fmt.Sprintf("i%d", ids["alice/pub"]), fmt.Sprintf("i%do", ids["alice/pub"]), fmt.Sprintf("i%dc", ids["alice/pub"]),
			fmt.Sprintf("p%d", ids["bob/other"]), fmt.Sprintf("i%d", ids["bob/other"]), fmt.Sprintf("i%do", ids["bob/other"]),
			fmt.Sprintf("i%d", ids["alice/priv"]), fmt.Sprintf("i%dc", ids["alice/priv"]), "i", "p", "o", "c",
		} {
			for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}} {
				for _, state := range []string{"open", "all"} {
					want := w.want(c.name, "", q, state)
					w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", q, "state", state), c.token, want, 7, nil)
					want = w.want(c.name, "alice/pub", q, state)
					w.checkPages(t, srchPath("api/v1/repos/alice/pub/issues", "q", q, "state", state), c.token, want, 7, nil)
				}
			}
		}
	})

	t.Run("kind", func(t *testing.T) {
		for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}, {"carol", w.users["carol"].Token}} {
			for _, state := range []string{"", "closed", "all"} {
				for _, q := range []string{"leak", "parser leak", "zzzz"} {
					want := w.want(c.name, "", q, state)
					w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", q, "state", state, "type", "issues"), c.token, want, 7, nil)
					w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", q, "state", state, "type", "pulls"), c.token, nil, 7, nil)
					for _, repo := range []string{"alice/pub", "bob/other"} {
						want := w.want(c.name, repo, q, state)
						w.checkPages(t, srchPath("api/v1/repos/"+repo+"/issues", "q", q, "state", state, "type", "issues"), c.token, want, 7, nil)
						w.checkPages(t, srchPath("api/v1/repos/"+repo+"/issues", "q", q, "state", state, "type", "pulls"), c.token, nil, 7, nil)
					}
				}
			}
		}
		// Issues of a repository whose issues unit is off: none as issues, none as pulls.
		for _, typ := range []string{"issues", "pulls"} {
			w.checkPages(t, srchPath("api/v1/repos/bob/noiss/issues", "q", "leak", "state", "all", "type", typ), bob.Token, nil, 7, nil)
		}
	})

	t.Run("oldest first", func(t *testing.T) {
		for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}} {
			for _, state := range []string{"open", "all"} {
				want := slices.Clone(w.want(c.name, "", "leak", state))
				slices.Reverse(want)
				w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", "leak", "state", state, "sort", "oldest"), c.token, want, 7, nil)
			}
		}
	})

	t.Run("owner filter", func(t *testing.T) {
		for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}, {"carol", w.users["carol"].Token}} {
			for _, owner := range []string{"alice", "bob"} {
				var want []*srchIssue
				for _, is := range w.want(c.name, "", "leak", "all") {
					if strings.HasPrefix(is.repo, owner+"/") {
						want = append(want, is)
					}
				}
				w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", "leak", "state", "all", "owner", owner), c.token, want, 7, nil)
			}
		}
	})

	t.Run("number", func(t *testing.T) {
		for _, q := range []string{"3", "#3"} {
			for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}} {
				path := srchPath("api/v1/repos/issues/search", "q", q, "state", "all", "limit", "50")
				st, _, b := w.do(t, "GET", path, c.token, nil)
				var list []srchResult
				if st != 200 || json.Unmarshal(b, &list) != nil {
					t.Errorf("GET %s: %d %s", path, st, b)
					continue
				}
				got := map[string]bool{}
				for _, r := range list {
					got[r.key()] = true
				}
				for repo := range w.readers[c.name] {
					if k := repo + "#3"; !got[k] {
						t.Errorf("GET %s as %s: %s missing from %v", path, c.name, k, slices.Sorted(maps.Keys(got)))
					}
				}
				for k := range got {
					if !w.readers[c.name][strings.Split(k, "#")[0]] {
						t.Errorf("GET %s as %s: %s is not readable", path, c.name, k)
					}
				}
				path = srchPath("api/v1/repos/alice/pub/issues", "q", q, "state", "all")
				st, _, b = w.do(t, "GET", path, c.token, nil)
				list = nil
				if st != 200 || json.Unmarshal(b, &list) != nil || !slices.ContainsFunc(list, func(r srchResult) bool { return r.Number == 3 }) {
					t.Errorf("GET %s as %s: %d %s, want issue 3 among the results", path, c.name, st, b)
				}
			}
		}
	})

	if t.Failed() {
		return
	}

	t.Run("after edits", func(t *testing.T) {
		// Titles and bodies: a match loses its words, a non-match gains them.
		var lost, gained *srchIssue
		for _, is := range w.issues {
			if lost == nil && is.repo == "alice/pub" && !is.closed && is.matches("leak") {
				lost = is
			}
			if gained == nil && is.repo == "alice/priv" && !is.matches("lea") && !is.matches("parser") {
				gained = is
			}
		}
		if lost == nil || gained == nil {
			t.Fatal("fixture lacks the issues to edit")
		}
		w.edit(t, alice, lost, "Token bucket rate limiter", "tokens drain too fast")
		w.edit(t, alice, gained, gained.title, "mention the memory leak in the parser")
		// States: close some open matches, reopen some closed ones.
		closedN, reopenedN := 0, 0
		for _, is := range w.issues {
			u := alice
			if strings.HasPrefix(is.repo, "bob/") {
				u = bob
			}
			if is.repo == "bob/noiss" || !is.matches("lea") {
				continue
			}
			switch {
			case !is.closed && closedN < 4:
				w.setState(t, u, is, true)
				closedN++
			case is.closed && reopenedN < 3:
				w.setState(t, u, is, false)
				reopenedN++
			}
		}
		// Deleting an issue takes it out of every search.
		var del *srchIssue
		for _, is := range slices.Backward(w.issues) {
			if is.repo == "alice/pub" && is.matches("parser leak") {
				del = is
				break
			}
		}
		if st, _, b := w.do(t, "DELETE", fmt.Sprintf("api/v1/repos/%s/issues/%d", del.repo, del.number), alice.Token, nil); st != 204 {
			t.Fatalf("delete %s: %d %s", del.key(), st, b)
		}
		w.forget(func(is *srchIssue) bool { return is == del })
		// New issues come first.
		w.create(t, bob, "bob/other", "Another leak", "found by the parser fuzzer", false)
		w.create(t, alice, "alice/priv", "Leak in private code", "parser internals", true)

		queries := []string{"leak", "lea", "LEAK", "memory leak", "parser leak", "token", "zzzz"}
		t.Run("search", func(t *testing.T) { w.checkSearchMatrix(t, queries, 7) })
		t.Run("repo list", func(t *testing.T) {
			w.checkRepoMatrix(t, []string{"alice/pub", "alice/priv", "bob/other"}, queries, 7)
		})
	})

	t.Run("issues unit back on", func(t *testing.T) {
		if st, _, b := w.do(t, "PATCH", "api/v1/repos/bob/noiss", bob.Token, map[string]any{"has_issues": true}); st != 200 {
			t.Fatalf("turn issues of bob/noiss back on: %d %s", st, b)
		}
		for _, r := range w.readers {
			r["bob/noiss"] = true
		}
		queries := []string{"leak", "parser leak"}
		w.checkSearchMatrix(t, queries, 7)
		w.checkRepoMatrix(t, []string{"bob/noiss"}, queries, 7)
	})

	t.Run("after repository deletion", func(t *testing.T) {
		w.deleteRepo(t, bob, "bob/other")
		w.checkSearchMatrix(t, []string{"leak", "lea", "parser leak", "memory"}, 7)
		// A repository of the same name has none of the old issues.
		createRepo(t, w.s, bob, "other", false)
		for _, r := range w.readers {
			r["bob/other"] = true
		}
		w.checkSearchMatrix(t, []string{"leak"}, 7)
		w.checkPages(t, srchPath("api/v1/repos/bob/other/issues", "q", "leak", "state", "all"), "", nil, 7, nil)
	})
}

// srchPages picks the pages worth reading of a long list: the first ones,
// those around the middle (where SQLite and PostgreSQL start reading from the
// other end), the last ones and the one past the end.
func srchPages(n, limit int) []int {
	last := (n + limit - 1) / limit
	mid := (last + 1) / 2
	var out []int
	for _, p := range []int{1, 2, mid - 1, mid, mid + 1, mid + 2, last - 1, last, last + 1} {
		if p >= 1 && p <= last+1 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// TestIssueSearchManyMatches checks searches whose words match more than a
// thousand issues, which SQLite answers from its full-text index alone
// (words, repositories, kind and state as tokens of the index): totals and
// pages from both ends for every caller and state, through edits, state
// changes, deletions and a deleted repository.
func TestIssueSearchManyMatches(t *testing.T) {
	if testing.Short() {
		t.Skip("creates over a thousand issues")
	}
	start := time.Now()
	w := newSrchPeople(t)
	alice, bob := w.users["alice"], w.users["bob"]

	// Every issue says "flood"; all but every 25th say "storm" and "in" too
	// (so "flood i" matches over a thousand issues by their words, and would
	// match the others by the index's tag tokens "i12", "i12o"); every 10th
	// says "leak". A few issues say neither.
	repos := []struct {
		full string
		u    *User
	}{{"alice/pub", alice}, {"alice/priv", alice}, {"bob/other", bob}, {"alice/pub", alice}, {"bob/noiss", bob}, {"bob/other", bob}}
	const n = 1080
	for k := range n {
		r := repos[k%len(repos)]
		title := fmt.Sprintf("Flood number %d", k)
		body := "storm surge in the harbour"
		if k%25 == 0 {
			body = "calm sea"
		}
		if k%10 == 3 {
			title += " with a leak"
		}
		if k%97 == 0 {
			title, body = fmt.Sprintf("Quiet issue %d", k), "nothing to see"
		}
		w.create(t, r.u, r.full, title, body, k%3 == 1)
	}
	if st, _, b := w.do(t, "PATCH", "api/v1/repos/bob/noiss", bob.Token, map[string]any{"has_issues": false}); st != 200 {
		t.Fatalf("turn off issues of bob/noiss: %d %s", st, b)
	}
	t.Logf("set-up: %d issues in %v", len(w.issues), time.Since(start))
	for _, q := range []string{"flood", "flood storm", "flood i"} {
		if m := len(w.want("alice", "", q, "all")); m < 600 {
			t.Fatalf("fixture: %q matches only %d issues", q, m)
		}
	}

	queries := []string{"flood", "flo", "FLOOD", "flood storm", "storm", "storm flood", "flood leak", "sea", "flood i", "in flood"}
	// The thousand-match threshold is SQLite's; on other databases (slower
	// to fill) a lighter pass of the same checks runs.
	sqlite := os.Getenv("CAIRN_DATABASE_URL") == ""
	callers := []srchCaller{{"anon", ""}, {"alice", alice.Token}, {"bob", bob.Token}, {"dave", w.users["dave"].Token}}
	if !sqlite {
		callers = callers[:2]
		queries = []string{"flood", "FLOOD storm", "flood i", "flood leak"}
	}
	check := func(t *testing.T, queries []string) {
		for _, c := range callers {
			for _, state := range []string{"", "open", "closed", "all"} {
				t.Run(fmt.Sprintf("%s/state=%s", c.name, state), func(t *testing.T) {
					for i, q := range queries {
						want := w.want(c.name, "", q, state)
						path := srchPath("api/v1/repos/issues/search", "q", q, "state", state)
						w.checkPages(t, path, c.token, want, 50, srchPages(len(want), 50))
						if i < 3 {
							w.checkPages(t, path, c.token, want, 7, srchPages(len(want), 7))
						}
						if !w.readers[c.name]["alice/priv"] {
							continue
						}
						for _, repo := range []string{"alice/pub", "alice/priv"} {
							want := w.want(c.name, repo, q, state)
							w.checkPages(t, srchPath("api/v1/repos/"+repo+"/issues", "q", q, "state", state), c.token, want, 50, srchPages(len(want), 50))
						}
					}
				})
			}
		}
	}
	t.Run("search", func(t *testing.T) { check(t, queries) })

	t.Run("every page", func(t *testing.T) {
		if !sqlite {
			t.Skip("SQLite only")
		}
		for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}} {
			for _, state := range []string{"open", "all"} {
				want := w.want(c.name, "", "flood", state)
				w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", "flood", "state", state), c.token, want, 50, nil)
			}
		}
	})

	t.Run("kind and order", func(t *testing.T) {
		for _, c := range []srchCaller{{"anon", ""}, {"alice", alice.Token}} {
			for _, state := range []string{"", "closed", "all"} {
				want := w.want(c.name, "", "flood", state)
				path := srchPath("api/v1/repos/issues/search", "q", "flood", "state", state, "type", "issues")
				w.checkPages(t, path, c.token, want, 50, srchPages(len(want), 50))
				w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", "flood", "state", state, "type", "pulls"), c.token, nil, 50, nil)
				w.checkPages(t, srchPath("api/v1/repos/alice/pub/issues", "q", "flood", "state", state, "type", "pulls"), c.token, nil, 50, nil)
				old := slices.Clone(want)
				slices.Reverse(old)
				w.checkPages(t, srchPath("api/v1/repos/issues/search", "q", "flood", "state", state, "sort", "oldest"), c.token, old, 50, srchPages(len(old), 50))
			}
		}
	})

	if t.Failed() {
		return
	}

	t.Run("after changes", func(t *testing.T) {
		// Lose the words, gain them, change state, delete.
		edited, closed, reopened := 0, 0, 0
		for i, is := range w.issues {
			u := alice
			if strings.HasPrefix(is.repo, "bob/") {
				u = bob
			}
			if is.repo == "bob/noiss" {
				continue
			}
			switch {
			case i%40 == 5 && edited < 12:
				w.edit(t, u, is, fmt.Sprintf("Renamed %d", i), "drizzle")
				edited++
			case i%97 == 0:
				w.edit(t, u, is, is.title+" flood", is.body)
			case i%31 == 7 && !is.closed && closed < 10:
				w.setState(t, u, is, true)
				closed++
			case i%29 == 4 && is.closed && reopened < 10:
				w.setState(t, u, is, false)
				reopened++
			}
		}
		var gone []*srchIssue
		for i, is := range w.issues {
			if is.repo == "alice/pub" && i%50 == 0 {
				if st, _, b := w.do(t, "DELETE", fmt.Sprintf("api/v1/repos/%s/issues/%d", is.repo, is.number), alice.Token, nil); st != 204 {
					t.Fatalf("delete %s: %d %s", is.key(), st, b)
				}
				gone = append(gone, is)
			}
		}
		w.forget(func(is *srchIssue) bool { return slices.Contains(gone, is) })
		w.create(t, bob, "bob/other", "Late flood", "storm", false)
		check(t, []string{"flood", "flood storm", "flood i", "drizzle"})
	})

	t.Run("after repository deletion", func(t *testing.T) {
		w.deleteRepo(t, bob, "bob/other")
		check(t, []string{"flood", "flood storm"})
	})
}

// TestIssueSearchPunctuation checks that words joined by punctuation (file
// names, paths, e-mail addresses, URLs, versions, identifiers) are found one
// by one on every database, as the search splits its own words.
func TestIssueSearchPunctuation(t *testing.T) {
	s := StartServer(t)
	w := newSrchWorld(s)
	alice := s.CreateUser("alice")
	w.users["alice"] = alice
	createRepo(t, s, alice, "docs", false)
	w.readers["alice"] = map[string]bool{"alice/docs": true}
	w.create(t, alice, "alice/docs", "Broken config.yaml parsing", "mail bob@example.com about version 1.5", false)
	w.create(t, alice, "alice/docs", "The crash in /usr/lib/libfoo.so", "see https://example.org/page?x=1 and call foo_bar(baz)", false)
	w.create(t, alice, "alice/docs", "Unrelated", "nothing to see", true)
	queries := []string{"yaml", "config", "config.yaml", "bob", "example", "1.5", "version 1.5", "libfoo", "usr lib",
		"page", "org", "foo", "baz", "bob@example.com", "see", "the crash", "mail about"}
	if !strings.HasPrefix(os.Getenv("CAIRN_DATABASE_URL"), "mysql") {
		// InnoDB's parser keeps "foo_bar" as one word, so "bar" does not
		// begin a word there (see docs/design-notes.md).
		queries = append(queries, "foo_bar", "bar")
	}
	for _, q := range queries {
		want := w.want("alice", "alice/docs", q, "all")
		if len(want) == 0 {
			t.Fatalf("%q: the test expects matches", q)
		}
		w.checkPages(t, srchPath("api/v1/repos/alice/docs/issues", "state", "all", "q", q), alice.Token, want, 10, nil)
		w.checkPages(t, srchPath("api/v1/repos/issues/search", "state", "all", "q", q), alice.Token, want, 10, nil)
	}
}

package e2e

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// gdShowStat sums the lines a commit adds and deletes as git counts them.
func gdShowStat(t testing.TB, g *gdRepo, sha string) [2]int {
	t.Helper()
	var st [2]int
	for _, line := range strings.Split(g.git(t, "show", "--numstat", "-M", "--format=", sha), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		a, _ := strconv.Atoi(f[0])
		d, _ := strconv.Atoi(f[1])
		st[0], st[1] = st[0]+a, st[1]+d
	}
	return st
}

// gdFiles renders a commit's files as "status name" sorted.
func gdFiles(files []*struct{ Filename, Status string }) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Status+" "+f.Filename)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// gdCommit is the part of Gitea's Commit the tests read, with the status
// of affected files that the SDK leaves out.
type gdCommit struct {
	SHA     string
	HTMLURL string `json:"html_url"`
	Commit  struct {
		Message      string
		Author       struct{ Name, Email, Date string }
		Tree         struct{ SHA string }
		Verification *struct {
			Verified bool
			Reason   string
		}
	}
	Author  *struct{ Login string }
	Parents []struct{ SHA string }
	Files   []*struct{ Filename, Status string }
	Stats   *struct{ Total, Additions, Deletions int }
}

func TestCommitList(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client(g.owner.Token)

	list, resp, err := c.ListRepoCommits("owner", "demo", gitea.ListCommitOptions{ListOptions: gitea.ListOptions{PageSize: 10}, Stat: true, Files: true, Verification: true})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(g.git(t, "log", "--format=%H", "main"), "\n")
	var got []string
	for _, cm := range list {
		got = append(got, cm.SHA)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("commits %v, git log says %v", got, want)
	}
	if resp.Header.Get("X-Total-Count") != "3" || resp.Header.Get("X-HasMore") != "false" || resp.Header.Get("X-PageCount") != "1" {
		t.Errorf("headers: %v", resp.Header)
	}
	first := list[2]
	if first.RepoCommit.Message != "first commit\n\nwith a body\n" || first.RepoCommit.Author.Date != "2024-01-02T03:04:05+02:00" ||
		first.Author == nil || first.Author.UserName != "owner" || len(first.Parents) != 0 || first.Stats.Additions != gdShowStat(t, g, g.c["c1"])[0] || first.Stats.Total != first.Stats.Additions ||
		first.RepoCommit.Tree.SHA != g.git(t, "rev-parse", g.c["c1"]+"^{tree}") || first.HTMLURL != s.URL+"owner/demo/commit/"+g.c["c1"] {
		t.Errorf("first commit: %+v %+v", first, first.RepoCommit)
	}
	if list[0].Author != nil || list[0].Committer != nil {
		t.Errorf("unknown addresses linked to accounts: %+v %+v", list[0].Author, list[0].Committer)
	}

	// Files, stats and verification as raw JSON (file status is not in the SDK).
	r := s.Do("GET", g.api()+"commits?sha=main&limit=1&page=1", Token(g.owner.Token))
	var raw []gdCommit
	r.Decode(t, &raw)
	if len(raw) != 1 || raw[0].SHA != g.c["c3"] {
		t.Fatalf("page 1: %s", r.Body)
	}
	third := raw[0]
	if got := gdFiles(third.Files); got != "added lib/helpers.py,removed README.md,removed lib/util.py" {
		t.Errorf("c3 files: %s", got)
	}
	st := gdShowStat(t, g, g.c["c3"])
	add, del := st[0], st[1]
	if third.Stats == nil || third.Stats.Additions != add || third.Stats.Deletions != del || third.Stats.Total != add+del {
		t.Errorf("c3 stats %+v, git says +%d -%d", third.Stats, add, del)
	}
	if v := third.Commit.Verification; v == nil || v.Verified || v.Reason != "gpg.error.not_signed_commit" {
		t.Errorf("verification: %+v", v)
	}
	if len(third.Parents) != 1 || third.Parents[0].SHA != g.c["c2"] {
		t.Errorf("parents: %+v", third.Parents)
	}
	if r.Header.Get("X-HasMore") != "true" || r.Header.Get("X-PageCount") != "3" || r.Header.Get("X-Total-Count") != "3" ||
		!strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Errorf("page 1 headers: %v", r.Header)
	}
	// A fixed number of queries whatever the page size.
	small := s.Do("GET", g.api()+"commits?limit=1", Token(g.owner.Token)).Header.Get("X-Cairn-Query-Count")
	large := s.Do("GET", g.api()+"commits?limit=3", Token(g.owner.Token)).Header.Get("X-Cairn-Query-Count")
	if small == "" || small != large {
		t.Errorf("queries: %s for 1 commit, %s for 3", small, large)
	}
	// Options off: no stats, files or verification.
	r = s.Do("GET", g.api()+"commits?limit=1&stat=false&files=false&verification=false", Token(g.owner.Token))
	r.Decode(t, &raw)
	if raw[0].Stats != nil || raw[0].Files != nil || raw[0].Commit.Verification != nil {
		t.Errorf("options off: %s", r.Body)
	}

	// Another branch, a path, "not".
	r = s.Do("GET", g.api()+"commits?sha=feature/x&files=false")
	r.Decode(t, &raw)
	if len(raw) != 3 || raw[0].SHA != g.c["c4"] {
		t.Errorf("feature/x: %s", r.Body)
	}
	r = s.Do("GET", g.api()+"commits?path=main.go")
	r.Decode(t, &raw)
	if len(raw) != 2 || raw[0].SHA != g.c["c2"] || raw[1].SHA != g.c["c1"] || r.Header.Get("X-Total-Count") != "2" {
		t.Errorf("path=main.go: %d commits %v", len(raw), r.Header)
	}
	r = s.Do("GET", g.api()+"commits?path=lib")
	if r.Decode(t, &raw); len(raw) != 2 {
		t.Errorf("path=lib: %d commits", len(raw))
	}
	r = s.Do("GET", g.api()+"commits?sha=feature/x&not=main")
	if r.Decode(t, &raw); len(raw) != 1 || raw[0].SHA != g.c["c4"] || r.Header.Get("X-Total-Count") != "1" {
		t.Errorf("not=main: %s", r.Body)
	}
	gdExpect(t, s.Do("GET", g.api()+"commits?path=nothing-here"), 404, "path without commits")
	gdExpect(t, s.Do("GET", g.api()+"commits?sha=nope"), 404, "unknown sha")
	for _, q := range []string{"sha=--output=/tmp/x", "sha=main~1", "not=--all", "path=../x", "path=/etc/passwd", "path=.git/config"} {
		gdExpect(t, s.Do("GET", g.api()+"commits?"+q), 422, q)
	}
}

func TestCommitAccountLinks(t *testing.T) {
	s, g := gdSetup(t, false)
	s.CreateUser("hidden", "private")
	host := strings.TrimSuffix(strings.TrimPrefix(s.URL, "http://"), "/")
	host = host[:strings.LastIndex(host, ":")]
	g.git(t, "checkout", "-q", "-b", "links", "main")
	gdGit(t, g.work, []string{"GIT_AUTHOR_EMAIL=HIDDEN@example.com", "GIT_COMMITTER_EMAIL=owner@noreply." + host},
		"commit", "-q", "--allow-empty", "-m", "links")
	sha := g.git(t, "rev-parse", "HEAD")
	g.git(t, "push", "-q", g.remote(), "links")

	type links struct {
		Author    *struct{ Login string }
		Committer *struct{ Login string }
	}
	var anon, admin links
	s.Do("GET", g.api()+"git/commits/"+sha).Decode(t, &anon)
	if anon.Author != nil || anon.Committer == nil || anon.Committer.Login != "owner" {
		t.Errorf("signed out: author %+v (a private account), committer %+v (no-reply address)", anon.Author, anon.Committer)
	}
	s.Do("GET", g.api()+"git/commits/"+sha, Token(s.AdminTok)).Decode(t, &admin)
	if admin.Author == nil || admin.Author.Login != "hidden" {
		t.Errorf("admin: author %+v", admin.Author)
	}
	var br struct {
		Commit struct {
			Author, Committer struct{ Username string }
		}
	}
	s.Do("GET", g.api()+"branches/links").Decode(t, &br)
	if br.Commit.Author.Username != "" || br.Commit.Committer.Username != "owner" {
		t.Errorf("branch tip usernames: %+v", br.Commit)
	}
}

func TestCommitSingleDiffPatch(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client("")

	cm, _, err := c.GetSingleCommit("owner", "demo", g.c["c2"])
	if err != nil {
		t.Fatal(err)
	}
	if cm.SHA != g.c["c2"] || cm.RepoCommit.Message != "second commit\n" || cm.RepoCommit.Committer.Name != "Test Committer" ||
		len(cm.Parents) != 1 || cm.Parents[0].SHA != g.c["c1"] || cm.Stats == nil || cm.Stats.Additions != gdShowStat(t, g, g.c["c2"])[0] || cm.Stats.Deletions != gdShowStat(t, g, g.c["c2"])[1] {
		t.Errorf("c2: %+v %+v %+v", cm, cm.RepoCommit, cm.Stats)
	}
	byName, _, err := c.GetSingleCommit("owner", "demo", "v2.0")
	if err != nil || byName.SHA != g.c["c3"] {
		t.Errorf("by annotated tag name: %+v %v", byName, err)
	}
	r := s.Do("GET", g.api()+"git/commits/"+g.c["c2"])
	var raw gdCommit
	r.Decode(t, &raw)
	if got := gdFiles(raw.Files); got != "added web/app.js,added web/style.css,modified main.go" {
		t.Errorf("c2 files: %s", got)
	}
	gdExpect(t, s.Do("GET", g.api()+"git/commits/ffffffffffffffffffffffffffffffffffffffff"), 404, "unknown commit")
	gdExpect(t, s.Do("GET", g.api()+"git/commits/--output=x"), 422, "option-like")
	gdExpect(t, s.Do("GET", g.api()+"git/commits/"+url.PathEscape("main^")), 422, "revision syntax")

	// .diff and .patch, compared with what git prints.
	diff, _, err := c.GetCommitDiff("owner", "demo", g.c["c2"])
	if err != nil {
		t.Fatal(err)
	}
	if want := g.git(t, "diff", "--full-index", "-M", g.c["c1"], g.c["c2"]); strings.TrimSpace(string(diff)) != want {
		t.Errorf("diff:\n%s\nwant:\n%s", diff, want)
	}
	r = s.Do("GET", g.api()+"git/commits/"+g.c["c1"]+".diff")
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || !strings.Contains(string(r.Body), "+++ b/README.md") {
		t.Errorf("root diff: %d %v %s", r.Status, r.Header, r.Body)
	}
	patch, _, err := c.GetCommitPatch("owner", "demo", g.c["c3"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(patch), "From "+g.c["c3"]) || !strings.Contains(string(patch), "Subject: [PATCH] third commit") ||
		!strings.Contains(string(patch), "rename from lib/util.py") {
		t.Errorf("patch:\n%s", patch)
	}
	// The patch applies where it came from.
	g.git(t, "checkout", "-q", g.c["c2"])
	applyDir := g.work
	gdGitStdin(t, applyDir, string(patch), "apply", "--check", "-")
	gdExpect(t, s.Do("GET", g.api()+"git/commits/nope.diff"), 404, "unknown diff")
	gdExpect(t, s.Do("GET", g.api()+"git/commits/--output=x.patch"), 404, "option-like patch")
}

func TestCompare(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client("")

	cmp, _, err := c.CompareCommits("owner", "demo", "v1.0", "feature/x")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(g.git(t, "log", "--format=%H", "v1.0..feature/x"), "\n")
	var got []string
	for _, cm := range cmp.Commits {
		got = append(got, cm.SHA)
		if cm.Stats == nil {
			t.Errorf("%s: no stats", cm.SHA)
		}
	}
	if cmp.TotalCommits != len(want) || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("compare: total %d %v, git says %v", cmp.TotalCommits, got, want)
	}
	var body struct {
		TotalCommits int `json:"total_commits"`
		Commits      []gdCommit
	}
	for path, total := range map[string]int{
		"main..feature/x": 1, "owner:main...owner:feature/x": 1, "feature/x": 1, g.c["c1"] + "..." + g.c["c3"]: 2, "main...main": 0,
	} {
		r := s.Do("GET", g.api()+"compare/"+path)
		gdExpect(t, r, 200, "compare "+path)
		if r.Decode(t, &body); body.TotalCommits != total || len(body.Commits) != total {
			t.Errorf("compare %s: %d commits, want %d", path, body.TotalCommits, total)
		}
	}
	for _, bad := range []string{"main...nope", "nope...main", "--output=x...main", "main...main~1", "other:main...main"} {
		gdExpect(t, s.Do("GET", g.api()+"compare/"+bad), 404, "compare "+bad)
	}
}

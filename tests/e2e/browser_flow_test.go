package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// brGit runs git in dir with a fixed identity and no prompts.
func brGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Alice", "-c", "user.email=alice@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// brText is the text of the first element matching css.
func brText(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		Screenshot(t, ctx, "failed-text")
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

// brLocation is the current page's URL.
func brLocation(t *testing.T, ctx context.Context) string {
	t.Helper()
	u, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestBrowserForgeFlow is the day-to-day work of a forge in a real
// browser: sign up, create a repository, push with git, browse the code,
// open an issue with Markdown and an attachment, comment and label it, open
// a pull request from a branch, review it with an inline comment, merge it,
// publish a release with an asset, add a webhook and see its delivery, and
// an administrator edits the user. Each main page is checked with axe-core
// and kept as a screenshot.
func TestBrowserForgeFlow(t *testing.T) {
	ctx := NewBrowser(t)
	var mu sync.Mutex
	var deliveries []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		deliveries = append(deliveries, r.Header.Get("X-Gitea-Event")+" "+string(b))
		mu.Unlock()
	}))
	defer receiver.Close()
	s := StartServer(t, WithEnv("CAIRN_WEBHOOK_ALLOWED_HOST_LIST=loopback"))
	page := func(what, path, waitFor string) {
		t.Helper()
		Do(t, ctx, what, chromedp.Navigate(s.URL+strings.TrimPrefix(path, "/")), chromedp.WaitVisible(chromedp.CSS(waitFor)))
	}

	// Sign up.
	page("sign-up page", "user/sign_up", "#user_name")
	Do(t, ctx, "sign up",
		chromedp.SendKeys(chromedp.CSS("#user_name"), "alice"),
		chromedp.SendKeys(chromedp.CSS("#email"), "alice@example.com"),
		chromedp.SendKeys(chromedp.CSS("#password"), "alice-pw-123"),
		chromedp.SendKeys(chromedp.CSS("#retype"), "alice-pw-123"),
		chromedp.Click(chromedp.CSS("form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".flash-success")),
	)

	// Create a repository with a README.
	page("new repository page", "repo/create", "#repo_name")
	CheckAccessibility(t, ctx, "new repository page")
	Do(t, ctx, "create the repository",
		chromedp.SendKeys(chromedp.CSS("#repo_name"), "demo"),
		chromedp.SendKeys(chromedp.CSS("#description"), "A demo repository"),
		chromedp.Click(chromedp.CSS("input[name=auto_init]")),
		chromedp.Click(chromedp.CSS("form[action='/repo/create'] button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".repo-header")),
	)
	if got := brLocation(t, ctx); !strings.HasSuffix(got, "/alice/demo") {
		t.Fatalf("after creating: %s", got)
	}

	// Push a file on main and a change on a branch with git.
	work := t.TempDir()
	remote := strings.Replace(s.URL, "http://", "http://alice:alice-pw-123@", 1) + "alice/demo.git"
	brGit(t, work, "clone", "-q", remote, "demo")
	dir := filepath.Join(work, "demo")
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	hello := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "src", "hello.go"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	brGit(t, dir, "add", ".")
	brGit(t, dir, "commit", "-q", "-m", "Add hello.go")
	brGit(t, dir, "push", "-q", "origin", "HEAD")
	brGit(t, dir, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(dir, "src", "hello.go"), []byte(strings.Replace(hello, "hello", "hello, world", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	brGit(t, dir, "commit", "-q", "-am", "Greet the world")
	brGit(t, dir, "push", "-q", "origin", "feature")

	// Browse the code.
	page("repository home", "alice/demo", ".repo-header")
	Screenshot(t, ctx, "repo-home")
	CheckAccessibility(t, ctx, "repository home")
	page("tree", "alice/demo/src/branch/main/src", "main")
	Submit(t, ctx, "open the file", "#L6", chromedp.Click(chromedp.CSS("a[href$='/src/branch/main/src/hello.go']")))
	Screenshot(t, ctx, "file")
	CheckAccessibility(t, ctx, "file view")
	if code := brText(t, ctx, "main table"); !strings.Contains(code, `fmt.Println("hello")`) {
		t.Fatalf("file view: %q", code)
	}

	// A label, then an issue with Markdown and an attachment.
	page("labels", "alice/demo/labels", "details.label-new")
	Submit(t, ctx, "create a label", "#label-name", chromedp.Click(chromedp.CSS("details.label-new summary")), chromedp.SendKeys(chromedp.CSS("#label-name"), "bug"),
		chromedp.Click(chromedp.CSS("form[action$='/labels/new'] button[type=submit]")))
	attachment := filepath.Join(work, "trace.txt")
	if err := os.WriteFile(attachment, []byte("stack trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page("new issue", "alice/demo/issues/new", "#issue-title")
	CheckAccessibility(t, ctx, "new issue page")
	Do(t, ctx, "write an issue",
		chromedp.SendKeys(chromedp.CSS("#issue-title"), "The greeting is too short"),
		chromedp.SendKeys(chromedp.CSS("#issue-content"), "It says **hello** only."),
		chromedp.SetUploadFiles(chromedp.CSS("input[name=files]"), []string{attachment}),
	)
	// The editor's preview is rendered by the server.
	Do(t, ctx, "preview the issue", chromedp.Click(chromedp.CSS(".editor-tabs button:nth-child(2)")),
		chromedp.WaitVisible(chromedp.CSS(".editor-preview strong")))
	if got := brText(t, ctx, ".editor-preview strong"); got != "hello" {
		t.Fatalf("preview: %q", got)
	}
	Do(t, ctx, "back to writing", chromedp.Click(chromedp.CSS(".editor-tabs button:nth-child(1)")),
		chromedp.WaitVisible(chromedp.CSS("#issue-content")))
	// A file dropped on the editor joins the form's files.
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["dropped\n"], "dropped.txt", {type: "text/plain"}));
		document.querySelector("#issue-content").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return document.querySelector("input[name=files]").files.length;
	})()`))
	if err != nil || n != 2 {
		t.Fatalf("files after a drop: %d %v", n, err)
	}
	Submit(t, ctx, "open an issue", "#comment-content", chromedp.Click(chromedp.CSS("form.issue-new button[type=submit]")))
	issueURL := brLocation(t, ctx)
	if !strings.HasSuffix(issueURL, "/alice/demo/issues/1") {
		t.Fatalf("after opening the issue: %s", issueURL)
	}
	body, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
	if err != nil || !strings.Contains(body, "<strong>hello</strong>") || !strings.Contains(body, "trace.txt") {
		t.Fatalf("issue page lacks the rendered body or the attachment: %v %.2000s", err, body)
	}
	Submit(t, ctx, "comment", "#comment-content", chromedp.SendKeys(chromedp.CSS("#comment-content"), "Confirmed: _short_."),
		chromedp.Click(chromedp.CSS("form.comment-form button[type=submit]")))
	Submit(t, ctx, "label the issue", "#comment-content", chromedp.Click(chromedp.CSS(".issue-sidebar details summary")),
		chromedp.Click(chromedp.CSS("form[action$='/issues/labels'] input[name=label_ids]")),
		chromedp.Click(chromedp.CSS("form[action$='/issues/labels'] button[type=submit]")))
	Screenshot(t, ctx, "issue")
	CheckAccessibility(t, ctx, "issue page")
	var iss struct {
		Comments int `json:"comments"`
		Labels   []struct {
			Name string `json:"name"`
		} `json:"labels"`
		Assets []struct {
			Name string `json:"name"`
		} `json:"assets"`
	}
	s.Do("GET", "api/v1/repos/alice/demo/issues/1").Decode(t, &iss)
	if iss.Comments != 1 || len(iss.Labels) != 1 || iss.Labels[0].Name != "bug" || len(iss.Assets) != 2 {
		t.Fatalf("issue through the API: %+v", iss)
	}

	// A pull request from the branch, reviewed inline and merged.
	page("new pull request", "alice/demo/pulls/new/feature", "#pull-title")
	Submit(t, ctx, "open the pull request", "form.merge-form", chromedp.SetValue(chromedp.CSS("#pull-title"), "Greet the world"),
		chromedp.Click(chromedp.CSS("form.pull-new-form button[type=submit]")))
	pullURL := brLocation(t, ctx)
	if !strings.HasSuffix(pullURL, "/alice/demo/pulls/2") {
		t.Fatalf("after opening the pull request: %s", pullURL)
	}
	page("files changed", "alice/demo/pulls/2/files", "form[action$='/files/reviews/comments']")
	Submit(t, ctx, "comment on a line", "details.review-submit summary",
		chromedp.Click(chromedp.CSS("details.review-line-form summary")),
		chromedp.SendKeys(chromedp.CSS("form[action$='/files/reviews/comments'] input[name=line]"), "6"),
		chromedp.SendKeys(chromedp.CSS("form[action$='/files/reviews/comments'] textarea"), "Nice greeting."),
		chromedp.Click(chromedp.CSS("form[action$='/files/reviews/comments'] button[type=submit]")))
	Submit(t, ctx, "submit the review", "main", chromedp.Click(chromedp.CSS("details.review-submit summary")),
		chromedp.SendKeys(chromedp.CSS("#review-body"), "Looks right."),
		chromedp.Click(chromedp.CSS("form[action$='/files/reviews/submit'] button[type=submit]")))
	page("files changed again", "alice/demo/pulls/2/files", "main")
	Screenshot(t, ctx, "pull-files")
	CheckAccessibility(t, ctx, "files changed")
	if files := brText(t, ctx, "main"); !strings.Contains(files, "Nice greeting.") {
		t.Fatalf("the inline comment is not shown: %.2000s", files)
	}
	page("pull request", "alice/demo/pulls/2", "form.merge-form")
	Screenshot(t, ctx, "pull")
	CheckAccessibility(t, ctx, "pull request page")
	Submit(t, ctx, "merge", "main", chromedp.Click(chromedp.CSS("form.merge-form button[name=do]")))
	var pr struct {
		Merged bool `json:"merged"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Do("GET", "api/v1/repos/alice/demo/pulls/2").Decode(t, &pr); !pr.Merged && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		s.Do("GET", "api/v1/repos/alice/demo/pulls/2").Decode(t, &pr)
	}
	if !pr.Merged {
		Screenshot(t, ctx, "failed-merge")
		t.Fatal("the pull request was not merged")
	}

	// A release with an asset.
	asset := filepath.Join(work, "demo-linux-amd64.txt")
	if err := os.WriteFile(asset, []byte("a build\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page("new release", "alice/demo/releases/new", "#tag_name")
	Submit(t, ctx, "publish a release", "main",
		chromedp.SendKeys(chromedp.CSS("#tag_name"), "v1.0.0"),
		chromedp.SendKeys(chromedp.CSS("#title"), "First release"),
		chromedp.SendKeys(chromedp.CSS("#content"), "The world is greeted."),
		chromedp.SetUploadFiles(chromedp.CSS("#attachment"), []string{asset}),
		chromedp.Click(chromedp.CSS("form[enctype] button.primary[type=submit]")))
	page("releases", "alice/demo/releases", "main")
	Screenshot(t, ctx, "releases")
	CheckAccessibility(t, ctx, "releases page")
	if rel, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main"))); !strings.Contains(rel, "First release") || !strings.Contains(rel, "demo-linux-amd64.txt") {
		t.Fatalf("releases page: %.2000s", rel)
	}
	if r := s.Do("GET", "alice/demo/releases/download/v1.0.0/demo-linux-amd64.txt"); r.Status != http.StatusOK || string(r.Body) != "a build\n" {
		t.Fatalf("asset download: %d %q", r.Status, r.Body)
	}

	// A webhook, tested, with its delivery shown.
	page("new webhook", "alice/demo/settings/hooks/gitea/new", "#payload_url")
	Submit(t, ctx, "add a webhook", "main", chromedp.SendKeys(chromedp.CSS("#payload_url"), receiver.URL+"/hook"),
		chromedp.Click(chromedp.CSS("button.primary[type=submit]")))
	page("webhooks", "alice/demo/settings/hooks", "main")
	Submit(t, ctx, "open the webhook", "#payload_url", chromedp.Click(chromedp.CSS("main a[href*='/settings/hooks/'][href$='1']")))
	hookURL := brLocation(t, ctx)
	Submit(t, ctx, "test the webhook", "main", chromedp.Click(chromedp.CSS("form[action$='/test'] button")))
	delivered := false
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		mu.Lock()
		delivered = len(deliveries) > 0
		mu.Unlock()
		if delivered {
			break
		}
	}
	if !delivered {
		t.Fatal("the test delivery never reached the receiver")
	}
	shown := false
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !shown; time.Sleep(300 * time.Millisecond) {
		Do(t, ctx, "reload the webhook", chromedp.Navigate(hookURL), chromedp.WaitVisible(chromedp.CSS("#payload_url")))
		shown = strings.Contains(brText(t, ctx, "main"), "200")
	}
	if !shown {
		t.Fatalf("the delivery is not shown on %s", hookURL)
	}
	Screenshot(t, ctx, "webhook")
	CheckAccessibility(t, ctx, "webhook page")

	// An administrator edits the user.
	Submit(t, ctx, "sign out", "main .hero", chromedp.Click(chromedp.CSS("form[action='/user/logout'] button")))
	page("sign in", "user/login", "#user_name")
	Submit(t, ctx, "sign in as the administrator", "form[action='/user/logout']",
		chromedp.SendKeys(chromedp.CSS("#user_name"), adminName),
		chromedp.SendKeys(chromedp.CSS("#password"), adminPassword),
		chromedp.Click(chromedp.CSS("form button[type=submit]")))
	page("site administration", "-/admin", "main")
	Screenshot(t, ctx, "admin")
	CheckAccessibility(t, ctx, "site administration")
	var alice struct {
		ID       int64  `json:"id"`
		FullName string `json:"full_name"`
	}
	s.Do("GET", "api/v1/users/alice", Token(s.AdminTok)).Decode(t, &alice)
	page("edit the user", "-/admin/users/"+strconv.FormatInt(alice.ID, 10)+"/edit", "#full_name")
	Submit(t, ctx, "set the full name", "main", chromedp.SetValue(chromedp.CSS("#full_name"), "Alice Liddell"),
		chromedp.Click(chromedp.CSS("form[action$='/edit'] button.primary")))
	s.Do("GET", "api/v1/users/alice", Token(s.AdminTok)).Decode(t, &alice)
	if alice.FullName != "Alice Liddell" {
		t.Fatalf("full name after the admin's edit: %q", alice.FullName)
	}

	// On a phone's screen the main pages fit the width: nothing but code and
	// tables (which scroll inside their boxes) is wider than the screen.
	Do(t, ctx, "phone screen", chromedp.EmulateViewport(390, 844))
	for _, path := range []string{"/", "alice/demo", "alice/demo/src/branch/main/src/hello.go", "alice/demo/issues/1",
		"alice/demo/pulls/2", "alice/demo/pulls/2/files", "alice/demo/releases", "-/admin", "explore/repos"} {
		page("phone "+path, path, "main")
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
		if err != nil || wide {
			Screenshot(t, ctx, "phone-too-wide")
			t.Errorf("%s is wider than a phone's screen (%v)", path, err)
		}
	}
	page("phone repository home", "alice/demo", "main")
	Screenshot(t, ctx, "phone-repo-home")
}

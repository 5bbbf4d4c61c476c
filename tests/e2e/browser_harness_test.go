package e2e

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser tests drive Debian's headless Chromium through the DevTools
// protocol (chromedp). They run once, on the embedded default database: the
// pages' data paths are covered on every database by the other tests.

//go:embed testdata/axe/axe.min.js
var axeSource string

// chromiumPath finds the browser: CAIRN_CHROMIUM, else chromium on PATH.
func chromiumPath() string {
	if p := os.Getenv("CAIRN_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// NewBrowser starts a headless Chromium with an empty profile and returns
// a context whose actions run in one tab. Without a browser the test is
// skipped, except under CI (CI=true), which installs one.
func NewBrowser(t *testing.T) context.Context {
	t.Helper()
	if testDatabaseURL(t) != "" {
		t.Skip("browser tests run on the embedded database only")
	}
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium found (apt-get install chromium, or set CAIRN_CHROMIUM)")
		}
		t.Skip("no chromium found: browser tests skipped (apt-get install chromium)")
	}
	opts := append([]chromedp.ExecAllocatorOption{},
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// stepTimeout bounds one step of a browser test (an element that never
// shows up fails the test rather than stalling it).
const stepTimeout = 30 * time.Second

// Do runs browser actions and fails the test on error (with a screenshot).
func Do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	step, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(step, actions...); err != nil {
		url, _ := chromedp.Run(ctx, chromedp.Location())
		Screenshot(t, ctx, "failed-"+what)
		t.Fatalf("%s (at %s): %v", what, url, err)
	}
}

// Submit runs actions that send a form (or follow a link), waits for the
// page they lead to and for waitFor on it, and fails the test when that page
// answers an error status.
func Submit(t *testing.T, ctx context.Context, what, waitFor string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	step, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(step, actions...)
	if err == nil && resp.Status >= 400 {
		err = fmt.Errorf("status %d", resp.Status)
	}
	if err == nil {
		err = chromedp.Do(step, chromedp.WaitVisible(chromedp.CSS(waitFor)))
	}
	if err != nil {
		url, _ := chromedp.Run(ctx, chromedp.Location())
		Screenshot(t, ctx, "failed-"+what)
		t.Fatalf("%s (at %s): %v", what, url, err)
	}
}

// artifactDir is where screenshots go: CAIRN_ARTIFACTS, else
// .artifacts/screenshots in the checkout (ignored by git).
func artifactDir() string {
	if d := os.Getenv("CAIRN_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(), ".artifacts", "screenshots")
}

// Screenshot saves a full-page PNG of the current page as an artifact.
func Screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := artifactDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("screenshot dir: %v", err)
		return
	}
	file := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()+"-"+name)+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// CheckAccessibility runs axe-core on the current page and fails the test on
// serious or critical violations (WCAG 2 A and AA rules).
func CheckAccessibility(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	script := axeSource + `;
		axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa"]}})
			.then(r => JSON.stringify(r.violations))`
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", page, err)
	}
	var violations []axeViolation
	if err := json.Unmarshal([]byte(raw), &violations); err != nil {
		t.Fatalf("axe result on %s: %v", page, err)
	}
	var serious []string
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			serious = append(serious, fmt.Sprintf("%s (%s): %s at %v", v.ID, v.Impact, v.Help, v.Nodes))
		}
	}
	if len(serious) > 0 {
		t.Errorf("accessibility violations on %s:\n%s", page, strings.Join(serious, "\n"))
	}
}

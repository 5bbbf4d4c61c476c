package e2e

import (
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestQuarantineSweptAtStartup kills the server and its git processes with
// SIGKILL while a push over HTTP is half received, which leaves git's
// quarantine directory in the repository, then starts the server again on
// the same data directory: the directory must go, and the repository must
// stay sound and accept pushes.
func TestQuarantineSweptAtStartup(t *testing.T) {
	s := StartServer(t)
	var created struct {
		ID int64 `json:"id"`
	}
	r := s.API("POST", "user/repos", s.AdminTok, map[string]any{"name": "quarantine"})
	if r.Status != 201 {
		t.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &created)
	repoDir := filepath.Join(s.DataDir, "repositories", strconv.FormatInt(created.ID, 10)+".git")

	// More than receive.unpackLimit (100) objects, so receive-pack hands the
	// pack to index-pack, which writes it into the quarantine as it comes.
	work := t.TempDir()
	gdGit(t, work, nil, "init", "-q", "-b", "main", ".")
	for i := 0; i < 150; i++ {
		buf := make([]byte, 16<<10)
		_, _ = rand.Read(buf)
		if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("f%03d.bin", i)), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gdGit(t, work, nil, "add", "-A")
	gdGit(t, work, nil, "commit", "-q", "-m", "random data")
	head := gdGit(t, work, nil, "rev-parse", "HEAD")

	// A proxy that lets the first MiB of each request body through and then
	// holds the rest until the server is dead.
	target, _ := url.Parse(s.URL)
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	defer open()
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the cut body is expected
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = &qGate{r: req.Body, left: 1 << 20, release: release}
		}
		rp.ServeHTTP(w, req)
	}))
	defer proxy.Close()

	remote := func(base string) string {
		u, _ := url.Parse(base + adminName + "/quarantine.git")
		u.User = url.UserPassword(adminName, s.AdminTok)
		return u.String()
	}
	push := exec.Command("git", "push", remote(proxy.URL+"/"), "main")
	push.Dir = work
	push.Env = gdEnv(work)
	pushOut := &strings.Builder{}
	push.Stdout, push.Stderr = pushOut, pushOut
	if err := push.Start(); err != nil {
		t.Fatal(err)
	}
	pushDone := make(chan struct{})
	go func() { _ = push.Wait(); close(pushDone) }()
	defer func() { _ = push.Process.Kill(); <-pushDone }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		if dirs, size := qQuarantines(t, repoDir); len(dirs) > 0 && size > 0 {
			break
		}
		select {
		case <-pushDone:
			t.Fatalf("the push ended before its pack was half received:\n%s", pushOut)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no quarantine directory appeared; push output:\n%s", pushOut)
		}
		time.Sleep(5 * time.Millisecond)
	}
	qKillTree(t, s.cmd.Process.Pid)
	<-s.done
	open()
	select {
	case <-pushDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the push did not end after the server died")
	}
	left, size := qQuarantines(t, repoDir)
	if len(left) == 0 {
		t.Fatal("the killed push left no quarantine directory: nothing to test")
	}
	t.Logf("left behind: %v (%d bytes)", left, size)

	s2 := rtRestart(t, s)
	deadline = time.Now().Add(30 * time.Second)
	for {
		dirs, _ := qQuarantines(t, repoDir)
		if len(dirs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("quarantine directories still there 30 s after the restart: %v\n%s", dirs, s2.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	logLine := regexp.MustCompile(`msg="removed stale push quarantine directories" sweep=start-up count=` +
		strconv.Itoa(len(left)) + ` bytes=(\d+)`)
	deadline = time.Now().Add(10 * time.Second)
	for !logLine.MatchString(s2.Logs()) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line of the sweep:\n%s", s2.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m := logLine.FindStringSubmatch(s2.Logs()); m[1] != strconv.FormatInt(size, 10) {
		// index-pack may still have been writing when it was stopped.
		t.Logf("logged %s bytes, saw %d before the restart", m[1], size)
	}

	// The repository is sound and takes the same push directly.
	gdGit(t, work, nil, "push", "-q", remote(s2.URL), "main")
	if got := gdGit(t, repoDir, nil, "rev-parse", "refs/heads/main"); got != head {
		t.Errorf("main = %s after the push, want %s", got, head)
	}
	gdGit(t, repoDir, nil, "fsck", "--strict", "--no-progress")
	if dirs, _ := qQuarantines(t, repoDir); len(dirs) != 0 {
		t.Errorf("quarantine directories after a good push: %v", dirs)
	}
}

// qGate passes left bytes of a request body, then blocks until release is
// closed and fails the body.
type qGate struct {
	r       io.ReadCloser
	left    int
	release <-chan struct{}
}

func (g *qGate) Read(p []byte) (int, error) {
	if g.left <= 0 {
		<-g.release
		return 0, io.ErrUnexpectedEOF
	}
	if len(p) > g.left {
		p = p[:g.left]
	}
	n, err := g.r.Read(p)
	g.left -= n
	return n, err
}

func (g *qGate) Close() error { return g.r.Close() }

// qQuarantines lists git's temporary object directories in a repository
// and the size of the files in them.
func qQuarantines(t *testing.T, repoDir string) ([]string, int64) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoDir, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	var size int64
	for _, e := range entries {
		if !e.IsDir() || !(strings.HasPrefix(e.Name(), "tmp_objdir-") || strings.HasPrefix(e.Name(), "incoming-")) {
			continue
		}
		dirs = append(dirs, e.Name())
		_ = filepath.WalkDir(filepath.Join(repoDir, "objects", e.Name()), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					size += fi.Size()
				}
			}
			return nil
		})
	}
	return dirs, size
}

// qKillTree kills pid and all its descendants with SIGKILL, as a crash or
// the OOM killer would: each process is stopped before its children are
// listed, so none of them can clean up or start another.
func qKillTree(t *testing.T, pid int) {
	t.Helper()
	procs := []int{pid}
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	for i := 0; i < len(procs); i++ {
		for _, c := range qChildren(t, procs[i]) {
			_ = syscall.Kill(c, syscall.SIGSTOP)
			procs = append(procs, c)
		}
	}
	t.Logf("killing %d processes", len(procs))
	for _, p := range procs {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// qChildren lists the processes whose parent is pid, from /proc.
func qChildren(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) >= 2 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

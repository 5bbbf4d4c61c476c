package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clhCopyBinary copies the cairn binary to a new temporary path.
func clhCopyBinary(t *testing.T) string {
	t.Helper()
	src, err := os.Open(cairnBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "cairn-copy")
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// clhStart starts `serve` from bin on the instance of prev (data directory
// and database), which has the administrator root, and gives it a new token.
func clhStart(t *testing.T, bin string, prev *Server) *Server {
	dataDir := prev.DataDir
	t.Helper()
	s := &Server{t: t, DataDir: dataDir, HTTPAddr: freePort(t), logs: &bytes.Buffer{}, logMu: &sync.Mutex{}, done: make(chan struct{}), SSHAddr: "off"}
	s.URL = "http://" + s.HTTPAddr + "/"
	s.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dataDir, "CAIRN_DATA_DIR=" + dataDir, "CAIRN_HTTP_ADDR=" + s.HTTPAddr,
		"CAIRN_SSH_ADDR=off", "CAIRN_ROOT_URL=" + s.URL, "CAIRN_SERVER_SHUTDOWN_TIMEOUT=10s",
		"CAIRN_ADMIN_USERNAME=" + adminName, "CAIRN_ADMIN_PASSWORD=" + adminPassword, "CAIRN_ADMIN_EMAIL=" + adminEmail,
	}
	for _, kv := range prev.Env {
		if strings.HasPrefix(kv, "CAIRN_DATABASE_URL=") {
			s.Env = append(s.Env, kv)
		}
	}
	s.launch(bin, nil)
	s.AdminTok = s.CreateToken(adminName, adminPassword, "e2e-admin-"+s.HTTPAddr, "all")
	return s
}

// clhPush commits a new file in the clone and pushes it.
func clhPush(t *testing.T, work, file string) (string, error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(work, file), []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", file}, {"commit", "-q", "-m", "add " + file}} {
		if out, err := clhGit(work, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return clhGit(work, "push", "origin", "HEAD:main")
}

func clhGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCLIHooksSurviveOtherBinaries: admin commands do not rewrite the hook
// scripts, so deleting the binary one ran from does not break pushes; when
// the binary the server runs from is deleted, a push fails with a message
// that names the fix, the server logs it, and `cairn admin regenerate hooks`
// repairs it.
func TestCLIHooksSurviveOtherBinaries(t *testing.T) {
	s := StartServer(t)
	if r := s.Do("POST", "api/v1/user/repos", Token(s.AdminTok), JSON(map[string]any{"name": "hooked", "auto_init": true})); r.Status != 201 {
		t.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	work := filepath.Join(t.TempDir(), "work")
	remote := strings.Replace(s.URL, "http://", "http://"+adminName+":"+s.AdminTok+"@", 1) + adminName + "/hooked.git"
	if out, err := clhGit(filepath.Dir(work), "clone", "-q", remote, work); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	before, err := os.ReadFile(filepath.Join(s.DataDir, "hooks", "pre-receive"))
	if err != nil {
		t.Fatal(err)
	}
	other := clhCopyBinary(t)
	cmd := exec.Command(other, "admin", "user", "list")
	cmd.Env = s.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("admin user list from a copy: %v\n%s", err, out)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(s.DataDir, "hooks", "pre-receive")); !bytes.Equal(before, after) {
		t.Fatalf("an admin command rewrote the hook scripts:\n%s", after)
	}
	if out, err := clhPush(t, work, "a.txt"); err != nil {
		t.Fatalf("push after an admin command from a deleted binary: %v\n%s", err, out)
	}
	s.Stop()

	// A server started from a binary that is then deleted.
	server := clhCopyBinary(t)
	s2 := clhStart(t, server, s)
	if err := os.Remove(server); err != nil {
		t.Fatal(err)
	}
	remote = strings.Replace(s2.URL, "http://", "http://"+adminName+":"+s2.AdminTok+"@", 1) + adminName + "/hooked.git"
	if out, err := clhGit(work, "remote", "set-url", "origin", remote); err != nil {
		t.Fatalf("set-url: %v\n%s", err, out)
	}
	out, err := clhPush(t, work, "b.txt")
	if err == nil || !strings.Contains(out, "cairn admin regenerate hooks") || !strings.Contains(out, server) {
		t.Fatalf("push with the server's binary gone: %v\n%s", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s2.Logs(), "the binary of this server is gone") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s2.Logs(), "the binary of this server is gone") {
		t.Errorf("the server did not log the failing hooks:\n%s", s2.Logs())
	}
	if out, err := s2.Cairn("admin", "regenerate", "hooks"); err != nil || !strings.Contains(out, cairnBinary(t)) {
		t.Fatalf("admin regenerate hooks: %v\n%s", err, out)
	}
	if out, err := clhPush(t, work, "c.txt"); err != nil {
		t.Fatalf("push after regenerate hooks: %v\n%s", err, out)
	}
	r := s2.Do("GET", "api/v1/repos/"+adminName+"/hooked/contents/c.txt", Token(s2.AdminTok))
	fndStatus(t, r, 200, "file of the last push")
}

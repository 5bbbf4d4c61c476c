package e2e

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebMirrorSettings changes a pull mirror's interval and synchronizes
// it from the repository's settings page.
func TestWebMirrorSettings(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_SECURITY_IMPORT_LOCAL_PATHS=true"))
	dir := t.TempDir()
	src := filepath.Join(dir, "src.git")
	work := filepath.Join(dir, "work")
	git := func(d string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=M", "-c", "user.email=m@example.com"}, args...)...)
		cmd.Dir = d
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(dir, "init", "-q", "--bare", "-b", "main", src)
	git(dir, "clone", "-q", src, work)
	commit := func(name string) string {
		if err := os.WriteFile(filepath.Join(work, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(work, "add", name)
		git(work, "commit", "-q", "-m", "add "+name)
		git(work, "push", "-q", "origin", "HEAD:main")
		return git(work, "rev-parse", "HEAD")
	}
	commit("one.txt")
	if r := s.API("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "mirrored", "mirror": true}); r.Status != http.StatusCreated {
		t.Fatalf("migrate: %d %s", r.Status, r.Body)
	}
	w := s.Web(t)
	w.SignIn(adminName, adminPassword)
	w.Get(adminName+"/mirrored/settings").MustContain(t, http.StatusOK, "Mirror", "Synchronize now", src)
	p := w.Post(adminName+"/mirrored/settings", url.Values{"action": {"mirror"}, "interval": {"2h0m0s"}, "enable_prune": {"on"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("mirror settings: %d %s", p.Status, p.Body)
	}
	var rp struct {
		MirrorInterval string `json:"mirror_interval"`
	}
	s.API("GET", "repos/"+adminName+"/mirrored", s.AdminTok, nil).Decode(t, &rp)
	if rp.MirrorInterval != "2h0m0s" {
		t.Fatalf("interval through the API: %q", rp.MirrorInterval)
	}
	w.Get(adminName + "/mirrored/settings")
	if p := w.Post(adminName+"/mirrored/settings", url.Values{"action": {"mirror"}, "interval": {"1m"}}); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("too short an interval: %d", p.Status)
	}
	head := commit("two.txt")
	w.Get(adminName + "/mirrored/settings")
	if p := w.Post(adminName+"/mirrored/settings", url.Values{"action": {"mirror-sync"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("sync: %d %s", p.Status, p.Body)
	}
	var br struct {
		Commit struct {
			ID string `json:"id"`
		} `json:"commit"`
	}
	s.API("GET", "repos/"+adminName+"/mirrored/branches/main", s.AdminTok, nil).Decode(t, &br)
	if br.Commit.ID != head {
		t.Fatalf("main after the sync: %s, want %s", br.Commit.ID, head)
	}
}

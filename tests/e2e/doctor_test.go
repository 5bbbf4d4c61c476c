package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// doctorRun runs `cairn doctor args...` on s and returns its output and exit status.
func doctorRun(t *testing.T, s *Server, args ...string) (string, int) {
	t.Helper()
	out, err := s.Cairn(append([]string{"doctor"}, args...)...)
	if err == nil {
		return out, 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("cairn doctor %v: %v\n%s", args, err, out)
	}
	return out, ee.ExitCode()
}

// doctorLine returns the result line of check name in out.
func doctorLine(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[") && strings.Contains(l, "] ") {
			if f := strings.Fields(l); len(f) > 1 && (f[1] == name || f[1] == name+":") {
				return l
			}
		}
	}
	return ""
}

func doctorCreateRepo(t *testing.T, s *Server, name string) (int64, string) {
	t.Helper()
	r := s.API("POST", "user/repos", s.AdminTok, map[string]any{"name": name, "auto_init": true})
	if r.Status != 201 {
		t.Fatalf("create repository %s: %d %s", name, r.Status, r.Body)
	}
	var created struct {
		ID int64 `json:"id"`
	}
	r.Decode(t, &created)
	return created.ID, filepath.Join(s.DataDir, "repositories", strconv.FormatInt(created.ID, 10)+".git")
}

func doctorBackdate(t *testing.T, paths ...string) {
	t.Helper()
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoctor breaks an instance in the ways `cairn doctor` knows (a
// directory without a repository row, a repository without its directory, a
// stale push quarantine, a stale ref lock, a missing hook script), checks
// that each is reported, that --fix repairs the safe ones and leaves what is
// fresh alone, and that pushes still work afterwards.
func TestDoctor(t *testing.T) {
	s := StartServer(t)
	out, code := doctorRun(t, s)
	if code != 0 || strings.Contains(out, "[FAIL]") || strings.Contains(out, "[ERROR]") || doctorLine(out, "db-integrity") == "" {
		t.Fatalf("doctor on a sound instance: exit %d\n%s", code, out)
	}

	_, dir := doctorCreateRepo(t, s, "doctored")
	goneID, goneDir := doctorCreateRepo(t, s, "gone")
	if err := os.RemoveAll(goneDir); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(s.DataDir, "repositories", strconv.FormatInt(goneID+1000, 10)+".git")
	if out, err := exec.Command("git", "init", "-q", "--bare", stray).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	quarantine := filepath.Join(dir, "objects", "tmp_objdir-incoming-Ab12Cd")
	if err := os.MkdirAll(quarantine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(quarantine, "pack.tmp"), []byte("half a pack"), 0o644); err != nil {
		t.Fatal(err)
	}
	freshQuarantine := filepath.Join(dir, "objects", "tmp_objdir-incoming-Fresh1")
	if err := os.MkdirAll(freshQuarantine, 0o755); err != nil {
		t.Fatal(err)
	}
	staleLock := filepath.Join(dir, "refs", "heads", "main.lock")
	freshLock := filepath.Join(dir, "refs", "heads", "fresh.lock")
	packedLock := filepath.Join(dir, "packed-refs.lock")
	for _, p := range []string{staleLock, freshLock, packedLock} {
		if err := os.WriteFile(p, []byte("0000000000000000000000000000000000000000\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doctorBackdate(t, filepath.Join(quarantine, "pack.tmp"), quarantine, staleLock, packedLock)
	hook := filepath.Join(s.DataDir, "hooks", "post-receive")
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}

	// Report only: every problem named, nothing changed.
	out, code = doctorRun(t, s)
	if code != 1 {
		t.Fatalf("doctor on a broken instance: exit %d\n%s", code, out)
	}
	t.Logf("cairn doctor:\n%s", out)
	for _, c := range []struct{ check, want string }{
		{"hooks", "post-receive: missing"},
		{"repo-dirs", stray},
		{"repo-rows", adminName + "/gone (id " + strconv.FormatInt(goneID, 10) + ")"},
		{"quarantine", quarantine},
		{"locks", staleLock},
		{"locks", packedLock},
	} {
		if !strings.HasPrefix(doctorLine(out, c.check), "[FAIL]") || !strings.Contains(out, c.want) {
			t.Errorf("doctor does not report %s (%s):\n%s", c.check, c.want, out)
		}
	}
	for _, ok := range []string{"db-version", "db-integrity"} {
		if !strings.HasPrefix(doctorLine(out, ok), "[OK]") {
			t.Errorf("check %s is not OK:\n%s", ok, out)
		}
	}
	if strings.Contains(out, freshLock) || strings.Contains(out, freshQuarantine) {
		t.Errorf("doctor reports fresh files:\n%s", out)
	}
	for _, p := range []string{stray, quarantine, staleLock, packedLock} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("doctor without --fix changed %s: %v", p, err)
		}
	}
	if _, err := os.Stat(hook); err == nil {
		t.Errorf("doctor without --fix wrote the hook script")
	}

	// Only some checks.
	out, code = doctorRun(t, s, "--run", "locks,db-version")
	if code != 1 || doctorLine(out, "locks") == "" || doctorLine(out, "db-version") == "" || doctorLine(out, "hooks") != "" {
		t.Errorf("doctor --run locks,db-version: exit %d\n%s", code, out)
	}

	// --fix repairs what is safe; the repository without a directory stays.
	out, code = doctorRun(t, s, "--fix")
	if code != 1 {
		t.Fatalf("doctor --fix: exit %d (a repository still has no directory)\n%s", code, out)
	}
	t.Logf("cairn doctor --fix:\n%s", out)
	for _, c := range []string{"hooks", "repo-dirs", "quarantine", "locks"} {
		if !strings.HasPrefix(doctorLine(out, c), "[FIXED]") {
			t.Errorf("doctor --fix did not repair %s:\n%s", c, out)
		}
	}
	if !strings.HasPrefix(doctorLine(out, "repo-rows"), "[FAIL]") || !strings.Contains(out, "backup") {
		t.Errorf("doctor --fix: the repository without a directory is not reported with what to do:\n%s", out)
	}
	for _, p := range []string{stray, quarantine, staleLock, packedLock} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("doctor --fix left %s", p)
		}
	}
	for _, p := range []string{freshLock, freshQuarantine} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("doctor --fix removed the fresh %s: %v", p, err)
		}
	}
	if fi, err := os.Stat(hook); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("doctor --fix did not write an executable %s: %v", hook, err)
	}
	moved, _ := filepath.Glob(filepath.Join(s.DataDir, "lost+found", filepath.Base(stray)+".*"))
	if len(moved) != 1 {
		t.Errorf("the stray directory is not in lost+found: %v", moved)
	} else if _, err := os.Stat(filepath.Join(moved[0], "HEAD")); err != nil {
		t.Errorf("the stray directory lost its content: %v", err)
	}

	// What --fix cannot repair remains, alone.
	out, code = doctorRun(t, s)
	if code != 1 || strings.Count(out, "[FAIL]") != 1 || !strings.HasPrefix(doctorLine(out, "repo-rows"), "[FAIL]") {
		t.Errorf("doctor after --fix: exit %d\n%s", code, out)
	}

	// Pushes work, to the branch of the removed lock too.
	if err := os.Remove(freshLock); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "work")
	remote := strings.Replace(s.URL, "http://", "http://"+adminName+":"+s.AdminTok+"@", 1) + adminName + "/doctored.git"
	if out, err := clhGit(filepath.Dir(work), "clone", "-q", remote, work); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	if out, err := clhPush(t, work, "after-doctor.txt"); err != nil {
		t.Fatalf("push after doctor --fix: %v\n%s", err, out)
	}

	// The operator's way out for a repository without a directory.
	if r := s.API("DELETE", "repos/"+adminName+"/gone", s.AdminTok, nil); r.Status != 204 {
		t.Fatalf("delete the repository without a directory: %d %s", r.Status, r.Body)
	}
	if out, code := doctorRun(t, s); code != 0 {
		t.Errorf("doctor after deleting the repository: exit %d\n%s", code, out)
	}
}

// TestDoctorCommandLine: --help and --list touch nothing, an unknown check is
// a usage error, and a directory without an instance is refused.
func TestDoctorCommandLine(t *testing.T) {
	bin := cairnBinary(t)
	for _, args := range [][]string{{"doctor", "--help"}, {"doctor", "-h"}, {"doctor", "--list"}} {
		dir := t.TempDir()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("cairn %v: %v\n%s", args, err, out)
		}
		for _, want := range []string{"hooks", "repo-dirs", "repo-rows", "quarantine", "locks", "db-version", "db-integrity"} {
			if args[1] == "--list" && !strings.Contains(string(out), want) {
				t.Errorf("cairn doctor --list misses %s:\n%s", want, out)
			}
		}
		if args[1] != "--list" && (!strings.Contains(string(out), "usage: cairn doctor") || !strings.Contains(string(out), "--fix")) {
			t.Errorf("cairn %v printed no usage:\n%s", args, out)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("cairn %v wrote to the working directory: %v", args, entries)
		}
	}
	empty := t.TempDir()
	cmd := exec.Command(bin, "doctor", "--data-dir", empty)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + empty}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "no Cairn instance") {
		t.Errorf("doctor on an empty directory: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("doctor on an empty directory created %v", entries)
	}
	cmd = exec.Command(bin, "doctor", "--run", "bogus", "--data-dir", empty)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + empty}
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "bogus") {
		t.Errorf("doctor --run bogus: %v\n%s", err, out)
	}
}

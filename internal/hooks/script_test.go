package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinary writes an executable that prints its name and arguments.
func fakeBinary(t *testing.T, path, label string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho \""+label+" $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestScripts(t *testing.T) {
	data := t.TempDir()
	bins := filepath.Join(t.TempDir(), `odd dir's "$HOME"`)
	if err := os.MkdirAll(bins, 0o755); err != nil {
		t.Fatal(err)
	}
	written, serving := filepath.Join(bins, "written"), filepath.Join(bins, "serving")
	fakeBinary(t, written, "written")
	fakeBinary(t, serving, "serving")
	if err := WriteScripts(data, written); err != nil {
		t.Fatal(err)
	}
	run := func(name, envExe string) (string, error) {
		cmd := exec.Command(filepath.Join(data, "hooks", name))
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), EnvExecutable + "=" + envExe}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct {
		name, envExe, want string
	}{
		{"pre-receive", serving, "serving hook pre-receive"},
		{"post-receive", serving, "serving hook post-receive"},
		{"pre-receive", "", "written hook pre-receive"},
		{"pre-receive", filepath.Join(bins, "gone"), "written hook pre-receive"},
	} {
		out, err := run(c.name, c.envExe)
		if err != nil || strings.TrimSpace(out) != c.want {
			t.Errorf("%s with %q: %v %q, want %q", c.name, c.envExe, err, out, c.want)
		}
	}
	// Neither binary exists: a clear refusal naming the binary and the fix.
	if err := os.Remove(written); err != nil {
		t.Fatal(err)
	}
	out, err := run("pre-receive", filepath.Join(bins, "gone"))
	if err == nil || !strings.Contains(out, written) || !strings.Contains(out, "cairn admin regenerate hooks") {
		t.Fatalf("missing binaries: %v %q", err, out)
	}
	// Writing again with the same binary leaves the files alone; another binary replaces them.
	before, _ := os.Stat(filepath.Join(data, "hooks", "pre-receive"))
	fakeBinary(t, written, "written")
	if err := WriteScripts(data, written); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(filepath.Join(data, "hooks", "pre-receive")); !os.SameFile(before, after) {
		t.Error("unchanged scripts were rewritten")
	}
	if err := WriteScripts(data, serving); err != nil {
		t.Fatal(err)
	}
	if out, err := run("pre-receive", ""); err != nil || strings.TrimSpace(out) != "serving hook pre-receive" {
		t.Errorf("after rewriting: %v %q", err, out)
	}
}

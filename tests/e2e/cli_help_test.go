package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCLIHelp: every command and subcommand prints its usage (and flags) on
// --help and -h, exits 0, and does nothing else: no ./data, no server.
func TestCLIHelp(t *testing.T) {
	bin := cairnBinary(t)
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{}, []string{"serve", "admin user create", "admin regenerate hooks", "--data-dir"}},
		{[]string{"serve"}, []string{"cairn serve", "--config", "--data-dir"}},
		{[]string{"web"}, []string{"cairn serve"}},
		{[]string{"admin"}, []string{"user create", "regenerate hooks", "refuse"}},
		{[]string{"admin", "user"}, []string{"create", "change-password", "list", "delete", "generate-access-token", "must-change-password"}},
		{[]string{"admin", "user", "create"}, []string{"--username", "--password-stdin", "--password-file", "--email", "--admin", "--restricted", "--must-change-password", "--access-token", "--data-dir"}},
		{[]string{"admin", "user", "change-password"}, []string{"--username", "--password-stdin", "--must-change-password"}},
		{[]string{"admin", "user", "list"}, []string{"--admin", "--config"}},
		{[]string{"admin", "user", "delete"}, []string{"--username", "--id", "--email", "--purge"}},
		{[]string{"admin", "user", "generate-access-token"}, []string{"--username", "--token-name", "--scopes", "--raw"}},
		{[]string{"admin", "user", "must-change-password"}, []string{"--all", "--exclude", "--unset"}},
		{[]string{"admin", "regenerate"}, []string{"hooks"}},
		{[]string{"admin", "regenerate", "hooks"}, []string{"hook scripts", "--data-dir"}},
		{[]string{"admin", "sendmail"}, []string{"--title", "--content", "--force"}},
		{[]string{"hook"}, []string{"pre-receive"}},
	} {
		for _, h := range []string{"--help", "-h"} {
			args := append(append([]string{}, c.args...), h)
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir = dir
			// Even with a first administrator configured, nothing is created.
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_HTTP_ADDR=" + freePort(t), "CAIRN_SSH_ADDR=off",
				"CAIRN_ADMIN_USERNAME=boss", "CAIRN_ADMIN_PASSWORD=boss-pw-1", "CAIRN_ADMIN_EMAIL=boss@example.com"}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			cancel()
			if err != nil {
				t.Errorf("cairn %s: %v (a server started?)\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
				continue
			}
			if !strings.Contains(stdout.String(), "usage: cairn") {
				t.Errorf("cairn %s printed no usage:\n%s", strings.Join(args, " "), stdout.String())
			}
			for _, w := range c.wants {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("cairn %s: the help misses %q:\n%s", strings.Join(args, " "), w, stdout.String())
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("cairn %s wrote to the working directory: %v", strings.Join(args, " "), entries)
			}
		}
	}
	// A wrong flag is a usage error (exit 2) that names the command's help.
	cmd := exec.Command(bin, "admin", "user", "create", "--bogus")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "--help") {
		t.Errorf("unknown flag: %v\n%s", err, out)
	}
}

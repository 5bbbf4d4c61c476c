package e2e

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sshKit drives a server's SSH side with the real ssh and git clients.
type sshKit struct {
	t    *testing.T
	s    *Server
	home string // HOME of the clients: no user configuration, no agent
}

func newSSHKit(t *testing.T, s *Server) *sshKit {
	t.Helper()
	for _, bin := range []string{"ssh", "ssh-keygen", "git"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed: %v", bin, err)
		}
	}
	if s.SSHAddr == "" || s.SSHAddr == "off" {
		t.Fatal("the server was started without WithSSH()")
	}
	return &sshKit{t: t, s: s, home: t.TempDir()}
}

// keygen creates an ed25519 key pair and returns the private key's path and
// the public key line.
func (k *sshKit) keygen(name string) (string, string) {
	k.t.Helper()
	path := filepath.Join(k.t.TempDir(), name)
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path).CombinedOutput()
	if err != nil {
		k.t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		k.t.Fatal(err)
	}
	return path, strings.TrimSpace(string(pub))
}

func (k *sshKit) port() string {
	_, port, _ := strings.Cut(k.s.SSHAddr, ":")
	return port
}

// sshArgs are the client options: only the given key, no host key checks.
func (k *sshKit) sshArgs(key string) []string {
	return []string{"-i", key, "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
		"-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "-p", k.port()}
}

func (k *sshKit) env(key string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + k.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_SSH_COMMAND=ssh " + strings.Join(k.sshArgs(key), " "),
		"GIT_AUTHOR_NAME=E2E", "GIT_AUTHOR_EMAIL=e2e@example.com", "GIT_COMMITTER_NAME=E2E", "GIT_COMMITTER_EMAIL=e2e@example.com",
	}
}

// url is the SSH clone address of owner/repo.
func (k *sshKit) url(fullName string) string {
	return "ssh://git@127.0.0.1:" + k.port() + "/" + fullName + ".git"
}

// git runs git with key as the SSH identity; it returns combined output.
func (k *sshKit) git(key, dir string, extraEnv []string, args ...string) (string, error) {
	k.t.Helper()
	if dir == "" {
		dir = k.home
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(k.env(key), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustGit runs git and fails the test when it fails.
func (k *sshKit) mustGit(key, dir string, args ...string) string {
	k.t.Helper()
	out, err := k.git(key, dir, nil, args...)
	if err != nil {
		k.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// failGit runs git, expects it to fail and its output to contain want.
func (k *sshKit) failGit(key, dir, want string, args ...string) {
	k.t.Helper()
	out, err := k.git(key, dir, nil, args...)
	if err == nil {
		k.t.Fatalf("git %s succeeded, want a failure with %q:\n%s", strings.Join(args, " "), want, out)
	}
	if !strings.Contains(out, want) {
		k.t.Fatalf("git %s: output does not contain %q:\n%s", strings.Join(args, " "), want, out)
	}
}

// ssh runs the ssh client with a remote command ("" for a shell) and
// returns stdout, stderr and the exit code.
func (k *sshKit) ssh(key string, extra []string, remote string) (string, string, int) {
	k.t.Helper()
	args := append(k.sshArgs(key), extra...)
	args = append(args, "git@127.0.0.1")
	if remote != "" {
		args = append(args, remote)
	}
	cmd := exec.Command("ssh", args...)
	cmd.Env = k.env(key)
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		k.t.Fatalf("ssh: %v", err)
	}
	return stdout.String(), stderr.String(), code
}

// addUserKey registers pub for u through the API.
func (k *sshKit) addUserKey(u *User, title, pub string) {
	k.t.Helper()
	resp := k.s.Do("POST", "api/v1/user/keys", Token(u.Token), JSON(map[string]any{"title": title, "key": pub}))
	if resp.Status != 201 {
		k.t.Fatalf("add key for %s: %d %s", u.Name, resp.Status, resp.Body)
	}
}

// userWithKey creates a user with a registered key and returns the user
// and the private key's path.
func (k *sshKit) userWithKey(name string) (*User, string) {
	k.t.Helper()
	u := k.s.CreateUser(name)
	key, pub := k.keygen(name)
	k.addUserKey(u, "laptop", pub)
	return u, key
}

// createRepo creates an empty repository for the token's holder (or the
// organization org when set).
func (k *sshKit) createRepo(tok, org, name string, private bool) {
	k.t.Helper()
	path := "api/v1/user/repos"
	if org != "" {
		path = "api/v1/orgs/" + org + "/repos"
	}
	resp := k.s.Do("POST", path, Token(tok), JSON(map[string]any{"name": name, "private": private}))
	if resp.Status != 201 {
		k.t.Fatalf("create repo %s: %d %s", name, resp.Status, resp.Body)
	}
}

// newWorkTree makes a local repository on branch main with one commit
// holding file=content.
func (k *sshKit) newWorkTree(file, content string) string {
	k.t.Helper()
	dir := k.t.TempDir()
	k.mustGit("", dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		k.t.Fatal(err)
	}
	k.mustGit("", dir, "add", file)
	k.mustGit("", dir, "commit", "-q", "-m", "add "+file)
	return dir
}

// commit adds a commit changing file in dir.
func (k *sshKit) commit(dir, file, content string) {
	k.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		k.t.Fatal(err)
	}
	k.mustGit("", dir, "add", file)
	k.mustGit("", dir, "commit", "-q", "-m", "change "+file)
}

// cloneAndRead clones fullName with key and returns the content of file.
func (k *sshKit) cloneAndRead(key, fullName, file string) string {
	k.t.Helper()
	dst := filepath.Join(k.t.TempDir(), "clone")
	k.mustGit(key, "", "clone", "-q", k.url(fullName), dst)
	b, err := os.ReadFile(filepath.Join(dst, file))
	if err != nil {
		k.t.Fatalf("clone of %s has no %s: %v", fullName, file, err)
	}
	return string(b)
}

// TestSSHGitUserKeys covers account keys: push and clone (protocols v0 and
// v2), archives, readers that cannot push, hidden private repositories,
// unknown keys, accounts that may not sign in, and everything that is not git.
func TestSSHGitUserKeys(t *testing.T) {
	s := StartServer(t, WithSSH())
	k := newSSHKit(t, s)
	alice, aliceKey := k.userWithKey("alice")
	k.createRepo(alice.Token, "", "proj", true)

	// Push to the empty repository, then clone it back.
	work := k.newWorkTree("README.md", "hello over ssh\n")
	k.mustGit(aliceKey, work, "push", "-q", k.url("alice/proj"), "main")
	if got := k.cloneAndRead(aliceKey, "alice/proj", "README.md"); got != "hello over ssh\n" {
		t.Fatalf("cloned README = %q", got)
	}
	var info struct {
		Empty         bool   `json:"empty"`
		DefaultBranch string `json:"default_branch"`
	}
	resp := s.Do("GET", "api/v1/repos/alice/proj", Token(alice.Token))
	resp.Decode(t, &info)
	if info.Empty || info.DefaultBranch != "main" {
		t.Fatalf("after the SSH push the repository is empty=%v default=%q, want a non-empty main", info.Empty, info.DefaultBranch)
	}

	// An address without ".git".
	k.commit(work, "README.md", "second\n")
	k.mustGit(aliceKey, work, "push", "-q", "ssh://git@127.0.0.1:"+k.port()+"/alice/proj", "main")
	if got := k.cloneAndRead(aliceKey, "alice/proj", "README.md"); got != "second\n" {
		t.Fatalf("cloned README after the second push = %q", got)
	}

	t.Run("protocol v2", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "v2")
		out, err := k.git(aliceKey, "", []string{"GIT_TRACE_PACKET=1"}, "-c", "protocol.version=2", "clone", k.url("alice/proj"), dst)
		if err != nil {
			t.Fatalf("v2 clone: %v\n%s", err, out)
		}
		if !strings.Contains(out, "version 2") {
			t.Fatalf("the server did not answer with protocol v2:\n%s", lastLines(out, 30))
		}
		out, err = k.git(aliceKey, "", []string{"GIT_TRACE_PACKET=1"}, "-c", "protocol.version=0", "ls-remote", k.url("alice/proj"))
		if err != nil || strings.Contains(out, "version 2") || !strings.Contains(out, "refs/heads/main") {
			t.Fatalf("v0 ls-remote: %v\n%s", err, lastLines(out, 30))
		}
	})

	t.Run("upload-archive", func(t *testing.T) {
		cmd := exec.Command("git", "archive", "--format=tar", "--remote="+k.url("alice/proj"), "main", "README.md")
		cmd.Env = k.env(aliceKey)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git archive --remote: %v\n%s", err, stderr.String())
		}
		tr := tar.NewReader(bytes.NewReader(out))
		found := false
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("archive is not a valid tar: %v", err)
			}
			if h.Name == "README.md" {
				b, _ := io.ReadAll(tr)
				found = string(b) == "second\n"
			}
		}
		if !found {
			t.Fatal("the remote archive does not hold README.md with the pushed content")
		}
	})

	t.Run("readers cannot push, strangers do not see private repositories", func(t *testing.T) {
		ok := newOrgKit(t, s)
		ok.createOrg(alice, "acme", "public")
		k.createRepo(alice.Token, "acme", "tool", true)
		k.mustGit(aliceKey, work, "push", "-q", k.url("acme/tool"), "main")
		readers := ok.createTeam(alice, "acme", map[string]any{"name": "readers", "permission": "read",
			"units": []string{"repo.code"}, "includes_all_repositories": true})
		_, bobKey := k.userWithKey("bob")
		ok.addToTeam(alice, readers.ID, "bob")
		if got := k.cloneAndRead(bobKey, "acme/tool", "README.md"); got != "second\n" {
			t.Fatalf("reader clone = %q", got)
		}
		k.commit(work, "README.md", "third\n")
		k.failGit(bobKey, work, "You do not have permission to push to this repository.", "push", k.url("acme/tool"), "main")
		// The refused push changed nothing.
		if got := k.cloneAndRead(aliceKey, "acme/tool", "README.md"); got != "second\n" {
			t.Fatalf("after a refused push README = %q", got)
		}

		_, carolKey := k.userWithKey("carol")
		for _, repo := range []string{"alice/proj", "acme/tool", "alice/does-not-exist"} {
			k.failGit(carolKey, "", "Repository not found or you do not have access.", "ls-remote", k.url(repo))
			k.failGit(carolKey, work, "Repository not found or you do not have access.", "push", k.url(repo), "main")
		}
	})

	t.Run("archived repositories are read-only", func(t *testing.T) {
		k.createRepo(alice.Token, "", "old", false)
		k.mustGit(aliceKey, work, "push", "-q", k.url("alice/old"), "main")
		resp := s.Do("PATCH", "api/v1/repos/alice/old", Token(alice.Token), JSON(map[string]any{"archived": true}))
		if resp.Status != 200 {
			t.Fatalf("archive: %d %s", resp.Status, resp.Body)
		}
		k.commit(work, "README.md", "fourth\n")
		k.failGit(aliceKey, work, "The repository is archived and read-only.", "push", k.url("alice/old"), "main")
		k.mustGit(aliceKey, "", "ls-remote", k.url("alice/old"))
	})

	t.Run("unknown keys are refused", func(t *testing.T) {
		strangerKey, _ := k.keygen("stranger")
		_, stderr, code := k.ssh(strangerKey, nil, "git-upload-pack 'alice/proj.git'")
		if code != 255 || !strings.Contains(stderr, "is not registered") || !strings.Contains(stderr, "Permission denied") {
			t.Fatalf("unknown key: exit %d, stderr:\n%s", code, stderr)
		}
		k.failGit(strangerKey, "", "is not registered", "ls-remote", k.url("alice/proj"))
	})

	t.Run("accounts that may not sign in are refused", func(t *testing.T) {
		dave, daveKey := k.userWithKey("dave")
		k.createRepo(dave.Token, "", "mine", false)
		k.mustGit(daveKey, "", "ls-remote", k.url("dave/mine"))
		resp := s.Do("PATCH", "api/v1/admin/users/dave", Token(s.AdminTok), JSON(map[string]any{"prohibit_login": true, "login_name": "dave", "source_id": 0}))
		if resp.Status != 200 {
			t.Fatalf("prohibit login: %d %s", resp.Status, resp.Body)
		}
		k.failGit(daveKey, "", "not allowed to sign in", "ls-remote", k.url("dave/mine"))
	})

	t.Run("no shell, no other commands, no forwarding", func(t *testing.T) {
		stdout, stderr, code := k.ssh(aliceKey, []string{"-T"}, "")
		if code != 1 || !strings.Contains(stdout+stderr, "Cairn does not provide shell access.") || !strings.Contains(stdout+stderr, "alice") {
			t.Fatalf("shell: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		for _, cmd := range []string{"ls -la", "sh -c id", "git-upload-pack 'alice/proj.git'; id", "env", "scp -f /etc/passwd"} {
			stdout, stderr, code := k.ssh(aliceKey, nil, cmd)
			if code != 1 || stdout != "" {
				t.Fatalf("%q: exit %d, stdout %q", cmd, code, stdout)
			}
			if !strings.Contains(stderr, "Cairn does not provide shell access.") && !strings.Contains(stderr, "invalid repository path") {
				t.Fatalf("%q: stderr %q", cmd, stderr)
			}
		}
		_, stderr, code = k.ssh(aliceKey, nil, "git-upload-pack '../../etc.git'")
		if code != 1 || !strings.Contains(stderr, "invalid repository path") {
			t.Fatalf("traversal: exit %d, stderr %q", code, stderr)
		}
		_, stderr, code = k.ssh(aliceKey, []string{"-W", s.HTTPAddr}, "")
		if code == 0 || !strings.Contains(stderr, "prohibited") {
			t.Fatalf("forwarding with -W: exit %d, stderr %q", code, stderr)
		}
		_, stderr, code = k.ssh(aliceKey, []string{"-s"}, "sftp")
		if code == 0 {
			t.Fatalf("sftp subsystem: exit 0, stderr %q", stderr)
		}
	})
}

// TestSSHAnonymousClone: with [server] SSH_ANONYMOUS_CLONE on, a key that
// belongs to nobody reads public repositories and nothing else.
func TestSSHAnonymousClone(t *testing.T) {
	s := StartServer(t, WithSSH(), WithEnv("CAIRN_SERVER_SSH_ANONYMOUS_CLONE=true"))
	k := newSSHKit(t, s)
	alice, aliceKey := k.userWithKey("alice")
	k.createRepo(alice.Token, "", "open", false)
	k.createRepo(alice.Token, "", "secret", true)
	work := k.newWorkTree("README.md", "public\n")
	k.mustGit(aliceKey, work, "push", "-q", k.url("alice/open"), "main")
	k.mustGit(aliceKey, work, "push", "-q", k.url("alice/secret"), "main")

	anonKey, _ := k.keygen("anon")
	if got := k.cloneAndRead(anonKey, "alice/open", "README.md"); got != "public\n" {
		t.Fatalf("anonymous clone = %q", got)
	}
	k.failGit(anonKey, "", "Repository not found or you do not have access.", "ls-remote", k.url("alice/secret"))
	k.commit(work, "README.md", "changed\n")
	k.failGit(anonKey, work, "Anonymous SSH access is read-only", "push", k.url("alice/open"), "main")
	// The owner's key still identifies the owner.
	k.mustGit(aliceKey, work, "push", "-q", k.url("alice/open"), "main")
}

// lastLines keeps the end of a long output for failure messages.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestSSHCloneLargeRepository clones a repository much larger than the part
// of the SSH window a download keeps in flight, with protocols v0 and v2,
// so the data goes out under the flow limit of OpenSSH clients; the clones
// must be complete and intact.
func TestSSHCloneLargeRepository(t *testing.T) {
	s := StartServer(t, WithSSH())
	k := newSSHKit(t, s)
	alice, key := k.userWithKey("alice")
	k.createRepo(alice.Token, "", "big", false)

	// 8 MiB that does not compress: the pack is as large as the file.
	data := make([]byte, 8<<20)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(data)
	work := k.newWorkTree("README.md", "big\n")
	if err := os.WriteFile(filepath.Join(work, "blob.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	k.mustGit("", work, "add", "blob.bin")
	k.mustGit("", work, "commit", "-q", "-m", "add a large file")
	k.mustGit(key, work, "push", "-q", k.url("alice/big"), "main")
	head := strings.TrimSpace(k.mustGit("", work, "rev-parse", "HEAD"))

	for _, version := range []string{"0", "2"} {
		dst := filepath.Join(t.TempDir(), "clone")
		k.mustGit(key, "", "-c", "protocol.version="+version, "clone", "-q", k.url("alice/big"), dst)
		k.mustGit("", dst, "fsck", "--strict")
		if got := strings.TrimSpace(k.mustGit("", dst, "rev-parse", "HEAD")); got != head {
			t.Fatalf("protocol v%s: cloned HEAD %s, want %s", version, got, head)
		}
		got, err := os.ReadFile(filepath.Join(dst, "blob.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("protocol v%s: the cloned file differs from the pushed one", version)
		}
	}
}

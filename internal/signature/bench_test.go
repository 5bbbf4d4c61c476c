package signature

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha1"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// signedChain writes n commits signed with an SSH key of alice on top of
// an unsigned root, and returns the root and the tip.
func signedChain(b testing.TB, e *env, n int) (root, tip string) {
	b.Helper()
	alice := e.user(b, "alice")
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	spk, _ := ssh.NewPublicKey(pub)
	if _, err := e.users.AddKey(e.ctx, alice.ID, "bench", string(ssh.MarshalAuthorizedKey(spk))); err != nil {
		b.Fatal(err)
	}
	tree := e.emptyTree(b)
	dir := b.TempDir()
	var paths []string
	write := func(obj []byte) string {
		h := sha1.New()
		fmt.Fprintf(h, "commit %d\x00", len(obj))
		h.Write(obj)
		sha := fmt.Sprintf("%x", h.Sum(nil))
		p := filepath.Join(dir, sha)
		os.WriteFile(p, obj, 0o600)
		paths = append(paths, p)
		return sha
	}
	root = write(commitPayload(tree, "", "alice@example.org", "root"))
	tip = root
	for i := 0; i < n; i++ {
		payload := commitPayload(tree, tip, "alice@example.org", fmt.Sprintf("commit %d", i))
		head, body, _ := strings.Cut(string(payload), "\n\n")
		sig := sshSign(b, priv, payload)
		obj := head + "\ngpgsig " + strings.ReplaceAll(strings.TrimRight(sig, "\n"), "\n", "\n ") + "\n\n" + body
		tip = write([]byte(obj))
	}
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin-paths")
	cmd.Dir = e.work
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("hash-object: %v %s", err, out)
	}
	run(b, nil, e.work, "git", "update-ref", "refs/heads/main", tip)
	return root, tip
}

const benchCommits = 1000

// BenchmarkVerifyRange verifies a push of 1,000 SSH-signed commits: one
// rev-list, one cat-file --batch, the key queries and the checks.
func BenchmarkVerifyRange(b *testing.B) {
	e := setup(b)
	root, tip := signedChain(b, e, benchCommits)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sha, err := e.ver.VerifyRange(e.ctx, e.repo, nil, root, tip)
		if err != nil || sha != "" {
			b.Fatalf("VerifyRange = %q, %v", sha, err)
		}
	}
}

// BenchmarkReadRange is the git part of VerifyRange alone: rev-list and
// cat-file --batch of the 1,000 commits.
func BenchmarkReadRange(b *testing.B) {
	e := setup(b)
	root, tip := signedChain(b, e, benchCommits)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		revs, err := e.git.NewCommits(e.ctx, e.repo, nil, root, tip)
		if err != nil || len(revs) != benchCommits {
			b.Fatal(len(revs), err)
		}
		if _, err := e.git.ReadCommitsEnv(e.ctx, e.repo, nil, revs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLocalPush pushes the same 1,000 commits into an empty bare
// repository over git's local transport (no HTTP, no hooks): a lower bound
// of the push that VerifyRange is added to.
func BenchmarkLocalPush(b *testing.B) {
	e := setup(b)
	_, _ = signedChain(b, e, benchCommits)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bare := b.TempDir()
		run(b, nil, bare, "git", "init", "-q", "--bare", ".")
		b.StartTimer()
		run(b, nil, e.work, "git", "push", "-q", bare, "main")
	}
}

// TestVerifyRangeLarge checks a range big enough to be verified by
// several goroutines (run with -race).
func TestVerifyRangeLarge(t *testing.T) {
	e := setup(t)
	root, tip := signedChain(t, e, 300)
	if sha, err := e.ver.VerifyRange(e.ctx, e.repo, nil, root, tip); err != nil || sha != "" {
		t.Fatalf("VerifyRange = %q, %v", sha, err)
	}
	// With the key gone every commit is unverified: the oldest is named.
	if _, err := e.ver.db.Exec(e.ctx, "DELETE FROM public_key"); err != nil {
		t.Fatal(err)
	}
	oldest := run(t, nil, e.work, "git", "rev-list", "--reverse", tip, "^"+root)
	if sha, err := e.ver.VerifyRange(e.ctx, e.repo, nil, root, tip); err != nil || sha != strings.Fields(oldest)[0] {
		t.Fatalf("VerifyRange without keys = %q, %v", sha, err)
	}
}

package e2e

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshSigArmor signs msg as `ssh-keygen -Y sign -n git` does (sha512).
func sshSigArmor(t *testing.T, signer ssh.Signer, msg []byte) string {
	h := sha512.Sum512(msg)
	magic := [6]byte{'S', 'S', 'H', 'S', 'I', 'G'}
	signed := ssh.Marshal(struct {
		Magic                         [6]byte
		Namespace, Reserved, HashAlgo string
		Hash                          []byte
	}{magic, "git", "", "sha512", h[:]})
	sig, err := signer.Sign(rand.Reader, signed)
	if err != nil {
		t.Fatal(err)
	}
	blob := ssh.Marshal(struct {
		Magic                         [6]byte
		Version                       uint32
		PublicKey                     []byte
		Namespace, Reserved, HashAlgo string
		Signature                     []byte
	}{magic, 1, signer.PublicKey().Marshal(), "git", "", "sha512", ssh.Marshal(sig)})
	enc := base64.StdEncoding.EncodeToString(blob)
	var b strings.Builder
	b.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(enc) > 70 {
		b.WriteString(enc[:70] + "\n")
		enc = enc[70:]
	}
	b.WriteString(enc + "\n-----END SSH SIGNATURE-----")
	return b.String()
}

// TestSignatureSignedPushCost measures pushing 1,000 new SSH-signed commits
// over HTTP to a branch that requires signed commits against one that does
// not (run with CAIRN_BENCH_SIGNED_PUSH=1; it prints the medians).
func TestSignatureSignedPushCost(t *testing.T) {
	if os.Getenv("CAIRN_BENCH_SIGNED_PUSH") == "" {
		t.Skip("set CAIRN_BENCH_SIGNED_PUSH=1 to measure")
	}
	n, rounds := 1000, 5
	if v := os.Getenv("CAIRN_BENCH_SIGNED_PUSH"); v != "1" {
		fmt.Sscan(v, &n)
	}
	s := StartServer(t)
	u := s.CreateUser("signer")
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	mustStatus(t, s.API("POST", "user/keys", u.Token, map[string]any{"title": "bench", "key": string(ssh.MarshalAuthorizedKey(signer.PublicKey()))}),
		http.StatusCreated, "ssh key")

	push := func(round int, protected bool) time.Duration {
		name := fmt.Sprintf("r%d-%v", round, protected)
		contentsRepo(t, s, u, name, false, true)
		if protected {
			mustStatus(t, s.API("POST", "repos/signer/"+name+"/branch_protections", u.Token, map[string]any{"rule_name": "main",
				"enable_push": true, "require_signed_commits": true}), http.StatusCreated, "rule")
		}
		work := filepath.Join(t.TempDir(), "w")
		sigGit(t, filepath.Dir(work), "clone", "-q", contentsCloneURL(s, u, "signer", name), work)
		tree := sigGit(t, work, "rev-parse", "HEAD^{tree}")
		tip := sigGit(t, work, "rev-parse", "HEAD")
		dir := t.TempDir()
		var paths []string
		now := time.Now().Unix()
		for i := 0; i < n; i++ {
			ident := fmt.Sprintf("Signer <signer@example.com> %d +0000", now+int64(i))
			head := "tree " + tree + "\nparent " + tip + "\nauthor " + ident + "\ncommitter " + ident
			body := fmt.Sprintf("commit %d of %s\n", i, name)
			sig := sshSigArmor(t, signer, []byte(head+"\n\n"+body))
			obj := head + "\ngpgsig " + strings.ReplaceAll(sig, "\n", "\n ") + "\n\n" + body
			h := sha1.New()
			fmt.Fprintf(h, "commit %d\x00%s", len(obj), obj)
			tip = fmt.Sprintf("%x", h.Sum(nil))
			p := filepath.Join(dir, tip)
			os.WriteFile(p, []byte(obj), 0o600)
			paths = append(paths, p)
		}
		cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin-paths")
		cmd.Dir = work
		cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hash-object: %v %s", err, out)
		}
		sigGit(t, work, "update-ref", "refs/heads/main", tip)
		start := time.Now()
		sigGit(t, work, "push", "-q", "origin", "main")
		return time.Since(start)
	}
	var plain, signed []time.Duration
	for r := 0; r < rounds; r++ {
		plain = append(plain, push(r, false))
		signed = append(signed, push(r, true))
	}
	median := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	p, sg := median(plain), median(signed)
	t.Logf("push of %d signed commits over HTTP: unprotected %v, require_signed_commits %v (+%.1f%%)", n, p, sg, 100*float64(sg-p)/float64(p))
}

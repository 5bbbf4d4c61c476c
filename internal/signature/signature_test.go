package signature

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/user"
)

type env struct {
	ctx   context.Context
	users *user.Service
	keys  *Service
	git   *git.Git
	ver   *Verifier
	repo  string // the .git directory, for the wrapper
	work  string // the work tree, for git commands of the tests
}

func setup(t testing.TB) *env {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	users := user.NewService(d, user.Options{PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	g, err := git.New(git.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	run(t, nil, work, "git", "init", "-q", "-b", "main", ".")
	e := &env{ctx: ctx, users: users, keys: NewService(d, users), git: g, work: work, repo: filepath.Join(work, ".git")}
	e.ver = NewVerifier(d, users.Store, g, nil)
	return e
}

func run(t testing.TB, env []string, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=alice@example.org",
		"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=alice@example.org", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (e *env) user(t testing.TB, name string) *user.User {
	t.Helper()
	u, err := e.users.Create(e.ctx, user.CreateOptions{Name: name, Email: name + "@example.org", Password: "secret-pw", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func newEntity(t testing.TB, name, email string, cfg *packet.Config) (*openpgp.Entity, string) {
	t.Helper()
	ent, err := openpgp.NewEntity(name, "", email, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	if err := ent.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return ent, buf.String()
}

// commitPayload makes an unsigned commit object's text on top of parent.
func commitPayload(tree, parent, email, msg string) []byte {
	var b strings.Builder
	b.WriteString("tree " + tree + "\n")
	if parent != "" {
		b.WriteString("parent " + parent + "\n")
	}
	ident := "A <" + email + "> 1700000000 +0000"
	b.WriteString("author " + ident + "\ncommitter " + ident + "\n\n" + msg + "\n")
	return []byte(b.String())
}

func (e *env) emptyTree(t testing.TB) string {
	return run(t, nil, e.work, "git", "hash-object", "-t", "tree", "-w", "/dev/null")
}

func (e *env) verify(t testing.TB, shas ...string) []Result {
	t.Helper()
	commits, err := e.git.ReadCommits(e.ctx, e.repo, shas)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.ver.Verify(e.ctx, commits)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func gpgSign(t testing.TB, ent *openpgp.Entity, payload []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&buf, ent, bytes.NewReader(payload), nil); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestGPGKeys(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	_, pub := newEntity(t, "Alice", "alice@example.org", nil)
	k, err := e.keys.AddKey(e.ctx, alice, pub, "")
	if err != nil {
		t.Fatal(err)
	}
	if !k.Verified || !k.CanSign || len(k.SubKeys) != 1 || !k.SubKeys[0].CanEncryptComms || k.Emails[0] != "alice@example.org" {
		t.Fatalf("key %+v", k)
	}
	if _, err := e.keys.AddKey(e.ctx, alice, pub, ""); !errs.Is(err, errs.KindAlreadyExists) {
		t.Fatalf("duplicate: %v", err)
	}
	for name, bad := range map[string]string{
		"garbage": "not a key",
		"armor":   "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----\n",
	} {
		if _, err := e.keys.AddKey(e.ctx, alice, bad, ""); !errs.Is(err, errs.KindInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	past := time.Now().Add(-48 * time.Hour)
	_, expired := newEntity(t, "Alice", "alice@example.org", &packet.Config{Time: func() time.Time { return past }, KeyLifetimeSecs: 3600})
	if _, err := e.keys.AddKey(e.ctx, alice, expired, ""); !errs.Is(err, errs.KindInvalid) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired: %v", err)
	}
	// A key for another address needs a signed token.
	other, otherPub := newEntity(t, "Alice", "alice@elsewhere.test", nil)
	if _, err := e.keys.AddKey(e.ctx, alice, otherPub, ""); !errs.IsNotFound(err) {
		t.Fatalf("foreign address: %v", err)
	}
	if _, err := e.keys.AddKey(e.ctx, alice, otherPub, gpgSign(t, other, []byte("wrong"))); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("bad token signature: %v", err)
	}
	k2, err := e.keys.AddKey(e.ctx, alice, otherPub, gpgSign(t, other, []byte(e.keys.Token(alice))))
	if err != nil || !k2.Verified {
		t.Fatalf("token signature: %v", err)
	}
	list, total, err := e.keys.ListKeys(e.ctx, alice.ID, 10, 0)
	if err != nil || total != 2 || len(list) != 2 || len(list[0].SubKeys) != 1 {
		t.Fatalf("list %v %d %v", list, total, err)
	}
	if err := e.keys.DeleteKey(e.ctx, alice.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.keys.GetKey(e.ctx, alice.ID, k.ID); !errs.IsNotFound(err) {
		t.Fatalf("deleted key: %v", err)
	}
	bob := e.user(t, "bob")
	if err := e.keys.DeleteKey(e.ctx, bob.ID, k2.ID); !errs.IsNotFound(err) {
		t.Fatalf("someone else's key: %v", err)
	}
	if err := e.keys.UserDeleteHook().Purge(e.ctx, alice); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := e.keys.ListKeys(e.ctx, alice.ID, 10, 0); total != 0 {
		t.Fatalf("keys left after purge: %d", total)
	}
}

func TestVerifyGPG(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	ent, pub := newEntity(t, "Alice", "alice@example.org", nil)
	k, err := e.keys.AddKey(e.ctx, alice, pub, "")
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := newEntity(t, "Eve", "alice@example.org", nil)
	tree := e.emptyTree(t)
	unsigned := commitPayload(tree, "", "alice@example.org", "plain")
	base := run(t, nil, e.work, "sh", "-c", "git hash-object -t commit -w --stdin <<'EOF'\n"+string(unsigned)+"EOF")
	p1 := commitPayload(tree, base, "alice@example.org", "signed")
	good, err := e.git.WriteSignedCommit(e.ctx, e.repo, nil, p1, gpgSign(t, ent, p1))
	if err != nil {
		t.Fatal(err)
	}
	p2 := commitPayload(tree, good, "alice@example.org", "by a stranger")
	bad, _ := e.git.WriteSignedCommit(e.ctx, e.repo, nil, p2, gpgSign(t, stranger, p2))
	p3 := commitPayload(tree, bad, "nobody@example.org", "no account")
	noAccount, _ := e.git.WriteSignedCommit(e.ctx, e.repo, nil, p3, gpgSign(t, ent, p3))
	p4 := commitPayload(tree, noAccount, "alice@example.org", "tampered")
	tampered, _ := e.git.WriteSignedCommit(e.ctx, e.repo, nil, p4, gpgSign(t, ent, []byte("something else")))

	res := e.verify(t, base, good, bad, noAccount, tampered)
	want := []struct {
		verified bool
		reason   string
	}{
		{false, ReasonNotSigned}, {true, "alice / " + k.KeyID}, {false, ReasonNoKeyFound}, {false, ReasonNoKeyFound}, {false, ReasonBadSignature},
	}
	for i, w := range want {
		if res[i].Verified != w.verified || res[i].Reason != w.reason {
			t.Errorf("commit %d: got %+v, want %v %s", i, res[i], w.verified, w.reason)
		}
	}
	if res[1].Signer == nil || res[1].Signer.ID != alice.ID {
		t.Errorf("signer %+v", res[1].Signer)
	}
	commits, _ := e.git.ReadCommits(e.ctx, e.repo, []string{good})
	if string(commits[0].Payload) != string(p1) {
		t.Errorf("payload %q, want %q", commits[0].Payload, p1)
	}
	// The range from base to good is verified; up to tampered it is not.
	if sha, err := e.ver.VerifyRange(e.ctx, e.repo, nil, base, good); err != nil || sha != "" {
		t.Errorf("VerifyRange(base, good) = %q, %v", sha, err)
	}
	if sha, err := e.ver.VerifyRange(e.ctx, e.repo, nil, base, tampered); err != nil || sha != bad {
		t.Errorf("VerifyRange(base, tampered) = %q, %v; want %s", sha, err, bad)
	}
	// With a zero old value, commits reachable from refs do not count.
	run(t, nil, e.work, "git", "update-ref", "refs/heads/main", base)
	if sha, err := e.ver.VerifyRange(e.ctx, e.repo, nil, strings.Repeat("0", 40), good); err != nil || sha != "" {
		t.Errorf("VerifyRange(zero, good) = %q, %v", sha, err)
	}
}

// instanceKey writes an unencrypted private key for the instance, Cairn
// <cairn@example.org>, and returns its file and the signer loaded from it.
func instanceKey(t *testing.T) (string, *Signer) {
	t.Helper()
	ent, _ := newEntity(t, "Cairn", "cairn@example.org", nil)
	var buf bytes.Buffer
	w, _ := armor.Encode(&buf, openpgp.PrivateKeyType, nil)
	if err := ent.SerializePrivate(w, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	file := filepath.Join(t.TempDir(), "key.asc")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(signingConfig(file))
	if err != nil {
		t.Fatal(err)
	}
	return file, s
}

func TestSignerAndInstanceKey(t *testing.T) {
	e := setup(t)
	_, s := instanceKey(t)
	if s.Name() != "Cairn" || s.Email() != "cairn@example.org" || !strings.Contains(s.PublicKey(), "BEGIN PGP PUBLIC KEY BLOCK") {
		t.Fatalf("signer %q %q", s.Name(), s.Email())
	}
	if none, err := NewSigner(signingConfig("none")); none != nil || err != nil {
		t.Fatalf("none: %v %v", none, err)
	}
	if _, err := NewSigner(signingConfig(filepath.Join(t.TempDir(), "missing"))); err == nil {
		t.Fatal("missing key file accepted")
	}
	tree := e.emptyTree(t)
	sha, err := s.SignCommit(e.ctx, e.git, e.repo, nil, commitPayload(tree, "", "cairn@example.org", "merge"))
	if err != nil {
		t.Fatal(err)
	}
	run(t, nil, e.work, "git", "fsck", "--no-dangling")
	e.ver = NewVerifier(e.ver.db, e.ver.users, e.git, s)
	res := e.verify(t, sha)
	if !res[0].Verified || res[0].Reason != "Cairn / "+s.KeyID() || res[0].SignerEmail != "cairn@example.org" {
		t.Fatalf("instance signature: %+v", res[0])
	}
}

func TestVerifySSH(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed")
	}
	e := setup(t)
	alice := e.user(t, "alice")
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id")
	run(t, nil, dir, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", keyFile)
	pub, _ := os.ReadFile(keyFile + ".pub")
	pk, err := e.users.AddKey(e.ctx, alice.ID, "laptop", string(pub))
	if err != nil {
		t.Fatal(err)
	}
	otherFile := filepath.Join(dir, "other")
	run(t, nil, dir, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", otherFile)
	commit := func(key, msg string) string {
		run(t, nil, e.work, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-q", "-S", "--allow-empty", "-m", msg)
		return run(t, nil, e.work, "git", "rev-parse", "HEAD")
	}
	good := commit(keyFile, "signed")
	unknown := commit(otherFile, "unknown key")
	res := e.verify(t, good, unknown)
	if !res[0].Verified || res[0].Reason != "alice / "+pk.Fingerprint || res[0].Signer.ID != alice.ID {
		t.Errorf("ssh signed: %+v", res[0])
	}
	if res[1].Verified || res[1].Reason != ReasonNoKeyFound {
		t.Errorf("unknown ssh key: %+v", res[1])
	}
	// ssh-keygen's own check of the namespace: a "file" signature is refused.
	msg := []byte("hello")
	os.WriteFile(filepath.Join(dir, "msg"), msg, 0o600)
	run(t, nil, dir, "ssh-keygen", "-q", "-Y", "sign", "-n", "file", "-f", keyFile, filepath.Join(dir, "msg"))
	armored, _ := os.ReadFile(filepath.Join(dir, "msg.sig"))
	sig, err := parseSSHSignature(string(armored))
	if err != nil {
		t.Fatal(err)
	}
	if err := sig.verify(msg, "file"); err != nil {
		t.Errorf("file namespace: %v", err)
	}
	if err := sig.verify(msg, "git"); err == nil {
		t.Error("wrong namespace accepted")
	}
}

func TestVerifyRealGPG(t *testing.T) {
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg not installed")
	}
	e := setup(t)
	bob := e.user(t, "bob")
	home := t.TempDir()
	genv := []string{"GNUPGHOME=" + home}
	run(t, genv, home, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-gen-key", "Bob <bob@example.org>", "ed25519", "sign", "never")
	pub := run(t, genv, home, "gpg", "--batch", "--armor", "--export", "bob@example.org")
	k, err := e.keys.AddKey(e.ctx, bob, pub, "")
	if err != nil {
		t.Fatal(err)
	}
	// The token flow, signed by gpg itself.
	tokenFile := filepath.Join(home, "token")
	os.WriteFile(tokenFile, []byte(e.keys.Token(bob)), 0o600)
	sig := run(t, genv, home, "gpg", "--batch", "--armor", "--detach-sign", "--output", "-", tokenFile)
	if _, err := e.keys.VerifyKey(e.ctx, bob, k.KeyID, sig); err != nil {
		t.Fatalf("VerifyKey: %v", err)
	}
	benv := append(genv, "GIT_COMMITTER_EMAIL=bob@example.org")
	run(t, benv, e.work, "git", "-c", "user.signingkey=bob@example.org", "commit", "-q", "-S", "--allow-empty", "-m", "gpg")
	sha := run(t, nil, e.work, "git", "rev-parse", "HEAD")
	res := e.verify(t, sha)
	if !res[0].Verified || res[0].Reason != "bob / "+k.KeyID {
		t.Fatalf("gpg signed: %+v", res[0])
	}
}

// sshSign makes an armored SSH signature (namespace git) of msg.
func sshSign(t testing.TB, priv ed25519.PrivateKey, msg []byte) string {
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	h := sha512.Sum512(msg)
	signed := ssh.Marshal(struct {
		Magic                         [6]byte
		Namespace, Reserved, HashAlgo string
		Hash                          []byte
	}{[6]byte{'S', 'S', 'H', 'S', 'I', 'G'}, "git", "", "sha512", h[:]})
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
	}{[6]byte{'S', 'S', 'H', 'S', 'I', 'G'}, 1, signer.PublicKey().Marshal(), "git", "", "sha512", ssh.Marshal(sig)})
	enc := base64.StdEncoding.EncodeToString(blob)
	var b strings.Builder
	b.WriteString(sshArmorBegin + "\n")
	for len(enc) > 70 {
		b.WriteString(enc[:70] + "\n")
		enc = enc[70:]
	}
	b.WriteString(enc + "\n" + sshArmorEnd + "\n")
	return b.String()
}

// TestSignedCommitFiles signs a contents-API commit through
// git.CommitFilesOptions.Sign and verifies it with the instance's key.
func TestSignedCommitFiles(t *testing.T) {
	e := setup(t)
	ent, _ := newEntity(t, "Cairn", "cairn@example.org", nil)
	var buf bytes.Buffer
	w, _ := armor.Encode(&buf, openpgp.PrivateKeyType, nil)
	ent.SerializePrivate(w, nil)
	w.Close()
	file := filepath.Join(t.TempDir(), "key.asc")
	os.WriteFile(file, buf.Bytes(), 0o600)
	s, err := NewSigner(signingConfig(file))
	if err != nil {
		t.Fatal(err)
	}
	who := git.Signature{Name: "Cairn", Email: "cairn@example.org", When: time.Unix(1700000000, 0).UTC()}
	sha, err := e.git.CommitFiles(e.ctx, e.repo, git.CommitFilesOptions{Branch: "main", Message: "add", Author: who, Sign: s.Sign,
		Changes: []git.FileChange{{Op: git.ChangeCreate, Path: "a.txt", Content: strings.NewReader("a\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	run(t, nil, e.work, "git", "fsck", "--no-dangling")
	if got := run(t, nil, e.work, "git", "rev-parse", "main"); got != sha {
		t.Fatalf("main at %s, want %s", got, sha)
	}
	e.ver = NewVerifier(e.ver.db, e.ver.users, e.git, s)
	if res := e.verify(t, sha); !res[0].Verified {
		t.Fatalf("signed contents commit: %+v", res[0])
	}
}

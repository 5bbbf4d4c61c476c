package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
)

// sigGit runs git in dir as committer signer@example.com.
func sigGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_AUTHOR_NAME=Signer", "GIT_AUTHOR_EMAIL=signer@example.com", "GIT_COMMITTER_NAME=Signer", "GIT_COMMITTER_EMAIL=signer@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// sigEntity makes an OpenPGP key and returns it with its armored public
// (or, with private, private) key.
func sigEntity(t *testing.T, name, email string, private bool) (*openpgp.Entity, string) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "", email, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	typ := openpgp.PublicKeyType
	if private {
		typ = openpgp.PrivateKeyType
	}
	w, _ := armor.Encode(&buf, typ, nil)
	if private {
		err = e.SerializePrivate(w, nil)
	} else {
		err = e.Serialize(w)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	return e, buf.String()
}

// gpgCommit adds an empty commit on HEAD signed by e (written as git
// writes it: the signature in a gpgsig header) and returns its name.
func gpgCommit(t *testing.T, dir string, e *openpgp.Entity, msg string) string {
	t.Helper()
	tree := sigGit(t, dir, "rev-parse", "HEAD^{tree}")
	parent := sigGit(t, dir, "rev-parse", "HEAD")
	ident := fmt.Sprintf("Signer <signer@example.com> %d +0000", time.Now().Unix())
	head := "tree " + tree + "\nparent " + parent + "\nauthor " + ident + "\ncommitter " + ident
	body := msg + "\n"
	var sig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&sig, e, strings.NewReader(head+"\n\n"+body), nil); err != nil {
		t.Fatal(err)
	}
	obj := head + "\ngpgsig " + strings.ReplaceAll(strings.TrimRight(sig.String(), "\n"), "\n", "\n ") + "\n\n" + body
	file := filepath.Join(t.TempDir(), "commit")
	os.WriteFile(file, []byte(obj), 0o600)
	sha := sigGit(t, dir, "hash-object", "-t", "commit", "-w", file)
	sigGit(t, dir, "update-ref", "HEAD", sha)
	return sha
}

func TestSignatureGPGAndSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed")
	}
	_, instanceKey := sigEntity(t, "Cairn Instance", "cairn@example.com", true)
	keyFile := filepath.Join(t.TempDir(), "signing.asc")
	os.WriteFile(keyFile, []byte(instanceKey), 0o600)
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_SIGNING_SIGNING_KEY="+keyFile))
	u := s.CreateUser("signer")
	c := s.Client(u.Token)

	// GPG keys through the SDK.
	ent, pub := sigEntity(t, "Signer", "signer@example.com", false)
	k, _, err := c.CreateGPGKey(gitea.CreateGPGKeyOption{ArmoredKey: pub})
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Emails) != 1 || k.Emails[0].Email != "signer@example.com" || !k.Emails[0].Verified || !k.CanSign ||
		len(k.SubsKey) != 1 || !k.SubsKey[0].CanEncryptComms || k.PrimaryKeyID != "" || k.SubsKey[0].PrimaryKeyID != k.KeyID || !k.Verified {
		t.Fatalf("created key: %+v", k)
	}
	mine, _, err := c.ListMyGPGKeys(&gitea.ListGPGKeysOptions{})
	if err != nil || len(mine) != 1 || mine[0].ID != k.ID {
		t.Fatalf("ListMyGPGKeys: %v %v", mine, err)
	}
	one, _, err := c.GetGPGKey(k.ID)
	if err != nil || one.KeyID != k.KeyID || len(one.SubsKey) != 1 {
		t.Fatalf("GetGPGKey: %+v %v", one, err)
	}
	theirs, _, err := s.Admin.ListGPGKeys("signer", gitea.ListGPGKeysOptions{})
	if err != nil || len(theirs) != 1 {
		t.Fatalf("ListGPGKeys: %v %v", theirs, err)
	}
	if _, resp, err := c.CreateGPGKey(gitea.CreateGPGKeyOption{ArmoredKey: pub}); err == nil || resp.StatusCode != 422 {
		t.Fatalf("duplicate key: %v", err)
	}
	wantStatus(t, s.API("POST", "user/gpg_keys", u.Token, map[string]string{"armored_public_key": "garbage"}), 422, "failed to parse GPG key", "bad key")
	other, otherPub := sigEntity(t, "Other", "other@example.net", false)
	wantStatus(t, s.API("POST", "user/gpg_keys", u.Token, map[string]string{"armored_public_key": otherPub}), 404, "None of the emails", "foreign address")
	token, _, err := c.GetGPGKeyVerificationToken()
	if err != nil || len(token) != 64 {
		t.Fatalf("token %q %v", token, err)
	}
	if resp := s.API("GET", "user/gpg_keys", "", nil); resp.Status != 401 {
		t.Errorf("signed out: %d", resp.Status)
	}

	// An SSH key for SSH signatures.
	dir := t.TempDir()
	sshKey := filepath.Join(dir, "id")
	sigGit(t, dir, "init", "-q") // a HOME for ssh-keygen's sake
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", sshKey).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	sshPub, _ := os.ReadFile(sshKey + ".pub")
	pk, _, err := c.CreatePublicKey(gitea.CreateKeyOption{Title: "laptop", Key: string(sshPub)})
	if err != nil {
		t.Fatal(err)
	}

	// Push an unsigned, a GPG-signed, an SSH-signed commit and one signed by
	// an unknown key.
	contentsRepo(t, s, u, "signed", false, true)
	work := filepath.Join(t.TempDir(), "w")
	sigGit(t, filepath.Dir(work), "clone", "-q", contentsCloneURL(s, u, "signer", "signed"), work)
	sigGit(t, work, "commit", "-q", "--allow-empty", "-m", "unsigned")
	unsigned := sigGit(t, work, "rev-parse", "HEAD")
	gpgSigned := gpgCommit(t, work, ent, "gpg signed")
	sigGit(t, work, "-c", "gpg.format=ssh", "-c", "user.signingkey="+sshKey, "commit", "-q", "-S", "--allow-empty", "-m", "ssh signed")
	sshSigned := sigGit(t, work, "rev-parse", "HEAD")
	unknown := gpgCommit(t, work, other, "unknown key")
	sigGit(t, work, "push", "-q", "origin", "HEAD:main")

	check := func(sha string, verified bool, reason string) {
		t.Helper()
		if _, _, err := c.GetSingleCommit("signer", "signed", sha); err != nil {
			t.Fatal(err)
		}
		var cm struct {
			Commit struct {
				Verification *struct {
					Verified  bool
					Reason    string
					Signature string
					Payload   string
					Signer    *struct{ Name, Email, Username string }
				}
			}
		}
		s.API("GET", "repos/signer/signed/git/commits/"+sha, u.Token, nil).Decode(t, &cm)
		v := cm.Commit.Verification
		if v == nil || v.Verified != verified || v.Reason != reason {
			t.Errorf("commit %s: verification %+v, want %v %q", sha, v, verified, reason)
			return
		}
		if verified && (v.Signer == nil || v.Signer.Username != "signer" || v.Signer.Email != "signer@example.com") {
			t.Errorf("commit %s: signer %+v", sha, v.Signer)
		}
		if !verified && v.Signer != nil {
			t.Errorf("commit %s: unverified with signer %+v", sha, v.Signer)
		}
		if sha != unsigned && (v.Signature == "" || !strings.HasPrefix(v.Payload, "tree ") || strings.Contains(v.Payload, "gpgsig")) {
			t.Errorf("commit %s: signature %q payload %q", sha, v.Signature, v.Payload)
		}
	}
	check(unsigned, false, "gpg.error.not_signed_commit")
	check(gpgSigned, true, "signer / "+k.KeyID)
	check(sshSigned, true, "signer / "+pk.Fingerprint)
	check(unknown, false, "gpg.error.no_gpg_keys_found")

	// The list verifies the page in one go (the SDK asks for no
	// verification: raw request).
	if _, _, err := c.ListRepoCommits("signer", "signed", gitea.ListCommitOptions{ListOptions: gitea.ListOptions{PageSize: 10}}); err != nil {
		t.Fatal(err)
	}
	var list []struct {
		SHA    string
		Commit struct{ Verification struct{ Verified bool } }
	}
	s.API("GET", "repos/signer/signed/commits?limit=10", u.Token, nil).Decode(t, &list)
	got := map[string]bool{}
	for _, cm := range list {
		got[cm.SHA] = cm.Commit.Verification.Verified
	}
	if !got[gpgSigned] || !got[sshSigned] || got[unsigned] || got[unknown] {
		t.Errorf("list verification: %v", got)
	}

	// A branch's tip and an annotated tag are verified as commits are.
	tagObj := "object " + gpgSigned + "\ntype commit\ntag v-signed\ntagger " +
		fmt.Sprintf("Signer <signer@example.com> %d +0000", time.Now().Unix()) + "\n\nsigned tag\n"
	var tagSig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&tagSig, ent, strings.NewReader(tagObj), nil); err != nil {
		t.Fatal(err)
	}
	tagFile := filepath.Join(t.TempDir(), "tag")
	os.WriteFile(tagFile, []byte(tagObj+tagSig.String()), 0o600)
	tagSHA := sigGit(t, work, "hash-object", "-t", "tag", "-w", tagFile)
	sigGit(t, work, "update-ref", "refs/tags/v-signed", tagSHA)
	sigGit(t, work, "push", "-q", "origin", gpgSigned+":refs/heads/gpg", "refs/tags/v-signed")
	var br struct {
		Commit struct {
			Verification struct {
				Verified bool
				Reason   string
			}
		}
	}
	s.API("GET", "repos/signer/signed/branches/gpg", u.Token, nil).Decode(t, &br)
	if !br.Commit.Verification.Verified || br.Commit.Verification.Reason != "signer / "+k.KeyID {
		t.Errorf("branch gpg: verification %+v", br.Commit.Verification)
	}
	s.API("GET", "repos/signer/signed/branches/main", u.Token, nil).Decode(t, &br)
	if br.Commit.Verification.Verified || br.Commit.Verification.Reason != "gpg.error.no_gpg_keys_found" {
		t.Errorf("branch main (tip signed by an unknown key): verification %+v", br.Commit.Verification)
	}
	var tag struct {
		Verification struct {
			Verified bool
			Reason   string
			Signer   *struct{ Username string }
		}
	}
	s.API("GET", "repos/signer/signed/git/tags/"+tagSHA, u.Token, nil).Decode(t, &tag)
	if !tag.Verification.Verified || tag.Verification.Reason != "signer / "+k.KeyID || tag.Verification.Signer == nil ||
		tag.Verification.Signer.Username != "signer" {
		t.Errorf("signed tag: verification %+v", tag.Verification)
	}

	// The instance's public key.
	resp := s.Do("GET", "api/v1/signing-key.gpg")
	if resp.Status != 200 || !strings.Contains(string(resp.Body), "BEGIN PGP PUBLIC KEY BLOCK") {
		t.Errorf("signing-key.gpg: %d %s", resp.Status, resp.Body)
	}

	// Without the key the commit is no longer verified.
	if _, err := c.DeleteGPGKey(k.ID); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := c.GetGPGKey(k.ID); err == nil || resp.StatusCode != 404 {
		t.Errorf("deleted key: %v", err)
	}
	check(gpgSigned, false, "gpg.error.no_gpg_keys_found")
}

func TestSignatureGPGKeyTokenVerification(t *testing.T) {
	s := StartServer(t)
	u := s.CreateUser("tokener")
	c := s.Client(u.Token)
	ent, pub := sigEntity(t, "Elsewhere", "me@elsewhere.example", false)
	token, _, err := c.GetGPGKeyVerificationToken()
	if err != nil {
		t.Fatal(err)
	}
	var sig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&sig, ent, strings.NewReader(token), nil); err != nil {
		t.Fatal(err)
	}
	k, _, err := c.CreateGPGKey(gitea.CreateGPGKeyOption{ArmoredKey: pub, Signature: sig.String()})
	if err != nil || !k.Verified {
		t.Fatalf("key with token signature: %+v %v", k, err)
	}
	if _, resp, err := c.VerifyGPGKey(gitea.VerifyGPGKeyOption{KeyID: k.KeyID, Signature: sig.String()}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("VerifyGPGKey: %v", err)
	}
	wantStatus(t, s.API("POST", "user/gpg_key_verify", u.Token, map[string]string{"key_id": k.KeyID, "armored_signature": "nope"}), 422, "do not match", "bad signature")
	// No signing key configured: an empty answer, as Gitea.
	if resp := s.Do("GET", "api/v1/signing-key.gpg"); resp.Status != 200 || len(resp.Body) != 0 {
		t.Errorf("signing-key.gpg without key: %d %q", resp.Status, resp.Body)
	}
	// Deleting the account removes its keys.
	if resp := s.API("DELETE", "admin/users/tokener", s.AdminTok, nil); resp.Status != 204 {
		t.Fatalf("delete user: %d %s", resp.Status, resp.Body)
	}
	u2 := s.CreateUser("tokener")
	c2 := s.Client(u2.Token)
	if keys, _, err := c2.ListMyGPGKeys(&gitea.ListGPGKeysOptions{}); err != nil || len(keys) != 0 {
		t.Errorf("keys of the new account: %v %v", keys, err)
	}
}

package oidc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

func TestSigningKeyAlgorithms(t *testing.T) {
	for _, c := range []struct {
		alg, secret string
		ok          bool
	}{
		{"RS256", "", true}, {"ES384", "", true}, {"EdDSA", "", true}, {"HS256", "", true}, {"HS384", "", true},
		{"HS256", "c2hvcnQ", false}, // too short
		{"HS512", "", false},        // client secrets are too short for it
		{"none", "", false}, {"PS256", "", false}, {"", "", false},
	} {
		_, err := NewSigningKey(c.alg, filepath.Join(t.TempDir(), "k.pem"), c.secret, []byte("instance-secret-0123456789"))
		if (err == nil) != c.ok {
			t.Errorf("%s with secret %q: %v", c.alg, c.secret, err)
		}
	}
}

// TestSigningKeyFile: a key is generated once, signs verifiable tokens,
// keeps its id when read again, and a file of another kind is refused.
func TestSigningKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jwt", "private.pem")
	k, err := NewSigningKey("ES256", path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("key generated before it was needed")
	}
	tok, err := k.Sign([]byte(`{"sub":"1"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	set, err := k.PublicKeySet()
	if err != nil {
		t.Fatal(err)
	}
	jws, err := jose.ParseSigned(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	if payload, err := jws.Verify(set.Keys[0].Key); err != nil || string(payload) != `{"sub":"1"}` {
		t.Fatalf("verify: %v %s", err, payload)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", fi, err)
	}
	again, err := NewSigningKey("ES256", path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	kid1, _ := k.KeyID()
	kid2, _ := again.KeyID()
	if kid1 == "" || kid1 != kid2 || jws.Signatures[0].Header.KeyID != kid1 {
		t.Fatalf("key ids %q %q, header %q", kid1, kid2, jws.Signatures[0].Header.KeyID)
	}
	for _, alg := range []string{"ES384", "RS256", "EdDSA"} {
		if _, err := NewSigningKey(alg, path, "", nil); err == nil || !strings.Contains(err.Error(), "does not suit") {
			t.Errorf("%s with an ES256 key file: %v", alg, err)
		}
	}
	if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSigningKey("ES256", path, "", nil); err == nil {
		t.Error("a key file that is not PEM was accepted")
	}
}

// TestSigningKeyHMAC: a confidential client's tokens are keyed with its
// secret, a public client's with the instance key.
func TestSigningKeyHMAC(t *testing.T) {
	k, err := NewSigningKey("HS256", "", "", []byte("instance-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if !k.Symmetric() {
		t.Fatal("HS256 not symmetric")
	}
	secret := "gto_" + strings.Repeat("a", 52)
	tok, err := k.Sign([]byte(`{}`), secret)
	if err != nil {
		t.Fatal(err)
	}
	jws, _ := jose.ParseSigned(tok, []jose.SignatureAlgorithm{jose.HS256})
	if _, err := jws.Verify([]byte(secret)); err != nil {
		t.Fatalf("verify with the client secret: %v", err)
	}
	pub, err := k.Sign([]byte(`{}`), "")
	if err != nil {
		t.Fatal(err)
	}
	jws, _ = jose.ParseSigned(pub, []jose.SignatureAlgorithm{jose.HS256})
	if _, err := jws.Verify(k.secret); err != nil {
		t.Fatalf("verify a public client's token with the instance key: %v", err)
	}
}

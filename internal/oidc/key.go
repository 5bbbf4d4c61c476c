// Package oidc completes the OAuth2 provider of internal/oauth2 into an
// OpenID Connect provider, as Gitea 1.23's: it signs ID tokens, publishes
// the signing key (JWKS) and the discovery document, and serves the
// endpoints clients call with their own credentials (token, userinfo,
// introspection, revocation) outside the web interface's sessions and
// CSRF checks, with CORS for browser applications.
package oidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-jose/go-jose/v4"
)

// SigningKey signs ID tokens with the [oauth2] JWT_SIGNING_ALGORITHM. An
// asymmetric key lives in a PEM file (PKCS#8, as Gitea writes it),
// generated the first time a token or the key set needs it (an RSA-4096
// key takes seconds to make, which a start should not wait for); an
// existing file is read and checked when the server starts. An HMAC
// algorithm signs with the client's secret (OpenID Connect Core section
// 10.1), or with JWT_SECRET for a public client, and publishes no key.
type SigningKey struct {
	alg  jose.SignatureAlgorithm
	path string
	// secret is the HMAC key of public clients.
	secret []byte

	mu      sync.Mutex
	private crypto.Signer // nil until loaded
	kid     string
}

// asymmetric lists the algorithms with a key pair.
var asymmetric = map[jose.SignatureAlgorithm]bool{
	jose.RS256: true, jose.RS384: true, jose.RS512: true,
	jose.ES256: true, jose.ES384: true, jose.ES512: true, jose.EdDSA: true,
}

// NewSigningKey returns the key of algorithm alg. path is the private key
// file (asymmetric algorithms); jwtSecret the base64url JWT_SECRET of
// HMAC algorithms, or "" to derive one from instanceSecret. An existing
// key file that does not parse or does not suit alg is an error now.
func NewSigningKey(alg, path, jwtSecret string, instanceSecret []byte) (*SigningKey, error) {
	a := jose.SignatureAlgorithm(alg)
	switch {
	case asymmetric[a]:
		k := &SigningKey{alg: a, path: path}
		if _, err := os.Stat(path); err == nil {
			if err := k.load(); err != nil {
				return nil, err
			}
		}
		return k, nil
	case a == jose.HS256 || a == jose.HS384:
		k := &SigningKey{alg: a}
		if jwtSecret != "" {
			b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(jwtSecret, "="))
			if err != nil || len(b) < 48 && a == jose.HS384 || len(b) < 32 {
				return nil, fmt.Errorf("[oauth2] JWT_SECRET must be base64url of at least %d bytes for %s", map[bool]int{true: 48, false: 32}[a == jose.HS384], a)
			}
			k.secret = b
		} else {
			m := hmac.New(sha512.New, instanceSecret)
			m.Write([]byte("cairn oauth2 JWT_SECRET"))
			k.secret = m.Sum(nil)
		}
		return k, nil
	case a == jose.HS512:
		// RFC 7518 section 3.2: an HS512 key has at least 64 bytes; client
		// secrets, the keys of confidential clients' ID tokens, have 56,
		// so verifiers (go-jose among them) would refuse the tokens.
		return nil, errors.New("[oauth2] JWT_SIGNING_ALGORITHM HS512 needs keys of 64 bytes, longer than client secrets (56): use HS256, HS384 or an asymmetric algorithm")
	}
	return nil, fmt.Errorf("[oauth2] JWT_SIGNING_ALGORITHM %q is not one of RS256, RS384, RS512, ES256, ES384, ES512, EdDSA, HS256, HS384, HS512", alg)
}

// Algorithm is the signature algorithm's name (RS256, ...).
func (k *SigningKey) Algorithm() string { return string(k.alg) }

// Symmetric reports whether tokens are signed with HMAC (no key set).
func (k *SigningKey) Symmetric() bool { return !asymmetric[k.alg] }

// Prepare makes the key pair ready (generating and writing it when missing)
// and logs a failure: the server runs it in the background at start, so the
// key exists from the first start without making the start wait for it (an
// RSA-4096 key takes seconds); a token signed before it is ready waits.
// HMAC keys need nothing.
func (k *SigningKey) Prepare() {
	if k.Symmetric() {
		return
	}
	if err := k.ensure(); err != nil {
		slog.Error("oauth2: the ID token signing key cannot be made ready", "file", k.path, "err", err)
	}
}

// ensure loads the key pair, generating and writing it when missing.
func (k *SigningKey) ensure() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.private != nil {
		return nil
	}
	if _, err := os.Stat(k.path); errors.Is(err, os.ErrNotExist) {
		if err := k.generate(); err != nil {
			return err
		}
	}
	return k.load()
}

// generate writes a new private key to k.path. Another process sharing
// the data directory may do the same at once: the file is written aside
// and linked into place, so the first one wins and every process reads it.
func (k *SigningKey) generate() error {
	var key crypto.Signer
	var err error
	switch k.alg {
	case jose.RS256, jose.RS384, jose.RS512:
		key, err = rsa.GenerateKey(rand.Reader, 4096)
	case jose.ES256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.ES384:
		key, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case jose.ES512:
		key, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case jose.EdDSA:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	}
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(k.path), ".private-*.pem")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := pem.Encode(tmp, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), k.path); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}

// load reads the private key file and checks that it suits the algorithm.
func (k *SigningKey) load() error {
	b, err := os.ReadFile(k.path)
	if err != nil {
		return err
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return fmt.Errorf("%s: expected a PEM PRIVATE KEY (PKCS#8)", k.path)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("%s: %w", k.path, err)
	}
	var ok bool
	switch key := parsed.(type) {
	case *rsa.PrivateKey:
		ok = k.alg == jose.RS256 || k.alg == jose.RS384 || k.alg == jose.RS512
	case *ecdsa.PrivateKey:
		ok = k.alg == jose.ES256 && key.Curve == elliptic.P256() || k.alg == jose.ES384 && key.Curve == elliptic.P384() ||
			k.alg == jose.ES512 && key.Curve == elliptic.P521()
	case ed25519.PrivateKey:
		ok = k.alg == jose.EdDSA
	}
	if !ok {
		return fmt.Errorf("%s: the key (%T) does not suit [oauth2] JWT_SIGNING_ALGORITHM %s", k.path, parsed, k.alg)
	}
	signer := parsed.(crypto.Signer)
	pub := jose.JSONWebKey{Key: signer.Public()}
	sum, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return err
	}
	k.private, k.kid = signer, base64.RawURLEncoding.EncodeToString(sum)
	return nil
}

// KeyID is the key's id (its RFC 7638 thumbprint), "" for HMAC.
func (k *SigningKey) KeyID() (string, error) {
	if k.Symmetric() {
		return "", nil
	}
	if err := k.ensure(); err != nil {
		return "", err
	}
	return k.kid, nil
}

// PublicKeySet is the JSON Web Key Set of the public key (RFC 7517).
func (k *SigningKey) PublicKeySet() (*jose.JSONWebKeySet, error) {
	if err := k.ensure(); err != nil {
		return nil, err
	}
	return &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k.private.Public(), KeyID: k.kid,
		Algorithm: string(k.alg), Use: "sig"}}}, nil
}

// Sign returns payload as a compact JWS of type JWT. clientSecret is the
// HMAC key of a confidential client ("" for a public one).
func (k *SigningKey) Sign(payload []byte, clientSecret string) (string, error) {
	var sk jose.SigningKey
	if k.Symmetric() {
		key := k.secret
		if clientSecret != "" {
			key = []byte(clientSecret)
		}
		sk = jose.SigningKey{Algorithm: k.alg, Key: key}
	} else {
		if err := k.ensure(); err != nil {
			return "", err
		}
		sk = jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.private, KeyID: k.kid}}
	}
	signer, err := jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

package signature

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/git"
)

// Signer signs the instance's own commits with its OpenPGP key
// ([repository.signing] SIGNING_KEY).
type Signer struct {
	entity    *openpgp.Entity
	publicKey string
	name      string
	email     string
}

// NewSigner loads the key c names: nil (and no error) when signing is off
// ("none", "default" or empty). The key file must hold an unencrypted
// armored private key.
func NewSigner(c config.RepositorySigningSection) (*Signer, error) {
	path := strings.TrimSpace(c.SigningKey)
	switch strings.ToLower(path) {
	case "", "none", "default":
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("[repository.signing] SIGNING_KEY: %w", err)
	}
	defer f.Close()
	list, err := openpgp.ReadArmoredKeyRing(f)
	if err != nil {
		return nil, fmt.Errorf("[repository.signing] SIGNING_KEY %s: %w", path, err)
	}
	if len(list) == 0 || list[0].PrivateKey == nil {
		return nil, fmt.Errorf("[repository.signing] SIGNING_KEY %s: no private key", path)
	}
	e := list[0]
	if e.PrivateKey.Encrypted {
		return nil, fmt.Errorf("[repository.signing] SIGNING_KEY %s: the private key is protected by a passphrase", path)
	}
	pub, err := armoredPublicKey(e)
	if err != nil {
		return nil, err
	}
	s := &Signer{entity: e, publicKey: pub, name: c.SigningName, email: c.SigningEmail}
	if id := e.PrimaryIdentity(); id != nil && id.UserId != nil {
		if s.name == "" {
			s.name = id.UserId.Name
		}
		if s.email == "" {
			s.email = id.UserId.Email
		}
	}
	return s, nil
}

// PublicKey is the armored public key (GET /signing-key.gpg).
func (s *Signer) PublicKey() string { return s.publicKey }

// KeyID is the signing key's id, 16 hex digits.
func (s *Signer) KeyID() string { return s.entity.PrimaryKey.KeyIdString() }

// hasKey tells whether id names the signing key or one of its subkeys.
func (s *Signer) hasKey(id string) bool {
	if s.entity.PrimaryKey.KeyIdString() == id {
		return true
	}
	for _, sk := range s.entity.Subkeys {
		if sk.PublicKey.KeyIdString() == id {
			return true
		}
	}
	return false
}

// Name is the committer name of the instance's signed commits.
func (s *Signer) Name() string { return s.name }

// Email is the committer e-mail of the instance's signed commits.
func (s *Signer) Email() string { return s.email }

// Sign returns an armored detached signature of payload, the commit object
// without its gpgsig header.
func (s *Signer) Sign(payload []byte) (string, error) {
	var buf bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&buf, s.entity, bytes.NewReader(payload), nil); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// SignCommit signs payload (a commit object as git commit-tree writes it:
// tree, parents, author, committer, blank line, message) and writes the
// signed commit object into the repository, returning its name; env is
// given to git.
func (s *Signer) SignCommit(ctx context.Context, g *git.Git, repoPath string, env []string, payload []byte) (string, error) {
	sig, err := s.Sign(payload)
	if err != nil {
		return "", err
	}
	return g.WriteSignedCommit(ctx, repoPath, env, payload, sig)
}

// armorEncode starts an armored public key block on w.
func armorEncode(w io.Writer) (io.WriteCloser, error) {
	return armor.Encode(w, openpgp.PublicKeyType, nil)
}

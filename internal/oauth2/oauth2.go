// Package oauth2 keeps the OAuth2 applications (clients, RFC 6749) that
// accounts register, as Gitea's /user/applications/oauth2 has them: a
// public client id (a random UUID), a client secret shown once and stored
// only as a hash, the redirect URIs, and whether the client is confidential.
// An OAuth2 provider's authorize and token endpoints find a client with
// ByClientID and check its credentials with VerifySecret.
package oauth2

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Application is a registered OAuth2 client. It never carries its secret.
type Application struct {
	ID      int64
	OwnerID int64
	Name    string
	// ClientID is public: a UUID.
	ClientID     string
	RedirectURIs []string
	// ConfidentialClient: the client keeps its secret (a server). A public
	// client (a native or browser application) cannot, so must use PKCE.
	ConfidentialClient bool
	// SkipSecondaryAuthorization: the provider may skip the consent page.
	SkipSecondaryAuthorization bool
	Created, Updated           time.Time
}

// Options describes an application to create, or what an update sets.
type Options struct {
	Name                       string
	RedirectURIs               []string
	ConfidentialClient         bool
	SkipSecondaryAuthorization bool
}

// Service manages OAuth2 applications.
type Service struct {
	db    *db.DB
	store store
	now   func() time.Time
}

// NewService returns the OAuth2 application service.
func NewService(d *db.DB) *Service {
	return &Service{db: d, store: store{d}, now: time.Now}
}

// secretPrefix marks client secrets so that secret scanners recognize them
// (Gitea's client secrets have the same form).
const secretPrefix = "gto_"

var secretEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newSecret returns a random client secret (256 bits) and its hash.
func newSecret() (plain, hash string, err error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	plain = secretPrefix + secretEncoding.EncodeToString(raw)
	return plain, hashSecret(plain), nil
}

// hashSecret is what is stored of a secret. A secret is 256 random bits,
// so a fast hash is enough: no guessing can reach the preimage.
func hashSecret(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// normalize checks and cleans o.
func normalize(o Options) (Options, error) {
	o.Name = strings.TrimSpace(o.Name)
	if o.Name == "" {
		return o, errs.InvalidField("name", "[Name]: Required")
	}
	if utf8.RuneCountInString(o.Name) > maxNameLength {
		return o, errs.InvalidField("name", "[Name]: MaxSize (at most %d characters)", maxNameLength)
	}
	uris, err := NormalizeRedirectURIs(o.RedirectURIs)
	if err != nil {
		return o, err
	}
	o.RedirectURIs = uris
	return o, nil
}

// Create registers an application of owner and returns it with its client
// secret's plaintext, which is not kept.
func (s *Service) Create(ctx context.Context, owner int64, o Options) (*Application, string, error) {
	o, err := normalize(o)
	if err != nil {
		return nil, "", err
	}
	plain, hash, err := newSecret()
	if err != nil {
		return nil, "", err
	}
	now := time.Unix(s.now().Unix(), 0)
	a := &Application{OwnerID: owner, Name: o.Name, ClientID: uuid.NewString(), RedirectURIs: o.RedirectURIs,
		ConfidentialClient: o.ConfidentialClient, SkipSecondaryAuthorization: o.SkipSecondaryAuthorization,
		Created: now, Updated: now}
	if err := s.store.insert(ctx, a, hash); err != nil {
		return nil, "", err
	}
	return a, plain, nil
}

// List returns a page of owner's applications, newest first, and their number.
func (s *Service) List(ctx context.Context, owner int64, limit, offset int) ([]*Application, int64, error) {
	return s.store.list(ctx, owner, limit, offset)
}

// Get returns owner's application id; another account's is not found.
func (s *Service) Get(ctx context.Context, owner, id int64) (*Application, error) {
	a, err := s.store.byID(ctx, id)
	if err != nil {
		return nil, err
	}
	if a == nil || a.OwnerID != owner {
		return nil, errs.NotFound("OAuth2 application not found [ID: %d]", id)
	}
	return a, nil
}

// ByClientID returns the application with this client id (any owner), for
// the provider's endpoints.
func (s *Service) ByClientID(ctx context.Context, clientID string) (*Application, error) {
	a, _, err := s.store.byClientID(ctx, clientID)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, errs.NotFound("OAuth2 application not found [client_id: %s]", clientID)
	}
	return a, nil
}

// Update replaces the settings of owner's application id. With
// regenerateSecret (the API's PATCH does, as Gitea's) it also issues a new
// client secret, returned in plaintext; the old one stops working.
func (s *Service) Update(ctx context.Context, owner, id int64, o Options, regenerateSecret bool) (*Application, string, error) {
	o, err := normalize(o)
	if err != nil {
		return nil, "", err
	}
	var a *Application
	var plain string
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if a, err = s.Get(ctx, owner, id); err != nil {
			return err
		}
		a.Name, a.RedirectURIs = o.Name, o.RedirectURIs
		a.ConfidentialClient, a.SkipSecondaryAuthorization = o.ConfidentialClient, o.SkipSecondaryAuthorization
		a.Updated = time.Unix(s.now().Unix(), 0)
		if err := s.store.update(ctx, a); err != nil {
			return err
		}
		if regenerateSecret {
			var hash string
			if plain, hash, err = newSecret(); err != nil {
				return err
			}
			return s.store.setSecret(ctx, a.ID, hash, a.Updated.Unix())
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return a, plain, nil
}

// RegenerateSecret issues a new client secret for owner's application id
// and returns its plaintext; the old secret stops working.
func (s *Service) RegenerateSecret(ctx context.Context, owner, id int64) (*Application, string, error) {
	var a *Application
	var plain string
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		var err error
		if a, err = s.Get(ctx, owner, id); err != nil {
			return err
		}
		var hash string
		if plain, hash, err = newSecret(); err != nil {
			return err
		}
		a.Updated = time.Unix(s.now().Unix(), 0)
		return s.store.setSecret(ctx, a.ID, hash, a.Updated.Unix())
	})
	if err != nil {
		return nil, "", err
	}
	return a, plain, nil
}

// Delete removes owner's application id with the grants users gave it
// (and so every token it was issued).
func (s *Service) Delete(ctx context.Context, owner, id int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		found, err := s.store.remove(ctx, owner, id)
		if err != nil {
			return err
		}
		if !found {
			return errs.NotFound("OAuth2 application not found [ID: %d]", id)
		}
		return grantStore{s.db}.removeGrantsWhere(ctx, "application_id = ?", id)
	})
}

// VerifySecret returns the application clientID names when secret is its
// client secret, for the token endpoint. The comparison takes the same time
// whether the client id exists or not and wherever the secrets differ; any
// failure is the same 401.
func (s *Service) VerifySecret(ctx context.Context, clientID, secret string) (*Application, error) {
	a, stored, err := s.store.byClientID(ctx, clientID)
	if err != nil {
		return nil, err
	}
	given := hashSecret(secret)
	if a == nil {
		stored = strings.Repeat("0", len(given)) // compare all the same
	}
	if subtle.ConstantTimeCompare([]byte(given), []byte(stored)) != 1 || a == nil || secret == "" {
		return nil, errs.Unauthorized("invalid client credentials")
	}
	return a, nil
}

// UserDeleteHook removes a deleted user's applications, the grants the
// user gave and those given to the user's applications.
func (s *Service) UserDeleteHook() user.DeleteHook { return deleteHook{s} }

type deleteHook struct{ s *Service }

func (deleteHook) CheckDelete(context.Context, *user.User) error { return nil }

func (h deleteHook) Purge(ctx context.Context, u *user.User) error {
	err := grantStore{h.s.db}.removeGrantsWhere(ctx,
		"uid = ? OR application_id IN (SELECT id FROM oauth2_application WHERE uid = ?)", u.ID, u.ID)
	if err != nil {
		return err
	}
	return h.s.store.removeAllOf(ctx, u.ID)
}

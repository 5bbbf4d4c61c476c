// Package authsource keeps the external sign-in sources (login_source):
// their storage, the registry of source kinds (LDAP, SMTP and PAM, each a
// package of its own that provides a Kind), the checks of their users' passwords for internal/user, and the
// scheduled synchronisation of their users.
package authsource

import (
	"context"
	"errors"
	"time"
)

// Type is a source's kind, with Gitea's numbers (stored in login_source.type
// and users.login_type).
type Type int

// The source types Gitea knows.
const (
	TypeLDAP  Type = 2 // LDAP via a bind DN
	TypeSMTP  Type = 3
	TypePAM   Type = 4
	TypeDLDAP Type = 5 // LDAP simple auth (direct bind with a user DN template)
)

// String is the type's name as Gitea's administration shows it.
func (t Type) String() string {
	switch t {
	case TypeLDAP:
		return "LDAP (via BindDN)"
	case TypeSMTP:
		return "SMTP"
	case TypePAM:
		return "PAM"
	case TypeDLDAP:
		return "LDAP (simple auth)"
	}
	return "Unknown"
}

// Source is one sign-in source.
type Source struct {
	ID            int64
	Type          Type
	Name          string
	IsActive      bool
	IsSyncEnabled bool
	// Config holds the kind's settings, secrets in the clear (they are
	// sealed only when stored).
	Config  Config
	Created time.Time
	Updated time.Time
}

// ExternalUser is what a source knows of one of its users.
type ExternalUser struct {
	// Name is the user's name in the source (the account name Cairn gives).
	Name string
	// NameFromLogin says Name was made from the login (an e-mail address's
	// local part) rather than given by the source: two users of the source
	// may then share it, so it never leads to an existing account.
	NameFromLogin bool
	FullName      string
	Email         string
	// SSHKeys are the user's public keys; KeysManaged tells whether the
	// source maps keys at all (if not, the account's keys are left alone).
	SSHKeys     []string
	KeysManaged bool
	// IsAdmin and IsRestricted are nil when the source does not manage them.
	IsAdmin      *bool
	IsRestricted *bool
	// Avatar is the user's image in the source (nil: none).
	Avatar []byte
}

// ErrRejected is a source's answer to a wrong login or password: an unknown
// user and a wrong password are the same answer. Any other error from a
// source means it could not answer.
var ErrRejected = errors.New("unknown user or wrong password")

// ErrNotBuilt is wrapped by a kind's Decode when this binary was built
// without what the kind needs (PAM without the "pam" build tag).
var ErrNotBuilt = errors.New("not built into this binary")

// Sealer encrypts secrets at rest (webhook.SecretBox, with the instance secret).
type Sealer interface {
	Seal(plain string) (string, error)
	Open(sealed string) (string, error)
}

// Config is a source kind's settings and what they let Cairn do.
type Config interface {
	// Authenticate checks login and password; ErrRejected when the source
	// refuses them. An empty password never reaches it.
	Authenticate(ctx context.Context, login, password string) (*ExternalUser, error)
	// Encode returns the settings as stored (JSON), secrets sealed by box.
	Encode(box Sealer) ([]byte, error)
	// Validate checks the settings before they are stored.
	Validate() error
}

// TwoFactorPolicy is embedded in the settings of every kind: Gitea's
// SkipLocalTwoFA (stored under that JSON name) lets the source's accounts
// sign in without the second factor they enrolled here, the source being
// trusted to have checked enough.
type TwoFactorPolicy struct {
	SkipLocalTwoFA bool `json:",omitempty"`
}

// SkipsLocalTwoFA tells whether accounts skip their local second factor
// (TwoFactorSkipper).
func (p TwoFactorPolicy) SkipsLocalTwoFA() bool { return p.SkipLocalTwoFA }

// TwoFactorSkipper is a Config whose accounts may sign in without their
// local second factor (Gitea's SkipLocalTwoFA: the source is trusted to
// have checked enough).
type TwoFactorSkipper interface {
	SkipsLocalTwoFA() bool
}

// Lister is a Config whose users can be listed, for synchronisation.
type Lister interface {
	// CanList tells whether these settings allow listing at all.
	CanList() bool
	// ListUsers calls each for every user of the source, reading the
	// directory page by page; an error from each stops the listing.
	ListUsers(ctx context.Context, each func(*ExternalUser) error) error
	// MayDeactivateAll tells whether a listing with no users at all may
	// deactivate every account of the source.
	MayDeactivateAll() bool
}

// Kind is one kind of source: its type and how its stored settings are read.
type Kind struct {
	Type Type
	// Decode reads stored settings, opening sealed secrets with box.
	Decode func(raw []byte, box Sealer) (Config, error)
	// Form is the kind's settings form of the web administration (nil:
	// its settings are changed with the CLI only).
	Form *Form
}

// Registry is the set of source kinds this instance knows, built while wiring.
type Registry struct {
	kinds map[Type]Kind
}

// NewRegistry returns a registry of kinds.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{kinds: map[Type]Kind{}}
	for _, k := range kinds {
		r.kinds[k.Type] = k
	}
	return r
}

// Kind returns the kind of type t.
func (r *Registry) Kind(t Type) (Kind, bool) {
	k, ok := r.kinds[t]
	return k, ok
}

// Package securitykey is two-factor sign-in with WebAuthn security keys, as
// Gitea offers it: an account registers keys by name in its security
// settings, and a password sign-in of an account with a key is completed by
// an assertion of one of them. The ceremonies are the go-webauthn library's;
// this package keeps the keys, and each ceremony's state (its challenge) on
// the server, bound to one browser by a random key and used at most once.
// A key whose signature counter does not grow is refused as a possible
// clone. The relying party is the host of ROOT_URL, which must be a domain
// name (browsers refuse IP addresses); without one, registered keys still
// count as a second factor, but no ceremony runs.
package securitykey

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Ceremony purposes.
const (
	purposeRegister = "register"
	purposeLogin    = "login"
)

// MaxNameLength is the longest key name, in characters.
const MaxNameLength = 255

// maxCeremonyBody bounds a browser's answer (attestation or assertion).
const maxCeremonyBody = 64 << 10

// Options configure a Service.
type Options struct {
	// RootURL is the instance's public URL: its host is the relying party
	// ID and its origin the only origin accepted.
	RootURL string
	// DisplayName names the instance in the browser's prompts.
	DisplayName string
	// CeremonyLife is how long a ceremony may take (default 5 minutes).
	CeremonyLife time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Service keeps accounts' security keys and runs the ceremonies.
type Service struct {
	db *db.DB
	// wa runs the ceremonies; nil when ROOT_URL names no relying party
	// (unavailable says why): the keys are still listed, removable and
	// count as a second factor, but no ceremony can run.
	wa          *webauthn.WebAuthn
	unavailable error
	o           Options
}

// NewService returns the security-key service. When ROOT_URL cannot name
// a relying party (an IP address, no host), keys cannot be registered or
// used: Unavailable says why.
func NewService(d *db.DB, o Options) *Service {
	if o.CeremonyLife <= 0 {
		o.CeremonyLife = 5 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.DisplayName == "" {
		o.DisplayName = "Cairn"
	}
	s := &Service{db: d, o: o}
	s.wa, s.unavailable = relyingParty(o)
	return s
}

// relyingParty is the library's configuration for ROOT_URL.
func relyingParty(o Options) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(o.RootURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("ROOT_URL %q has no host", o.RootURL)
	}
	origin, err := protocol.FullyQualifiedOrigin(o.RootURL)
	if err != nil {
		return nil, err
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          u.Hostname(),
		RPDisplayName: o.DisplayName,
		RPOrigins:     []string{origin},
		// As Gitea: the key proves possession; the password is the
		// other factor, so no PIN or biometric is asked for.
		AuthenticatorSelection: protocol.AuthenticatorSelection{UserVerification: protocol.VerificationDiscouraged},
		AttestationPreference:  protocol.PreferDirectAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: o.CeremonyLife, TimeoutUVD: o.CeremonyLife},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: o.CeremonyLife, TimeoutUVD: o.CeremonyLife},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("ROOT_URL %q cannot name a relying party: %w", o.RootURL, err)
	}
	return wa, nil
}

// Unavailable is why no ceremony can run (nil: they can): browsers accept
// only a domain name as relying party.
func (s *Service) Unavailable() error { return s.unavailable }

// errUnavailable is the refusal of a ceremony while Unavailable.
func (s *Service) errUnavailable() error {
	return &errs.Error{Kind: errs.KindForbidden, Err: s.unavailable,
		Message: "security keys do not work on this instance: its public address (ROOT_URL) must be a domain name, not an IP address"}
}

// Key is a registered security key.
type Key struct {
	ID     int64
	UserID int64
	Name   string
	// CredentialID is the key's credential identifier; AAGUID names the
	// authenticator model (zero when it does not tell).
	CredentialID []byte
	AAGUID       []byte
	SignCount    uint32
	// CloneWarning is set once a signature counter that did not grow was
	// presented (the key may have been copied).
	CloneWarning bool
	Created      time.Time
	LastUsed     time.Time

	publicKey         []byte
	attestationType   string
	attestationFormat string
	transports        string
	flags             byte
}

// AAGUIDString is the AAGUID in its usual 8-4-4-4-12 hex form.
func (k *Key) AAGUIDString() string {
	if len(k.AAGUID) != 16 {
		return ""
	}
	h := hex.EncodeToString(k.AAGUID)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// credential is k as the library reads it.
func (k *Key) credential() webauthn.Credential {
	var transports []protocol.AuthenticatorTransport
	for _, t := range strings.Fields(k.transports) {
		transports = append(transports, protocol.AuthenticatorTransport(t))
	}
	return webauthn.Credential{
		ID: k.CredentialID, PublicKey: k.publicKey, AttestationType: k.attestationType, AttestationFormat: k.attestationFormat,
		Transport: transports, Flags: webauthn.CredentialFlagsFromMsgpByte(k.flags),
		// The stored warning is for the owner to see; the library sets
		// its own for the assertion at hand, which alone is refused.
		Authenticator: webauthn.Authenticator{AAGUID: k.AAGUID, SignCount: k.SignCount},
	}
}

const keyColumns = `id, user_id, name, credential_id, public_key, attestation_type, attestation_format, transports, aaguid,
	sign_count, clone_warning, flags, created_unix, updated_unix`

func scanKey(sc interface{ Scan(...any) error }) (*Key, error) {
	var k Key
	var credID, pub, aaguid string
	var count, flags, created, updated int64
	if err := sc.Scan(&k.ID, &k.UserID, &k.Name, &credID, &pub, &k.attestationType, &k.attestationFormat, &k.transports, &aaguid,
		&count, &k.CloneWarning, &flags, &created, &updated); err != nil {
		return nil, err
	}
	var err error
	if k.CredentialID, err = base64.RawURLEncoding.DecodeString(credID); err != nil {
		return nil, fmt.Errorf("security key %d: credential id: %w", k.ID, err)
	}
	if k.publicKey, err = base64.RawURLEncoding.DecodeString(pub); err != nil {
		return nil, fmt.Errorf("security key %d: public key: %w", k.ID, err)
	}
	if k.AAGUID, err = hex.DecodeString(aaguid); err != nil {
		return nil, fmt.Errorf("security key %d: aaguid: %w", k.ID, err)
	}
	k.SignCount, k.flags = uint32(count), byte(flags)
	k.Created, k.LastUsed = time.Unix(created, 0), time.Unix(updated, 0)
	return &k, nil
}

// List returns the keys of the account with id uid, oldest first.
func (s *Service) List(ctx context.Context, uid int64) ([]*Key, error) {
	rows, err := s.db.Query(ctx, "SELECT "+keyColumns+" FROM webauthn_credential WHERE user_id = ? ORDER BY id", uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []*Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// Enabled reports whether the account with id uid has a security key.
func (s *Service) Enabled(ctx context.Context, uid int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM webauthn_credential WHERE user_id = ?", uid)
}

// Delete removes the key with id of the account with id uid (404 when it
// has none such).
func (s *Service) Delete(ctx context.Context, uid, id int64) error {
	res, err := s.db.Exec(ctx, "DELETE FROM webauthn_credential WHERE id = ? AND user_id = ?", id, uid)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errs.NotFound("security key %d does not exist", id)
	}
	return nil
}

// DeleteAll removes every key of the account with id uid.
func (s *Service) DeleteAll(ctx context.Context, uid int64) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM webauthn_credential WHERE user_id = ?", uid); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "DELETE FROM webauthn_ceremony WHERE uid = ?", uid)
	return err
}

// account is a user with their keys, as the library reads it.
type account struct {
	u    *user.User
	keys []*Key
}

// WebAuthnID is the user handle: the account id as 8 bytes (it never
// changes and names nobody).
func (a account) WebAuthnID() []byte { return userHandle(a.u.ID) }

func (a account) WebAuthnName() string { return a.u.Name }

func (a account) WebAuthnDisplayName() string {
	if a.u.FullName != "" {
		return a.u.FullName
	}
	return a.u.Name
}

func (a account) WebAuthnCredentials() []webauthn.Credential {
	creds := make([]webauthn.Credential, 0, len(a.keys))
	for _, k := range a.keys {
		creds = append(creds, k.credential())
	}
	return creds
}

func userHandle(uid int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(uid))
	return b
}

func (s *Service) account(ctx context.Context, u *user.User) (account, error) {
	keys, err := s.List(ctx, u.ID)
	return account{u: u, keys: keys}, err
}

// CleanName is name trimmed, or an error (422) when it is empty, too long
// or not text.
func CleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errs.InvalidField("name", "the key needs a name")
	case !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", errs.InvalidField("name", "the name holds characters that are not text")
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "", errs.InvalidField("name", "the name is longer than %d characters", MaxNameLength)
	}
	return name, nil
}

// nameTaken reports whether uid already has a key called name.
func (s *Service) nameTaken(ctx context.Context, uid int64, name string) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM webauthn_credential WHERE user_id = ? AND lower_name = ?", uid, strings.ToLower(name))
}

// BeginRegistration starts registering a key called name for u: it returns
// the options for navigator.credentials.create() and the ceremony key the
// browser must present with its answer (a cookie). A name u already uses is
// refused (409); the keys u has are excluded, so one key is not registered
// twice.
func (s *Service) BeginRegistration(ctx context.Context, u *user.User, name string) (*protocol.CredentialCreation, string, error) {
	if s.wa == nil {
		return nil, "", s.errUnavailable()
	}
	name, err := CleanName(name)
	if err != nil {
		return nil, "", err
	}
	if taken, err := s.nameTaken(ctx, u.ID, name); err != nil {
		return nil, "", err
	} else if taken {
		return nil, "", errs.Conflict("a security key called %q exists already", name)
	}
	acc, err := s.account(ctx, u)
	if err != nil {
		return nil, "", err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(acc.keys))
	for _, k := range acc.keys {
		c := k.credential()
		exclude = append(exclude, c.Descriptor())
	}
	creation, session, err := s.wa.BeginRegistration(acc, webauthn.WithExclusions(exclude),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementDiscouraged))
	if err != nil {
		return nil, "", err
	}
	key, err := s.saveCeremony(ctx, u.ID, purposeRegister, name, session)
	if err != nil {
		return nil, "", err
	}
	return creation, key, nil
}

// FinishRegistration verifies the browser's attestation body against the
// ceremony named by ceremonyKey (used up whatever the outcome) and stores
// the key. A missing, expired or foreign ceremony and an answer that does
// not verify are refused (422); a name taken meanwhile or a key registered
// already (to anyone) is refused (409).
func (s *Service) FinishRegistration(ctx context.Context, u *user.User, ceremonyKey string, body []byte) (*Key, error) {
	if s.wa == nil {
		return nil, s.errUnavailable()
	}
	c, err := s.takeCeremony(ctx, u.ID, purposeRegister, ceremonyKey)
	if err != nil {
		return nil, err
	}
	if len(body) > maxCeremonyBody {
		return nil, errs.Invalid("the security key's answer is too large")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(body)
	if err != nil {
		return nil, refusal("the security key's answer could not be read", err)
	}
	acc, err := s.account(ctx, u)
	if err != nil {
		return nil, err
	}
	cred, err := s.wa.CreateCredential(acc, c.session, parsed)
	if err != nil {
		return nil, refusal("the security key's answer did not verify", err)
	}
	now := s.o.Now()
	k := &Key{UserID: u.ID, Name: c.name, CredentialID: cred.ID, AAGUID: cred.Authenticator.AAGUID, SignCount: cred.Authenticator.SignCount,
		Created: now, LastUsed: now, publicKey: cred.PublicKey, attestationType: cred.AttestationType,
		attestationFormat: cred.AttestationFormat, flags: cred.Flags.MsgpByte()}
	var transports []string
	for _, t := range cred.Transport {
		transports = append(transports, string(t))
	}
	k.transports = strings.Join(transports, " ")
	if taken, err := s.nameTaken(ctx, u.ID, c.name); err != nil {
		return nil, err
	} else if taken {
		return nil, errs.Conflict("a security key called %q exists already", c.name)
	}
	k.ID, err = s.db.Insert(ctx, `INSERT INTO webauthn_credential (user_id, name, lower_name, credential_id, credential_hash, public_key,
		attestation_type, attestation_format, transports, aaguid, sign_count, clone_warning, flags, created_unix, updated_unix)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, k.Name, strings.ToLower(k.Name), base64.RawURLEncoding.EncodeToString(k.CredentialID), credentialHash(k.CredentialID),
		base64.RawURLEncoding.EncodeToString(k.publicKey), k.attestationType, k.attestationFormat, k.transports,
		hex.EncodeToString(k.AAGUID), int64(k.SignCount), false, int64(k.flags), now.Unix(), now.Unix())
	if db.IsUniqueViolation(err) {
		return nil, errs.Conflict("this security key is registered already, or the name %q is taken", k.Name)
	}
	if err != nil {
		return nil, err
	}
	return k, nil
}

func credentialHash(id []byte) string {
	sum := sha256.Sum256(id)
	return hex.EncodeToString(sum[:])
}

// BeginLogin starts the second step of u's sign-in: the options for
// navigator.credentials.get() (u's keys allowed) and the ceremony key. An
// account without keys is refused (404).
func (s *Service) BeginLogin(ctx context.Context, u *user.User) (*protocol.CredentialAssertion, string, error) {
	if s.wa == nil {
		return nil, "", s.errUnavailable()
	}
	acc, err := s.account(ctx, u)
	if err != nil {
		return nil, "", err
	}
	if len(acc.keys) == 0 {
		return nil, "", errs.NotFound("the account has no security key")
	}
	assertion, session, err := s.wa.BeginLogin(acc)
	if err != nil {
		return nil, "", err
	}
	key, err := s.saveCeremony(ctx, u.ID, purposeLogin, "", session)
	if err != nil {
		return nil, "", err
	}
	return assertion, key, nil
}

// FinishLogin verifies the browser's assertion body against the ceremony
// named by ceremonyKey (used up whatever the outcome) and records the key's
// new signature counter. It returns 401 for an assertion that does not
// verify (wrong challenge, origin, key or signature, no ceremony), and for
// an assertion whose counter did not grow, as Gitea: the key is marked with
// a clone warning, shown in its owner's settings, and later assertions
// with a growing counter pass again.
func (s *Service) FinishLogin(ctx context.Context, u *user.User, ceremonyKey string, body []byte) (*Key, error) {
	if s.wa == nil {
		return nil, s.errUnavailable()
	}
	c, err := s.takeCeremony(ctx, u.ID, purposeLogin, ceremonyKey)
	if errs.Is(err, errs.KindInvalid) {
		return nil, errs.Unauthorized("%s", ceremonyGone)
	}
	if err != nil {
		return nil, err
	}
	if len(body) > maxCeremonyBody {
		return nil, errs.Unauthorized("the security key's answer is too large")
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(body)
	if err != nil {
		return nil, unauthorized("the security key's answer could not be read", err)
	}
	acc, err := s.account(ctx, u)
	if err != nil {
		return nil, err
	}
	cred, err := s.wa.ValidateLogin(acc, c.session, parsed)
	if err != nil {
		return nil, unauthorized("the security key's answer did not verify", err)
	}
	var used *Key
	for _, k := range acc.keys {
		if bytes.Equal(k.CredentialID, cred.ID) {
			used = k
		}
	}
	if used == nil { // the library matched a credential of acc: cannot happen
		return nil, errs.Unauthorized("the security key is not registered")
	}
	now := s.o.Now().Unix()
	if cred.Authenticator.CloneWarning {
		if _, err := s.db.Exec(ctx, "UPDATE webauthn_credential SET clone_warning = ? WHERE id = ?", true, used.ID); err != nil {
			return nil, err
		}
		return nil, errs.Unauthorized("the security key's signature counter did not grow: it may have been cloned")
	}
	// The counter moves forward only from the value just checked, so two
	// assertions racing with one counter value cannot both pass.
	res, err := s.db.Exec(ctx, "UPDATE webauthn_credential SET sign_count = ?, updated_unix = ? WHERE id = ? AND sign_count = ?",
		int64(cred.Authenticator.SignCount), now, used.ID, int64(used.SignCount))
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil, errs.Unauthorized("the security key was used by another sign-in at the same time")
	}
	used.SignCount, used.LastUsed = cred.Authenticator.SignCount, time.Unix(now, 0)
	return used, nil
}

// refusal is a 422 for an answer the library refused; its details (which
// check failed) travel in the wrapped error for the log, not the message.
func refusal(msg string, err error) error {
	return &errs.Error{Kind: errs.KindInvalid, Message: msg, Err: err}
}

func unauthorized(msg string, err error) error {
	return &errs.Error{Kind: errs.KindUnauthorized, Message: msg, Err: err}
}

// Detail is what the library said about a refused answer (its developer
// information included), for the log.
func Detail(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return strings.TrimSpace(pe.Details + " " + pe.DevInfo)
	}
	if e, ok := err.(*errs.Error); ok && e.Err != nil {
		return e.Err.Error()
	}
	return ""
}

// ceremony is a ceremony's stored state.
type ceremony struct {
	name    string
	session webauthn.SessionData
}

// saveCeremony stores session for uid and returns the random key that
// names it (the table holds only its SHA-256). Expired ceremonies are
// deleted on the way.
func (s *Service) saveCeremony(ctx context.Context, uid int64, purpose, name string, session *webauthn.SessionData) (string, error) {
	data, err := json.Marshal(session)
	if err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	key := base64.RawURLEncoding.EncodeToString(b)
	now := s.o.Now()
	if _, err := s.db.Exec(ctx, "DELETE FROM webauthn_ceremony WHERE expires_unix <= ?", now.Unix()); err != nil {
		return "", err
	}
	_, err = s.db.Insert(ctx, "INSERT INTO webauthn_ceremony (key_hash, uid, purpose, name, data, expires_unix) VALUES (?, ?, ?, ?, ?, ?)",
		hashKey(key), uid, purpose, name, string(data), now.Add(s.o.CeremonyLife).Unix())
	if err != nil {
		return "", err
	}
	return key, nil
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// ceremonyGone is the refusal of an answer without its ceremony.
const ceremonyGone = "the security key ceremony expired or was not started: try again"

// takeCeremony loads and deletes the ceremony named by key: it must belong
// to uid, serve purpose and not have expired. Only one request can take a
// ceremony; the others find none (422).
func (s *Service) takeCeremony(ctx context.Context, uid int64, purpose, key string) (*ceremony, error) {
	gone := errs.Invalid("%s", ceremonyGone)
	if key == "" || len(key) > 128 {
		return nil, gone
	}
	var id, owner, expires int64
	var gotPurpose, name, data string
	err := s.db.QueryRow(ctx, "SELECT id, uid, purpose, name, data, expires_unix FROM webauthn_ceremony WHERE key_hash = ?", hashKey(key)).
		Scan(&id, &owner, &gotPurpose, &name, &data, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, gone
	}
	if err != nil {
		return nil, err
	}
	res, err := s.db.Exec(ctx, "DELETE FROM webauthn_ceremony WHERE id = ?", id)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n != 1 || owner != uid || gotPurpose != purpose || expires <= s.o.Now().Unix() {
		return nil, gone
	}
	c := &ceremony{name: name}
	if err := json.Unmarshal([]byte(data), &c.session); err != nil {
		return nil, err
	}
	return c, nil
}

// EndCeremony deletes the ceremony named by key, if any (a new one
// replaces it, or the browser signed in).
func (s *Service) EndCeremony(ctx context.Context, key string) error {
	if key == "" || len(key) > 128 {
		return nil
	}
	_, err := s.db.Exec(ctx, "DELETE FROM webauthn_ceremony WHERE key_hash = ?", hashKey(key))
	return err
}

// UserDeleteHook removes the keys of a deleted account.
func (s *Service) UserDeleteHook() user.DeleteHook { return deleteHook{s} }

type deleteHook struct{ s *Service }

func (h deleteHook) CheckDelete(context.Context, *user.User) error { return nil }

func (h deleteHook) Purge(ctx context.Context, u *user.User) error { return h.s.DeleteAll(ctx, u.ID) }

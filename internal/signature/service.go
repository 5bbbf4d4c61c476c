package signature

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Service keeps the accounts' GPG keys.
type Service struct {
	db    *db.DB
	users *user.Service
	now   func() time.Time
}

// NewService returns the GPG key service.
func NewService(d *db.DB, users *user.Service) *Service {
	return &Service{db: d, users: users, now: time.Now}
}

// ErrKeyNotExist is the error for a GPG key id that names no key of the caller.
func ErrKeyNotExist(id int64) error {
	return errs.NotFound("GPG key does not exist [id: %d]", id)
}

// VerificationToken is the text a user signs to prove they hold a key:
// derived from the account and the time, valid in the minute it is issued
// for (minutes = 1 is the current token, 0 the previous one).
func VerificationToken(u *user.User, now time.Time, minutes int) string {
	t := now.Truncate(time.Minute).Add(time.Duration(minutes) * time.Minute)
	h := sha256.Sum256([]byte(t.UTC().Format(time.RFC1123Z) + ":" + u.Created.UTC().Format(time.RFC1123Z) + ":" +
		u.Name + ":" + u.Email + ":" + strconv.FormatInt(u.ID, 10)))
	return hex.EncodeToString(h[:])
}

// Token is u's current verification token.
func (s *Service) Token(u *user.User) string { return VerificationToken(u, s.now(), 1) }

// tokenSigned tells whether armored signs one of u's two valid tokens (as
// is, or followed by a line end) with a key of entity.
func (s *Service) tokenSigned(u *user.User, e *openpgp.Entity, armored string) bool {
	sig, err := readArmoredSignature(armored)
	if err != nil {
		return false
	}
	for _, m := range []int{1, 0} {
		tok := VerificationToken(u, s.now(), m)
		for _, text := range []string{tok, tok + "\n", tok + "\r\n"} {
			if _, err := checkDetached(openpgp.EntityList{e}, []byte(text), armored, sig); err == nil {
				return true
			}
		}
	}
	return false
}

// activatedEmails returns u's activated addresses, lower-case.
func (s *Service) activatedEmails(ctx context.Context, uid int64) (map[string]bool, error) {
	list, err := s.users.ListEmails(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range list {
		if e.Activated {
			out[strings.ToLower(e.Email)] = true
		}
	}
	return out, nil
}

// AddKey stores an armored public key for owner. Unless armoredSignature
// signs owner's verification token with the key, one of the key's
// identities must be an activated address of owner (404 otherwise, as
// Gitea). A key id already stored answers 422.
func (s *Service) AddKey(ctx context.Context, owner *user.User, armoredKey, armoredSignature string) (*Key, error) {
	k, e, err := parseArmoredKey(armoredKey, s.now())
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(armoredSignature) != "" {
		if !s.tokenSigned(owner, e, armoredSignature) {
			return nil, errs.InvalidField("armored_signature", "The provided GPG key, signature and token do not match or token is out of date. Provide a valid signature for the token: %s", s.Token(owner))
		}
		k.Verified = true
	} else {
		mine, err := s.activatedEmails(ctx, owner.ID)
		if err != nil {
			return nil, err
		}
		for _, a := range k.Emails {
			if mine[a] {
				k.Verified = true
				break
			}
		}
		if !k.Verified {
			return nil, errs.NotFound("None of the emails attached to the GPG key could be found. It may still be added if you provide a valid signature for the token: %s", s.Token(owner))
		}
	}
	k.OwnerID = owner.ID
	k.Added = time.Unix(db.Now(), 0)
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		ids := []any{k.KeyID}
		for _, sk := range k.SubKeys {
			ids = append(ids, sk.KeyID)
		}
		if ok, err := s.db.Exists(ctx, "SELECT 1 FROM gpg_key WHERE key_id IN "+db.In(len(ids)), ids...); err != nil {
			return err
		} else if ok {
			return errs.AlreadyExists("A key with the same id already exists").WithStatus(422)
		}
		if err := s.insert(ctx, k); err != nil {
			return err
		}
		for _, sk := range k.SubKeys {
			sk.OwnerID, sk.Verified, sk.Emails, sk.Added = k.OwnerID, k.Verified, nil, k.Added
			if err := s.insert(ctx, sk); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

func (s *Service) insert(ctx context.Context, k *Key) error {
	var exp int64
	if !k.Expires.IsZero() {
		exp = k.Expires.Unix()
	}
	id, err := s.db.Insert(ctx, `INSERT INTO gpg_key (owner_id, key_id, primary_key_id, content, emails, verified, can_sign, can_encrypt_comms,
		can_encrypt_storage, can_certify, created_unix, expired_unix, added_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.OwnerID, k.KeyID, k.PrimaryKeyID, k.Content, strings.Join(k.Emails, "\n"), k.Verified, k.CanSign, k.CanEncryptComms,
		k.CanEncryptStorage, k.CanCertify, k.Created.Unix(), exp, k.Added.Unix())
	k.ID = id
	return err
}

const keyColumns = `id, owner_id, key_id, primary_key_id, content, emails, verified, can_sign, can_encrypt_comms,
	can_encrypt_storage, can_certify, created_unix, expired_unix, added_unix`

func scanKey(rows *sql.Rows) (*Key, error) {
	k := &Key{}
	var emails string
	var created, expired, added int64
	if err := rows.Scan(&k.ID, &k.OwnerID, &k.KeyID, &k.PrimaryKeyID, &k.Content, &emails, &k.Verified, &k.CanSign,
		&k.CanEncryptComms, &k.CanEncryptStorage, &k.CanCertify, &created, &expired, &added); err != nil {
		return nil, err
	}
	if emails != "" {
		k.Emails = strings.Split(emails, "\n")
	}
	k.Created, k.Added = time.Unix(created, 0), time.Unix(added, 0)
	if expired > 0 {
		k.Expires = time.Unix(expired, 0)
	}
	return k, nil
}

func (s *Service) query(ctx context.Context, q string, args ...any) ([]*Key, error) {
	rows, err := s.db.Query(ctx, "SELECT "+keyColumns+" FROM gpg_key "+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// withSubKeys loads the subkeys of primary keys with one query.
func (s *Service) withSubKeys(ctx context.Context, keys []*Key) error {
	if len(keys) == 0 {
		return nil
	}
	args := []any{keys[0].OwnerID}
	byID := map[string]*Key{}
	for _, k := range keys {
		args = append(args, k.KeyID)
		byID[k.KeyID] = k
	}
	subs, err := s.query(ctx, "WHERE owner_id = ? AND primary_key_id IN "+db.In(len(keys))+" ORDER BY id", args...)
	if err != nil {
		return err
	}
	for _, sk := range subs {
		if p := byID[sk.PrimaryKeyID]; p != nil {
			p.SubKeys = append(p.SubKeys, sk)
		}
	}
	return nil
}

// ListKeys returns a page of ownerID's primary keys with their subkeys, and
// how many there are.
func (s *Service) ListKeys(ctx context.Context, ownerID int64, limit, offset int) ([]*Key, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM gpg_key WHERE owner_id = ? AND primary_key_id = ''", ownerID)
	if err != nil {
		return nil, 0, err
	}
	keys, err := s.query(ctx, "WHERE owner_id = ? AND primary_key_id = '' ORDER BY id LIMIT ? OFFSET ?", ownerID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return keys, total, s.withSubKeys(ctx, keys)
}

// GetKey returns ownerID's primary key id with its subkeys.
func (s *Service) GetKey(ctx context.Context, ownerID, id int64) (*Key, error) {
	keys, err := s.query(ctx, "WHERE id = ? AND owner_id = ? AND primary_key_id = ''", id, ownerID)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, ErrKeyNotExist(id)
	}
	return keys[0], s.withSubKeys(ctx, keys)
}

// DeleteKey removes ownerID's key id and its subkeys.
func (s *Service) DeleteKey(ctx context.Context, ownerID, id int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		k, err := s.GetKey(ctx, ownerID, id)
		if err != nil {
			return err
		}
		_, err = s.db.Exec(ctx, "DELETE FROM gpg_key WHERE owner_id = ? AND (id = ? OR primary_key_id = ?)", ownerID, id, k.KeyID)
		return err
	})
}

// VerifyKey marks owner's key keyID verified when armoredSignature signs
// owner's verification token with it.
func (s *Service) VerifyKey(ctx context.Context, owner *user.User, keyID, armoredSignature string) (*Key, error) {
	keyID = strings.ToUpper(strings.TrimLeft(strings.TrimSpace(keyID), "0"))
	if keyID == "" {
		return nil, errs.NotFound("GPG key does not exist")
	}
	keys, err := s.query(ctx, "WHERE owner_id = ? AND primary_key_id = ''", owner.ID)
	if err != nil {
		return nil, err
	}
	var k *Key
	for _, c := range keys {
		if strings.TrimLeft(c.KeyID, "0") == keyID {
			k = c
		}
	}
	if k == nil {
		return nil, errs.NotFound("GPG key does not exist [key_id: %s]", keyID)
	}
	e, err := readEntity(k.Content)
	if err != nil {
		return nil, err
	}
	if !s.tokenSigned(owner, e, armoredSignature) {
		return nil, errs.InvalidField("armored_signature", "The provided GPG key, signature and token do not match or token is out of date. Provide a valid signature for the token: %s", s.Token(owner))
	}
	if _, err := s.db.Exec(ctx, "UPDATE gpg_key SET verified = ? WHERE owner_id = ? AND (id = ? OR primary_key_id = ?)", true, owner.ID, k.ID, k.KeyID); err != nil {
		return nil, err
	}
	k.Verified = true
	return k, s.withSubKeys(ctx, []*Key{k})
}

// ShownEmails returns the activated addresses of ownerID: the addresses of
// a key that are shown (and count), as in Gitea.
func (s *Service) ShownEmails(ctx context.Context, ownerID int64) (map[string]bool, error) {
	return s.activatedEmails(ctx, ownerID)
}

// UserDeleteHook removes a user's GPG keys when the user is deleted.
func (s *Service) UserDeleteHook() user.DeleteHook { return deleteHook{s} }

type deleteHook struct{ s *Service }

func (deleteHook) CheckDelete(context.Context, *user.User) error { return nil }

func (h deleteHook) Purge(ctx context.Context, u *user.User) error {
	_, err := h.s.db.Exec(ctx, "DELETE FROM gpg_key WHERE owner_id = ?", u.ID)
	return err
}

// armoredPublicKey serializes e's public part, armored.
func armoredPublicKey(e *openpgp.Entity) (string, error) {
	var buf bytes.Buffer
	w, err := armorEncode(&buf)
	if err != nil {
		return "", err
	}
	if err := e.Serialize(w); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return buf.String() + "\n", nil
}

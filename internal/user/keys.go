package user

import (
	"context"
	"crypto/rsa"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// PublicKey is an SSH key that authenticates its owner.
type PublicKey struct {
	ID          int64
	OwnerID     int64
	Name        string
	Fingerprint string
	Content     string
	KeyType     string
	ReadOnly    bool
	Created     time.Time
	Updated     time.Time
}

// MinRSAKeyBits is the smallest RSA key accepted (3071 so that a 3072-bit key
// that loads as 3071 bits still passes).
const MinRSAKeyBits = 3071

// ParseSSHKey parses one authorized_keys line and returns the normalized
// content ("type base64") and the SHA256 fingerprint.
func ParseSSHKey(content string) (normalized, fingerprint string, err error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return "", "", errs.InvalidField("key", "key content is empty")
	}
	if strings.ContainsAny(content, "\r\n") {
		return "", "", errs.InvalidField("key", "key content must be a single line")
	}
	pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(content))
	if err != nil {
		return "", "", errs.InvalidField("key", "invalid SSH public key: %v", err)
	}
	if pk.Type() == ssh.KeyAlgoDSA {
		return "", "", errs.InvalidField("key", "DSA keys are not accepted")
	}
	// Gitea's default [ssh.minimum_key_sizes]: RSA keys need 3071 bits or more.
	if cpk, ok := pk.(ssh.CryptoPublicKey); ok {
		if rk, ok := cpk.CryptoPublicKey().(*rsa.PublicKey); ok && rk.N.BitLen() < MinRSAKeyBits {
			return "", "", errs.InvalidField("key", "Invalid key content: key length is not enough: got %d, needs %d", rk.N.BitLen(), MinRSAKeyBits)
		}
	}
	normalized = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk)))
	return normalized, ssh.FingerprintSHA256(pk), nil
}

const keyColumns = "id, owner_id, name, fingerprint, content, key_type, mode, created_unix, updated_unix"

func scanKey(row scanner) (*PublicKey, error) {
	k := &PublicKey{}
	var mode int
	var c, u int64
	if err := row.Scan(&k.ID, &k.OwnerID, &k.Name, &k.Fingerprint, &k.Content, &k.KeyType, &mode, &c, &u); err != nil {
		return nil, err
	}
	k.ReadOnly = mode == 1
	k.Created, k.Updated = time.Unix(c, 0), time.Unix(u, 0)
	return k, nil
}

// AddKey stores a new SSH key for owner. A key can belong to one account only.
func (s *Service) AddKey(ctx context.Context, ownerID int64, title, content string) (*PublicKey, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, errs.InvalidField("title", "title is required")
	}
	if utf8.RuneCountInString(title) > 50 {
		return nil, errs.InvalidField("title", "title is too long: at most 50 characters")
	}
	norm, fp, err := ParseSSHKey(content)
	if err != nil {
		return nil, err
	}
	now := db.Now()
	k := &PublicKey{OwnerID: ownerID, Name: title, Fingerprint: fp, Content: norm, KeyType: "user", Created: time.Unix(now, 0), Updated: time.Unix(now, 0)}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if ok, err := s.db.Exists(ctx, "SELECT 1 FROM public_key WHERE fingerprint = ?", fp); err != nil {
			return err
		} else if ok {
			return errs.AlreadyExists("public key already exists [fingerprint: %s]", fp).WithStatus(422)
		}
		// A key is either an account key or a deploy key, never both: SSH must
		// know whom it authenticates.
		if ok, err := s.db.Exists(ctx, "SELECT 1 FROM deploy_key WHERE fingerprint = ?", fp); err != nil {
			return err
		} else if ok {
			return errs.AlreadyExists("Key content has been used as deploy key").WithStatus(422)
		}
		if ok, err := s.db.Exists(ctx, "SELECT 1 FROM public_key WHERE owner_id = ? AND name = ?", ownerID, title); err != nil {
			return err
		} else if ok {
			return errs.AlreadyExists("a key named %q already exists", title).WithStatus(422)
		}
		id, err := s.db.Insert(ctx, "INSERT INTO public_key (owner_id, name, fingerprint, content, key_type, mode, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			ownerID, title, fp, norm, "user", 2, now, now)
		if db.IsUniqueViolation(err) {
			return errs.AlreadyExists("public key already exists [fingerprint: %s]", fp).WithStatus(422)
		}
		k.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// ListKeys returns a page of ownerID's keys and the total count.
func (s *Service) ListKeys(ctx context.Context, ownerID int64, fingerprint string, limit, offset int) ([]*PublicKey, int64, error) {
	where, args := "owner_id = ?", []any{ownerID}
	if fingerprint != "" {
		where += " AND fingerprint = ?"
		args = append(args, fingerprint)
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM public_key WHERE "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.Query(ctx, "SELECT "+keyColumns+" FROM public_key WHERE "+where+" ORDER BY id"+db.LimitOffset(limit, offset), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*PublicKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, k)
	}
	return out, total, rows.Err()
}

// ErrKeyNotExist is the error for a key id that does not exist. The API
// answers exactly the same for a key of an account the caller may not see.
func ErrKeyNotExist(id int64) *errs.Error {
	return errs.NotFound("public key does not exist [id: %d]", id)
}

// GetKey loads one key by id.
func (s *Service) GetKey(ctx context.Context, id int64) (*PublicKey, error) {
	k, err := scanKey(s.db.QueryRow(ctx, "SELECT "+keyColumns+" FROM public_key WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrKeyNotExist(id)
	}
	return k, err
}

// GetKeyByFingerprint loads the key with the given SHA256 fingerprint.
func (s *Service) GetKeyByFingerprint(ctx context.Context, fp string) (*PublicKey, error) {
	k, err := scanKey(s.db.QueryRow(ctx, "SELECT "+keyColumns+" FROM public_key WHERE fingerprint = ?", fp))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("public key does not exist")
	}
	return k, err
}

// DeleteKey removes key id of ownerID.
func (s *Service) DeleteKey(ctx context.Context, ownerID, id int64) error {
	res, err := s.db.Exec(ctx, "DELETE FROM public_key WHERE id = ? AND owner_id = ?", id, ownerID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrKeyNotExist(id)
	}
	return nil
}

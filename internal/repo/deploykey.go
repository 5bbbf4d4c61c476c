package repo

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// DeployKey is an SSH key that reaches one repository only, read-only or
// read-write. The same key may be a deploy key of several repositories (one
// row each), but never an account's key at the same time.
type DeployKey struct {
	ID     int64
	RepoID int64
	// KeyID identifies the key content across repositories (Gitea's key_id):
	// the lowest id among the deploy keys with the same fingerprint.
	KeyID       int64
	Name        string
	Fingerprint string
	Content     string
	ReadOnly    bool
	Created     time.Time
	Updated     time.Time
}

// DeployKeyListOptions selects deploy keys of a repository.
type DeployKeyListOptions struct {
	KeyID       int64  // only keys with this key id (0: any)
	Fingerprint string // only keys with this SHA256 fingerprint ("": any)
	Limit       int
	Offset      int
}

// deployKeySelect loads deploy_key rows as k with their key id.
const deployKeySelect = `SELECT k.id, k.repo_id, (SELECT MIN(k2.id) FROM deploy_key k2 WHERE k2.fingerprint = k.fingerprint),
	k.name, k.fingerprint, k.content, k.read_only, k.created_unix, k.updated_unix FROM deploy_key k `

func scanDeployKey(row scanner) (*DeployKey, error) {
	k := &DeployKey{}
	var c, u int64
	if err := row.Scan(&k.ID, &k.RepoID, &k.KeyID, &k.Name, &k.Fingerprint, &k.Content, &k.ReadOnly, &c, &u); err != nil {
		return nil, err
	}
	k.Created, k.Updated = time.Unix(c, 0), time.Unix(u, 0)
	return k, nil
}

// AddDeployKey adds an SSH key to repository repoID. It answers 422 (as
// Gitea does) when the content is not a valid key, when the key is already a
// deploy key of this repository, when the title is taken in this repository
// and when the key belongs to an account.
func (s *Service) AddDeployKey(ctx context.Context, repoID int64, title, content string, readOnly bool) (*DeployKey, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, errs.InvalidField("title", "[Title]: Required")
	}
	if len([]rune(title)) > 50 {
		return nil, errs.InvalidField("title", "[Title]: MaxSize (at most 50 characters)")
	}
	norm, fp, err := user.ParseSSHKey(content)
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return nil, errs.InvalidField("key", "Invalid key content: %s", e.Message)
		}
		return nil, err
	}
	now := db.Now()
	k := &DeployKey{RepoID: repoID, Name: title, Fingerprint: fp, Content: norm, ReadOnly: readOnly,
		Created: time.Unix(now, 0), Updated: time.Unix(now, 0)}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.users.GetKeyByFingerprint(ctx, fp); err == nil {
			return errs.Invalid("Key content has been used as non-deploy key")
		} else if !errs.IsNotFound(err) {
			return err
		}
		if ok, err := s.db.Exists(ctx, "SELECT 1 FROM deploy_key WHERE repo_id = ? AND fingerprint = ?", repoID, fp); err != nil {
			return err
		} else if ok {
			return errs.Invalid("This key has already been added to this repository")
		}
		if ok, err := s.db.Exists(ctx, "SELECT 1 FROM deploy_key WHERE repo_id = ? AND name = ?", repoID, title); err != nil {
			return err
		} else if ok {
			return errs.Invalid("A key with the same name already exists")
		}
		id, err := s.db.Insert(ctx, "INSERT INTO deploy_key (repo_id, name, fingerprint, content, read_only, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
			repoID, title, fp, norm, readOnly, now, now)
		if db.IsUniqueViolation(err) {
			return errs.Invalid("This key has already been added to this repository")
		}
		if err != nil {
			return err
		}
		k.ID = id
		return s.db.QueryRow(ctx, "SELECT MIN(id) FROM deploy_key WHERE fingerprint = ?", fp).Scan(&k.KeyID)
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// ListDeployKeys returns a page of the deploy keys of repository repoID
// (oldest first) and their total count: two queries.
func (s *Service) ListDeployKeys(ctx context.Context, repoID int64, o DeployKeyListOptions) ([]*DeployKey, int64, error) {
	where, args := "k.repo_id = ?", []any{repoID}
	if o.Fingerprint != "" {
		where += " AND k.fingerprint = ?"
		args = append(args, o.Fingerprint)
	}
	if o.KeyID != 0 {
		where += " AND k.fingerprint IN (SELECT k3.fingerprint FROM deploy_key k3 WHERE k3.id = ?)"
		args = append(args, o.KeyID)
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM deploy_key k WHERE "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.Query(ctx, deployKeySelect+"WHERE "+where+" ORDER BY k.id"+db.LimitOffset(o.Limit, o.Offset), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*DeployKey
	for rows.Next() {
		k, err := scanDeployKey(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, k)
	}
	return out, total, rows.Err()
}

// GetDeployKey loads deploy key id of repository repoID; a key of another
// repository is not found.
func (s *Service) GetDeployKey(ctx context.Context, repoID, id int64) (*DeployKey, error) {
	k, err := scanDeployKey(s.db.QueryRow(ctx, deployKeySelect+"WHERE k.id = ? AND k.repo_id = ?", id, repoID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("deploy key does not exist [id: %d]", id)
	}
	return k, err
}

// DeployKeyFor returns the deploy key with the given SHA256 fingerprint on
// repository repoID (not found when the key has no access there).
func (s *Service) DeployKeyFor(ctx context.Context, repoID int64, fingerprint string) (*DeployKey, error) {
	k, err := scanDeployKey(s.db.QueryRow(ctx, deployKeySelect+"WHERE k.repo_id = ? AND k.fingerprint = ?", repoID, fingerprint))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("deploy key does not exist")
	}
	return k, err
}

// IsDeployKey reports whether the key with this SHA256 fingerprint is a
// deploy key of at least one repository.
func (s *Service) IsDeployKey(ctx context.Context, fingerprint string) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM deploy_key WHERE fingerprint = ?", fingerprint)
}

// DeleteDeployKey removes deploy key id from repository repoID.
func (s *Service) DeleteDeployKey(ctx context.Context, repoID, id int64) error {
	res, err := s.db.Exec(ctx, "DELETE FROM deploy_key WHERE id = ? AND repo_id = ?", id, repoID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFound("deploy key does not exist [id: %d]", id)
	}
	return nil
}

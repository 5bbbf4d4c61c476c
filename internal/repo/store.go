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

// Columns is the select list Scan reads, for repository alias "r" joined
// with its owner as users alias "o".
const Columns = `r.id, r.owner_id, o.name, r.name, r.lower_name, COALESCE(r.description, ''), r.website, r.original_url,
	r.default_branch, r.object_format, r.is_private, r.is_empty, r.is_archived, r.is_mirror, r.is_fork, r.fork_id,
	r.is_template, r.template_id, r.size, COALESCE(r.units, ''), COALESCE(r.settings, ''), r.num_watches, r.num_stars,
	r.num_forks, r.num_issues, r.num_closed_issues, r.num_pulls, r.num_closed_pulls, r.num_milestones,
	r.num_closed_milestones, r.num_releases, r.status, r.created_unix, r.updated_unix, r.archived_unix, r.avatar`

// From is the FROM clause matching Columns.
const From = " FROM repository r JOIN users o ON o.id = r.owner_id "

type scanner interface{ Scan(dest ...any) error }

// Scan reads one row selected with Columns.
func Scan(row scanner) (*Repository, error) {
	r := &Repository{}
	var units, settings string
	var created, updated, archived int64
	err := row.Scan(&r.ID, &r.OwnerID, &r.OwnerName, &r.Name, &r.LowerName, &r.Description, &r.Website, &r.OriginalURL,
		&r.DefaultBranch, &r.ObjectFormat, &r.IsPrivate, &r.IsEmpty, &r.IsArchived, &r.IsMirror, &r.IsFork, &r.ForkID,
		&r.IsTemplate, &r.TemplateID, &r.Size, &units, &settings, &r.NumWatches, &r.NumStars,
		&r.NumForks, &r.NumIssues, &r.NumClosedIssues, &r.NumPulls, &r.NumClosedPulls, &r.NumMilestones,
		&r.NumClosedMilestones, &r.NumReleases, &r.Status, &created, &updated, &archived, &r.Avatar)
	if err != nil {
		return nil, err
	}
	r.Units = decodeUnits(units)
	r.Settings = decodeSettings(settings)
	r.Created, r.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	if archived > 0 {
		r.Archived = time.Unix(archived, 0)
	}
	return r, nil
}

// Store reads and writes the repository table.
type Store struct{ db *db.DB }

// NewStore returns a Store.
func NewStore(d *db.DB) *Store { return &Store{db: d} }

// ErrNotExist is the error for a repository ownerName/name that does not
// exist. The API answers exactly the same for one the caller may not see.
func ErrNotExist(ownerName, name string) *errs.Error {
	return errs.NotFound("repository does not exist [owner: %s, name: %s]", ownerName, name)
}

// ErrIDNotExist is ErrNotExist for a repository id: it names nothing else.
func ErrIDNotExist(id int64) *errs.Error {
	return errs.NotFound("repository does not exist [id: %d]", id)
}

func (s *Store) one(ctx context.Context, notFound error, where string, args ...any) (*Repository, error) {
	r, err := Scan(s.db.QueryRow(ctx, "SELECT "+Columns+From+"WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	return r, err
}

// GetByID loads a repository by id.
func (s *Store) GetByID(ctx context.Context, id int64) (*Repository, error) {
	return s.one(ctx, ErrIDNotExist(id), "r.id = ?", id)
}

// scanFunc adapts a function to the row scanner interface.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// ownerColumns is user.Columns for the owner, alias "o".
var ownerColumns = strings.ReplaceAll(user.Columns, "u.", "o.")

// GetWithOwner loads ownerName/name (case-insensitive) and the account that
// owns it in one query.
func (s *Store) GetWithOwner(ctx context.Context, ownerName, name string) (*Repository, *user.User, error) {
	row := s.db.QueryRow(ctx, "SELECT "+Columns+", "+ownerColumns+From+"WHERE o.lower_name = ? AND r.lower_name = ?",
		strings.ToLower(ownerName), strings.ToLower(name))
	var owner *user.User
	r, err := Scan(scanFunc(func(repoDest ...any) error {
		u, err := user.Scan(row, repoDest...)
		owner = u
		return err
	}))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotExist(ownerName, name)
	}
	if err != nil {
		return nil, nil, err
	}
	return r, owner, nil
}

// GetByName loads ownerName/name (case-insensitive).
func (s *Store) GetByName(ctx context.Context, ownerName, name string) (*Repository, error) {
	return s.one(ctx, ErrNotExist(ownerName, name), "o.lower_name = ? AND r.lower_name = ?",
		strings.ToLower(ownerName), strings.ToLower(name))
}

// GetByIDs loads many repositories keyed by id.
func (s *Store) GetByIDs(ctx context.Context, ids []int64) (map[int64]*Repository, error) {
	out := map[int64]*Repository{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.List(ctx, "WHERE r.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	for _, r := range list {
		out[r.ID] = r
	}
	return out, err
}

// List selects repositories with the given tail (WHERE/ORDER/LIMIT) over aliases r and o.
func (s *Store) List(ctx context.Context, tail string, args ...any) ([]*Repository, error) {
	rows, err := s.db.Query(ctx, "SELECT "+Columns+From+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Repository
	for rows.Next() {
		r, err := Scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Count counts repositories matching where over aliases r and o.
func (s *Store) Count(ctx context.Context, where string, args ...any) (int64, error) {
	return s.db.Count(ctx, "SELECT COUNT(*)"+From+"WHERE "+where, args...)
}

// Insert stores a new repository and sets its id.
func (s *Store) Insert(ctx context.Context, r *Repository) error {
	now := time.Now()
	r.Created, r.Updated = now, now
	r.LowerName = strings.ToLower(r.Name)
	id, err := s.db.Insert(ctx, `INSERT INTO repository (owner_id, name, lower_name, description, website, original_url,
		default_branch, object_format, is_private, is_empty, is_archived, is_mirror, is_fork, fork_id, is_template, template_id,
		units, settings, status, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.OwnerID, r.Name, r.LowerName, r.Description, r.Website, r.OriginalURL, r.DefaultBranch, r.ObjectFormat,
		r.IsPrivate, r.IsEmpty, r.IsArchived, r.IsMirror, r.IsFork, r.ForkID, r.IsTemplate, r.TemplateID,
		encodeUnits(r.Units), encodeSettings(r.Settings), r.Status, now.Unix(), now.Unix())
	if db.IsUniqueViolation(err) {
		return errs.Conflict("The repository with the same name already exists.")
	}
	r.ID = id
	return err
}

// Update writes the editable columns of r.
func (s *Store) Update(ctx context.Context, r *Repository) error {
	r.Updated = time.Now()
	r.LowerName = strings.ToLower(r.Name)
	var archived int64
	if r.IsArchived && !r.Archived.IsZero() {
		archived = r.Archived.Unix()
	}
	_, err := s.db.Exec(ctx, `UPDATE repository SET owner_id = ?, name = ?, lower_name = ?, description = ?, website = ?,
		original_url = ?, default_branch = ?, is_private = ?, is_empty = ?, is_archived = ?, is_mirror = ?, is_fork = ?,
		fork_id = ?, is_template = ?, units = ?, settings = ?, status = ?, updated_unix = ?, archived_unix = ? WHERE id = ?`,
		r.OwnerID, r.Name, r.LowerName, r.Description, r.Website, r.OriginalURL, r.DefaultBranch, r.IsPrivate, r.IsEmpty,
		r.IsArchived, r.IsMirror, r.IsFork, r.ForkID, r.IsTemplate, encodeUnits(r.Units), encodeSettings(r.Settings),
		r.Status, r.Updated.Unix(), archived, r.ID)
	if db.IsUniqueViolation(err) {
		return errs.Conflict("The repository with the same name already exists.")
	}
	return err
}

// AddToCounter adjusts a num_* column by delta.
func (s *Store) AddToCounter(ctx context.Context, id int64, column string, delta int) error {
	switch column {
	case "num_watches", "num_stars", "num_forks", "num_issues", "num_closed_issues", "num_pulls", "num_closed_pulls",
		"num_milestones", "num_closed_milestones", "num_releases":
	default:
		return errors.New("repo: unknown counter " + column)
	}
	_, err := s.db.Exec(ctx, "UPDATE repository SET "+column+" = "+column+" + ? WHERE id = ?", delta, id)
	return err
}

// SetAvatar records the uploaded avatar file of repository id ("" for none).
func (s *Store) SetAvatar(ctx context.Context, id int64, name string) error {
	_, err := s.db.Exec(ctx, "UPDATE repository SET avatar = ? WHERE id = ?", name, id)
	return err
}

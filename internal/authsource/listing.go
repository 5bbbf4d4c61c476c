package authsource

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Listed is a stored source as the administration lists it: the source
// itself, or, when this binary cannot use it (a kind it lacks, settings it
// cannot read), its name and flags without settings and the reason.
type Listed struct {
	*Source
	// Problem says why this binary cannot use the source ("": it can); the
	// Source's Config is then nil.
	Problem string
}

const listedColumns = "id, type, name, is_active, is_sync_enabled, created_unix, updated_unix"

// scanListed reads the columns of listedColumns.
func scanListed(row scanner) (*Source, error) {
	src := &Source{}
	var created, updated int64
	if err := row.Scan(&src.ID, &src.Type, &src.Name, &src.IsActive, &src.IsSyncEnabled, &created, &updated); err != nil {
		return nil, err
	}
	src.Created, src.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return src, nil
}

// ListAll returns every stored source, by id, those this binary cannot use
// included (with their Problem), so they can still be seen and deleted.
func (s *Service) ListAll(ctx context.Context) ([]Listed, error) {
	rows, err := s.db.Query(ctx, "SELECT "+listedColumns+" FROM login_source ORDER BY id")
	if err != nil {
		return nil, err
	}
	var bare []*Source
	for rows.Next() {
		src, err := scanListed(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		bare = append(bare, src)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Listed, 0, len(bare))
	for _, b := range bare {
		l, err := s.complete(ctx, b)
		if errs.IsNotFound(err) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Lookup returns the stored source id as the administration shows it (with
// its Problem when this binary cannot use it).
func (s *Service) Lookup(ctx context.Context, id int64) (Listed, error) {
	b, err := scanListed(s.db.QueryRow(ctx, "SELECT "+listedColumns+" FROM login_source WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Listed{}, ErrNotExist(id)
	}
	if err != nil {
		return Listed{}, err
	}
	return s.complete(ctx, b)
}

// complete reads the settings of the source b, or says why it cannot.
func (s *Service) complete(ctx context.Context, b *Source) (Listed, error) {
	src, err := s.Get(ctx, b.ID)
	var bad *badSource
	if errors.As(err, &bad) {
		return Listed{Source: b, Problem: bad.Error()}, nil
	}
	if err != nil {
		return Listed{}, err
	}
	return Listed{Source: src}, nil
}

// Package release keeps a repository's releases: drafts, published and
// pre-releases, the tag-only rows standing for tags pushed without a
// release (Gitea's is_tag releases), and release assets, which are
// attachment rows with release_id set and files in the attachment store.
package release

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/storage"
)

// Release is one row of the releases table.
type Release struct {
	ID          int64
	RepoID      int64
	PublisherID int64
	TagName     string
	// Target is the branch or commit the tag was (or will be) created at.
	Target string
	Title  string
	// SHA1 is the commit of the tag; empty for a draft whose tag does not exist.
	SHA1         string
	NumCommits   int64
	Note         string
	IsDraft      bool
	IsPrerelease bool
	// IsTag marks a tag-only row: a tag with no release.
	IsTag   bool
	Created time.Time
}

// Event kinds raised to listeners.
const (
	EventPublished = "published"
	EventUpdated   = "updated"
	EventDeleted   = "deleted"
)

// Event tells listeners (webhooks, notifications) about a release change.
type Event struct {
	Kind    string
	Release *Release
	DoerID  int64
}

// Listener receives release events inside the transaction of their change
// (to record an outbox row, such as a webhook delivery); an error undoes
// the change.
type Listener func(ctx context.Context, e Event) error

// Service is the release domain service.
type Service struct {
	db        *db.DB
	issues    *issue.Service
	files     storage.Store
	listeners []Listener
}

// NewService returns a release service. Assets are attachments: issues
// reads, renames and deletes them, files is the attachment file store.
func NewService(d *db.DB, issues *issue.Service, files storage.Store) *Service {
	return &Service{db: d, issues: issues, files: files}
}

// AddListener registers a listener; call it only while wiring.
func (s *Service) AddListener(l Listener) { s.listeners = append(s.listeners, l) }

func (s *Service) notify(ctx context.Context, e Event) error {
	for _, l := range s.listeners {
		if err := l(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

const columns = "r.id, r.repo_id, r.publisher_id, r.tag_name, r.target, r.title, r.sha1, r.num_commits, r.note, r.is_draft, r.is_prerelease, r.is_tag, r.created_unix"

type scanner interface{ Scan(...any) error }

func scan(row scanner) (*Release, error) {
	rel := &Release{}
	var note sql.NullString
	var created int64
	if err := row.Scan(&rel.ID, &rel.RepoID, &rel.PublisherID, &rel.TagName, &rel.Target, &rel.Title, &rel.SHA1, &rel.NumCommits,
		&note, &rel.IsDraft, &rel.IsPrerelease, &rel.IsTag, &created); err != nil {
		return nil, err
	}
	rel.Note, rel.Created = note.String, time.Unix(created, 0)
	return rel, nil
}

func (s *Service) one(ctx context.Context, missing error, where string, args ...any) (*Release, error) {
	rel, err := scan(s.db.QueryRow(ctx, "SELECT "+columns+" FROM releases r WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, missing
	}
	return rel, err
}

// GetByID loads release id of repository repoID (tag-only rows included).
func (s *Service) GetByID(ctx context.Context, repoID, id int64) (*Release, error) {
	return s.one(ctx, errs.NotFound("release does not exist [id: %d]", id), "r.repo_id = ? AND r.id = ?", repoID, id)
}

// GetByTag loads the release (or tag-only row) of a tag.
func (s *Service) GetByTag(ctx context.Context, repoID int64, tag string) (*Release, error) {
	return s.one(ctx, errs.NotFound("release does not exist [tag: %s]", tag), "r.repo_id = ? AND r.tag_name = ?", repoID, tag)
}

// ListOptions selects releases; tag-only rows are never listed.
type ListOptions struct {
	// Drafts includes drafts (only for writers of the releases unit).
	Drafts bool
	// Draft and Prerelease filter when set.
	Draft, Prerelease *bool
	Offset, Limit     int
}

func (o ListOptions) where(repoID int64) (string, []any) {
	w, args := "r.repo_id = ? AND r.is_tag = ?", []any{repoID, false}
	if !o.Drafts {
		w += " AND r.is_draft = ?"
		args = append(args, false)
	}
	if o.Draft != nil {
		w += " AND r.is_draft = ?"
		args = append(args, *o.Draft)
	}
	if o.Prerelease != nil {
		w += " AND r.is_prerelease = ?"
		args = append(args, *o.Prerelease)
	}
	return w, args
}

// List returns a page of releases, newest first, and the total count.
func (s *Service) List(ctx context.Context, repoID int64, o ListOptions) ([]*Release, int64, error) {
	w, args := o.where(repoID)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM releases r WHERE "+w, args...)
	if err != nil || total == 0 {
		return nil, total, err
	}
	q := "SELECT " + columns + " FROM releases r WHERE " + w + " ORDER BY r.created_unix DESC, r.id DESC"
	if o.Limit > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, o.Limit, o.Offset)
	}
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*Release
	for rows.Next() {
		rel, err := scan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, rel)
	}
	return out, total, rows.Err()
}

// Latest returns the newest published release that is not a pre-release.
func (s *Service) Latest(ctx context.Context, repoID int64) (*Release, error) {
	f := false
	list, _, err := s.List(ctx, repoID, ListOptions{Draft: &f, Prerelease: &f, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errs.NotFound("release does not exist [latest]")
	}
	return list[0], nil
}

// Assets returns the assets of many releases in one query.
func (s *Service) Assets(ctx context.Context, ids []int64) (map[int64][]*issue.Attachment, error) {
	out := map[int64][]*issue.Attachment{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.issues.ListAttachments(ctx, "WHERE a.release_id IN "+db.In(len(ids))+" ORDER BY a.id", db.Int64Args(ids)...)
	for _, at := range list {
		out[at.ReleaseID] = append(out[at.ReleaseID], at)
	}
	return out, err
}

// updateCount recomputes the repository's num_releases (published, not tag-only).
func (s *Service) updateCount(ctx context.Context, repoID int64) error {
	_, err := s.db.Exec(ctx, `UPDATE repository SET num_releases = (SELECT COUNT(*) FROM releases
		WHERE repo_id = ? AND is_tag = ? AND is_draft = ?) WHERE id = ?`, repoID, false, false, repoID)
	return err
}

// ValidTagName reports whether name may name a release's tag.
func ValidTagName(name string) bool {
	return name != "" && !strings.HasPrefix(name, "-") && len(name) <= 255
}

package webhook

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gobwas/glob"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Hook types Cairn delivers to: gitea and gogs get the payload as it is,
// the others a message in their service's format.
var hookTypes = []string{"gitea", "gogs", "slack", "discord", "dingtalk", "telegram", "msteams", "feishu", "matrix", "wechatwork", "packagist"}

// ValidType reports whether t is a known hook type.
func ValidType(t string) bool { return slices.Contains(hookTypes, t) }

// ContentType is how a payload is sent: JSON, or a form with payload=.
type ContentType int

// The content types of Gitea.
const (
	ContentJSON ContentType = 1
	ContentForm ContentType = 2
)

// ParseContentType reads "json" or "form".
func ParseContentType(s string) (ContentType, bool) {
	switch s {
	case "json":
		return ContentJSON, true
	case "form":
		return ContentForm, true
	}
	return 0, false
}

func (c ContentType) String() string {
	if c == ContentForm {
		return "form"
	}
	return "json"
}

// Delivery states of a hook (its last delivery).
const (
	StatusNone    = 0
	StatusSucceed = 1
	StatusFail    = 2
)

// Hook is one webhook. Exactly one scope applies: RepoID (a repository's),
// OwnerID (a user's or organization's, for all their repositories), or
// neither: a system hook (IsSystem, fires for every repository) or a
// default hook (copied into each new repository).
type Hook struct {
	ID           int64
	RepoID       int64
	OwnerID      int64
	IsSystem     bool
	Type         string
	URL          string
	HTTPMethod   string
	ContentType  ContentType
	Secret       string // plain text; stored encrypted
	AuthHeader   string // plain text; stored encrypted
	Events       Events
	BranchFilter string
	Meta         string // type-specific settings (JSON)
	Active       bool
	LastStatus   int
	// FailingSince is when the deliveries started failing without a
	// success since (zero: not failing).
	FailingSince   time.Time
	DisabledReason string
	Created        time.Time
	Updated        time.Time
}

// CheckBranchFilter compiles a branch_filter glob ("" and "*" match all).
func CheckBranchFilter(f string) error {
	if f == "" || f == "*" {
		return nil
	}
	if _, err := glob.Compile(f); err != nil {
		return errs.InvalidField("branch_filter", "Invalid branch filter %q: %v", f, err)
	}
	return nil
}

// matchBranch reports whether the hook's branch filter lets branch through.
func (h *Hook) matchBranch(branch string) bool {
	if h.BranchFilter == "" || h.BranchFilter == "*" || branch == "" {
		return true
	}
	g, err := glob.Compile(h.BranchFilter)
	return err == nil && g.Match(branch)
}

// wants reports whether the hook takes an event of type e on branch.
func (h *Hook) wants(e EventType, branch string) bool {
	if !h.Active || !h.Events.Has(e) {
		return false
	}
	return !e.filtersBranch() || h.matchBranch(branch)
}

// Scope selects the hooks of one owner: a repository, a user or
// organization, or the instance (admin hooks).
type Scope struct {
	RepoID  int64
	OwnerID int64
}

func (sc Scope) where() (string, []any) {
	switch {
	case sc.RepoID != 0:
		return "repo_id = ?", []any{sc.RepoID}
	case sc.OwnerID != 0:
		return "repo_id = 0 AND owner_id = ?", []any{sc.OwnerID}
	}
	return "repo_id = 0 AND owner_id = 0", nil
}

const hookColumns = `id, repo_id, owner_id, is_system, hook_type, url, http_method, content_type, secret_enc, auth_header_enc,
	events, branch_filter, meta, is_active, last_status, failing_since_ms, disabled_reason, created_unix, updated_unix`

// hookColumnsOf is hookColumns qualified with a table alias.
func hookColumnsOf(alias string) string {
	cols := strings.Split(hookColumns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

type scanner interface{ Scan(dest ...any) error }

// scanHook reads a row of hookColumns, after the columns of before (if any).
func (s *Service) scanHook(sc scanner, before ...any) (*Hook, error) {
	var h Hook
	var secret, auth, filter, meta, reason sql.NullString
	var events string
	var failing, created, updated int64
	var ct int
	if err := sc.Scan(append(before, &h.ID, &h.RepoID, &h.OwnerID, &h.IsSystem, &h.Type, &h.URL, &h.HTTPMethod, &ct, &secret, &auth,
		&events, &filter, &meta, &h.Active, &h.LastStatus, &failing, &reason, &created, &updated)...); err != nil {
		return nil, err
	}
	h.ContentType = ContentType(ct)
	h.Events = decodeEvents(events)
	h.BranchFilter, h.Meta, h.DisabledReason = filter.String, meta.String, reason.String
	if failing != 0 {
		h.FailingSince = time.UnixMilli(failing)
	}
	h.Created, h.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	var err error
	if h.Secret, err = s.box.Open(secret.String); err != nil {
		return nil, err
	}
	if h.AuthHeader, err = s.box.Open(auth.String); err != nil {
		return nil, err
	}
	return &h, nil
}

// ErrNotFound is returned for a hook that does not exist in the scope.
var ErrNotFound = errs.NotFound("webhook not found")

// Get returns the hook id of scope sc.
func (s *Service) Get(ctx context.Context, sc Scope, id int64) (*Hook, error) {
	where, args := sc.where()
	h, err := s.scanHook(s.db.QueryRow(ctx, "SELECT "+hookColumns+" FROM webhook WHERE id = ? AND "+where, append([]any{id}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return h, err
}

// List returns a page of the hooks of sc, oldest first, and their total.
func (s *Service) List(ctx context.Context, sc Scope, limit, offset int) ([]*Hook, int64, error) {
	where, args := sc.where()
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM webhook WHERE "+where, args...)
	if err != nil || total == 0 {
		return nil, total, err
	}
	hooks, err := s.query(ctx, "SELECT "+hookColumns+" FROM webhook WHERE "+where+" ORDER BY id"+limitOffset(limit, offset), args...)
	return hooks, total, err
}

func limitOffset(limit, offset int) string {
	if limit <= 0 {
		return ""
	}
	return " LIMIT " + itoa(int64(limit)) + " OFFSET " + itoa(int64(offset))
}

func (s *Service) query(ctx context.Context, q string, args ...any) ([]*Hook, error) {
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Hook
	for rows.Next() {
		h, err := s.scanHook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// validate checks what the API cannot: type, URL (scheme and allow list),
// method and branch filter.
func (s *Service) validate(h *Hook) error {
	if !ValidType(h.Type) {
		return errs.InvalidField("type", "Invalid hook type: %s", h.Type)
	}
	if err := s.client.ValidateURL(h.URL); err != nil {
		return errs.InvalidField("config.url", "Invalid hook url: %v", err)
	}
	h.HTTPMethod = strings.ToUpper(h.HTTPMethod)
	if h.HTTPMethod == "" {
		h.HTTPMethod = "POST"
	}
	if h.HTTPMethod != "POST" && h.HTTPMethod != "GET" && h.HTTPMethod != "PUT" {
		return errs.InvalidField("config.http_method", "Invalid HTTP method: %s", h.HTTPMethod)
	}
	if h.ContentType != ContentJSON && h.ContentType != ContentForm {
		return errs.InvalidField("config.content_type", "Invalid content type")
	}
	return CheckBranchFilter(h.BranchFilter)
}

// Create stores a new hook.
func (s *Service) Create(ctx context.Context, h *Hook) error {
	if err := s.validate(h); err != nil {
		return err
	}
	return s.insert(ctx, h)
}

func (s *Service) insert(ctx context.Context, h *Hook) error {
	secret, err := s.box.Seal(h.Secret)
	if err != nil {
		return err
	}
	auth, err := s.box.Seal(h.AuthHeader)
	if err != nil {
		return err
	}
	now := s.now()
	h.Created, h.Updated = now.Truncate(time.Second), now.Truncate(time.Second)
	h.ID, err = s.db.Insert(ctx, `INSERT INTO webhook (repo_id, owner_id, is_system, hook_type, url, http_method, content_type,
		secret_enc, auth_header_enc, events, branch_filter, meta, is_active, created_unix, updated_unix)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		h.RepoID, h.OwnerID, h.IsSystem, h.Type, h.URL, h.HTTPMethod, int(h.ContentType), secret, auth,
		h.Events.encode(), h.BranchFilter, h.Meta, h.Active, now.Unix(), now.Unix())
	return err
}

// Update stores h's settings. Turning a hook on clears its failure mark.
func (s *Service) Update(ctx context.Context, h *Hook) error {
	if err := s.validate(h); err != nil {
		return err
	}
	secret, err := s.box.Seal(h.Secret)
	if err != nil {
		return err
	}
	auth, err := s.box.Seal(h.AuthHeader)
	if err != nil {
		return err
	}
	if h.Active && h.DisabledReason != "" { // turned on again: a fresh start
		h.DisabledReason, h.FailingSince = "", time.Time{}
	}
	var failing int64
	if !h.FailingSince.IsZero() {
		failing = h.FailingSince.UnixMilli()
	}
	now := s.now()
	h.Updated = now.Truncate(time.Second)
	_, err = s.db.Exec(ctx, `UPDATE webhook SET is_system = ?, url = ?, http_method = ?, content_type = ?, secret_enc = ?,
		auth_header_enc = ?, events = ?, branch_filter = ?, meta = ?, is_active = ?, disabled_reason = ?, failing_since_ms = ?,
		updated_unix = ? WHERE id = ?`,
		h.IsSystem, h.URL, h.HTTPMethod, int(h.ContentType), secret, auth, h.Events.encode(), h.BranchFilter, h.Meta,
		h.Active, h.DisabledReason, failing, now.Unix(), h.ID)
	return err
}

// Delete removes hook id of sc and its deliveries.
func (s *Service) Delete(ctx context.Context, sc Scope, id int64) error {
	where, args := sc.where()
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "DELETE FROM webhook WHERE id = ? AND "+where, append([]any{id}, args...)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = s.db.Exec(ctx, "DELETE FROM hook_task WHERE hook_id = ?", id)
		return err
	})
}

// DeleteRepoHooks removes the hooks of a deleted repository (a repository
// delete hook); DeleteOwnerHooks those of a deleted user or organization.
func (s *Service) DeleteRepoHooks(ctx context.Context, repoID int64) error {
	return s.deleteWhere(ctx, "repo_id = ?", repoID)
}

// DeleteOwnerHooks removes the hooks of a deleted user or organization.
func (s *Service) DeleteOwnerHooks(ctx context.Context, ownerID int64) error {
	return s.deleteWhere(ctx, "repo_id = 0 AND owner_id = ?", ownerID)
}

func (s *Service) deleteWhere(ctx context.Context, where string, id int64) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM hook_task WHERE hook_id IN (SELECT id FROM webhook WHERE "+where+")", id); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "DELETE FROM webhook WHERE "+where, id)
	return err
}

// CopyDefaultHooks gives a new repository a copy of each default hook
// (admin hooks that are not system hooks), as Gitea does.
func (s *Service) CopyDefaultHooks(ctx context.Context, repoID int64) error {
	defaults, err := s.query(ctx, "SELECT "+hookColumns+" FROM webhook WHERE repo_id = 0 AND owner_id = 0 AND is_system = ?", false)
	if err != nil {
		return err
	}
	for _, d := range defaults {
		c := *d
		c.ID, c.RepoID, c.LastStatus, c.FailingSince, c.DisabledReason = 0, repoID, StatusNone, time.Time{}, ""
		if err := s.insert(ctx, &c); err != nil {
			return err
		}
	}
	return nil
}

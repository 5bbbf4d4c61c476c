package user

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Columns is the select list that Scan reads, in order, for table alias "u".
const Columns = `u.id, u.type, u.name, u.lower_name, u.full_name, u.email, u.keep_email_private,
	COALESCE(u.passwd, ''), u.must_change_password, u.login_type, u.login_source, u.login_name,
	u.is_admin, u.is_restricted, u.is_active, u.prohibit_login, u.visibility, u.location, u.website,
	COALESCE(u.description, ''), u.language, u.theme, u.diff_view_style, u.hide_activity, u.allow_git_hook,
	u.allow_import_local, u.allow_create_organization, u.max_repo_creation, u.repo_admin_change_team_access,
	u.num_followers, u.num_following, u.num_stars, u.num_repos, u.created_unix, u.updated_unix, u.last_login_unix, u.avatar`

type scanner interface{ Scan(dest ...any) error }

// Scan reads one row selected with Columns (extra leading destinations may be given in extra).
func Scan(row scanner, extra ...any) (*User, error) {
	u := &User{}
	var created, updated, lastLogin int64
	dest := append(extra, &u.ID, &u.Type, &u.Name, &u.LowerName, &u.FullName, &u.Email, &u.KeepEmailPrivate,
		&u.PasswdHash, &u.MustChangePassword, &u.LoginType, &u.LoginSource, &u.LoginName,
		&u.IsAdmin, &u.IsRestricted, &u.IsActive, &u.ProhibitLogin, &u.Visibility, &u.Location, &u.Website,
		&u.Description, &u.Language, &u.Theme, &u.DiffViewStyle, &u.HideActivity, &u.AllowGitHook,
		&u.AllowImportLocal, &u.AllowCreateOrganization, &u.MaxRepoCreation, &u.RepoAdminChangeTeamAccess,
		&u.NumFollowers, &u.NumFollowing, &u.NumStars, &u.NumRepos, &created, &updated, &lastLogin, &u.Avatar)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	u.Created = time.Unix(created, 0)
	u.Updated = time.Unix(updated, 0)
	if lastLogin > 0 {
		u.LastLogin = time.Unix(lastLogin, 0)
	}
	return u, nil
}

// Store reads and writes the users table.
type Store struct {
	db *db.DB
}

// NewStore returns a Store over d.
func NewStore(d *db.DB) *Store { return &Store{db: d} }

// ErrNameNotExist is the error for an account name that does not exist. The
// API answers exactly the same for an account the caller may not see.
func ErrNameNotExist(name string) *errs.Error {
	return errs.NotFound("user does not exist [name: %s]", name)
}

// ErrIDNotExist is ErrNameNotExist for an account id.
func ErrIDNotExist(id int64) *errs.Error { return errs.NotFound("user does not exist [uid: %d]", id) }

func (s *Store) one(ctx context.Context, notFound error, where string, args ...any) (*User, error) {
	u, err := Scan(s.db.QueryRow(ctx, "SELECT "+Columns+" FROM users u WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	return u, err
}

// GetByID loads an account or organization by id.
func (s *Store) GetByID(ctx context.Context, id int64) (*User, error) {
	return s.one(ctx, ErrIDNotExist(id), "u.id = ?", id)
}

// GetByName loads an account or organization by name (case-insensitive).
func (s *Store) GetByName(ctx context.Context, name string) (*User, error) {
	return s.one(ctx, ErrNameNotExist(name), "u.lower_name = ?", strings.ToLower(name))
}

// GetByEmail loads the account whose primary or secondary address is email.
func (s *Store) GetByEmail(ctx context.Context, email string) (*User, error) {
	return s.one(ctx, errs.NotFound("user with e-mail %s does not exist", quote(email)),
		"u.id = (SELECT e.uid FROM email_address e WHERE e.lower_email = ?)", strings.ToLower(email))
}

func quote(s string) string { return "[" + s + "]" }

// GetByIDs loads many accounts at once, keyed by id. Ids that do not exist are absent.
func (s *Store) GetByIDs(ctx context.Context, ids []int64) (map[int64]*User, error) {
	out := make(map[int64]*User, len(ids))
	ids = uniqueIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT "+Columns+" FROM users u WHERE u.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		u, err := Scan(rows)
		if err != nil {
			return nil, err
		}
		out[u.ID] = u
	}
	return out, rows.Err()
}

func uniqueIDs(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if id > 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// List runs a query selecting Columns ("SELECT <cols> FROM users u ..." is
// built from the given tail) and returns the users in order.
func (s *Store) List(ctx context.Context, tail string, args ...any) ([]*User, error) {
	rows, err := s.db.Query(ctx, "SELECT "+Columns+" FROM users u "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*User
	for rows.Next() {
		u, err := Scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// Insert stores a new account or organization and sets its id.
func (s *Store) Insert(ctx context.Context, u *User) error {
	now := time.Now()
	u.Created, u.Updated = now, now
	u.LowerName = strings.ToLower(u.Name)
	id, err := s.db.Insert(ctx, `INSERT INTO users (type, name, lower_name, full_name, email, keep_email_private, passwd,
		must_change_password, login_type, login_source, login_name, is_admin, is_restricted, is_active, prohibit_login,
		visibility, location, website, description, language, theme, diff_view_style, hide_activity, allow_git_hook, allow_import_local,
		allow_create_organization, max_repo_creation, repo_admin_change_team_access, created_unix, updated_unix)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.Type, u.Name, u.LowerName, u.FullName, u.Email, u.KeepEmailPrivate, u.PasswdHash,
		u.MustChangePassword, u.LoginType, u.LoginSource, u.LoginName, u.IsAdmin, u.IsRestricted, u.IsActive, u.ProhibitLogin,
		u.Visibility, u.Location, u.Website, u.Description, u.Language, u.Theme, u.DiffViewStyle, u.HideActivity, u.AllowGitHook, u.AllowImportLocal,
		u.AllowCreateOrganization, u.MaxRepoCreation, u.RepoAdminChangeTeamAccess, now.Unix(), now.Unix())
	if db.IsUniqueViolation(err) {
		return errs.AlreadyExists("user %s already exists", quote(u.Name)).WithStatus(422)
	}
	u.ID = id
	return err
}

// Update writes every editable column of u.
func (s *Store) Update(ctx context.Context, u *User) error {
	u.Updated = time.Now()
	u.LowerName = strings.ToLower(u.Name)
	_, err := s.db.Exec(ctx, `UPDATE users SET name = ?, lower_name = ?, full_name = ?, email = ?, keep_email_private = ?,
		passwd = ?, must_change_password = ?, login_type = ?, login_source = ?, login_name = ?, is_admin = ?, is_restricted = ?,
		is_active = ?, prohibit_login = ?, visibility = ?, location = ?, website = ?, description = ?, language = ?, theme = ?,
		diff_view_style = ?, hide_activity = ?, allow_git_hook = ?, allow_import_local = ?, allow_create_organization = ?,
		max_repo_creation = ?, repo_admin_change_team_access = ?, updated_unix = ? WHERE id = ?`,
		u.Name, u.LowerName, u.FullName, u.Email, u.KeepEmailPrivate, u.PasswdHash, u.MustChangePassword, u.LoginType,
		u.LoginSource, u.LoginName, u.IsAdmin, u.IsRestricted, u.IsActive, u.ProhibitLogin, u.Visibility, u.Location,
		u.Website, u.Description, u.Language, u.Theme, u.DiffViewStyle, u.HideActivity, u.AllowGitHook, u.AllowImportLocal,
		u.AllowCreateOrganization, u.MaxRepoCreation, u.RepoAdminChangeTeamAccess, u.Updated.Unix(), u.ID)
	if db.IsUniqueViolation(err) {
		return errs.AlreadyExists("user %s already exists", quote(u.Name)).WithStatus(422)
	}
	return err
}

// AddToCounter adjusts one of the num_* counters of an account by delta.
func (s *Store) AddToCounter(ctx context.Context, id int64, column string, delta int) error {
	switch column {
	case "num_followers", "num_following", "num_stars", "num_repos":
	default:
		return errors.New("user: unknown counter " + column)
	}
	_, err := s.db.Exec(ctx, "UPDATE users SET "+column+" = "+column+" + ? WHERE id = ?", delta, id)
	return err
}

// TouchLastLogin records a successful interactive sign-in.
func (s *Store) TouchLastLogin(ctx context.Context, id int64) error {
	_, err := s.db.Exec(ctx, "UPDATE users SET last_login_unix = ? WHERE id = ?", db.Now(), id)
	return err
}

// SetAvatar records the uploaded avatar file of account id ("" for the default).
func (s *Store) SetAvatar(ctx context.Context, id int64, name string) error {
	_, err := s.db.Exec(ctx, "UPDATE users SET avatar = ? WHERE id = ?", name, id)
	return err
}

package user

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
)

// DeleteHook lets a package that holds data owned by a user take part in the
// user's deletion: CheckDelete refuses while data remains (unless purging), and
// Purge, run once every check passed, removes what the user owns and what
// refers to them. Hooks are given while wiring, in cmd/cairn.
type DeleteHook interface {
	CheckDelete(ctx context.Context, u *User) error
	Purge(ctx context.Context, u *User) error
}

// Service applies the account rules on top of Store.
type Service struct {
	db     *db.DB
	Store  *Store
	params password.Params
	minPw  int
	hooks  []DeleteHook
	guard  Throttle
	// external checks accounts of sign-in sources (nil: none); avatars
	// stores the avatars they give (nil: ignored).
	external ExternalSources
	avatars  ExternalAvatars
}

// Throttle guards password checks against guessing (auth.Throttle).
type Throttle interface {
	// Begin asks to check a password of login for a caller at client (a
	// network address as in http.Request.RemoteAddr); it refuses with a 429
	// error, or lets the check go on and is told by done whether it failed.
	Begin(ctx context.Context, login, client string) (done func(failed bool), err error)
}

// Options configures a Service.
type Options struct {
	PasswordParams    password.Params
	MinPasswordLength int
	DeleteHooks       []DeleteHook
	// Throttle, when set, limits failed password checks.
	Throttle Throttle
}

// NewService returns the account service.
func NewService(d *db.DB, o Options) *Service {
	if o.PasswordParams.MemoryKiB == 0 {
		o.PasswordParams = password.Default
	}
	if o.MinPasswordLength < 1 {
		o.MinPasswordLength = 1
	}
	return &Service{db: d, Store: NewStore(d), params: o.PasswordParams, minPw: o.MinPasswordLength, hooks: o.DeleteHooks, guard: o.Throttle}
}

// AddDeleteHook registers a participant in user deletion. Call it only while wiring.
func (s *Service) AddDeleteHook(h DeleteHook) { s.hooks = append(s.hooks, h) }

// CreateOptions describes a new account.
type CreateOptions struct {
	Name      string
	Email     string
	Password  string
	FullName  string
	LoginName string
	SourceID  int64
	// LoginType is the type of the sign-in source SourceID (0: local). An
	// account of a source may have no password.
	LoginType          int
	MustChangePassword bool
	IsAdmin            bool
	IsRestricted       bool
	Visibility         Visibility
	Active             bool
}

// HashPassword validates and hashes a new password.
func (s *Service) HashPassword(pw string) (string, error) {
	if len(pw) < s.minPw {
		return "", errs.InvalidField("password", "password is too short: at least %d characters", s.minPw)
	}
	if len(pw) > 1024 {
		return "", errs.InvalidField("password", "password is too long")
	}
	return password.Hash(pw, s.params)
}

// Create validates and stores a new account with its primary e-mail address.
func (s *Service) Create(ctx context.Context, o CreateOptions) (*User, error) {
	if err := ValidateName(o.Name); err != nil {
		return nil, err
	}
	o.Email = strings.TrimSpace(o.Email)
	if err := ValidateEmail(o.Email); err != nil {
		return nil, err
	}
	if err := ValidateFullName(o.FullName); err != nil {
		return nil, err
	}
	hash := ""
	if o.SourceID == 0 || o.Password != "" {
		var err error
		if hash, err = s.HashPassword(o.Password); err != nil {
			return nil, err
		}
	}
	u := &User{
		Type: TypeIndividual, Name: o.Name, Email: o.Email, FullName: o.FullName, PasswdHash: hash,
		MustChangePassword: o.MustChangePassword, IsAdmin: o.IsAdmin, IsRestricted: o.IsRestricted,
		Visibility: o.Visibility, IsActive: o.Active, LoginName: o.LoginName, LoginSource: o.SourceID,
		LoginType: o.LoginType, AllowCreateOrganization: true, MaxRepoCreation: -1,
	}
	if u.LoginName == "" {
		u.LoginName = o.Name
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.checkNameFree(ctx, u.Name); err != nil {
			return err
		}
		if err := s.checkEmailFree(ctx, u.Email, 0); err != nil {
			return err
		}
		if err := s.Store.Insert(ctx, u); err != nil {
			return err
		}
		return s.insertEmail(ctx, u.ID, u.Email, true)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// checkNameFree refuses a name that an account or organization already has.
func (s *Service) checkNameFree(ctx context.Context, name string) error {
	ok, err := s.db.Exists(ctx, "SELECT 1 FROM users WHERE lower_name = ?", strings.ToLower(name))
	if err != nil {
		return err
	}
	if ok {
		return errs.AlreadyExists("user already exists [name: %s]", name).WithStatus(422)
	}
	return nil
}

// CheckNameFree is checkNameFree for other packages (organization creation).
func (s *Service) CheckNameFree(ctx context.Context, name string) error {
	return s.checkNameFree(ctx, name)
}

func (s *Service) checkEmailFree(ctx context.Context, email string, exceptUID int64) error {
	ok, err := s.db.Exists(ctx, "SELECT 1 FROM email_address WHERE lower_email = ? AND uid <> ?", strings.ToLower(email), exceptUID)
	if err != nil {
		return err
	}
	if ok {
		return errs.AlreadyExists("e-mail address has been used [email: %s]", email).WithStatus(422)
	}
	return nil
}

func (s *Service) insertEmail(ctx context.Context, uid int64, email string, primary bool) error {
	_, err := s.db.Insert(ctx, "INSERT INTO email_address (uid, email, lower_email, is_primary, is_activated) VALUES (?, ?, ?, ?, ?)",
		uid, email, strings.ToLower(email), primary, true)
	if db.IsUniqueViolation(err) {
		return errs.AlreadyExists("e-mail address has been used [email: %s]", email).WithStatus(422)
	}
	return err
}

// Authenticate checks a login (user name or e-mail) and password given by a
// caller at client (http.Request.RemoteAddr). Every password sign-in goes
// through here, so the Throttle sees them all: a login or address with too
// many recent failures is refused (429) before the password is verified.
// Accounts of a sign-in source are checked by their source; an unknown
// login is tried against the active sources and, when one accepts it,
// registered. A source that cannot be asked refuses with 401 without the
// failure counting toward the lock-out.
func (s *Service) Authenticate(ctx context.Context, login, pw, client string) (*User, error) {
	done, err := s.beginCheck(ctx, login, client)
	if err != nil {
		return nil, err
	}
	u, failed, err := s.authenticate(ctx, login, pw)
	done(failed)
	return u, err
}

// beginCheck asks the Throttle, if any, to check a password of login.
func (s *Service) beginCheck(ctx context.Context, login, client string) (func(failed bool), error) {
	if s.guard == nil {
		return func(bool) {}, nil
	}
	return s.guard.Begin(ctx, login, client)
}

// authenticate checks login and pw; failed tells whether the refusal counts
// as a failed password check.
func (s *Service) authenticate(ctx context.Context, login, pw string) (*User, bool, error) {
	if strings.ContainsRune(login, 0) { // no account has one; PostgreSQL cannot even compare it
		password.Verify(dummyHash, pw)
		return nil, true, errs.Unauthorized("user does not exist or password is wrong")
	}
	var u *User
	var err error
	if strings.Contains(login, "@") {
		u, err = s.Store.GetByEmail(ctx, login)
	} else {
		u, err = s.Store.GetByName(ctx, login)
	}
	if err != nil && !errs.IsNotFound(err) {
		return nil, false, err
	}
	switch {
	case err != nil && s.external != nil:
		return s.authenticateExternal(ctx, nil, login, pw)
	case err == nil && u.Type == TypeIndividual && u.LoginSource != 0 && s.external != nil:
		return s.authenticateExternal(ctx, u, login, pw)
	}
	if err != nil || u.IsOrganization() || u.PasswdHash == "" {
		// Spend the same time as a real check so names cannot be probed by timing.
		password.Verify(dummyHash, pw)
		return nil, true, errs.Unauthorized("user does not exist or password is wrong")
	}
	if !password.Verify(u.PasswdHash, pw) {
		return nil, true, errs.Unauthorized("user does not exist or password is wrong")
	}
	return u, false, nil
}

// dummyHash is verified against for unknown users to equalize timing; it uses
// the default parameters and matches no password.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$Y2Fpcm4tdGltaW5nLXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// ChangePassword sets a new password after checking the old one (which has
// no length rule); the check is throttled like a sign-in of u from client.
func (s *Service) ChangePassword(ctx context.Context, u *User, oldPw, newPw, client string) error {
	done, err := s.beginCheck(ctx, u.Name, client)
	if err != nil {
		return err
	}
	ok := password.Verify(u.PasswdHash, oldPw)
	done(!ok)
	if !ok {
		return errs.InvalidField("old_password", "the old password is not correct")
	}
	return s.SetPassword(ctx, u, newPw, false)
}

// SetPassword replaces the password without checking the old one (admin, CLI).
func (s *Service) SetPassword(ctx context.Context, u *User, newPw string, mustChange bool) error {
	hash, err := s.HashPassword(newPw)
	if err != nil {
		return err
	}
	u.PasswdHash = hash
	u.MustChangePassword = mustChange
	_, err = s.db.Exec(ctx, "UPDATE users SET passwd = ?, must_change_password = ?, updated_unix = ? WHERE id = ?",
		hash, mustChange, db.Now(), u.ID)
	return err
}

// SetMustChangePassword sets (or clears) the forced password change of the
// named accounts, or of every account when names is empty, leaving out those
// in exclude; it returns how many accounts it updated. A name that is no
// account is an error and nothing changes.
func (s *Service) SetMustChangePassword(ctx context.Context, value bool, names, exclude []string) (int64, error) {
	var n int64
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		where, args := "type = 0", []any{}
		if len(names) > 0 {
			var ids []string
			for _, name := range names {
				u, err := s.Store.GetByName(ctx, name)
				if err != nil {
					return err
				}
				if u.IsOrganization() {
					return errs.Invalid("%s is an organization", u.Name)
				}
				ids = append(ids, "?")
				args = append(args, u.ID)
			}
			where += " AND id IN (" + strings.Join(ids, ",") + ")"
		}
		for _, name := range exclude {
			where += " AND lower_name <> ?"
			args = append(args, strings.ToLower(name))
		}
		// Counted apart: MySQL reports only the rows whose value changed.
		var err error
		if n, err = s.db.Count(ctx, "SELECT COUNT(*) FROM users WHERE "+where, args...); err != nil {
			return err
		}
		_, err = s.db.Exec(ctx, "UPDATE users SET must_change_password = ? WHERE "+where, append([]any{value}, args...)...)
		return err
	})
	return n, err
}

// SetPrimaryEmail changes the primary address of u, adding it if needed.
func (s *Service) SetPrimaryEmail(ctx context.Context, u *User, email string) error {
	email = strings.TrimSpace(email)
	if strings.EqualFold(email, u.Email) {
		return nil
	}
	if err := ValidateEmail(email); err != nil {
		return err
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.checkEmailFree(ctx, email, u.ID); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, "UPDATE email_address SET is_primary = ? WHERE uid = ?", false, u.ID); err != nil {
			return err
		}
		res, err := s.db.Exec(ctx, "UPDATE email_address SET is_primary = ?, email = ? WHERE uid = ? AND lower_email = ?", true, email, u.ID, strings.ToLower(email))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if err := s.insertEmail(ctx, u.ID, email, true); err != nil {
				return err
			}
		}
		u.Email = email
		_, err = s.db.Exec(ctx, "UPDATE users SET email = ?, updated_unix = ? WHERE id = ?", email, db.Now(), u.ID)
		return err
	})
}

// CountAdmins counts active site administrators.
func (s *Service) CountAdmins(ctx context.Context) (int64, error) {
	return s.db.Count(ctx, "SELECT COUNT(*) FROM users WHERE type = 0 AND is_admin = ?", true)
}

// Delete removes the account u. Unless purge is set, it refuses while u owns
// repositories or belongs to organizations; it always refuses the last admin.
// The caller checks that the doer may delete u (and is not u).
func (s *Service) Delete(ctx context.Context, u *User, purge bool) error {
	if u.IsOrganization() {
		return errs.Invalid("%s is an organization", u.Name)
	}
	if u.IsAdmin {
		n, err := s.CountAdmins(ctx)
		if err != nil {
			return err
		}
		if n <= 1 {
			return errs.Invalid("can not delete the last admin user [uid: %d]", u.ID)
		}
	}
	// Every guard is asked before anything is removed; then each hook removes
	// what the user owns (with purge) or what merely refers to them.
	if !purge {
		for _, h := range s.hooks {
			if err := h.CheckDelete(ctx, u); err != nil {
				return err
			}
		}
	}
	for _, h := range s.hooks {
		if err := h.Purge(ctx, u); err != nil {
			return err
		}
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		// Keep the follow counters of the other side right.
		if _, err := s.db.Exec(ctx, "UPDATE users SET num_followers = num_followers - 1 WHERE id IN (SELECT follow_id FROM follow WHERE user_id = ?)", u.ID); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, "UPDATE users SET num_following = num_following - 1 WHERE id IN (SELECT user_id FROM follow WHERE follow_id = ?)", u.ID); err != nil {
			return err
		}
		for _, q := range []string{
			"DELETE FROM follow WHERE user_id = ? OR follow_id = ?",
		} {
			if _, err := s.db.Exec(ctx, q, u.ID, u.ID); err != nil {
				return err
			}
		}
		for _, q := range []string{
			"DELETE FROM email_address WHERE uid = ?",
			"DELETE FROM access_token WHERE uid = ?",
			"DELETE FROM public_key WHERE owner_id = ?",
			"DELETE FROM team_user WHERE uid = ?",
			"DELETE FROM org_user WHERE uid = ?",
			"DELETE FROM users WHERE id = ?",
		} {
			if _, err := s.db.Exec(ctx, q, u.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rename gives u a new name, with the same rules as a new account.
func (s *Service) Rename(ctx context.Context, u *User, newName string) error {
	if err := ValidateName(newName); err != nil {
		return err
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if !strings.EqualFold(newName, u.Name) {
			if err := s.checkNameFree(ctx, newName); err != nil {
				return err
			}
		}
		u.Name = newName
		u.LowerName = strings.ToLower(newName)
		_, err := s.db.Exec(ctx, "UPDATE users SET name = ?, lower_name = ?, updated_unix = ? WHERE id = ?", u.Name, u.LowerName, db.Now(), u.ID)
		return err
	})
}

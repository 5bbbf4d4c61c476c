package user

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
)

// ExternalAccount is what a sign-in source (internal/authsource) says about
// one of its users.
type ExternalAccount struct {
	SourceID   int64
	SourceType int
	// LoginName is the name the source knows the user by (what is checked
	// at their next sign-in); Name is the account name to create.
	LoginName string
	Name      string
	// NameFromLogin says Name was made from the login (SMTP's local part),
	// so another user of the source may have it: it never signs into an
	// existing account, whose name it would only share.
	NameFromLogin bool
	FullName      string
	Email         string
	// SSHKeys are the user's public keys in the directory; nil when the
	// source maps no key attribute (the account's keys are then left alone).
	SSHKeys []string
	// IsAdmin and IsRestricted are nil when the source does not manage them.
	IsAdmin      *bool
	IsRestricted *bool
	// Avatar is the image the source holds for the user (nil: none, the
	// account's avatar is left alone).
	Avatar []byte
}

// ExternalAvatars stores an avatar image given by a sign-in source as the
// account's avatar (cmd/cairn wires it to the avatar files).
type ExternalAvatars interface {
	SetExternalAvatar(ctx context.Context, u *User, image []byte) error
}

// SetExternalAvatars lets avatars from sign-in sources be stored. Call it
// only while wiring.
func (s *Service) SetExternalAvatars(a ExternalAvatars) { s.avatars = a }

// applyAvatar stores the source's avatar of u, if any, outside any
// transaction (it writes a file); an image that cannot be used is logged,
// never a reason to refuse the sign-in.
func (s *Service) applyAvatar(ctx context.Context, u *User, ea *ExternalAccount) {
	if s.avatars == nil || len(ea.Avatar) == 0 {
		return
	}
	if err := s.avatars.SetExternalAvatar(ctx, u, ea.Avatar); err != nil {
		slog.Warn("the avatar from the sign-in source cannot be used", "user", u.Name, "source_id", ea.SourceID, "err", err)
	}
}

// ExternalSources checks passwords of accounts that sign in through a
// sign-in source. A wrong login or password is an errs.Unauthorized error;
// a source that could not answer (directory down, misconfigured) is an
// error wrapping ErrSourceUnavailable, already logged by the source.
type ExternalSources interface {
	// Check checks an account of the source sourceID by its login name.
	Check(ctx context.Context, sourceID int64, loginName, pw string) (*ExternalAccount, error)
	// CheckAny tries login and pw against every active source in turn.
	CheckAny(ctx context.Context, login, pw string) (*ExternalAccount, error)
}

// ErrSourceUnavailable marks a sign-in refused because its source could not
// be asked: it answers 401 like a wrong password but is not counted as a
// failed password check.
var ErrSourceUnavailable = errors.New("the sign-in source could not be reached")

// SetExternalSources lets accounts of sign-in sources authenticate and
// unknown logins be tried against the active sources. Call it only while wiring.
func (s *Service) SetExternalSources(x ExternalSources) { s.external = x }

// authenticateExternal checks an account of a source (u) or, with u nil, an
// unknown login against every source, registering the account it finds.
func (s *Service) authenticateExternal(ctx context.Context, u *User, login, pw string) (*User, bool, error) {
	var ea *ExternalAccount
	var err error
	if pw == "" {
		err = errs.Unauthorized("empty password")
	} else if u != nil {
		ea, err = s.external.Check(ctx, u.LoginSource, u.LoginName, pw)
	} else {
		ea, err = s.external.CheckAny(ctx, login, pw)
	}
	if err != nil {
		// The same work as a local check, whatever the reason.
		password.Verify(dummyHash, pw)
		counted := !errors.Is(err, ErrSourceUnavailable)
		if !errs.Is(err, errs.KindUnauthorized) && counted {
			return nil, false, err
		}
		return nil, counted, errs.Unauthorized("user does not exist or password is wrong")
	}
	if u == nil {
		// The source's user may already have an account of that source,
		// reached now by another login (an e-mail address the account
		// does not have yet): that account signs in. Not when the name
		// was only made from the login (bob@a.org and bob@b.org are two
		// people): the registration below then refuses the taken name.
		if known, kerr := s.Store.GetByName(ctx, ea.Name); kerr == nil && !ea.NameFromLogin && known.Type == TypeIndividual && known.LoginSource == ea.SourceID {
			if _, err := s.ApplyExternal(ctx, known, ea, false); err != nil {
				return nil, false, err
			}
			return known, false, nil
		}
		u, err = s.RegisterExternal(ctx, ea)
		if err != nil {
			if errs.Is(err, errs.KindInternal) {
				return nil, false, err
			}
			// The source's user cannot become an account here (its name or
			// e-mail address is taken): refused, and said in the log.
			slog.Warn("sign-in refused: the source's user cannot be registered", "source_id", ea.SourceID, "name", ea.Name, "err", err)
			return nil, false, errs.Unauthorized("user does not exist or password is wrong")
		}
		return u, false, nil
	}
	if _, err := s.ApplyExternal(ctx, u, ea, false); err != nil {
		return nil, false, err
	}
	return u, false, nil
}

// RegisterExternal creates the account of a source's user: no local
// password, the source's login name, its flags and keys. An e-mail address
// is made up from the name when the source has none.
func (s *Service) RegisterExternal(ctx context.Context, ea *ExternalAccount) (*User, error) {
	email := strings.TrimSpace(ea.Email)
	if email == "" {
		email = ea.Name + "@localhost.local"
	}
	var u *User
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		var err error
		u, err = s.Create(ctx, CreateOptions{
			Name: ea.Name, Email: email, FullName: ea.FullName, LoginName: ea.LoginName, SourceID: ea.SourceID,
			LoginType: ea.SourceType, IsAdmin: ea.IsAdmin != nil && *ea.IsAdmin,
			IsRestricted: ea.IsRestricted != nil && *ea.IsRestricted, Active: true,
		})
		if err != nil {
			return err
		}
		if ea.SSHKeys != nil {
			_, err = s.replaceSourceKeys(ctx, u.ID, ea.SourceID, ea.SSHKeys)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.applyAvatar(ctx, u, ea)
	return u, nil
}

// ApplyExternal brings u in line with its source: admin and restricted
// flags (when the source manages them) and the keys copied from the
// directory, at every sign-in; with full (synchronisation) also the full
// name and e-mail address, and the account is active again. It reports
// whether anything changed.
func (s *Service) ApplyExternal(ctx context.Context, u *User, ea *ExternalAccount, full bool) (bool, error) {
	changed := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		dirty := false
		if ea.IsAdmin != nil && *ea.IsAdmin != u.IsAdmin {
			u.IsAdmin, dirty = *ea.IsAdmin, true
		}
		if ea.IsRestricted != nil && *ea.IsRestricted != u.IsRestricted {
			u.IsRestricted, dirty = *ea.IsRestricted, true
		}
		if full {
			if ea.FullName != u.FullName && ValidateFullName(ea.FullName) == nil {
				u.FullName, dirty = ea.FullName, true
			}
			if !u.IsActive {
				u.IsActive, dirty = true, true
			}
			if email := strings.TrimSpace(ea.Email); email != "" && !strings.EqualFold(email, u.Email) {
				if err := s.SetPrimaryEmail(ctx, u, email); err != nil {
					return err
				}
				changed = true
			}
		}
		if dirty {
			if err := s.Store.Update(ctx, u); err != nil {
				return err
			}
			changed = true
		}
		if ea.SSHKeys != nil {
			keys, err := s.replaceSourceKeys(ctx, u.ID, ea.SourceID, ea.SSHKeys)
			if err != nil {
				return err
			}
			changed = changed || keys
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	before := u.Avatar
	s.applyAvatar(ctx, u, ea)
	return changed || u.Avatar != before, nil
}

// replaceSourceKeys makes the keys of uid copied from source sourceID
// exactly keys (unparsable keys and keys another account or a deploy key
// holds are skipped); keys the user added are never touched. It reports
// whether anything changed.
func (s *Service) replaceSourceKeys(ctx context.Context, uid, sourceID int64, keys []string) (bool, error) {
	want := map[string]string{} // fingerprint -> normalized content
	for _, k := range keys {
		norm, fp, err := ParseSSHKey(k)
		if err == nil {
			want[fp] = norm
		}
	}
	rows, err := s.db.Query(ctx, "SELECT id, fingerprint FROM public_key WHERE owner_id = ? AND login_source_id = ?", uid, sourceID)
	if err != nil {
		return false, err
	}
	have := map[string]int64{}
	for rows.Next() {
		var id int64
		var fp string
		if err := rows.Scan(&id, &fp); err != nil {
			rows.Close()
			return false, err
		}
		have[fp] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	changed := false
	for fp, id := range have {
		if _, ok := want[fp]; !ok {
			if _, err := s.db.Exec(ctx, "DELETE FROM public_key WHERE id = ?", id); err != nil {
				return false, err
			}
			changed = true
		}
	}
	fps := make([]string, 0, len(want))
	for fp := range want {
		fps = append(fps, fp)
	}
	slices.Sort(fps)
	for _, fp := range fps {
		if _, ok := have[fp]; ok {
			continue
		}
		taken, err := s.db.Exists(ctx, "SELECT 1 FROM public_key WHERE fingerprint = ? UNION ALL SELECT 1 FROM deploy_key WHERE fingerprint = ?", fp, fp)
		if err != nil {
			return false, err
		}
		if taken {
			continue
		}
		now := db.Now()
		title := "source-" + fp[len(fp)-8:]
		if _, err := s.db.Insert(ctx, "INSERT INTO public_key (owner_id, name, fingerprint, content, key_type, mode, login_source_id, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			uid, title, fp, want[fp], "user", 2, sourceID, now, now); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

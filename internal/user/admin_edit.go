package user

import (
	"context"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// AdminEditOptions are a site administrator's changes to an account (the
// API's PATCH /admin/users/{username} and the administration pages): nil
// fields, an empty Visibility, LoginName, Password or Email stay as they are.
type AdminEditOptions struct {
	FullName    *string
	Website     *string
	Location    *string
	Description *string
	Visibility  string
	LoginName   *string
	SourceID    *int64
	// LoginType is the type of the source SourceID (set with it).
	LoginType *int

	Admin                   *bool
	Active                  *bool
	AllowGitHook            *bool
	AllowImportLocal        *bool
	AllowCreateOrganization *bool
	ProhibitLogin           *bool
	Restricted              *bool
	MustChangePassword      *bool
	MaxRepoCreation         *int

	// Password replaces the password; must_change_password changes only
	// when MustChangePassword is given, as in Gitea.
	Password string
	// Email becomes the primary address.
	Email *string
}

// editText checks the length of an optional text field and sets it trimmed.
func editText(dst *string, src *string, field, title string, n int) error {
	if src == nil {
		return nil
	}
	if len([]rune(*src)) > n {
		return errs.InvalidField(field, "[%s]: MaxSize (at most %d characters)", title, n)
	}
	*dst = strings.TrimSpace(*src)
	return nil
}

// AdminEdit applies o to u and stores it. The last site administrator
// cannot lose the flag; password and e-mail refusals answer 400, as in
// Gitea. The caller checks that the doer is a site administrator.
func (s *Service) AdminEdit(ctx context.Context, u *User, o AdminEditOptions) error {
	for _, f := range []struct {
		dst, src     *string
		field, title string
		n            int
	}{
		{&u.FullName, o.FullName, "full_name", "FullName", 100},
		{&u.Website, o.Website, "website", "Website", 255},
		{&u.Location, o.Location, "location", "Location", 50},
		{&u.Description, o.Description, "description", "Description", 255},
	} {
		if err := editText(f.dst, f.src, f.field, f.title, f.n); err != nil {
			return err
		}
	}
	if err := ValidateWebsite(u.Website); err != nil {
		return err
	}
	if o.FullName != nil {
		if err := ValidateFullName(u.FullName); err != nil {
			return err
		}
	}
	if o.Visibility != "" {
		v, ok := ParseVisibility(o.Visibility)
		if !ok {
			return errs.InvalidField("visibility", "[Visibility]: In (must be one of public, limited, private; got %q)", o.Visibility)
		}
		u.Visibility = v
	}
	if o.LoginName != nil && *o.LoginName != "" {
		u.LoginName = *o.LoginName
	}
	if o.SourceID != nil {
		u.LoginSource = *o.SourceID
	}
	if o.LoginType != nil {
		u.LoginType = *o.LoginType
	}
	if o.Admin != nil && !*o.Admin && u.IsAdmin {
		n, err := s.CountAdmins(ctx)
		if err != nil {
			return err
		}
		if n <= 1 {
			return errs.BadRequest("can not delete the last admin user [uid: %d]", u.ID)
		}
	}
	setBool := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setBool(&u.IsAdmin, o.Admin)
	setBool(&u.IsActive, o.Active)
	setBool(&u.AllowGitHook, o.AllowGitHook)
	setBool(&u.AllowImportLocal, o.AllowImportLocal)
	setBool(&u.AllowCreateOrganization, o.AllowCreateOrganization)
	setBool(&u.ProhibitLogin, o.ProhibitLogin)
	setBool(&u.IsRestricted, o.Restricted)
	setBool(&u.MustChangePassword, o.MustChangePassword)
	if o.MaxRepoCreation != nil {
		u.MaxRepoCreation = *o.MaxRepoCreation
	}
	if o.Password != "" {
		if len([]rune(o.Password)) > 255 {
			return errs.InvalidField("password", "[Password]: MaxSize (at most 255 characters)")
		}
		hash, err := s.HashPassword(o.Password)
		if err != nil {
			if e, ok := err.(*errs.Error); ok && len(e.Fields) == 1 && e.Fields[0] == "password" {
				return e.WithStatus(http.StatusBadRequest)
			}
			return err
		}
		u.PasswdHash = hash
	}
	if o.Email != nil && *o.Email != "" {
		if err := s.SetPrimaryEmail(ctx, u, *o.Email); err != nil {
			if e, ok := err.(*errs.Error); ok && e.Kind != errs.KindInternal {
				return e.WithStatus(http.StatusBadRequest)
			}
			return err
		}
	}
	return s.Store.Update(ctx, u)
}

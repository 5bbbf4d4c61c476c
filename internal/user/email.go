package user

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Email is one address of an account.
type Email struct {
	UserID    int64
	Email     string
	Primary   bool
	Activated bool
}

// ListEmails returns every address of uid, primary first.
func (s *Service) ListEmails(ctx context.Context, uid int64) ([]Email, error) {
	rows, err := s.db.Query(ctx, "SELECT uid, email, is_primary, is_activated FROM email_address WHERE uid = ? ORDER BY is_primary DESC, id", uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Email
	for rows.Next() {
		var e Email
		if err := rows.Scan(&e.UserID, &e.Email, &e.Primary, &e.Activated); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// AddEmails adds secondary addresses to u; all are validated before any is stored.
func (s *Service) AddEmails(ctx context.Context, u *User, emails []string) ([]Email, error) {
	if len(emails) == 0 {
		return nil, errs.InvalidField("emails", "no e-mail addresses given")
	}
	seen := map[string]bool{}
	for _, e := range emails {
		if err := ValidateEmail(e); err != nil {
			return nil, err
		}
		if seen[strings.ToLower(e)] {
			return nil, errs.InvalidField("emails", "e-mail address %q is given twice", e)
		}
		seen[strings.ToLower(e)] = true
	}
	var out []Email
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, e := range emails {
			if err := s.checkEmailFree(ctx, e, 0); err != nil {
				return err
			}
			if err := s.insertEmail(ctx, u.ID, e, false); err != nil {
				return err
			}
			out = append(out, Email{UserID: u.ID, Email: e, Activated: true})
		}
		return nil
	})
	return out, err
}

// DeleteEmails removes secondary addresses of u. The primary address cannot be removed.
func (s *Service) DeleteEmails(ctx context.Context, u *User, emails []string) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, e := range emails {
			if strings.EqualFold(e, u.Email) {
				return errs.InvalidField("emails", "the primary e-mail address %q cannot be deleted", e)
			}
			res, err := s.db.Exec(ctx, "DELETE FROM email_address WHERE uid = ? AND lower_email = ? AND is_primary = ?", u.ID, strings.ToLower(e), false)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errs.NotFound("e-mail address %q does not exist", e)
			}
		}
		return nil
	})
}

package user

import (
	"context"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Activate marks u active (its owner followed an activation link). Only
// the first of concurrent activations succeeds; the others, and an
// account already active, get Unauthorized.
func (s *Service) Activate(ctx context.Context, u *User) error {
	res, err := s.db.Exec(ctx, "UPDATE users SET is_active = ?, updated_unix = ? WHERE id = ? AND is_active = ?",
		true, db.Now(), u.ID, false)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errs.Unauthorized("the account is active already")
	}
	u.IsActive = true
	return nil
}

// ResetPassword sets a new password (the password policy applies) through
// a reset link made for u as loaded then: it fails with Unauthorized when
// the password changed meanwhile (the link was used). A forced password
// change is no longer due. An inactive account stays inactive: Cairn does
// not tell one awaiting activation from one an administrator turned off.
func (s *Service) ResetPassword(ctx context.Context, u *User, newPw string) error {
	hash, err := s.HashPassword(newPw)
	if err != nil {
		return err
	}
	res, err := s.db.Exec(ctx, "UPDATE users SET passwd = ?, must_change_password = ?, updated_unix = ? WHERE id = ? AND passwd = ?",
		hash, false, db.Now(), u.ID, u.PasswdHash)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errs.Unauthorized("the link is invalid or has expired")
	}
	u.PasswdHash, u.MustChangePassword = hash, false
	return nil
}

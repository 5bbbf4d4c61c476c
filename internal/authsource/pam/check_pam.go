//go:build pam

package pam

import (
	"errors"
	"fmt"

	gopam "github.com/msteinert/pam/v2"

	"github.com/cairn-forge/cairn/internal/authsource"
)

// Built tells whether this binary can ask PAM.
const Built = true

// check runs an authentication and account check of login with pw through
// the PAM service; it returns the user name PAM ends with (modules may map
// it). ErrRejected when PAM refuses the user or the password.
func check(service, login, pw string) (string, error) {
	tx, err := gopam.StartFunc(service, login, func(style gopam.Style, msg string) (string, error) {
		switch style {
		case gopam.PromptEchoOff:
			return pw, nil
		case gopam.PromptEchoOn, gopam.ErrorMsg, gopam.TextInfo:
			return "", nil
		}
		return "", errConversation
	})
	if err != nil {
		return "", fmt.Errorf("start PAM service %q: %w", service, err)
	}
	defer tx.End()
	if err := tx.Authenticate(gopam.DisallowNullAuthtok); err != nil {
		return "", classify(service, "authentication", err)
	}
	if err := tx.AcctMgmt(gopam.DisallowNullAuthtok); err != nil {
		return "", classify(service, "account check", err)
	}
	name, err := tx.GetItem(gopam.User)
	if err != nil {
		return "", fmt.Errorf("PAM service %q: the user name: %w", service, err)
	}
	return name, nil
}

// classify tells PAM's refusals of the user from the failures of the stack.
func classify(service, step string, err error) error {
	var code gopam.Error
	if errors.As(err, &code) {
		switch code {
		case gopam.ErrAuth, gopam.ErrUserUnknown, gopam.ErrPermDenied, gopam.ErrMaxtries, gopam.ErrAcctExpired,
			gopam.ErrNewAuthtokReqd, gopam.ErrAuthtokExpired, gopam.ErrCredInsufficient:
			return authsource.ErrRejected
		}
	}
	return fmt.Errorf("PAM service %q, %s: %w", service, step, err)
}

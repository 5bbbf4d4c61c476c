// Package pam is the PAM sign-in source (type 4): a login and password are
// accepted when the host's PAM stack for the source's service accepts them
// (authentication and account checks). PAM needs cgo and libpam, so the
// check itself is built only with the build tag "pam"; without it the kind
// is still registered, and a stored PAM source is reported as not built
// into the binary rather than as unknown.
package pam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// ErrNotBuilt is the answer of a binary built without the "pam" tag.
var ErrNotBuilt = fmt.Errorf("PAM is not built into this binary (build it with cgo, libpam0g-dev and -tags pam): %w", authsource.ErrNotBuilt)

// Config is a PAM source's settings, with Gitea's field names.
type Config struct {
	// ServiceName names the PAM stack (/etc/pam.d/<ServiceName>).
	ServiceName string
	// EmailDomain makes a login without "@" the address login@EmailDomain
	// (empty: such accounts get a made-up address).
	EmailDomain string
	authsource.TwoFactorPolicy
}

// Kind is the PAM source kind for the registry; without the "pam" build
// tag its stored sources cannot be used and say so.
func Kind() authsource.Kind {
	return authsource.Kind{Type: authsource.TypePAM, Decode: func(raw []byte, _ authsource.Sealer) (authsource.Config, error) {
		if !Built {
			return nil, ErrNotBuilt
		}
		var c Config
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return &c, nil
	}, Form: form()}
}

// Encode returns the settings as stored (a PAM source holds no secret).
func (c *Config) Encode(authsource.Sealer) ([]byte, error) { return json.Marshal(c) }

// Validate checks the settings.
func (c *Config) Validate() error {
	if !Built {
		return ErrNotBuilt
	}
	c.ServiceName = strings.TrimSpace(c.ServiceName)
	c.EmailDomain = strings.TrimSpace(c.EmailDomain)
	switch {
	case c.ServiceName == "":
		return errs.InvalidField("service_name", "the PAM service name is required")
	case strings.ContainsAny(c.ServiceName, "/\\ \t\r\n\x00") || c.ServiceName == "." || c.ServiceName == "..":
		return errs.InvalidField("service_name", "%q is not a PAM service name (a file name under /etc/pam.d)", c.ServiceName)
	case strings.ContainsAny(c.EmailDomain, "@ \t\r\n\x00"):
		return errs.InvalidField("email_domain", "%q is not an e-mail domain", c.EmailDomain)
	}
	return nil
}

// Authenticate asks the PAM stack to accept login and password.
func (c *Config) Authenticate(ctx context.Context, login, pw string) (*authsource.ExternalUser, error) {
	if pw == "" || login == "" || len(login) > 255 || strings.ContainsAny(login, "\x00\r\n") || strings.ContainsRune(pw, 0) {
		return nil, authsource.ErrRejected
	}
	name, err := check(c.ServiceName, login, pw)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = login
	}
	eu := &authsource.ExternalUser{Name: name}
	if at := strings.LastIndexByte(name, '@'); at >= 0 {
		eu.Name, eu.Email, eu.NameFromLogin = name[:at], name, true
	} else if c.EmailDomain != "" {
		eu.Email = name + "@" + c.EmailDomain
	}
	return eu, nil
}

// errConversation is the answer to a PAM prompt Cairn cannot answer.
var errConversation = errors.New("the PAM stack asked something other than the password")

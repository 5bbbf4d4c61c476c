// Package smtp is the SMTP sign-in source (Gitea's type 3): a login and
// password are right when the mail server accepts them for SMTP AUTH. The
// account it signs into is named by the login's part before "@", with the
// login as its e-mail address, as in Gitea. It has nothing to list, so it
// is never synchronised.
package smtp

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	gosmtp "github.com/wneessen/go-mail/smtp"

	"github.com/cairn-forge/cairn/internal/authsource"
)

// Config is an SMTP source's settings, with Gitea's field names (its stored
// JSON reads the same). It holds no secret.
type Config struct {
	// Auth is the AUTH mechanism: PLAIN, LOGIN or CRAM-MD5.
	Auth string
	Host string
	Port int
	// AllowedDomains, comma-separated, limits the logins to e-mail
	// addresses of these domains; empty allows any login.
	AllowedDomains string
	// ForceSMTPS speaks TLS from the first byte (always on port 465);
	// otherwise STARTTLS is used when the server offers it.
	ForceSMTPS bool
	// SkipVerify accepts any server certificate.
	SkipVerify bool
	// HeloHostname is the name given in EHLO (empty: this host's name);
	// DisableHelo sends none of its own (the library's "localhost").
	HeloHostname string
	DisableHelo  bool
}

// Kinds is the SMTP source kind, for authsource.NewRegistry.
func Kinds() []authsource.Kind {
	return []authsource.Kind{{Type: authsource.TypeSMTP, Decode: func(raw []byte, _ authsource.Sealer) (authsource.Config, error) {
		var c Config
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return &c, nil
	}}}
}

// Encode returns the settings as stored.
func (c *Config) Encode(authsource.Sealer) ([]byte, error) { return json.Marshal(c) }

// Validate checks the settings before they are stored.
func (c *Config) Validate() error {
	c.Auth = strings.ToUpper(strings.TrimSpace(c.Auth))
	if c.Auth == "" {
		c.Auth = "PLAIN"
	}
	switch {
	case !slices.Contains([]string{"PLAIN", "LOGIN", "CRAM-MD5"}, c.Auth):
		return errors.New("auth type must be one of PLAIN, LOGIN or CRAM-MD5")
	case strings.TrimSpace(c.Host) == "":
		return errors.New("the host is required")
	case c.Port <= 0 || c.Port > 65535:
		return fmt.Errorf("port %d is not a port", c.Port)
	}
	return nil
}

// dialTimeout and talkTimeout bound one check: connecting, then the whole
// conversation.
const (
	dialTimeout = 10 * time.Second
	talkTimeout = 20 * time.Second
)

// Authenticate asks the server to accept login and pw for AUTH.
func (c *Config) Authenticate(ctx context.Context, login, pw string) (*authsource.ExternalUser, error) {
	if c.AllowedDomains != "" {
		_, domain, ok := strings.Cut(login, "@")
		allowed := false
		for _, d := range strings.Split(c.AllowedDomains, ",") {
			allowed = allowed || (ok && strings.EqualFold(strings.TrimSpace(d), domain))
		}
		if !allowed {
			return nil, authsource.ErrRejected
		}
	}
	if err := c.check(ctx, login, pw); err != nil {
		return nil, err
	}
	name, _, _ := strings.Cut(login, "@")
	u := &authsource.ExternalUser{Name: strings.ToLower(name)}
	if strings.Contains(login, "@") {
		u.Email = login
	}
	return u, nil
}

// check runs one SMTP conversation up to AUTH.
func (c *Config) check(ctx context.Context, login, pw string) error {
	addr := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	conn, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(talkTimeout))
	tlsConf := &tls.Config{ServerName: c.Host, InsecureSkipVerify: c.SkipVerify, MinVersion: tls.VersionTLS12} //nolint:gosec // the administrator's choice
	encrypted := c.ForceSMTPS || c.Port == 465
	if encrypted {
		conn = tls.Client(conn, tlsConf)
	}
	client, err := gosmtp.NewClient(conn, c.Host)
	if err != nil {
		return err
	}
	defer client.Close()
	if !c.DisableHelo {
		helo := c.HeloHostname
		if helo == "" {
			helo, _ = os.Hostname()
		}
		if err := client.Hello(helo); err != nil {
			return err
		}
	}
	if ok, _ := client.Extension("STARTTLS"); ok && !encrypted {
		if err := client.StartTLS(tlsConf); err != nil {
			return err
		}
	}
	if ok, _ := client.Extension("AUTH"); !ok {
		return errors.New("the SMTP server offers no AUTH")
	}
	var auth gosmtp.Auth
	switch c.Auth {
	case "LOGIN":
		auth = gosmtp.LoginAuth(login, pw, c.Host, false)
	case "CRAM-MD5":
		auth = gosmtp.CRAMMD5Auth(login, pw)
	default:
		auth = gosmtp.PlainAuth("", login, pw, c.Host, false)
	}
	err = client.Auth(auth)
	var tp *textproto.Error
	if errors.As(err, &tp) && tp.Code == 535 { // authentication credentials invalid
		return authsource.ErrRejected
	}
	if err == nil {
		_ = client.Quit()
	}
	return err
}

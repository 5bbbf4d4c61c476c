// Package smtp is the SMTP sign-in source (type 3): a login and password
// are accepted when an SMTP server accepts them in its AUTH exchange (PLAIN,
// LOGIN or CRAM-MD5), over implicit TLS (SMTPS) or STARTTLS when the server
// offers it. The login is the user's e-mail address; the account's name is
// its local part.
package smtp

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	netsmtp "net/smtp"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// The SMTP authentication mechanisms a source can use (Gitea's names).
const (
	AuthPlain   = "PLAIN"
	AuthLogin   = "LOGIN"
	AuthCRAMMD5 = "CRAM-MD5"
)

// ParseAuthType reads a mechanism name, ignoring case.
func ParseAuthType(name string) (string, bool) {
	for _, a := range []string{AuthPlain, AuthLogin, AuthCRAMMD5} {
		if strings.EqualFold(a, strings.TrimSpace(name)) {
			return a, true
		}
	}
	return "", false
}

// timeout bounds the connection and the whole exchange with the server.
const timeout = 10 * time.Second

// Config is an SMTP source's settings, with Gitea's field names.
type Config struct {
	// Auth is the mechanism: AuthPlain, AuthLogin or AuthCRAMMD5.
	Auth string
	Host string
	Port int
	// AllowedDomains is a comma-separated list of e-mail domains; a login
	// in none of them is refused without asking the server (empty: any).
	AllowedDomains string
	// ForceSMTPS speaks TLS from the first byte (always so on port 465);
	// otherwise STARTTLS is used whenever the server offers it.
	ForceSMTPS bool
	SkipVerify bool
	// HeloHostname is the name sent with EHLO (empty: this host's name);
	// DisableHelo sends none of Cairn's own (net/smtp then says "localhost").
	HeloHostname string
	DisableHelo  bool
	authsource.TwoFactorPolicy
}

// Kind is the SMTP source kind for the registry.
func Kind() authsource.Kind {
	return authsource.Kind{Type: authsource.TypeSMTP, Decode: func(raw []byte, _ authsource.Sealer) (authsource.Config, error) {
		var c Config
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return &c, nil
	}, Form: form()}
}

// Encode returns the settings as stored (an SMTP source holds no secret).
func (c *Config) Encode(authsource.Sealer) ([]byte, error) { return json.Marshal(c) }

// Validate checks the settings and brings the mechanism and domains to
// their canonical spelling.
func (c *Config) Validate() error {
	auth, ok := ParseAuthType(c.Auth)
	if !ok {
		return errs.InvalidField("auth_type", "the SMTP authentication type must be one of PLAIN, LOGIN or CRAM-MD5")
	}
	c.Auth = auth
	c.Host = strings.TrimSpace(c.Host)
	switch {
	case c.Host == "":
		return errs.InvalidField("host", "the SMTP host is required")
	case c.Port < 1 || c.Port > 65535:
		return errs.InvalidField("port", "the port must be between 1 and 65535")
	case strings.ContainsAny(c.HeloHostname, " \t\r\n"):
		return errs.InvalidField("helo_hostname", "the HELO host name must be one word")
	}
	domains := c.domains()
	for _, d := range domains {
		if strings.ContainsAny(d, "@ \t\r\n") {
			return errs.InvalidField("allowed_domains", "%q is not an e-mail domain", d)
		}
	}
	c.AllowedDomains = strings.Join(domains, ",")
	return nil
}

// domains is the list of allowed domains, trimmed, empty entries left out.
func (c *Config) domains() []string {
	var out []string
	for _, d := range strings.Split(c.AllowedDomains, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// domainAllowed tells whether login may be asked of the server.
func (c *Config) domainAllowed(login string) bool {
	domains := c.domains()
	if len(domains) == 0 {
		return true
	}
	at := strings.LastIndexByte(login, '@')
	if at < 0 {
		return false
	}
	for _, d := range domains {
		if strings.EqualFold(d, login[at+1:]) {
			return true
		}
	}
	return false
}

// Authenticate asks the server to accept login and password.
func (c *Config) Authenticate(ctx context.Context, login, pw string) (*authsource.ExternalUser, error) {
	if pw == "" || login == "" || strings.ContainsAny(login, "\x00\r\n") || !c.domainAllowed(login) {
		return nil, authsource.ErrRejected
	}
	var auth netsmtp.Auth
	switch c.Auth {
	case AuthPlain:
		auth = netsmtp.PlainAuth("", login, pw, c.Host)
	case AuthLogin:
		auth = &loginAuth{username: login, password: pw}
	case AuthCRAMMD5:
		auth = netsmtp.CRAMMD5Auth(login, pw)
	default:
		return nil, fmt.Errorf("unknown SMTP authentication type %q", c.Auth)
	}
	if err := c.exchange(ctx, auth); err != nil {
		var reply *textproto.Error
		// 535: credentials invalid; 534: the server wants another
		// mechanism or an application password (Gitea's reading too).
		if errors.As(err, &reply) && (reply.Code == 535 || reply.Code == 534) {
			return nil, authsource.ErrRejected
		}
		return nil, err
	}
	eu := &authsource.ExternalUser{Name: strings.ToLower(login), NameFromLogin: true}
	if at := strings.LastIndexByte(login, '@'); at >= 0 {
		eu.Name, eu.Email = strings.ToLower(login[:at]), login
	}
	return eu, nil
}

// exchange connects, greets, secures the connection and runs auth.
func (c *Config) exchange(ctx context.Context, auth netsmtp.Auth) error {
	addr := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	dialer := &net.Dialer{Deadline: deadline}
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	// InsecureSkipVerify: the administrator's --skip-verify.
	tlsConfig := &tls.Config{ServerName: c.Host, InsecureSkipVerify: c.SkipVerify, MinVersion: tls.VersionTLS12}
	implicitTLS := c.ForceSMTPS || c.Port == 465
	if implicitTLS {
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("TLS with %s: %w", addr, err)
		}
		conn = tc
	}
	client, err := netsmtp.NewClient(conn, c.Host)
	if err != nil {
		return fmt.Errorf("greeting of %s: %w", addr, err)
	}
	defer client.Close()
	if !c.DisableHelo {
		name := c.HeloHostname
		if name == "" {
			if name, err = os.Hostname(); err != nil {
				return fmt.Errorf("this host's name for HELO: %w", err)
			}
		}
		if err := client.Hello(name); err != nil {
			return fmt.Errorf("EHLO to %s: %w", addr, err)
		}
	}
	if !implicitTLS {
		if ok, _ := client.Extension("STARTTLS"); ok {
			if err := client.StartTLS(tlsConfig); err != nil {
				return fmt.Errorf("STARTTLS with %s: %w", addr, err)
			}
		}
	}
	if ok, _ := client.Extension("AUTH"); !ok {
		return fmt.Errorf("%s offers no AUTH (does it want TLS, or another port?)", addr)
	}
	if err := client.Auth(auth); err != nil {
		return fmt.Errorf("AUTH %s at %s: %w", c.Auth, addr, err)
	}
	_ = client.Quit()
	return nil
}

// loginAuth is the LOGIN mechanism, which net/smtp lacks: the server asks
// for the user name, then the password. Like net/smtp's PLAIN, it refuses
// to send them over an unencrypted connection except to this host.
type loginAuth struct{ username, password string }

func (a *loginAuth) Start(server *netsmtp.ServerInfo) (string, []byte, error) {
	if !server.TLS && !isLocalhost(server.Name) {
		return "", nil, errors.New("LOGIN over an unencrypted connection")
	}
	return "LOGIN", nil, nil
}

func (a *loginAuth) Next(fromServer []byte, more bool) ([]byte, error) {
	if !more {
		return nil, nil
	}
	switch strings.ToLower(strings.TrimSpace(string(fromServer))) {
	case "username:", "username", "user name", "user:":
		return []byte(a.username), nil
	case "password:", "password":
		return []byte(a.password), nil
	}
	return nil, fmt.Errorf("unexpected LOGIN challenge %q", fromServer)
}

func isLocalhost(name string) bool {
	return name == "localhost" || name == "127.0.0.1" || name == "::1"
}

// Package ldap is the LDAP sign-in source, in Gitea's two forms: via a bind
// DN (search the user, then bind as them; type 2) and simple auth (bind
// with a DN made from a template; type 5). Every value put into a filter is
// escaped with ldap.EscapeFilter and into a DN with ldap.EscapeDN.
package ldap

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	goldap "github.com/go-ldap/ldap/v3"

	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// SecurityProtocol is how the connection is protected.
type SecurityProtocol int

// The security protocols, with Gitea's numbers.
const (
	Unencrypted SecurityProtocol = 0
	LDAPS       SecurityProtocol = 1
	StartTLS    SecurityProtocol = 2
)

// String is the protocol's name as the CLI takes it ("" for an unknown one).
func (p SecurityProtocol) String() string {
	switch p {
	case Unencrypted:
		return "Unencrypted"
	case LDAPS:
		return "LDAPS"
	case StartTLS:
		return "StartTLS"
	}
	return ""
}

// ParseSecurityProtocol reads a protocol name, ignoring case.
func ParseSecurityProtocol(name string) (SecurityProtocol, bool) {
	for _, p := range []SecurityProtocol{Unencrypted, LDAPS, StartTLS} {
		if strings.EqualFold(p.String(), name) {
			return p, true
		}
	}
	return 0, false
}

// Config is an LDAP source's settings, with Gitea's field names.
type Config struct {
	// Mode is authsource.TypeLDAP (bind DN) or authsource.TypeDLDAP (simple auth).
	Mode             authsource.Type `json:"-"`
	Host             string
	Port             int
	SecurityProtocol SecurityProtocol
	SkipVerify       bool
	// BindDN and BindPassword: the account that searches (bind DN mode;
	// empty for an anonymous search). The password is stored sealed.
	BindDN       string
	BindPassword string `json:"-"`
	// UserBase is where users are searched (bind DN mode); UserDN the DN
	// template of simple auth, %s standing for the login.
	UserBase string
	UserDN   string
	// Filter finds a user, %s standing for the login; AdminFilter and
	// RestrictedFilter, searched with the user's DN as base, grant the
	// flags (empty: the flag is not managed by the source).
	Filter           string
	AdminFilter      string
	RestrictedFilter string
	// The attributes read from a user's entry.
	AttributeUsername     string
	AttributeName         string
	AttributeSurname      string
	AttributeMail         string
	AttributeSSHPublicKey string
	// AttributeAvatar holds an image (e.g. jpegPhoto), the account's avatar.
	AttributeAvatar string
	// AttributesInBind reads the attributes as the bind DN rather than as the user.
	AttributesInBind bool
	// SearchPageSize pages the synchronisation's search (0: 500).
	SearchPageSize uint32
	// AllowDeactivateAll lets a synchronisation that finds no user at all
	// deactivate every account of the source.
	AllowDeactivateAll bool
	authsource.TwoFactorPolicy
	// Timeout bounds the connection and each request (0: 10 s).
	Timeout time.Duration `json:",omitempty"`
}

// stored is Config as kept in login_source.cfg.
type stored struct {
	Config
	BindPasswordSealed string `json:",omitempty"`
}

// Kinds returns the two LDAP source kinds for the registry.
func Kinds() []authsource.Kind {
	return []authsource.Kind{
		{Type: authsource.TypeLDAP, Decode: decoder(authsource.TypeLDAP), Form: form(authsource.TypeLDAP)},
		{Type: authsource.TypeDLDAP, Decode: decoder(authsource.TypeDLDAP), Form: form(authsource.TypeDLDAP)},
	}
}

func decoder(mode authsource.Type) func([]byte, authsource.Sealer) (authsource.Config, error) {
	return func(raw []byte, box authsource.Sealer) (authsource.Config, error) {
		var st stored
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, err
		}
		c := st.Config
		c.Mode = mode
		if st.BindPasswordSealed != "" {
			pw, err := box.Open(st.BindPasswordSealed)
			if err != nil {
				return nil, fmt.Errorf("bind password: %w", err)
			}
			c.BindPassword = pw
		}
		return &c, nil
	}
}

// Encode returns the settings as stored, the bind password sealed.
func (c *Config) Encode(box authsource.Sealer) ([]byte, error) {
	st := stored{Config: *c}
	if c.BindPassword != "" {
		sealed, err := box.Seal(c.BindPassword)
		if err != nil {
			return nil, err
		}
		st.BindPasswordSealed = sealed
	}
	return json.Marshal(st)
}

// Validate checks the settings (for the CLI and the web form alike); a
// refused field is named as in the web form.
func (c *Config) Validate() error {
	switch {
	case strings.TrimSpace(c.Host) == "":
		return errs.InvalidField("host", "the LDAP host is required")
	case c.Port < 1 || c.Port > 65535:
		return errs.InvalidField("port", "the port must be between 1 and 65535")
	case c.SecurityProtocol.String() == "":
		return errs.InvalidField("security_protocol", "unknown security protocol %d", c.SecurityProtocol)
	case !strings.Contains(c.Filter, "%s"):
		return errs.InvalidField("filter", "the user filter must contain %%s, which stands for the login")
	case c.Mode == authsource.TypeDLDAP && !strings.Contains(c.UserDN, "%s"):
		return errs.InvalidField("user_dn", "the user DN must contain %%s, which stands for the login")
	case c.Mode == authsource.TypeLDAP && strings.TrimSpace(c.UserBase) == "":
		return errs.InvalidField("user_base", "the user search base is required")
	case strings.TrimSpace(c.AttributeMail) == "":
		return errs.InvalidField("attribute_mail", "the e-mail attribute is required")
	}
	for _, f := range []struct{ name, value string }{
		{"filter", c.userFilter("x")}, {"admin_filter", c.AdminFilter}, {"restricted_filter", c.RestrictedFilter},
	} {
		if f.value == "" {
			continue
		}
		if _, err := goldap.CompileFilter(f.value); err != nil {
			return errs.InvalidField(f.name, "%s is not a valid LDAP filter: %v", f.name, err)
		}
	}
	if c.Mode == authsource.TypeDLDAP {
		if _, err := goldap.ParseDN(c.userDN("x")); err != nil {
			return errs.InvalidField("user_dn", "the user DN is not a valid DN: %v", err)
		}
	}
	return nil
}

// userFilter is Filter with the escaped login in place of %s.
func (c *Config) userFilter(login string) string {
	return strings.ReplaceAll(c.Filter, "%s", goldap.EscapeFilter(login))
}

// userDN is the simple-auth DN template with the escaped login in place of %s.
func (c *Config) userDN(login string) string {
	return strings.ReplaceAll(c.UserDN, "%s", goldap.EscapeDN(login))
}

func (c *Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 10 * time.Second
}

// dial connects (and, for StartTLS, upgrades the connection).
func (c *Config) dial(ctx context.Context) (*goldap.Conn, error) {
	addr := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	tlsConfig := &tls.Config{ServerName: c.Host, InsecureSkipVerify: c.SkipVerify, MinVersion: tls.VersionTLS12} // InsecureSkipVerify: the administrator's --skip-tls-verify
	dialer := &net.Dialer{Timeout: c.timeout()}
	if deadline, ok := ctx.Deadline(); ok {
		dialer.Deadline = deadline
	}
	var conn *goldap.Conn
	var err error
	if c.SecurityProtocol == LDAPS {
		conn, err = goldap.DialURL("ldaps://"+addr, goldap.DialWithDialer(dialer), goldap.DialWithTLSConfig(tlsConfig))
	} else {
		conn, err = goldap.DialURL("ldap://"+addr, goldap.DialWithDialer(dialer))
	}
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	conn.SetTimeout(c.timeout())
	if c.SecurityProtocol == StartTLS {
		if err := conn.StartTLS(tlsConfig); err != nil {
			conn.Close()
			return nil, fmt.Errorf("StartTLS with %s: %w", addr, err)
		}
	}
	return conn, nil
}

// attributes lists the attributes to read from a user's entry.
func (c *Config) attributes() []string {
	var out []string
	for _, a := range []string{c.AttributeUsername, c.AttributeName, c.AttributeSurname, c.AttributeMail, c.AttributeSSHPublicKey, c.AttributeAvatar} {
		if a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return []string{"dn"}
	}
	return out
}

// rejected tells a refused bind (wrong password, unknown DN) from a failure.
func rejected(err error) bool {
	return goldap.IsErrorWithCode(err, goldap.LDAPResultInvalidCredentials) ||
		goldap.IsErrorWithCode(err, goldap.LDAPResultUnwillingToPerform) ||
		goldap.IsErrorWithCode(err, goldap.LDAPResultInvalidDNSyntax) ||
		goldap.IsErrorWithCode(err, goldap.LDAPResultNoSuchObject)
}

// bindUser binds as dn with pw: ErrRejected for a wrong password.
func bindUser(conn *goldap.Conn, dn, pw string) error {
	if err := conn.Bind(dn, pw); err != nil {
		if rejected(err) {
			return authsource.ErrRejected
		}
		return fmt.Errorf("bind as the user: %w", err)
	}
	return nil
}

// Authenticate checks login and password against the directory.
func (c *Config) Authenticate(ctx context.Context, login, pw string) (*authsource.ExternalUser, error) {
	// An empty password would be an unauthenticated bind, which succeeds.
	if pw == "" || login == "" || strings.ContainsRune(login, 0) {
		return nil, authsource.ErrRejected
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var entry *goldap.Entry
	var userDN string
	if c.Mode == authsource.TypeDLDAP {
		userDN = c.userDN(login)
		if err := bindUser(conn, userDN, pw); err != nil {
			return nil, err
		}
		if entry, err = c.searchOne(conn, userDN, goldap.ScopeBaseObject, c.userFilter(login)); err != nil {
			return nil, err
		}
		if entry == nil { // bound, but not a user the filter admits
			return nil, authsource.ErrRejected
		}
	} else {
		if err := c.bindSearcher(conn); err != nil {
			return nil, err
		}
		if entry, err = c.searchOne(conn, c.UserBase, goldap.ScopeWholeSubtree, c.userFilter(login)); err != nil {
			return nil, err
		}
		if entry == nil {
			// The same round trip as a wrong password, so unknown names do
			// not answer faster.
			_ = conn.Bind("cn=cairn-unknown-user,"+c.UserBase, pw)
			return nil, authsource.ErrRejected
		}
		userDN = entry.DN
		if !c.AttributesInBind {
			if err := bindUser(conn, userDN, pw); err != nil {
				return nil, err
			}
			// Read the attributes again, as the user.
			e, err := c.searchOne(conn, userDN, goldap.ScopeBaseObject, c.userFilter(login))
			if err != nil {
				return nil, err
			}
			if e == nil {
				return nil, authsource.ErrRejected
			}
			entry = e
		}
	}
	eu := c.toUser(entry)
	if eu.IsAdmin, err = c.flag(conn, userDN, c.AdminFilter); err != nil {
		return nil, err
	}
	if eu.IsRestricted, err = c.flag(conn, userDN, c.RestrictedFilter); err != nil {
		return nil, err
	}
	if c.Mode == authsource.TypeLDAP && c.AttributesInBind {
		if err := bindUser(conn, userDN, pw); err != nil {
			return nil, err
		}
	}
	return eu, nil
}

// bindSearcher binds as the bind DN, if any.
func (c *Config) bindSearcher(conn *goldap.Conn) error {
	if c.BindDN == "" {
		return nil
	}
	if err := conn.Bind(c.BindDN, c.BindPassword); err != nil {
		return fmt.Errorf("bind as %s (the source's bind DN): %w", c.BindDN, err)
	}
	return nil
}

// searchOne returns the one entry filter finds under base, nil when none
// (or, ambiguous, more than one) does.
func (c *Config) searchOne(conn *goldap.Conn, base string, scope int, filter string) (*goldap.Entry, error) {
	req := goldap.NewSearchRequest(base, scope, goldap.NeverDerefAliases, 2, int(c.timeout()/time.Second), false, filter, c.attributes(), nil)
	res, err := conn.Search(req)
	if err != nil {
		if goldap.IsErrorWithCode(err, goldap.LDAPResultNoSuchObject) || goldap.IsErrorWithCode(err, goldap.LDAPResultSizeLimitExceeded) {
			return nil, nil
		}
		return nil, fmt.Errorf("search %s: %w", base, err)
	}
	if len(res.Entries) != 1 {
		return nil, nil
	}
	return res.Entries[0], nil
}

// flag tells whether the user's entry matches filter; nil when the filter is empty.
func (c *Config) flag(conn *goldap.Conn, userDN, filter string) (*bool, error) {
	if filter == "" {
		return nil, nil
	}
	req := goldap.NewSearchRequest(userDN, goldap.ScopeBaseObject, goldap.NeverDerefAliases, 1, int(c.timeout()/time.Second), false, filter, []string{"dn"}, nil)
	res, err := conn.Search(req)
	if err != nil && !goldap.IsErrorWithCode(err, goldap.LDAPResultNoSuchObject) {
		return nil, fmt.Errorf("search %s: %w", userDN, err)
	}
	on := err == nil && len(res.Entries) == 1
	return &on, nil
}

// toUser reads the mapped attributes of entry.
func (c *Config) toUser(entry *goldap.Entry) *authsource.ExternalUser {
	get := func(attr string) string {
		if attr == "" {
			return ""
		}
		return strings.TrimSpace(entry.GetAttributeValue(attr))
	}
	eu := &authsource.ExternalUser{
		Name:     get(c.AttributeUsername),
		FullName: strings.TrimSpace(get(c.AttributeName) + " " + get(c.AttributeSurname)),
		Email:    get(c.AttributeMail),
	}
	if c.AttributeAvatar != "" {
		if img := entry.GetRawAttributeValue(c.AttributeAvatar); len(img) > 0 {
			eu.Avatar = img
		}
	}
	if c.AttributeSSHPublicKey != "" {
		eu.KeysManaged = true
		for _, k := range entry.GetAttributeValues(c.AttributeSSHPublicKey) {
			if k = strings.TrimSpace(k); k != "" {
				eu.SSHKeys = append(eu.SSHKeys, k)
			}
		}
	}
	return eu
}

// errNoListing is the refusal to list the users of a simple-auth source.
var errNoListing = errors.New("an LDAP simple-auth source cannot list its users: use a bind DN source to synchronise")

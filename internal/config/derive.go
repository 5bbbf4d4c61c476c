package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/password"
)

// derive folds the [server] and [database] keys into HTTPAddr, SSHAddr,
// RootURL and DatabaseURL; the fixed operator variables win over them.
func (c *Config) derive(getenv func(string) string) error {
	s := &c.Server
	if !strings.EqualFold(s.Protocol, "http") {
		return fmt.Errorf("[server] PROTOCOL = %s is not supported: Cairn serves plain http (put a TLS proxy in front)", s.Protocol)
	}
	if v := getenv("CAIRN_HTTP_ADDR"); v != "" {
		c.HTTPAddr = v
	} else {
		if strings.HasPrefix(s.HTTPAddr, "/") || strings.HasPrefix(s.HTTPAddr, "unix:") {
			return fmt.Errorf("[server] HTTP_ADDR = %s: Unix sockets are not supported", s.HTTPAddr)
		}
		if _, _, err := net.SplitHostPort(s.HTTPAddr); err == nil {
			return fmt.Errorf("[server] HTTP_ADDR = %s: give the host only and the port in HTTP_PORT", s.HTTPAddr)
		}
		if s.HTTPPort < 0 || s.HTTPPort > 65535 {
			return fmt.Errorf("[server] HTTP_PORT = %d is not a port", s.HTTPPort)
		}
		c.HTTPAddr = net.JoinHostPort(s.HTTPAddr, strconv.Itoa(s.HTTPPort))
	}

	switch v := getenv("CAIRN_SSH_ADDR"); {
	case v != "":
		c.SSHAddr = v
	case s.DisableSSH || !s.StartSSH:
		c.SSHAddr = "off"
	default:
		port := s.SSHListenPort
		if port == 0 && c.given["server\x00START_SSH_SERVER"] {
			// Gitea's built-in server listens on SSH_PORT by default; without
			// START_SSH_SERVER, a Gitea SSH_PORT is OpenSSH's port.
			port = s.SSHPort
		}
		if port == 0 {
			port = 2222
		}
		if port < 0 || port > 65535 {
			return fmt.Errorf("[server] SSH_LISTEN_PORT = %d is not a port", port)
		}
		c.SSHAddr = net.JoinHostPort(s.SSHListenHost, strconv.Itoa(port))
	}
	if s.SSHDomain == "" {
		s.SSHDomain = s.Domain
	}

	root := s.RootURL
	if v := getenv("CAIRN_ROOT_URL"); v != "" {
		root = v
	}
	if root == "" {
		host := c.HTTPAddr
		if _, port, err := net.SplitHostPort(c.HTTPAddr); err == nil && s.Domain != "" {
			host = net.JoinHostPort(s.Domain, port)
		}
		root = "http://" + host + "/"
	}
	u, err := url.Parse(root)
	if err != nil {
		return fmt.Errorf("root URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("root URL %q: want http:// or https:// and a host", root)
	}
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	c.RootURL = root

	if v := getenv("CAIRN_DATABASE_URL"); v != "" {
		c.DatabaseURL = v
	} else if c.DatabaseURL, err = c.Database.url(); err != nil {
		return err
	}

	if c.Repository.Root != "" {
		if c.Repository.Root, err = filepath.Abs(c.Repository.Root); err != nil {
			return fmt.Errorf("[repository] ROOT: %w", err)
		}
	}
	return nil
}

// url builds the connection CAIRN_DATABASE_URL would give, or "" for the
// default SQLite file in the data directory.
func (d DatabaseSection) url() (string, error) {
	user := url.User(d.User)
	if d.Passwd != "" {
		user = url.UserPassword(d.User, d.Passwd)
	}
	switch strings.ToLower(d.Type) {
	case "":
		if d.Host != "" || d.Name != "" || d.Path != "" {
			return "", fmt.Errorf("[database] DB_TYPE is empty but HOST, NAME or PATH is set: give sqlite3, postgres or mysql")
		}
		return "", nil
	case "sqlite3":
		if d.Path == "" {
			return "", nil
		}
		p, err := filepath.Abs(d.Path)
		if err != nil {
			return "", fmt.Errorf("[database] PATH: %w", err)
		}
		return "sqlite:" + p, nil
	case "postgres":
		u := url.URL{Scheme: "postgres", User: user, Path: "/" + d.Name}
		q := url.Values{}
		if strings.HasPrefix(d.Host, "/") {
			q.Set("host", d.Host)
		} else {
			u.Host = d.Host
		}
		if d.SSLMode != "" {
			q.Set("sslmode", d.SSLMode)
		}
		u.RawQuery = q.Encode()
		return u.String(), nil
	case "mysql":
		if strings.HasPrefix(d.Host, "/") {
			return "", fmt.Errorf("[database] HOST = %s: MySQL over a Unix socket is not supported yet", d.Host)
		}
		u := url.URL{Scheme: "mysql", User: user, Host: d.Host, Path: "/" + d.Name}
		if d.SSLMode != "" && d.SSLMode != "disable" {
			u.RawQuery = url.Values{"tls": {d.SSLMode}}.Encode()
		}
		return u.String(), nil
	case "mssql":
		return "", fmt.Errorf("[database] DB_TYPE = mssql is not supported: use sqlite3, postgres or mysql")
	}
	return "", fmt.Errorf("[database] DB_TYPE = %s is not supported: use sqlite3, postgres or mysql", d.Type)
}

// validate refuses values a key does not accept and normalizes the rest.
func (c *Config) validate() error {
	oneOf := func(section, key string, v *string, allowed ...string) error {
		*v = strings.ToLower(strings.TrimSpace(*v))
		for _, a := range allowed {
			if *v == a {
				return nil
			}
		}
		return fmt.Errorf("[%s] %s = %s: want one of %s", section, key, *v, strings.Join(allowed, ", "))
	}
	for _, err := range []error{
		oneOf("log", "LEVEL", &c.Log.Level, "trace", "debug", "info", "warn", "warning", "error", "critical", "fatal", "none", "off"),
		oneOf("log", "FORMAT", &c.Log.Format, "text", "json"),
		oneOf("repository", "DEFAULT_PRIVATE", &c.Repository.DefaultPrivate, "last", "private", "public"),
		oneOf("service", "DEFAULT_USER_VISIBILITY", &c.Service.DefaultUserVisibility, "public", "limited", "private"),
		oneOf("service", "DEFAULT_ORG_VISIBILITY", &c.Service.DefaultOrgVisibility, "public", "limited", "private"),
	} {
		if err != nil {
			return err
		}
	}
	if c.Log.Level == "warning" {
		c.Log.Level = "warn"
	}
	params, err := password.ParseAlgorithm(c.Security.PasswordHashAlgo)
	switch {
	case errors.Is(err, password.ErrOtherAlgorithm):
		c.Warnings = append(c.Warnings, KeyWarning{Section: "security", Key: "PASSWORD_HASH_ALGO",
			Detail: "Cairn hashes passwords with argon2id only; new hashes use its default parameters"})
	case err != nil:
		return fmt.Errorf("[security] PASSWORD_HASH_ALGO = %w", err)
	}
	c.Security.PasswordParams = params
	return c.deriveMailer()
}

// RedactedDatabaseURL is DatabaseURL without its password.
func (c *Config) RedactedDatabaseURL() string {
	if c.DatabaseURL == "" {
		return ""
	}
	u, err := url.Parse(c.DatabaseURL)
	if err != nil || u.User == nil {
		if err != nil {
			return "(unparsable URL)"
		}
		return c.DatabaseURL
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

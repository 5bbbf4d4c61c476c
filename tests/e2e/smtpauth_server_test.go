package e2e

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTPAuthServer is an in-process SMTP server that only authenticates:
// PLAIN, LOGIN and CRAM-MD5 against its users, over STARTTLS (AUTH is
// offered only once the connection is encrypted) or implicit TLS, with a
// certificate from its own test CA (CAFile). It records every AUTH it sees.
type SMTPAuthServer struct {
	t       testing.TB
	Port    int
	CAFile  string
	tlsConf *tls.Config
	smtps   bool

	mu       sync.Mutex
	users    map[string]string
	attempts []SMTPAuthAttempt
	srv      *smtp.Server
}

// SMTPAuthAttempt is one AUTH exchange the server saw.
type SMTPAuthAttempt struct {
	Mechanism string
	Login     string
	Helo      string
	TLS       bool
	OK        bool
}

// StartSMTPAuthServer starts the server on a free loopback port: implicit
// TLS with smtps, else STARTTLS. It stops at the end of the test.
func StartSMTPAuthServer(t testing.TB, smtps bool) *SMTPAuthServer {
	t.Helper()
	a := &SMTPAuthServer{t: t, smtps: smtps, users: map[string]string{}}
	var cert tls.Certificate
	a.CAFile, cert = testCertificates(t, t.TempDir())
	a.tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	a.Port = portOf(t, freePort(t))
	a.Start()
	t.Cleanup(a.Stop)
	return a
}

// Sibling starts another server (implicit TLS with smtps) whose certificate
// comes from the same test CA.
func (a *SMTPAuthServer) Sibling(smtps bool) *SMTPAuthServer {
	a.t.Helper()
	b := &SMTPAuthServer{t: a.t, smtps: smtps, users: map[string]string{}, CAFile: a.CAFile, tlsConf: a.tlsConf}
	b.Port = portOf(a.t, freePort(a.t))
	b.Start()
	a.t.Cleanup(b.Stop)
	return b
}

// AddUser lets login sign in with password.
func (a *SMTPAuthServer) AddUser(login, password string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.users[login] = password
}

// Attempts returns the AUTH exchanges seen so far.
func (a *SMTPAuthServer) Attempts() []SMTPAuthAttempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]SMTPAuthAttempt(nil), a.attempts...)
}

// LastAttempt is the latest AUTH exchange (the zero value when none).
func (a *SMTPAuthServer) LastAttempt() SMTPAuthAttempt {
	at := a.Attempts()
	if len(at) == 0 {
		return SMTPAuthAttempt{}
	}
	return at[len(at)-1]
}

// Start (re)starts the server on its port.
func (a *SMTPAuthServer) Start() {
	a.t.Helper()
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &authSession{server: a, conn: c}, nil
	}))
	srv.Domain = "mail.test"
	srv.TLSConfig = a.tlsConf
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = quietLog{}
	addr := fmt.Sprintf("127.0.0.1:%d", a.Port)
	var l net.Listener
	var err error
	for range 50 { // the port of a stopped server may take a moment to free
		if a.smtps {
			l, err = tls.Listen("tcp", addr, a.tlsConf)
		} else {
			l, err = net.Listen("tcp", addr)
		}
		if err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		a.t.Fatalf("SMTP test server: %v", err)
	}
	a.mu.Lock()
	a.srv = srv
	a.mu.Unlock()
	go srv.Serve(l)
}

// Stop closes the server; connections are then refused.
func (a *SMTPAuthServer) Stop() {
	a.mu.Lock()
	srv := a.srv
	a.srv = nil
	a.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

type quietLog struct{}

func (quietLog) Printf(string, ...interface{}) {}
func (quietLog) Println(...interface{})        {}

// authSession answers AUTH; it takes no mail.
type authSession struct {
	server *SMTPAuthServer
	conn   *smtp.Conn
}

func (s *authSession) AuthMechanisms() []string {
	return []string{sasl.Plain, sasl.Login, "CRAM-MD5"}
}

// check records the attempt and compares the password.
func (s *authSession) check(mech, login string, ok func(want string) bool) error {
	a := s.server
	_, tlsOn := s.conn.TLSConnectionState()
	a.mu.Lock()
	want, known := a.users[login]
	good := known && ok(want)
	a.attempts = append(a.attempts, SMTPAuthAttempt{Mechanism: mech, Login: login, Helo: s.conn.Hostname(), TLS: tlsOn, OK: good})
	a.mu.Unlock()
	if !good {
		return smtp.ErrAuthFailed
	}
	return nil
}

func (s *authSession) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(identity, username, password string) error {
			if identity != "" && identity != username {
				return smtp.ErrAuthFailed
			}
			return s.check(mech, username, func(want string) bool { return want == password })
		}), nil
	case sasl.Login:
		return &loginServer{check: func(login, pw string) error {
			return s.check(sasl.Login, login, func(want string) bool { return want == pw })
		}}, nil
	case "CRAM-MD5":
		return &cramMD5Server{session: s}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (s *authSession) Reset()        {}
func (s *authSession) Logout() error { return nil }
func (s *authSession) Mail(string, *smtp.MailOptions) error {
	return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "this server only authenticates"}
}
func (s *authSession) Rcpt(string, *smtp.RcptOptions) error { return errors.New("no mail here") }
func (s *authSession) Data(io.Reader) error                 { return errors.New("no mail here") }

// cramMD5Server is the server side of CRAM-MD5 (RFC 2195).
type cramMD5Server struct {
	session   *authSession
	challenge string
}

func (c *cramMD5Server) Next(response []byte) ([]byte, bool, error) {
	if c.challenge == "" {
		nonce := make([]byte, 8)
		rand.Read(nonce)
		c.challenge = fmt.Sprintf("<%x.%d@mail.test>", nonce, time.Now().Unix())
		return []byte(c.challenge), false, nil
	}
	login, digest, ok := strings.Cut(string(response), " ")
	if !ok {
		return nil, true, smtp.ErrAuthFailed
	}
	return nil, true, c.session.check("CRAM-MD5", login, func(want string) bool {
		mac := hmac.New(md5.New, []byte(want))
		mac.Write([]byte(c.challenge))
		got, err := hex.DecodeString(digest)
		return err == nil && hmac.Equal(got, mac.Sum(nil))
	})
}

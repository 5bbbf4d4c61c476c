package e2e

import (
	"crypto/tls"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// mailServer is a real SMTP server in the test process, on loopback, that
// the cairn binary sends to: AUTH PLAIN and LOGIN, STARTTLS or implicit
// TLS with a certificate of a CA made for the test.
type mailServer struct {
	t        testing.TB
	Addr     string
	Host     string
	Port     string
	CAFile   string // PEM of the test CA (SSL_CERT_FILE for the binary)
	User     string
	Password string

	// Refuse, while set, answers every MAIL FROM with a temporary error;
	// Refused counts those answers.
	Refuse  atomic.Bool
	Refused atomic.Int32

	mu       sync.Mutex
	received []*receivedMail
	arrived  chan struct{}
}

// receivedMail is one message as the server got it.
type receivedMail struct {
	From     string
	To       []string
	AuthUser string
	TLS      bool
	Header   mail.Header
	Text     string
	HTML     string
}

// mailServerOptions choose the server's transport and mechanisms.
type mailServerOptions struct {
	ImplicitTLS bool     // TLS from the first byte (smtps); else STARTTLS offered
	Mechanisms  []string // AUTH mechanisms offered (PLAIN, LOGIN)
}

func startMailServer(t testing.TB, o mailServerOptions) *mailServer {
	t.Helper()
	dir := t.TempDir()
	caFile, cert := testCertificates(t, dir)
	m := &mailServer{t: t, CAFile: caFile, User: "mailer@example.com", Password: "smtp-secret-pw", arrived: make(chan struct{}, 100)}
	if len(o.Mechanisms) == 0 {
		o.Mechanisms = []string{sasl.Plain, sasl.Login}
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &mailSession{m: m, conn: c, mechs: o.Mechanisms}, nil
	}))
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = testLogger{t}
	var ln net.Listener
	var err error
	if o.ImplicitTLS {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", srv.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	m.Addr = ln.Addr().String()
	m.Host, m.Port, _ = net.SplitHostPort(m.Addr)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return m
}

type testLogger struct{ t testing.TB }

func (l testLogger) Printf(format string, v ...any) {}
func (l testLogger) Println(v ...any)               {}

// Env is the binary's [mailer] for this server with protocol.
func (m *mailServer) Env(protocol string, extra ...string) []string {
	return append([]string{"CAIRN_MAILER_ENABLED=true", "CAIRN_MAILER_PROTOCOL=" + protocol,
		"CAIRN_MAILER_SMTP_ADDR=" + m.Host, "CAIRN_MAILER_SMTP_PORT=" + m.Port, "CAIRN_MAILER_USER=" + m.User,
		"CAIRN_MAILER_PASSWD=" + m.Password, "CAIRN_MAILER_FROM=Cairn Test <noreply@example.com>",
		"SSL_CERT_FILE=" + m.CAFile}, extra...)
}

// Received returns the messages so far.
func (m *mailServer) Received() []*receivedMail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*receivedMail(nil), m.received...)
}

// WaitFor waits for a message to addr whose subject contains subject.
func (m *mailServer) WaitFor(addr, subject string, timeout time.Duration) *receivedMail {
	m.t.Helper()
	deadline := time.After(timeout)
	for {
		for _, r := range m.Received() {
			if len(r.To) > 0 && strings.EqualFold(r.To[0], addr) && strings.Contains(decodeHeader(r.Header.Get("Subject")), subject) {
				return r
			}
		}
		select {
		case <-m.arrived:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			var others []string
			for _, r := range m.Received() {
				others = append(others, strings.Join(r.To, ",")+": "+decodeHeader(r.Header.Get("Subject")))
			}
			m.t.Fatalf("no mail to %s about %q within %s; got %q", addr, subject, timeout, others)
		}
	}
}

// WaitForText waits for a message to addr whose text part contains text.
func (m *mailServer) WaitForText(addr, text string, timeout time.Duration) *receivedMail {
	m.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, r := range m.Received() {
			if len(r.To) > 0 && strings.EqualFold(r.To[0], addr) && strings.Contains(r.Text, text) {
				return r
			}
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("no mail to %s saying %q within %s", addr, text, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func decodeHeader(v string) string {
	out, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		return v
	}
	return out
}

var mailLink = regexp.MustCompile(`https?://[^\s"<>]+/user/(?:activate|recover_account)\?code=[^\s"<>]+`)

// Link returns the activation or recovery link of a message's text part.
func (r *receivedMail) Link(t testing.TB) string {
	t.Helper()
	l := mailLink.FindString(r.Text)
	if l == "" {
		t.Fatalf("no link in the mail:\n%s", r.Text)
	}
	return l
}

type mailSession struct {
	m        *mailServer
	conn     *smtp.Conn
	mechs    []string
	authUser string
	cur      *receivedMail
}

func (s *mailSession) AuthMechanisms() []string { return s.mechs }

func (s *mailSession) Auth(mech string) (sasl.Server, error) {
	check := func(user, pw string) error {
		if user != s.m.User || pw != s.m.Password {
			return errors.New("invalid credentials")
		}
		s.authUser = user
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, pw string) error { return check(user, pw) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

// loginServer is the server side of AUTH LOGIN (go-sasl has only the client).
type loginServer struct {
	step  int
	user  string
	check func(user, pw string) error
}

func (l *loginServer) Next(resp []byte) ([]byte, bool, error) {
	l.step++
	switch l.step {
	case 1:
		if resp != nil { // an initial response is the user name
			l.user = string(resp)
			l.step++
			return []byte("Password:"), false, nil
		}
		return []byte("Username:"), false, nil
	case 2:
		l.user = string(resp)
		return []byte("Password:"), false, nil
	default:
		return nil, true, l.check(l.user, string(resp))
	}
}

func (s *mailSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.authUser == "" {
		return smtp.ErrAuthRequired
	}
	if s.m.Refuse.Load() {
		s.m.Refused.Add(1)
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.cur = &receivedMail{From: from, AuthUser: s.authUser, TLS: isTLS}
	return nil
}

func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	s.cur.Header = msg.Header
	if err := readBodies(s.cur, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body); err != nil {
		return err
	}
	s.m.mu.Lock()
	s.m.received = append(s.m.received, s.cur)
	s.m.mu.Unlock()
	select {
	case s.m.arrived <- struct{}{}:
	default:
	}
	return nil
}

// readBodies finds the text/plain and text/html parts.
func readBodies(into *receivedMail, ctype, cte string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := readBodies(into, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
				return err
			}
		}
	}
	if strings.EqualFold(cte, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		into.Text = string(b)
	case "text/html":
		into.HTML = string(b)
	}
	return nil
}

func (s *mailSession) Reset()        { s.cur = nil }
func (s *mailSession) Logout() error { return nil }

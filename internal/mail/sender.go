// Package mail sends Cairn's mail: account activation, password reset and
// notifications about issues and pull requests. A mail is a job on the
// durable queue, written in the transaction of the change that causes it;
// a queue worker renders it (plain text with an HTML alternative) and hands
// it to the configured Sender (SMTP, sendmail, or the log), retrying with
// back-off while the server refuses it.
package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/cairn-forge/cairn/internal/config"
)

// Message is one mail to one recipient, rendered.
type Message struct {
	ToName, To string
	Subject    string
	Text, HTML string // HTML may be empty (text only)
	// MessageID, InReplyTo and References thread the mail (angle brackets included).
	MessageID  string
	InReplyTo  string
	References string
	// Headers are further headers (List-ID, X-Gitea-*).
	Headers map[string]string
}

// Sender delivers a message or says why it could not.
type Sender interface {
	Send(ctx context.Context, m *Message) error
}

// NewSender builds the sender [mailer] describes; dataDir anchors the
// relative client certificate paths; one SMTP conversation step waits at
// most timeout.
func NewSender(c config.MailerSection, dataDir string, timeout time.Duration, log *slog.Logger) (Sender, error) {
	from, err := mail.ParseAddress(c.From)
	if err != nil {
		return nil, fmt.Errorf("[mailer] FROM: %w", err)
	}
	if from.Name == "" {
		from.Name = c.Name
	}
	// ENVELOPE_FROM = <> (an empty return path) is not supported by the
	// SMTP library: such mail goes out with FROM's address as return path.
	env := envelope{from: from, envelopeFrom: from.Address, plain: c.SendAsPlainText, prefix: c.SubjectPrefix}
	if c.EnvelopeFrom != "" && c.EnvelopeFrom != "<>" {
		env.override = true
		a, err := mail.ParseAddress(c.EnvelopeFrom)
		if err != nil {
			return nil, fmt.Errorf("[mailer] ENVELOPE_FROM: %w", err)
		}
		env.envelopeFrom = a.Address
	}
	switch c.Protocol {
	case "dummy":
		return &dummySender{envelope: env, log: log}, nil
	case "sendmail":
		return &sendmailSender{envelope: env, path: c.SendmailPath, args: strings.Fields(c.SendmailArgs), timeout: c.SendmailTimeout, lf: c.SendmailConvertCRLF}, nil
	case "smtp", "smtps", "smtp+starttls", "smtp+unix":
		return newSMTPSender(c, env, dataDir, timeout)
	}
	return nil, fmt.Errorf("[mailer] PROTOCOL = %q is not supported", c.Protocol)
}

// envelope is what every sender adds to a message: the sender, the subject
// prefix, whether to send HTML.
type envelope struct {
	from         *mail.Address
	envelopeFrom string
	override     bool
	plain        bool
	prefix       string
}

// build turns m into a go-mail message.
func (e envelope) build(m *Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	msg.FromMailAddress(e.from)
	if e.override && e.envelopeFrom != "" {
		if err := msg.EnvelopeFrom(e.envelopeFrom); err != nil {
			return nil, err
		}
	}
	if err := msg.AddToFormat(m.ToName, m.To); err != nil {
		return nil, gomailPermanent{err}
	}
	subject := m.Subject
	if e.prefix != "" { // Gitea joins them with a space
		subject = e.prefix + " " + subject
	}
	msg.Subject(subject)
	msg.SetDate()
	if m.MessageID != "" {
		msg.SetMessageIDWithValue(strings.TrimSuffix(strings.TrimPrefix(m.MessageID, "<"), ">"))
	} else {
		msg.SetMessageID()
	}
	if m.InReplyTo != "" {
		msg.SetGenHeaderPreformatted(gomail.HeaderInReplyTo, m.InReplyTo)
	}
	if m.References != "" {
		msg.SetGenHeaderPreformatted(gomail.HeaderReferences, m.References)
	}
	for k, v := range m.Headers {
		msg.SetGenHeader(gomail.Header(k), v)
	}
	msg.SetUserAgent("Cairn")
	msg.SetGenHeader("X-Auto-Response-Suppress", "All") // no out-of-office replies, as Gitea asks
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" && !e.plain {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// gomailPermanent marks a message that no retry can send (a bad address).
type gomailPermanent struct{ err error }

func (p gomailPermanent) Error() string { return p.err.Error() }
func (p gomailPermanent) Unwrap() error { return p.err }

// IsPermanent reports whether err is a message no retry can send.
func IsPermanent(err error) bool {
	var p gomailPermanent
	return errors.As(err, &p)
}

// smtpSender talks SMTP to [mailer] SMTP_ADDR, in clear, over implicit TLS
// (smtps), after STARTTLS (smtp+starttls) or on a Unix socket.
type smtpSender struct {
	envelope
	host string
	opts []gomail.Option
}

func newSMTPSender(c config.MailerSection, env envelope, dataDir string, timeout time.Duration) (*smtpSender, error) {
	s := &smtpSender{envelope: env, host: c.SMTPAddr}
	s.opts = append(s.opts, gomail.WithTimeout(timeout))
	if c.Protocol == "smtp+unix" {
		s.host = "unix://" + c.SMTPAddr
	} else {
		port, err := strconv.Atoi(c.SMTPPort)
		if err != nil {
			return nil, fmt.Errorf("[mailer] SMTP_PORT = %q is not a port", c.SMTPPort)
		}
		s.opts = append(s.opts, gomail.WithPort(port))
	}
	tlsConf := &tls.Config{ServerName: c.SMTPAddr, MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.ForceTrustServerCert} //nolint:gosec // an operator's explicit choice
	if c.UseClientCert {
		certFile, keyFile := c.ClientCertFile, c.ClientKeyFile
		if !filepath.IsAbs(certFile) {
			certFile = filepath.Join(dataDir, certFile)
		}
		if !filepath.IsAbs(keyFile) {
			keyFile = filepath.Join(dataDir, keyFile)
		}
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("[mailer] client certificate: %w", err)
		}
		tlsConf.Certificates = []tls.Certificate{cert}
	}
	s.opts = append(s.opts, gomail.WithTLSConfig(tlsConf))
	switch c.Protocol {
	case "smtps":
		s.opts = append(s.opts, gomail.WithSSL())
	case "smtp+starttls":
		s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default: // smtp, smtp+unix: STARTTLS when offered, as Gitea's client does
		s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	helo := "localhost"
	if c.EnableHelo {
		if helo = c.HeloHostname; helo == "" {
			helo, _ = os.Hostname()
		}
	}
	if helo != "" {
		s.opts = append(s.opts, gomail.WithHELO(helo))
	}
	if c.User != "" {
		// The strongest mechanism the server offers of those go-mail knows
		// (PLAIN and LOGIN included); the password is never logged.
		s.opts = append(s.opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(c.User), gomail.WithPassword(c.Passwd))
	}
	return s, nil
}

// Send opens a connection, sends m and closes it.
func (s *smtpSender) Send(ctx context.Context, m *Message) error {
	msg, err := s.build(m)
	if err != nil {
		return err
	}
	client, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return err
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return nil
}

// sendmailSender pipes the message to a sendmail program.
type sendmailSender struct {
	envelope
	path    string
	args    []string
	timeout time.Duration
	lf      bool
}

func (s *sendmailSender) Send(ctx context.Context, m *Message) error {
	msg, err := s.build(m)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return err
	}
	body := buf.Bytes()
	if s.lf {
		body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	}
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	args := append([]string{}, s.args...)
	args = append(args, "-f", s.envelopeFrom, "-i", "--", m.To)
	cmd := exec.CommandContext(ctx, s.path, args...) //nolint:gosec // the operator's program; the recipient comes after --
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("sendmail: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// dummySender only logs that a message would have been sent (PROTOCOL =
// dummy), without its body: links in it are secrets.
type dummySender struct {
	envelope
	log *slog.Logger
}

func (s *dummySender) Send(_ context.Context, m *Message) error {
	if _, err := s.build(m); err != nil {
		return err
	}
	s.log.Info("mail (dummy sender, not sent)", "to", m.To, "subject", m.Subject)
	return nil
}

package config

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// MailerSection is [mailer]: how Cairn sends mail, with Gitea's keys.
type MailerSection struct {
	Enabled              bool          `key:"ENABLED" default:"false" doc:"Send mail (account activation, password reset, notifications). Off: no mail is queued or sent."`
	Name                 string        `key:"NAME" default:"Cairn" doc:"Display name of the sender when FROM has none."`
	From                 string        `key:"FROM" default:"" doc:"From address, as an RFC 5322 address (\"Cairn <cairn@example.com>\"). Empty: USER."`
	EnvelopeFrom         string        `key:"ENVELOPE_FROM" default:"" doc:"SMTP envelope sender (MAIL FROM). Empty: the address of FROM. Gitea's <> (an empty return path) is not supported: it means the address of FROM."`
	SubjectPrefix        string        `key:"SUBJECT_PREFIX" default:"" doc:"Text put before every subject, followed by a space."`
	SendAsPlainText      bool          `key:"SEND_AS_PLAIN_TEXT" default:"false" doc:"Send only the plain-text part, without the HTML alternative."`
	Protocol             string        `key:"PROTOCOL" default:"" doc:"smtp, smtps (implicit TLS), smtp+starttls, smtp+unix, sendmail or dummy (log only). Empty: inferred from SMTP_PORT (25 smtp, 465 smtps, 587 smtp+starttls) or smtp+unix when SMTP_ADDR is a path."`
	SMTPAddr             string        `key:"SMTP_ADDR" default:"" doc:"Mail server host (or Unix socket path with smtp+unix)."`
	SMTPPort             string        `key:"SMTP_PORT" default:"" doc:"Mail server port. Empty: 25, 465 or 587 by PROTOCOL."`
	User                 string        `key:"USER" default:"" doc:"SMTP user name (AUTH PLAIN or LOGIN, whichever the server offers). Empty: no authentication."`
	Passwd               string        `key:"PASSWD" default:"" secret:"true" doc:"SMTP password (never printed nor logged)."`
	EnableHelo           bool          `key:"ENABLE_HELO" default:"true" doc:"Give HELO_HOSTNAME in EHLO; false gives localhost."`
	HeloHostname         string        `key:"HELO_HOSTNAME" default:"" doc:"Host name given in EHLO. Empty: this machine's host name."`
	ForceTrustServerCert bool          `key:"FORCE_TRUST_SERVER_CERT" default:"false" doc:"Accept any server certificate (self-signed ones): only for tests or trusted networks."`
	UseClientCert        bool          `key:"USE_CLIENT_CERT" default:"false" doc:"Present CLIENT_CERT_FILE and CLIENT_KEY_FILE to the server."`
	ClientCertFile       string        `key:"CLIENT_CERT_FILE" default:"custom/mailer/cert.pem" doc:"Client certificate (PEM), with USE_CLIENT_CERT; relative to the data directory."`
	ClientKeyFile        string        `key:"CLIENT_KEY_FILE" default:"custom/mailer/key.pem" doc:"Client key (PEM), with USE_CLIENT_CERT; relative to the data directory."`
	SendmailPath         string        `key:"SENDMAIL_PATH" default:"sendmail" doc:"The sendmail program, with PROTOCOL = sendmail."`
	SendmailArgs         string        `key:"SENDMAIL_ARGS" default:"" doc:"Extra arguments to sendmail, separated by spaces (Gitea allows shell quoting; Cairn splits at spaces only)."`
	SendmailTimeout      time.Duration `key:"SENDMAIL_TIMEOUT" default:"5m" doc:"How long sendmail may take for one message; a sending attempt ends after 65 seconds in any case (and is retried)."`
	SendmailConvertCRLF  bool          `key:"SENDMAIL_CONVERT_CRLF" default:"true" doc:"Give sendmail the message with LF line ends instead of CRLF."`
}

// deriveMailer checks [mailer] and fills in what Gitea infers: the
// protocol from the port (or a socket path), the port from the protocol,
// FROM from USER.
func (c *Config) deriveMailer() error {
	m := &c.Mailer
	if !m.Enabled {
		return nil
	}
	m.Protocol = strings.ToLower(strings.TrimSpace(m.Protocol))
	switch m.Protocol {
	case "", "smtp", "smtps", "smtp+starttls", "smtp+unix", "sendmail", "dummy":
	default:
		return fmt.Errorf("[mailer] PROTOCOL = %s: want smtp, smtps, smtp+starttls, smtp+unix, sendmail or dummy", m.Protocol)
	}
	if m.SMTPPort == "" {
		m.SMTPPort = map[string]string{"smtp": "25", "smtps": "465", "smtp+starttls": "587"}[m.Protocol]
	}
	if m.Protocol == "" {
		switch {
		case strings.ContainsAny(m.SMTPAddr, `/\`):
			m.Protocol = "smtp+unix"
		case m.SMTPPort == "25":
			m.Protocol = "smtp"
		case m.SMTPPort == "587":
			m.Protocol = "smtp+starttls"
		default: // Gitea assumes smtps too
			m.Protocol = "smtps"
		}
	}
	if m.From == "" {
		m.From = m.User
	}
	if m.From == "" {
		return fmt.Errorf("[mailer] FROM is required when ENABLED = true")
	}
	if _, err := mail.ParseAddress(m.From); err != nil {
		return fmt.Errorf("[mailer] FROM = %s: %v", m.From, err)
	}
	if m.EnvelopeFrom != "" && m.EnvelopeFrom != "<>" {
		if _, err := mail.ParseAddress(m.EnvelopeFrom); err != nil {
			return fmt.Errorf("[mailer] ENVELOPE_FROM = %s: %v", m.EnvelopeFrom, err)
		}
	}
	if strings.HasPrefix(m.Protocol, "smtp") && m.SMTPAddr == "" {
		return fmt.Errorf("[mailer] SMTP_ADDR is required with PROTOCOL = %s", m.Protocol)
	}
	return nil
}

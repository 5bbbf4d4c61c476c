package main

import (
	"log/slog"
	"time"

	"github.com/cairn-forge/cairn/internal/mail"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/user"
)

// A mail attempt ends within mailAttemptTimeout (the queue's lease of mail
// jobs is longer, see mail.Service), or another worker could take the job
// again and send the mail twice. go-mail gives the connection mailSMTPTimeout up to
// the message, and as much again for the message.
const (
	mailSMTPTimeout    = 30 * time.Second
	mailAttemptTimeout = 2*mailSMTPTimeout + 5*time.Second
)

// wireMail builds the activation and reset codes and, with [mailer]
// ENABLED, the mail service on the durable queue: issue and pull request
// events queue their mails in their own transactions when [service]
// ENABLE_NOTIFY_MAIL is on.
func (a *app) wireMail() error {
	a.timeCodes = user.NewTimeCodes(a.secret, a.users.Store, nil)
	if !a.cfg.Mailer.Enabled {
		// As Gitea: these need mail, and are off without it.
		if a.cfg.Service.RegisterEmailConfirm {
			slog.Warn("[service] REGISTER_EMAIL_CONFIRM has no effect while [mailer] ENABLED is false: sign-up activates accounts at once")
		}
		if a.cfg.Service.EnableNotifyMail {
			slog.Warn("[service] ENABLE_NOTIFY_MAIL has no effect while [mailer] ENABLED is false")
		}
		return nil
	}
	sender, err := mail.NewSender(a.cfg.Mailer, a.cfg.DataDir, mailSMTPTimeout, slog.Default())
	if err != nil {
		return err
	}
	opts := mail.Options{
		Queue: a.queue, Sender: sender, Users: a.users.Store, Codes: a.timeCodes, RootURL: a.cfg.RootURL,
		AppName: a.cfg.Mailer.Name, AttemptTimeout: mailAttemptTimeout,
		ActivateLife: time.Duration(a.cfg.Service.ActiveCodeLiveMinutes) * time.Minute,
		ResetLife:    time.Duration(a.cfg.Service.ResetPasswdCodeLive) * time.Minute,
	}
	if a.cfg.Service.EnableNotifyMail {
		opts.Notifications = &mail.Notifications{Issues: a.issues, Repos: a.repos, Pulls: a.pulls, Users: a.users,
			Readers: a.notifier.Readers, Markup: markup.New(a.cfg.RootURL)}
	}
	if a.mail, err = mail.NewService(opts); err != nil {
		return err
	}
	if n := opts.Notifications; n != nil {
		a.issues.AddTxListener(n.OnIssueEvent)
		a.pulls.AddTxListener(n.OnPullEvent)
	}
	return nil
}

package main

import (
	"context"
	"fmt"

	"github.com/cairn-forge/cairn/internal/authsource"
	pamsource "github.com/cairn-forge/cairn/internal/authsource/pam"
	smtpsource "github.com/cairn-forge/cairn/internal/authsource/smtp"
)

// adminAuthSMTP adds (or, with update, changes) an SMTP source, with
// Gitea's flags of add-smtp and update-smtp.
func adminAuthSMTP(ctx context.Context, args []string, e adminEnv, update bool) error {
	s := newSourceCommand("smtp", "--name N --host H --port N [--auth-type PLAIN|LOGIN|CRAM-MD5] [flags]",
		"Adds or changes an SMTP sign-in source, with Gitea's flags: a login (the user's e-mail address)\n"+
			"and password are accepted when the SMTP server accepts them. Only the flags given change.",
		authsource.TypeSMTP, update)
	name := s.c.fs.String("name", "", "the source's `NAME`")
	authType := s.c.fs.String("auth-type", "PLAIN", "SMTP authentication `TYPE`: PLAIN, LOGIN or CRAM-MD5")
	host := s.c.fs.String("host", "", "the SMTP server's `HOST`")
	port := s.c.fs.Int("port", 0, "the SMTP server's `PORT`")
	forceSMTPS := s.c.fs.Bool("force-smtps", false, "speak TLS from the start (SMTPS; always so on port 465); otherwise STARTTLS is used when offered")
	skipVerify := s.c.fs.Bool("skip-verify", false, "do not verify the server's TLS certificate")
	helo := s.c.fs.String("helo-hostname", "", "`NAME` sent with EHLO (empty: this host's name)")
	disableHelo := s.c.fs.Bool("disable-helo", false, "do not send Cairn's own EHLO name")
	domains := s.c.fs.String("allowed-domains", "", "comma-separated e-mail `DOMAINS` whose logins may sign in (empty: any)")
	skipLocal2FA := s.c.fs.Bool("skip-local-2fa", false, "the source's accounts sign in without their local second factor")
	active := s.c.fs.Bool("active", true, "the source is active (--active=false deactivates it)")
	s.check = func() error {
		if _, ok := smtpsource.ParseAuthType(*authType); s.c.given("auth-type") && !ok {
			return usageError{"--auth-type must be one of PLAIN, LOGIN or CRAM-MD5"}
		}
		return nil
	}
	return s.run(ctx, args, e, []string{"name", "host", "port"}, &smtpsource.Config{Auth: smtpsource.AuthPlain}, func(src *authsource.Source) error {
		cfg := src.Config.(*smtpsource.Config)
		s.set("name", func() { src.Name = *name })
		s.set("active", func() { src.IsActive = *active })
		s.set("auth-type", func() { cfg.Auth = *authType })
		s.set("host", func() { cfg.Host = *host })
		s.set("port", func() { cfg.Port = *port })
		s.set("force-smtps", func() { cfg.ForceSMTPS = *forceSMTPS })
		s.set("skip-verify", func() { cfg.SkipVerify = *skipVerify })
		s.set("helo-hostname", func() { cfg.HeloHostname = *helo })
		s.set("disable-helo", func() { cfg.DisableHelo = *disableHelo })
		s.set("allowed-domains", func() { cfg.AllowedDomains = *domains })
		s.set("skip-local-2fa", func() { cfg.SkipLocalTwoFA = *skipLocal2FA })
		return nil
	})
}

// adminAuthPAM adds (or, with update, changes) a PAM source. Gitea 1.23 has
// no PAM command; the flags are named after its settings.
func adminAuthPAM(ctx context.Context, args []string, e adminEnv, update bool) error {
	s := newSourceCommand("pam", "--name N --service-name S [--email-domain D] [flags]",
		"Adds or changes a PAM sign-in source: a login and password are accepted when the host's PAM\n"+
			"service accepts them. Needs a binary built with -tags pam. Only the flags given change.",
		authsource.TypePAM, update)
	name := s.c.fs.String("name", "", "the source's `NAME`")
	service := s.c.fs.String("service-name", "", "the PAM `SERVICE` (a file under /etc/pam.d)")
	domain := s.c.fs.String("email-domain", "", "e-mail `DOMAIN` of the accounts (login@DOMAIN); empty: a made-up address")
	skipLocal2FA := s.c.fs.Bool("skip-local-2fa", false, "the source's accounts sign in without their local second factor")
	active := s.c.fs.Bool("active", true, "the source is active (--active=false deactivates it)")
	s.check = func() error {
		if !pamsource.Built {
			return pamsource.ErrNotBuilt
		}
		return nil
	}
	return s.run(ctx, args, e, []string{"name", "service-name"}, &pamsource.Config{}, func(src *authsource.Source) error {
		cfg := src.Config.(*pamsource.Config)
		s.set("name", func() { src.Name = *name })
		s.set("active", func() { src.IsActive = *active })
		s.set("service-name", func() { cfg.ServiceName = *service })
		s.set("email-domain", func() { cfg.EmailDomain = *domain })
		s.set("skip-local-2fa", func() { cfg.SkipLocalTwoFA = *skipLocal2FA })
		return nil
	})
}

// sourceCommand is the frame of the add-KIND and update-KIND commands of
// sign-in sources of one type: --id on update, the flags a new source
// needs, the source loaded (of that type) or made, changed by the flags
// given, and saved.
type sourceCommand struct {
	c      *adminCommand
	typ    authsource.Type
	update bool
	id     *int64
	// check, if set, runs after the flags are parsed, before the instance
	// is opened.
	check func() error
}

// newSourceCommand starts "auth add-KIND" (or "auth update-KIND" with
// update); addSynopsis is the add command's flags.
func newSourceCommand(kind, addSynopsis, about string, typ authsource.Type, update bool) *sourceCommand {
	verb, synopsis := "add", "cairn admin auth add-"+kind+" "+addSynopsis
	if update {
		verb, synopsis = "update", "cairn admin auth update-"+kind+" --id N [flags]"
	}
	s := &sourceCommand{c: newAdminCommand("auth "+verb+"-"+kind, synopsis, about), typ: typ, update: update}
	if update {
		s.id = s.c.fs.Int64("id", 0, "the source's `ID`")
	}
	return s
}

// set runs apply when flag was given.
func (s *sourceCommand) set(flag string, apply func()) {
	if s.c.given(flag) {
		apply()
	}
}

// run parses args, checks --id (update) or the required flags (add), loads
// the source or makes a new active one with settings fresh, lets fill
// apply the flags given and saves the source.
func (s *sourceCommand) run(ctx context.Context, args []string, e adminEnv, required []string, fresh authsource.Config, fill func(src *authsource.Source) error) error {
	if done, err := s.c.parse(args, &e); done || err != nil {
		return err
	}
	if s.check != nil {
		if err := s.check(); err != nil {
			return err
		}
	}
	if s.update && *s.id == 0 {
		return usageError{"--id is required"}
	}
	if !s.update {
		for _, f := range required {
			if !s.c.given(f) {
				return usageError{fmt.Sprintf("--%s is required", f)}
			}
		}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	src := &authsource.Source{Type: s.typ, IsActive: true, Config: fresh}
	if s.update {
		if src, err = a.sources.Get(ctx, *s.id); err != nil {
			return err
		}
		if src.Type != s.typ {
			return fmt.Errorf("invalid authentication type. expected: %s, actual: %s", s.typ, src.Type)
		}
	}
	if err := fill(src); err != nil {
		return err
	}
	if s.update {
		if err := a.sources.Update(ctx, src); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Authentication source %d (%s) has been updated.\n", src.ID, src.Name)
		return nil
	}
	if err := a.sources.Create(ctx, src); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Authentication source %d (%s) has been added.\n", src.ID, src.Name)
	return nil
}

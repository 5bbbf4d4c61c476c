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
	synopsis := "cairn admin auth add-smtp --name N --host H --port N [--auth-type PLAIN|LOGIN|CRAM-MD5] [flags]"
	verb := "add"
	if update {
		verb = "update"
		synopsis = "cairn admin auth update-smtp --id N [flags]"
	}
	c := newAdminCommand("auth "+verb+"-smtp", synopsis,
		"Adds or changes an SMTP sign-in source, with Gitea's flags: a login (the user's e-mail address)\n"+
			"and password are accepted when the SMTP server accepts them. Only the flags given change.")
	var id *int64
	if update {
		id = c.fs.Int64("id", 0, "the source's `ID`")
	}
	name := c.fs.String("name", "", "the source's `NAME`")
	authType := c.fs.String("auth-type", "PLAIN", "SMTP authentication `TYPE`: PLAIN, LOGIN or CRAM-MD5")
	host := c.fs.String("host", "", "the SMTP server's `HOST`")
	port := c.fs.Int("port", 0, "the SMTP server's `PORT`")
	forceSMTPS := c.fs.Bool("force-smtps", false, "speak TLS from the start (SMTPS; always so on port 465); otherwise STARTTLS is used when offered")
	skipVerify := c.fs.Bool("skip-verify", false, "do not verify the server's TLS certificate")
	helo := c.fs.String("helo-hostname", "", "`NAME` sent with EHLO (empty: this host's name)")
	disableHelo := c.fs.Bool("disable-helo", false, "do not send Cairn's own EHLO name")
	domains := c.fs.String("allowed-domains", "", "comma-separated e-mail `DOMAINS` whose logins may sign in (empty: any)")
	skipLocal2FA := c.fs.Bool("skip-local-2fa", false, "the source's accounts sign in without their local second factor")
	active := c.fs.Bool("active", true, "the source is active (--active=false deactivates it)")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if update && *id == 0 {
		return usageError{"--id is required"}
	}
	if !update {
		for _, f := range []string{"name", "host", "port"} {
			if !c.given(f) {
				return usageError{fmt.Sprintf("--%s is required", f)}
			}
		}
	}
	if c.given("auth-type") {
		if _, ok := smtpsource.ParseAuthType(*authType); !ok {
			return usageError{"--auth-type must be one of PLAIN, LOGIN or CRAM-MD5"}
		}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	src := &authsource.Source{Type: authsource.TypeSMTP, IsActive: true, Config: &smtpsource.Config{Auth: smtpsource.AuthPlain}}
	if update {
		if src, err = a.sources.Get(ctx, *id); err != nil {
			return err
		}
		if src.Type != authsource.TypeSMTP {
			return fmt.Errorf("invalid authentication type. expected: %s, actual: %s", authsource.TypeSMTP, src.Type)
		}
	}
	cfg := src.Config.(*smtpsource.Config)
	set := func(flag string, apply func()) {
		if c.given(flag) {
			apply()
		}
	}
	set("name", func() { src.Name = *name })
	set("active", func() { src.IsActive = *active })
	set("auth-type", func() { cfg.Auth = *authType })
	set("host", func() { cfg.Host = *host })
	set("port", func() { cfg.Port = *port })
	set("force-smtps", func() { cfg.ForceSMTPS = *forceSMTPS })
	set("skip-verify", func() { cfg.SkipVerify = *skipVerify })
	set("helo-hostname", func() { cfg.HeloHostname = *helo })
	set("disable-helo", func() { cfg.DisableHelo = *disableHelo })
	set("allowed-domains", func() { cfg.AllowedDomains = *domains })
	set("skip-local-2fa", func() { cfg.SkipLocalTwoFA = *skipLocal2FA })
	return saveSource(ctx, a, e, src, update)
}

// adminAuthPAM adds (or, with update, changes) a PAM source. Gitea 1.23 has
// no PAM command; the flags are named after its settings.
func adminAuthPAM(ctx context.Context, args []string, e adminEnv, update bool) error {
	synopsis := "cairn admin auth add-pam --name N --service-name S [--email-domain D] [flags]"
	verb := "add"
	if update {
		verb = "update"
		synopsis = "cairn admin auth update-pam --id N [flags]"
	}
	c := newAdminCommand("auth "+verb+"-pam", synopsis,
		"Adds or changes a PAM sign-in source: a login and password are accepted when the host's PAM\n"+
			"service accepts them. Needs a binary built with -tags pam. Only the flags given change.")
	var id *int64
	if update {
		id = c.fs.Int64("id", 0, "the source's `ID`")
	}
	name := c.fs.String("name", "", "the source's `NAME`")
	service := c.fs.String("service-name", "", "the PAM `SERVICE` (a file under /etc/pam.d)")
	domain := c.fs.String("email-domain", "", "e-mail `DOMAIN` of the accounts (login@DOMAIN); empty: a made-up address")
	skipLocal2FA := c.fs.Bool("skip-local-2fa", false, "the source's accounts sign in without their local second factor")
	active := c.fs.Bool("active", true, "the source is active (--active=false deactivates it)")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if !pamsource.Built {
		return pamsource.ErrNotBuilt
	}
	if update && *id == 0 {
		return usageError{"--id is required"}
	}
	if !update {
		for _, f := range []string{"name", "service-name"} {
			if !c.given(f) {
				return usageError{fmt.Sprintf("--%s is required", f)}
			}
		}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	src := &authsource.Source{Type: authsource.TypePAM, IsActive: true, Config: &pamsource.Config{}}
	if update {
		if src, err = a.sources.Get(ctx, *id); err != nil {
			return err
		}
		if src.Type != authsource.TypePAM {
			return fmt.Errorf("invalid authentication type. expected: %s, actual: %s", authsource.TypePAM, src.Type)
		}
	}
	cfg := src.Config.(*pamsource.Config)
	if c.given("name") {
		src.Name = *name
	}
	if c.given("active") {
		src.IsActive = *active
	}
	if c.given("service-name") {
		cfg.ServiceName = *service
	}
	if c.given("email-domain") {
		cfg.EmailDomain = *domain
	}
	if c.given("skip-local-2fa") {
		cfg.SkipLocalTwoFA = *skipLocal2FA
	}
	return saveSource(ctx, a, e, src, update)
}

// saveSource creates or updates src and says so.
func saveSource(ctx context.Context, a *app, e adminEnv, src *authsource.Source, update bool) error {
	if update {
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

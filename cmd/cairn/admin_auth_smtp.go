package main

import (
	"context"
	"fmt"

	"github.com/cairn-forge/cairn/internal/authsource"
	smtpsource "github.com/cairn-forge/cairn/internal/authsource/smtp"
)

// adminAuthSMTP adds (or, with update, changes) an SMTP sign-in source,
// with Gitea's add-smtp and update-smtp flags and defaults.
func adminAuthSMTP(ctx context.Context, args []string, e adminEnv, update bool) error {
	verb, synopsis := "add", "cairn admin auth add-smtp --name N --host H --port N [flags]"
	if update {
		verb, synopsis = "update", "cairn admin auth update-smtp --id N [flags]"
	}
	c := newAdminCommand("auth "+verb+"-smtp", synopsis,
		"Adds or changes an SMTP sign-in source: a login and password are right when the mail\n"+
			"server accepts them for SMTP AUTH. Only the flags given change.")
	var id *int64
	if update {
		id = c.fs.Int64("id", 0, "the source's `ID`")
	}
	name := c.fs.String("name", "", "the source's `NAME`")
	authType := c.fs.String("auth-type", "PLAIN", "the AUTH mechanism: PLAIN, LOGIN or CRAM-MD5")
	host := c.fs.String("host", "", "the SMTP server's `HOST`")
	port := c.fs.Int("port", 0, "the SMTP server's `PORT`")
	forceSMTPS := c.fs.Bool("force-smtps", true, "speak TLS from the first byte (always on port 465); false: STARTTLS when offered")
	skipVerify := c.fs.Bool("skip-verify", true, "accept any server certificate")
	helo := c.fs.String("helo-hostname", "", "the name given in EHLO (empty: this host's name)")
	disableHelo := c.fs.Bool("disable-helo", true, "send no EHLO name of our own")
	domains := c.fs.String("allowed-domains", "", "comma-separated e-mail domains the logins must have (empty: any)")
	_ = c.fs.Bool("skip-local-2fa", true, "accepted for Gitea's command line; Cairn always asks an account's own second factor")
	active := c.fs.Bool("active", true, "the source is active")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if update && *id == 0 {
		return usageError{"--id is required"}
	}
	if !update {
		for _, flag := range []string{"name", "host", "port"} {
			if !c.given(flag) {
				return usageError{fmt.Sprintf("--%s is required", flag)}
			}
		}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	src := &authsource.Source{Type: authsource.TypeSMTP, Config: &smtpsource.Config{}}
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
		if !update || c.given(flag) {
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
	if update {
		err = a.sources.Update(ctx, src)
	} else {
		err = a.sources.Create(ctx, src)
	}
	if err != nil {
		return err
	}
	if update {
		fmt.Fprintf(e.stdout, "Authentication source %d (%s) has been updated.\n", src.ID, src.Name)
	} else {
		fmt.Fprintf(e.stdout, "Authentication source %d (%s) has been added.\n", src.ID, src.Name)
	}
	return nil
}

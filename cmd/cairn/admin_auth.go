package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/cairn-forge/cairn/internal/authsource"
	ldapsource "github.com/cairn-forge/cairn/internal/authsource/ldap"
)

const adminAuthUsage = `usage: cairn admin auth <command> [flags]

commands:
  add-ldap              add an LDAP source (via a bind DN)
  add-ldap-simple       add an LDAP source (simple auth, a user DN template)
  update-ldap           change an LDAP source (via a bind DN)
  update-ldap-simple    change an LDAP source (simple auth)
  add-smtp              add an SMTP source
  update-smtp           change an SMTP source
  add-pam               add a PAM source (binaries built with -tags pam)
  update-pam            change a PAM source
  list                  list the sign-in sources
  delete                delete a sign-in source no account uses
  sync                  synchronise the users of the sources now

Run 'cairn admin auth <command> --help' for the flags of a command.`

// adminAuth runs 'cairn admin auth ...' (Gitea's command and flag names).
func adminAuth(ctx context.Context, args []string, e adminEnv) error {
	if len(args) == 0 {
		return usageError{adminAuthUsage}
	}
	if isHelp(args[0]) {
		fmt.Fprintln(e.stdout, adminAuthUsage)
		return nil
	}
	switch args[0] {
	case "add-ldap":
		return adminAuthLDAP(ctx, args[1:], e, authsource.TypeLDAP, false)
	case "add-ldap-simple":
		return adminAuthLDAP(ctx, args[1:], e, authsource.TypeDLDAP, false)
	case "update-ldap":
		return adminAuthLDAP(ctx, args[1:], e, authsource.TypeLDAP, true)
	case "update-ldap-simple":
		return adminAuthLDAP(ctx, args[1:], e, authsource.TypeDLDAP, true)
	case "add-smtp":
		return adminAuthSMTP(ctx, args[1:], e, false)
	case "update-smtp":
		return adminAuthSMTP(ctx, args[1:], e, true)
	case "add-pam":
		return adminAuthPAM(ctx, args[1:], e, false)
	case "update-pam":
		return adminAuthPAM(ctx, args[1:], e, true)
	case "list":
		return adminAuthList(ctx, args[1:], e)
	case "delete":
		return adminAuthDelete(ctx, args[1:], e)
	case "sync":
		return adminAuthSync(ctx, args[1:], e)
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", "admin auth "+args[0], adminAuthUsage)}
}

// ldapFlags are the flags of the LDAP commands, Gitea's names.
type ldapFlags struct {
	name, securityProtocol, host, userSearchBase, userFilter, adminFilter, restrictedFilter           *string
	usernameAttr, firstnameAttr, surnameAttr, emailAttr, sshKeyAttr, avatarAttr, bindDN, bindPassword *string
	bindPasswordFile, userDN                                                                          *string
	notActive, skipTLSVerify, allowDeactivateAll, attributesInBind, synchronizeUser, skipLocal2FA     *bool
	port                                                                                              *int
	pageSize                                                                                          *uint
}

func addLDAPFlags(fs *flag.FlagSet, mode authsource.Type) ldapFlags {
	f := ldapFlags{
		name:               fs.String("name", "", "the source's `NAME`"),
		notActive:          fs.Bool("not-active", false, "deactivate the source"),
		securityProtocol:   fs.String("security-protocol", "", "`PROTOCOL`: Unencrypted, LDAPS or StartTLS"),
		skipTLSVerify:      fs.Bool("skip-tls-verify", false, "do not verify the server's TLS certificate"),
		skipLocal2FA:       fs.Bool("skip-local-2fa", false, "the source's accounts sign in without their local second factor"),
		host:               fs.String("host", "", "the LDAP server's `HOST`"),
		port:               fs.Int("port", 0, "the LDAP server's `PORT`"),
		userFilter:         fs.String("user-filter", "", "LDAP `FILTER` that finds the user signing in; %s stands for the login"),
		adminFilter:        fs.String("admin-filter", "", "LDAP `FILTER` (searched with the user's DN as base) that makes a user a site administrator; empty: not managed"),
		restrictedFilter:   fs.String("restricted-filter", "", "LDAP `FILTER` (searched with the user's DN as base) that makes a user restricted; empty: not managed"),
		allowDeactivateAll: fs.Bool("allow-deactivate-all", false, "let a synchronisation that finds no user at all deactivate every account of the source"),
		usernameAttr:       fs.String("username-attribute", "", "`ATTRIBUTE` holding the user name (empty: the login typed)"),
		firstnameAttr:      fs.String("firstname-attribute", "", "`ATTRIBUTE` holding the first name"),
		surnameAttr:        fs.String("surname-attribute", "", "`ATTRIBUTE` holding the surname"),
		emailAttr:          fs.String("email-attribute", "", "`ATTRIBUTE` holding the e-mail address"),
		sshKeyAttr:         fs.String("public-ssh-key-attribute", "", "`ATTRIBUTE` holding the user's public SSH keys"),
		avatarAttr:         fs.String("avatar-attribute", "", "`ATTRIBUTE` holding the user's picture (e.g. jpegPhoto), used as the avatar"),
	}
	if mode == authsource.TypeLDAP {
		f.userSearchBase = fs.String("user-search-base", "", "`DN` under which users are searched")
		f.bindDN = fs.String("bind-dn", "", "`DN` to bind as when searching (empty: anonymous)")
		f.bindPassword = fs.String("bind-password", "", "the bind DN's `PASSWORD` (visible to other local users: prefer --bind-password-file)")
		f.bindPasswordFile = fs.String("bind-password-file", "", "read the bind DN's password from the first line of `FILE`")
		f.attributesInBind = fs.Bool("attributes-in-bind", false, "read the user's attributes as the bind DN")
		f.synchronizeUser = fs.Bool("synchronize-users", false, "synchronise the source's users ([cron.sync_external_users])")
		f.pageSize = fs.Uint("page-size", 0, "search page `SIZE` of the synchronisation (0: 500)")
	} else {
		f.userDN = fs.String("user-dn", "", "the users' `DN` template; %s stands for the login")
	}
	return f
}

// apply copies the flags given on the command line into src.
func (f ldapFlags) apply(c *adminCommand, src *authsource.Source, cfg *ldapsource.Config) error {
	str := func(name string, dst *string, v *string) {
		if v != nil && c.given(name) {
			*dst = *v
		}
	}
	boolean := func(name string, dst *bool, v *bool) {
		if v != nil && c.given(name) {
			*dst = *v
		}
	}
	str("name", &src.Name, f.name)
	if c.given("not-active") {
		src.IsActive = !*f.notActive
	}
	boolean("synchronize-users", &src.IsSyncEnabled, f.synchronizeUser)
	if c.given("security-protocol") {
		p, ok := ldapsource.ParseSecurityProtocol(*f.securityProtocol)
		if !ok {
			return usageError{fmt.Sprintf("unknown security protocol name: %s (Unencrypted, LDAPS or StartTLS)", *f.securityProtocol)}
		}
		cfg.SecurityProtocol = p
	}
	boolean("skip-tls-verify", &cfg.SkipVerify, f.skipTLSVerify)
	boolean("skip-local-2fa", &cfg.SkipLocalTwoFA, f.skipLocal2FA)
	str("host", &cfg.Host, f.host)
	if c.given("port") {
		cfg.Port = *f.port
	}
	str("user-search-base", &cfg.UserBase, f.userSearchBase)
	str("user-dn", &cfg.UserDN, f.userDN)
	str("user-filter", &cfg.Filter, f.userFilter)
	str("admin-filter", &cfg.AdminFilter, f.adminFilter)
	str("restricted-filter", &cfg.RestrictedFilter, f.restrictedFilter)
	boolean("allow-deactivate-all", &cfg.AllowDeactivateAll, f.allowDeactivateAll)
	str("username-attribute", &cfg.AttributeUsername, f.usernameAttr)
	str("firstname-attribute", &cfg.AttributeName, f.firstnameAttr)
	str("surname-attribute", &cfg.AttributeSurname, f.surnameAttr)
	str("email-attribute", &cfg.AttributeMail, f.emailAttr)
	str("public-ssh-key-attribute", &cfg.AttributeSSHPublicKey, f.sshKeyAttr)
	str("avatar-attribute", &cfg.AttributeAvatar, f.avatarAttr)
	str("bind-dn", &cfg.BindDN, f.bindDN)
	str("bind-password", &cfg.BindPassword, f.bindPassword)
	if f.bindPasswordFile != nil && c.given("bind-password-file") {
		if c.given("bind-password") {
			return usageError{"give the bind password only once: --bind-password or --bind-password-file"}
		}
		file, err := os.Open(*f.bindPasswordFile)
		if err != nil {
			return fmt.Errorf("bind password file: %w", err)
		}
		defer file.Close()
		line, _ := bufio.NewReader(file).ReadString('\n')
		cfg.BindPassword = strings.TrimRight(line, "\r\n")
	}
	boolean("attributes-in-bind", &cfg.AttributesInBind, f.attributesInBind)
	if f.pageSize != nil && c.given("page-size") {
		cfg.SearchPageSize = uint32(*f.pageSize)
	}
	return nil
}

// adminAuthLDAP adds (or, with update, changes) an LDAP source of mode.
func adminAuthLDAP(ctx context.Context, args []string, e adminEnv, mode authsource.Type, update bool) error {
	kind := map[authsource.Type]string{authsource.TypeLDAP: "ldap", authsource.TypeDLDAP: "ldap-simple"}[mode]
	synopsis := "--name N --security-protocol P --host H --port N --user-filter F --email-attribute A "
	required := []string{"name", "security-protocol", "host", "port", "user-filter", "email-attribute"}
	if mode == authsource.TypeLDAP {
		synopsis += "--user-search-base DN [--bind-dn DN --bind-password-file F] [flags]"
		required = append(required, "user-search-base")
	} else {
		synopsis += "--user-dn DN [flags]"
		required = append(required, "user-dn")
	}
	s := newSourceCommand(kind, synopsis, "Adds or changes an LDAP sign-in source, with Gitea's flags. Only the flags given change.", mode, update)
	f := addLDAPFlags(s.c.fs, mode)
	return s.run(ctx, args, e, required, &ldapsource.Config{Mode: mode}, func(src *authsource.Source) error {
		return f.apply(s.c, src, src.Config.(*ldapsource.Config))
	})
}

func adminAuthList(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("auth list", "cairn admin auth list", "Lists the sign-in sources.")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	list, err := a.sources.ListAll(ctx) // those this binary cannot use too, so they can be deleted
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tName\tType\tEnabled\tProblem")
	for _, s := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%t\t%s\n", s.ID, s.Name, s.Type, s.IsActive, s.Problem)
	}
	return tw.Flush()
}

func adminAuthDelete(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("auth delete", "cairn admin auth delete --id N", "Deletes a sign-in source; refused while accounts sign in through it.")
	id := c.fs.Int64("id", 0, "the source's `ID`")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if *id == 0 {
		return usageError{"--id is required"}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.sources.Delete(ctx, *id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Authentication source %d has been deleted.\n", *id)
	return nil
}

func adminAuthSync(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("auth sync", "cairn admin auth sync [--id N] [--update-existing=false]",
		"Synchronises the users of the active sources with synchronisation enabled (or of the\n"+
			"source --id, enabled or not), as the [cron.sync_external_users] task does.")
	id := c.fs.Int64("id", 0, "only the source `ID`")
	updateExisting := c.fs.Bool("update-existing", true, "also update existing accounts")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	if *id == 0 {
		return a.sources.SyncAll(ctx, *updateExisting)
	}
	src, err := a.sources.Get(ctx, *id)
	if err != nil {
		return err
	}
	res, err := a.sources.Sync(ctx, src, *updateExisting)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "listed %d, created %d, updated %d, deactivated %d, skipped %d\n", res.Listed, res.Created, res.Updated, res.Deactivated, res.Skipped)
	if res.DeactivationSkipped {
		fmt.Fprintln(e.stdout, "no account was deactivated: the source listed no user")
	}
	return nil
}

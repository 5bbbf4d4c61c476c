package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/user"
)

const adminUsage = `usage: cairn admin <command> [flags]

commands:
  user create                   create an account
  user change-password          set an account's password
  user list                     list accounts
  user delete                   delete an account
  user generate-access-token    create an access token for an account
  user must-change-password     make accounts change their password at next sign-in
  auth add-ldap|add-ldap-simple|update-ldap|update-ldap-simple|list|delete|sync
                                manage the sign-in sources (LDAP)
  regenerate hooks              write the git hook scripts again, naming this binary
  config check                  check the configuration as 'cairn serve' would read it
  sendmail                      mail every active account

Admin commands work on an existing instance (the data directory and database
that 'cairn serve' uses, also while it runs), named by --config/--data-dir or
CAIRN_CONFIG/CAIRN_DATA_DIR/CAIRN_DATABASE_URL; they refuse a directory or
database that holds no Cairn instance. Run 'cairn admin <command> --help' for
the flags of a command.`

const adminUserUsage = `usage: cairn admin user <command> [flags]

commands:
  create                   create an account
  change-password          set an account's password
  list                     list accounts
  delete                   delete an account
  generate-access-token    create an access token for an account
  must-change-password     make accounts change their password at next sign-in

Run 'cairn admin user <command> --help' for the flags of a command.`

// adminEnv is what every admin command gets.
type adminEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

func admin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	e := adminEnv{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) == 0 {
		return usageError{adminUsage}
	}
	if isHelp(args[0]) {
		fmt.Fprintln(stdout, adminUsage)
		return nil
	}
	switch args[0] {
	case "user":
		if len(args) < 2 {
			return usageError{adminUserUsage}
		}
		if isHelp(args[1]) {
			fmt.Fprintln(stdout, adminUserUsage)
			return nil
		}
		switch args[1] {
		case "create":
			return adminUserCreate(ctx, args[2:], e)
		case "change-password":
			return adminUserChangePassword(ctx, args[2:], e)
		case "list":
			return adminUserList(ctx, args[2:], e)
		case "delete":
			return adminUserDelete(ctx, args[2:], e)
		case "generate-access-token":
			return adminUserGenerateToken(ctx, args[2:], e)
		case "must-change-password":
			return adminUserMustChangePassword(ctx, args[2:], e)
		}
		return usageError{fmt.Sprintf("unknown command %q\n%s", "admin user "+args[1], adminUserUsage)}
	case "config":
		return adminConfig(ctx, args[1:], e)
	case "sendmail":
		return adminSendmail(ctx, args[1:], e)
	case "auth":
		return adminAuth(ctx, args[1:], e)
	case "regenerate":
		const regenUsage = "usage: cairn admin regenerate hooks [flags]\n\ncommands:\n  hooks    write the git hook scripts again, naming this binary"
		if len(args) < 2 {
			return usageError{regenUsage}
		}
		if isHelp(args[1]) {
			fmt.Fprintln(stdout, regenUsage)
			return nil
		}
		if args[1] == "hooks" {
			return adminRegenerateHooks(ctx, args[2:], e)
		}
		return usageError{fmt.Sprintf("unknown command %q\n%s", "admin regenerate "+args[1], regenUsage)}
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", "admin "+args[0], adminUsage)}
}

// adminCommand is the flag set of one admin command with the flags every
// admin command takes.
type adminCommand struct {
	fs       *flag.FlagSet
	inst     instanceFlags
	synopsis string
	about    string
}

func newAdminCommand(name, synopsis, about string) *adminCommand {
	fs := newFlagSet("cairn admin " + name)
	return &adminCommand{fs: fs, inst: addInstanceFlags(fs), synopsis: synopsis, about: about}
}

// parse parses args; done is true when --help was answered.
func (c *adminCommand) parse(args []string, e *adminEnv) (done bool, err error) {
	done, err = parseFlags(c.fs, args, e.stdout, c.synopsis, c.about)
	if done || err != nil {
		return done, err
	}
	e.getenv = c.inst.getenv(e.getenv)
	return false, nil
}

// given reports whether the flag name was set on the command line.
func (c *adminCommand) given(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// passwordFlags are the three ways to give a password.
type passwordFlags struct {
	value, file *string
	stdin       *bool
}

func addPasswordFlags(fs *flag.FlagSet, what string) passwordFlags {
	return passwordFlags{
		value: fs.String("password", "", "the `PASSWORD` itself: "+what+" (visible to other local users: prefer --password-stdin or --password-file)"),
		file:  fs.String("password-file", "", "read the password from the first line of `FILE`"),
		stdin: fs.Bool("password-stdin", false, "read the password from the first line of standard input"),
	}
}

// read returns the password from the one source given.
func (p passwordFlags) read(stdin io.Reader) (string, error) {
	n := 0
	for _, given := range []bool{*p.value != "", *p.file != "", *p.stdin} {
		if given {
			n++
		}
	}
	switch {
	case n == 0:
		return "", usageError{"a password is required: --password-stdin, --password-file FILE or --password P"}
	case n > 1:
		return "", usageError{"give the password only once: --password, --password-file or --password-stdin"}
	case *p.value != "":
		return *p.value, nil
	}
	r := stdin
	if *p.file != "" {
		f, err := os.Open(*p.file)
		if err != nil {
			return "", fmt.Errorf("password file: %w", err)
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", usageError{"the password read is empty"}
	}
	return line, nil
}

// openInstance opens the instance an admin command works on. It refuses a
// data directory or database without Cairn's schema (rather than creating an
// empty instance that no server uses) and names the instance on stderr.
func openInstance(ctx context.Context, e adminEnv) (*app, error) {
	if _, err := checkInstance(ctx, e); err != nil {
		return nil, err
	}
	return open(ctx, e.getenv, false)
}

// checkInstance loads the settings and checks that they name an existing
// instance: the data directory, the SQLite file, the schema.
func checkInstance(ctx context.Context, e adminEnv) (*config.Config, error) {
	cfg, err := config.Load(e.getenv)
	if err != nil {
		return nil, err
	}
	hint := "name the instance 'cairn serve' uses with --data-dir/--config (or CAIRN_DATA_DIR, CAIRN_CONFIG, CAIRN_DATABASE_URL), or start 'cairn serve' once to create a new one"
	if fi, err := os.Stat(cfg.DataDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("no Cairn instance: the data directory %s does not exist; %s", cfg.DataDir, hint)
	}
	where := describeDatabase(cfg)
	if path, ok := sqliteFile(cfg); ok {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("no Cairn instance in %s: there is no database file %s; %s", cfg.DataDir, path, hint)
		}
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var n int64
	tables, err := d.Tables(ctx)
	if err == nil && slices.Contains(tables, "schema_migration") {
		n, err = d.Count(ctx, "SELECT COUNT(*) FROM schema_migration")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("no Cairn instance: the database (%s) holds no Cairn schema; %s", where, hint)
	}
	fmt.Fprintf(e.stderr, "cairn: instance in %s, database %s\n", cfg.DataDir, where)
	return cfg, nil
}

// sqliteFile is the SQLite database file of cfg, named as db.Open names it.
func sqliteFile(cfg *config.Config) (string, bool) {
	u := cfg.DatabaseURL
	switch {
	case u == "":
		return filepath.Join(cfg.DataDir, "cairn.db"), true
	case strings.HasPrefix(u, "sqlite:") || strings.HasPrefix(u, "file:"):
		p := strings.TrimPrefix(strings.TrimPrefix(u, "sqlite://"), "sqlite:")
		return strings.TrimPrefix(p, "file:"), true
	}
	return "", false
}

// describeDatabase names the database of cfg without its credentials.
func describeDatabase(cfg *config.Config) string {
	if path, ok := sqliteFile(cfg); ok {
		return "SQLite " + path
	}
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		return "(unparsable database URL)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

func adminUserCreate(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("user create",
		"cairn admin user create --username U (--password-stdin | --password-file F | --password P) --email E [--admin] [--restricted] [--must-change-password=false] [--access-token]",
		"Creates an active account. With --access-token an access token with every scope is\n"+
			"printed as the last line of standard output; such an account is used by a program,\n"+
			"so it is not made to change its password unless --must-change-password is given,\n"+
			"which --access-token then refuses (the token would answer 403 until the change).\n"+
			"Otherwise the account must change its password at first sign-in, except the first\n"+
			"account of an instance; until the web interface exists, that change is made with\n"+
			"'cairn admin user change-password'.")
	name := c.fs.String("username", "", "the account's `NAME`")
	pw := addPasswordFlags(c.fs, "password")
	email := c.fs.String("email", "", "e-mail `ADDRESS`")
	isAdmin := c.fs.Bool("admin", false, "make the user a site administrator")
	restricted := c.fs.Bool("restricted", false, "make the user restricted")
	mustChange := c.fs.Bool("must-change-password", false, "require a password change at first sign-in (default: yes, except for the first account of an instance and with --access-token)")
	withToken := c.fs.Bool("access-token", false, "also create an access token with every scope (printed as the last line)")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if *name == "" || *email == "" {
		return usageError{"--username and --email are required"}
	}
	explicit := c.given("must-change-password")
	if *withToken && explicit && *mustChange {
		return usageError{"--access-token with --must-change-password: the token would answer 403 until the password is changed; " +
			"leave out --must-change-password, or create the token later with 'cairn admin user generate-access-token'"}
	}
	password, err := pw.read(e.stdin)
	if err != nil {
		return err
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	switch {
	case explicit:
	case *withToken:
		*mustChange = false
	default:
		// As in Gitea, the first account of an instance is not forced to
		// change its password unless --must-change-password is given.
		n, err := a.db.Count(ctx, "SELECT COUNT(*) FROM users WHERE type = 0")
		if err != nil {
			return err
		}
		*mustChange = n > 0
	}
	u, err := a.users.Create(ctx, user.CreateOptions{Name: *name, Email: *email, Password: password, IsAdmin: *isAdmin,
		IsRestricted: *restricted, MustChangePassword: *mustChange, Active: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "New user '%s' has been successfully created!\n", u.Name)
	if *mustChange {
		fmt.Fprintf(e.stderr, "cairn: '%s' must change the password before using the account (the API answers 403 until then); "+
			"until the web interface exists: cairn admin user change-password --username %s --password-stdin\n", u.Name, shellWord(u.Name))
	}
	if *withToken {
		_, plain, err := a.tokens.Create(ctx, u.ID, "cairn-admin-cli", []string{"all"})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, plain)
	}
	return nil
}

func adminUserChangePassword(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("user change-password",
		"cairn admin user change-password --username U (--password-stdin | --password-file F | --password P) [--must-change-password]",
		"Sets the password of an account. The account can use it at once: the flag that\n"+
			"forces a password change is cleared, unless --must-change-password is given.")
	name := c.fs.String("username", "", "the account's `NAME`")
	pw := addPasswordFlags(c.fs, "new password")
	mustChange := c.fs.Bool("must-change-password", false, "require another password change at next sign-in")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if *name == "" {
		return usageError{"--username is required"}
	}
	password, err := pw.read(e.stdin)
	if err != nil {
		return err
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	u, err := a.users.Store.GetByName(ctx, *name)
	if err != nil {
		return err
	}
	if err := a.users.SetPassword(ctx, u, password, *mustChange); err != nil {
		return err
	}
	if *mustChange {
		fmt.Fprintf(e.stdout, "Password of '%s' has been successfully changed; it must be changed again at next sign-in.\n", u.Name)
	} else {
		fmt.Fprintf(e.stdout, "Password of '%s' has been successfully changed.\n", u.Name)
	}
	return nil
}

func adminUserList(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("user list", "cairn admin user list [--admin]", "Lists the accounts (not organizations).")
	onlyAdmins := c.fs.Bool("admin", false, "list only administrators")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	where, qargs := "WHERE u.type = 0", []any{}
	if *onlyAdmins {
		where += " AND u.is_admin = ?"
		qargs = append(qargs, true)
	}
	list, err := a.users.Store.List(ctx, where+" ORDER BY u.id", qargs...)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUsername\tEmail\tIsActive\tIsAdmin\tIsRestricted")
	for _, u := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%t\t%t\t%t\n", u.ID, u.Name, u.Email, u.IsActive, u.IsAdmin, u.IsRestricted)
	}
	return tw.Flush()
}

func adminRegenerateHooks(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("regenerate hooks", "cairn admin regenerate hooks",
		"Writes the git server-side hook scripts of the instance again, naming this binary.\n"+
			"'cairn serve' writes them at every start; run this after moving or deleting the\n"+
			"binary a running server was started from.")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	cfg, err := checkInstance(ctx, e)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := hooks.WriteScripts(cfg.DataDir, exe); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "The hook scripts in %s now run %s.\n", filepath.Join(cfg.DataDir, "hooks"), exe)
	if strings.HasPrefix(exe, filepath.Clean(os.TempDir())+string(filepath.Separator)) {
		fmt.Fprintf(e.stderr, "cairn: warning: %s is in a temporary directory (go run?); pushes fail once it is removed\n", exe)
	}
	return nil
}

func adminUserDelete(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("user delete", "cairn admin user delete (--username U | --id N | --email E) [--purge]",
		"Deletes an account. Without --purge it refuses while the account owns repositories\n"+
			"or belongs to organizations; the last administrator is never deleted. When several\n"+
			"of --username, --id and --email are given they must name the same account.")
	name := c.fs.String("username", "", "the account's `NAME`")
	id := c.fs.Int64("id", 0, "the account's `ID`")
	email := c.fs.String("email", "", "the account's e-mail `ADDRESS`")
	purge := c.fs.Bool("purge", false, "also delete the account's repositories and memberships")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if *name == "" && *id == 0 && *email == "" {
		return usageError{"one of --username, --id or --email is required"}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	var u *user.User
	switch {
	case *id != 0:
		u, err = a.users.Store.GetByID(ctx, *id)
	case *name != "":
		u, err = a.users.Store.GetByName(ctx, *name)
	default:
		u, err = a.users.Store.GetByEmail(ctx, *email)
	}
	if err != nil {
		return err
	}
	if u.IsOrganization() {
		return fmt.Errorf("%s is an organization, not a user", u.Name)
	}
	if *name != "" && !strings.EqualFold(u.Name, *name) || *email != "" && !strings.EqualFold(u.Email, *email) {
		return fmt.Errorf("--id, --username and --email name different accounts")
	}
	if err := a.users.Delete(ctx, u, *purge); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "User '%s' has been deleted.\n", u.Name)
	return nil
}

func adminUserGenerateToken(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("user generate-access-token",
		"cairn admin user generate-access-token --username U [--token-name NAME] [--scopes S] [--raw]",
		"Creates an access token for an account and prints it. --scopes takes Gitea's scope\n"+
			"names separated by commas, e.g. \"all\", \"read:repository,write:issue\", \"public-only,read:user\".")
	name := c.fs.String("username", "", "the account's `NAME`")
	tokenName := c.fs.String("token-name", "cairn-admin", "`NAME` of the token (unique per account)")
	scopes := c.fs.String("scopes", "all", "comma-separated `SCOPES`")
	raw := c.fs.Bool("raw", false, "print only the token")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	if *name == "" {
		return usageError{"--username is required"}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	u, err := a.users.Store.GetByName(ctx, *name)
	if err != nil {
		return err
	}
	if u.IsOrganization() {
		return fmt.Errorf("%s is an organization, not a user", u.Name)
	}
	var list []string
	for _, s := range strings.Split(*scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	_, plain, err := a.tokens.Create(ctx, u.ID, *tokenName, list)
	if err != nil {
		return err
	}
	if *raw {
		fmt.Fprintln(e.stdout, plain)
	} else {
		fmt.Fprintf(e.stdout, "Access token was successfully created: %s\n", plain)
	}
	if u.MustChangePassword {
		fmt.Fprintf(e.stderr, "cairn: warning: '%s' must change the password first: the token answers 403 until then "+
			"(cairn admin user change-password --username %s --password-stdin clears it)\n", u.Name, shellWord(u.Name))
	}
	return nil
}

func adminUserMustChangePassword(ctx context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("user must-change-password",
		"cairn admin user must-change-password [--all] [--exclude U]... [--unset] [USER...]",
		"Makes the named accounts (or with --all every account but the excluded ones) change\n"+
			"their password at next sign-in; with --unset, no longer. Until they do, the API\n"+
			"answers 403 to their passwords and tokens, as Gitea's does.")
	all := c.fs.Bool("all", false, "every account")
	var exclude multiFlag
	c.fs.Var(&exclude, "exclude", "an account `NAME` to leave alone (repeatable)")
	unset := c.fs.Bool("unset", false, "clear the flag instead of setting it")
	err := c.fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(e.stdout, c.fs, c.synopsis, c.about)
		return nil
	}
	if err != nil {
		return usageError{fmt.Sprintf("%v\nusage: %s", err, c.synopsis)}
	}
	e.getenv = c.inst.getenv(e.getenv)
	names := c.fs.Args()
	if *all == (len(names) > 0) {
		return usageError{"name the accounts, or give --all (not both)\nusage: " + c.synopsis}
	}
	a, err := openInstance(ctx, e)
	if err != nil {
		return err
	}
	defer a.close()
	n, err := a.users.SetMustChangePassword(ctx, !*unset, names, exclude)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Updated %d users setting MustChangePassword to %t\n", n, !*unset)
	return nil
}

// multiFlag is a flag that may be repeated.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }

func (m *multiFlag) Set(v string) error {
	*m = append(*m, v)
	return nil
}

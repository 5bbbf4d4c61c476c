package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cairn-forge/cairn/internal/user"
)

func admin(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) < 2 || args[0] != "user" {
		return usageError{usage}
	}
	switch args[1] {
	case "create":
		return adminUserCreate(ctx, args[2:], stdout, getenv)
	case "change-password":
		return adminUserChangePassword(ctx, args[2:], stdout, getenv)
	case "list":
		return adminUserList(ctx, args[2:], stdout, getenv)
	}
	return usageError{fmt.Sprintf("unknown admin command %q\n%s", args[1], usage)}
}

func adminUserCreate(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := newFlagSet("admin user create")
	name := fs.String("username", "", "user name")
	pw := fs.String("password", "", "password")
	email := fs.String("email", "", "e-mail address")
	isAdmin := fs.Bool("admin", false, "make the user a site administrator")
	restricted := fs.Bool("restricted", false, "make the user restricted")
	mustChange := fs.Bool("must-change-password", true, "require a password change at first sign-in")
	withToken := fs.Bool("access-token", false, "also create an access token (printed as the last line)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *name == "" || *pw == "" || *email == "" {
		return usageError{"--username, --password and --email are required"}
	}
	a, err := open(ctx, getenv)
	if err != nil {
		return err
	}
	defer a.close()
	// As in Gitea, the first account of an empty instance is not forced to
	// change its password unless --must-change-password is given explicitly.
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "must-change-password" })
	if !explicit {
		n, err := a.db.Count(ctx, "SELECT COUNT(*) FROM users WHERE type = 0")
		if err != nil {
			return err
		}
		if n == 0 {
			*mustChange = false
		}
	}
	u, err := a.users.Create(ctx, user.CreateOptions{Name: *name, Email: *email, Password: *pw, IsAdmin: *isAdmin,
		IsRestricted: *restricted, MustChangePassword: *mustChange, Active: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "New user '%s' has been successfully created!\n", u.Name)
	if *withToken {
		_, plain, err := a.tokens.Create(ctx, u.ID, "cairn-admin-cli", []string{"all"})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, plain)
	}
	return nil
}

func adminUserChangePassword(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := newFlagSet("admin user change-password")
	name := fs.String("username", "", "user name")
	pw := fs.String("password", "", "new password")
	mustChange := fs.Bool("must-change-password", true, "require a password change at next sign-in")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *name == "" || *pw == "" {
		return usageError{"--username and --password are required"}
	}
	a, err := open(ctx, getenv)
	if err != nil {
		return err
	}
	defer a.close()
	u, err := a.users.Store.GetByName(ctx, *name)
	if err != nil {
		return err
	}
	if err := a.users.SetPassword(ctx, u, *pw, *mustChange); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Password of '%s' has been successfully changed.\n", u.Name)
	return nil
}

func adminUserList(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := newFlagSet("admin user list")
	onlyAdmins := fs.Bool("admin", false, "list only administrators")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	a, err := open(ctx, getenv)
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
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUsername\tEmail\tIsActive\tIsAdmin\tIsRestricted")
	for _, u := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%t\t%t\t%t\n", u.ID, u.Name, u.Email, u.IsActive, u.IsAdmin, u.IsRestricted)
	}
	return tw.Flush()
}

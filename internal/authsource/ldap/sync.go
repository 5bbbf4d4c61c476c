package ldap

import (
	"context"
	"fmt"
	"strings"
	"time"

	goldap "github.com/go-ldap/ldap/v3"

	"github.com/cairn-forge/cairn/internal/authsource"
)

// CanList tells whether the source's users can be listed: only with a bind DN.
func (c *Config) CanList() bool { return c.Mode == authsource.TypeLDAP }

// MayDeactivateAll is AllowDeactivateAll.
func (c *Config) MayDeactivateAll() bool { return c.AllowDeactivateAll }

func (c *Config) pageSize() uint32 {
	if c.SearchPageSize > 0 {
		return c.SearchPageSize
	}
	return 500
}

// ListUsers calls each for every user the user filter (with * for the
// login) finds under the search base, one page of entries in memory at a
// time. The admin and restricted filters are searched once each, combined
// with the user filter, rather than once per user.
func (c *Config) ListUsers(ctx context.Context, each func(*authsource.ExternalUser) error) error {
	if !c.CanList() {
		return errNoListing
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := c.bindSearcher(conn); err != nil {
		return err
	}
	all := c.allUsersFilter()
	admins, err := c.dnSet(ctx, conn, c.AdminFilter, all)
	if err != nil {
		return err
	}
	restricted, err := c.dnSet(ctx, conn, c.RestrictedFilter, all)
	if err != nil {
		return err
	}
	return c.pages(ctx, conn, all, c.attributes(), func(e *goldap.Entry) error {
		eu := c.toUser(e)
		if eu.Name == "" {
			return nil // no user name to give the account
		}
		if admins != nil {
			_, on := admins[strings.ToLower(e.DN)]
			eu.IsAdmin = &on
		}
		if restricted != nil {
			_, on := restricted[strings.ToLower(e.DN)]
			eu.IsRestricted = &on
		}
		return each(eu)
	})
}

// allUsersFilter is the user filter with * for the login, as Gitea's
// synchronisation uses it (the one place a wildcard is meant).
func (c *Config) allUsersFilter() string {
	var b []byte
	f := c.Filter
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+1 < len(f) && f[i+1] == 's' {
			b = append(b, '*')
			i++
			continue
		}
		b = append(b, f[i])
	}
	return string(b)
}

// dnSet returns the DNs of the users that match both the user filter and
// filter (nil when filter is empty), keyed by their normalised form.
func (c *Config) dnSet(ctx context.Context, conn *goldap.Conn, filter, all string) (map[string]struct{}, error) {
	if filter == "" {
		return nil, nil
	}
	set := map[string]struct{}{}
	err := c.pages(ctx, conn, "(&"+all+filter+")", []string{"dn"}, func(e *goldap.Entry) error {
		set[strings.ToLower(e.DN)] = struct{}{}
		return nil
	})
	return set, err
}

// pages runs a paged subtree search under the user base, calling fn for
// each entry and keeping one page in memory.
func (c *Config) pages(ctx context.Context, conn *goldap.Conn, filter string, attrs []string, fn func(*goldap.Entry) error) error {
	paging := goldap.NewControlPaging(c.pageSize())
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		req := goldap.NewSearchRequest(c.UserBase, goldap.ScopeWholeSubtree, goldap.NeverDerefAliases, 0,
			int(c.timeout()/time.Second), false, filter, attrs, []goldap.Control{paging})
		res, err := conn.Search(req)
		if err != nil {
			return fmt.Errorf("search %s: %w", c.UserBase, err)
		}
		for _, e := range res.Entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		ctrl, ok := goldap.FindControl(res.Controls, goldap.ControlTypePaging).(*goldap.ControlPaging)
		if !ok || len(ctrl.Cookie) == 0 {
			return nil
		}
		paging.SetCookie(ctrl.Cookie)
	}
}

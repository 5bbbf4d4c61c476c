package oauth2

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// BuiltinApp is an application every instance offers, as Gitea 1.23's
// built-in ones: a public client with loopback redirect URIs (any port,
// RFC 8252 section 7.3) and the same client id on every forge, so that
// tools such as git credential helpers work without registration. Built-in
// applications belong to no account (owner 0): no user can change or
// delete them; [oauth2] DEFAULT_APPLICATIONS chooses which exist.
type BuiltinApp struct {
	ConfigName string
	Name       string
	ClientID   string
}

// BuiltinApps lists the built-in applications with Gitea's client ids.
func BuiltinApps() []BuiltinApp {
	return []BuiltinApp{
		{ConfigName: "git-credential-oauth", Name: "git-credential-oauth", ClientID: "a4792ccc-144e-407e-86c9-5e7d8d9c3269"},
		{ConfigName: "git-credential-manager", Name: "Git Credential Manager", ClientID: "e90ee53c-94e2-48ac-9358-a874fb9e0662"},
		{ConfigName: "tea", Name: "tea", ClientID: "d57cb8c4-630c-4168-8324-ec79935e18d4"},
	}
}

// builtinRedirectURIs are the built-in applications' redirect URIs.
var builtinRedirectURIs = []string{"http://127.0.0.1", "https://127.0.0.1"}

// IsBuiltin reports whether a is a built-in application.
func (a *Application) IsBuiltin() bool { return a.OwnerID == 0 }

// SyncBuiltinApps makes the built-in applications named in enabled (by
// their configuration names) exist and removes the others with their
// grants, as Gitea does at start. An unknown name is an error.
func (s *Service) SyncBuiltinApps(ctx context.Context, enabled []string) error {
	all := BuiltinApps()
	for _, name := range enabled {
		if !slices.ContainsFunc(all, func(b BuiltinApp) bool { return b.ConfigName == name }) {
			return fmt.Errorf("[oauth2] DEFAULT_APPLICATIONS: unknown application %q (known: git-credential-oauth, git-credential-manager, tea)", name)
		}
	}
	for _, b := range all {
		a, _, err := s.store.byClientID(ctx, b.ClientID)
		if err != nil {
			return err
		}
		want := slices.Contains(enabled, b.ConfigName)
		switch {
		case want && a == nil:
			now := time.Unix(s.now().Unix(), 0)
			app := &Application{Name: b.Name, ClientID: b.ClientID, RedirectURIs: builtinRedirectURIs, Created: now, Updated: now}
			if err := s.store.insert(ctx, app, ""); err != nil {
				// Another process starting on the same database may have
				// inserted it meanwhile.
				if again, _, err2 := s.store.byClientID(ctx, b.ClientID); err2 != nil || again == nil {
					return err
				}
			}
		case !want && a != nil && a.IsBuiltin():
			err := s.db.WithTx(ctx, func(ctx context.Context) error {
				if _, err := s.store.remove(ctx, 0, a.ID); err != nil {
					return err
				}
				return grantStore{s.db}.removeGrantsWhere(ctx, "application_id = ?", a.ID)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

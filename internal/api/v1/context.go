package v1

import (
	"context"
	"net/http"

	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/user"
)

type identityKey struct{}

func withIdentity(ctx context.Context, id *auth.Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// identity returns the caller's identity, or nil when signed out.
func identity(r *http.Request) *auth.Identity {
	id, _ := r.Context().Value(identityKey{}).(*auth.Identity)
	return id
}

// doer returns the signed-in caller, or nil.
func doer(r *http.Request) *user.User {
	if id := identity(r); id != nil {
		return id.User
	}
	return nil
}

// isAdmin reports whether the caller is a site administrator.
func isAdmin(r *http.Request) bool {
	u := doer(r)
	return u != nil && u.IsAdmin
}

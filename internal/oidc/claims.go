package oidc

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/oauth2"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// maxGroups bounds the organizations and teams listed in groups.
const maxGroups = 500

// Claims builds what ID tokens and userinfo say of a user.
type Claims struct {
	Users   *user.Store
	Orgs    *org.Service
	RootURL string
}

// avatarURL is the user's avatar as the API links it.
func (c Claims) avatarURL(u *user.User) string {
	if u.Avatar != "" {
		return c.RootURL + "avatars/custom/" + url.PathEscape(u.Avatar)
	}
	return c.RootURL + "avatars/" + url.PathEscape(u.LowerName)
}

// displayName is the full name, or the user name when there is none.
func displayName(u *user.User) string {
	if u.FullName != "" {
		return u.FullName
	}
	return u.Name
}

// Groups lists uid's organizations and "org:team" for their teams, as
// Gitea's groups claim; publicOnly keeps the public memberships only.
func (c Claims) Groups(ctx context.Context, uid int64, publicOnly bool) ([]string, error) {
	groups := []string{}
	orgs, _, err := c.Orgs.ListUserOrgs(ctx, uid, !publicOnly, "", nil, maxGroups, 0)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, o := range orgs {
		groups = append(groups, o.Name)
		names[o.ID] = o.Name
	}
	teams, _, _, err := c.Orgs.ListUserTeams(ctx, uid, "", nil, maxGroups, 0)
	if err != nil {
		return nil, err
	}
	for _, t := range teams {
		// A team of an organization left out above (a private
		// membership under public-only) is left out too.
		if name, ok := names[t.OrgID]; ok {
			groups = append(groups, name+":"+t.LowerName)
		}
	}
	return groups, nil
}

// idTokenClaims is an ID token's payload (OpenID Connect Core sections 2
// and 5.1), with the claims Gitea 1.23 adds by scope.
type idTokenClaims struct {
	Issuer   string   `json:"iss"`
	Subject  string   `json:"sub"`
	Audience []string `json:"aud"`
	Expires  int64    `json:"exp"`
	IssuedAt int64    `json:"iat"`
	AuthTime int64    `json:"auth_time,omitempty"`
	Nonce    string   `json:"nonce,omitempty"`

	// profile
	Name              string `json:"name,omitempty"`
	PreferredUsername string `json:"preferred_username,omitempty"`
	Profile           string `json:"profile,omitempty"`
	Picture           string `json:"picture,omitempty"`
	Website           string `json:"website,omitempty"`
	Locale            string `json:"locale,omitempty"`
	UpdatedAt         int64  `json:"updated_at,omitempty"`

	// email
	Email         string `json:"email,omitempty"`
	EmailVerified *bool  `json:"email_verified,omitempty"`

	// groups
	Groups []string `json:"groups,omitempty"`
}

// Issuer signs ID tokens (oauth2.IDTokenIssuer).
type Issuer struct {
	Claims Claims
	Key    *SigningKey
}

// IDToken returns the signed ID token of req.
func (is *Issuer) IDToken(ctx context.Context, req oauth2.IDTokenRequest) (string, error) {
	u, err := is.Claims.Users.GetByID(ctx, req.UserID)
	if err != nil {
		return "", err
	}
	scopes := strings.Fields(req.Scope)
	c := idTokenClaims{Issuer: is.Claims.RootURL, Subject: strconv.FormatInt(u.ID, 10), Audience: []string{req.App.ClientID},
		Expires: req.Expires.Unix(), IssuedAt: req.Issued.Unix(), Nonce: req.Nonce}
	if req.AuthTime.Unix() > 0 {
		c.AuthTime = req.AuthTime.Unix()
	}
	if slices.Contains(scopes, "profile") {
		c.Name, c.PreferredUsername = displayName(u), u.Name
		c.Profile, c.Picture = is.Claims.RootURL+url.PathEscape(u.Name), is.Claims.avatarURL(u)
		c.Website, c.Locale, c.UpdatedAt = u.Website, u.Language, u.Updated.Unix()
	}
	if slices.Contains(scopes, "email") {
		verified := u.IsActive
		c.Email, c.EmailVerified = u.Email, &verified
	}
	if slices.Contains(scopes, "groups") {
		if c.Groups, err = is.Claims.Groups(ctx, u.ID, oauth2.TokenScope(req.Scope).PublicOnly); err != nil {
			return "", err
		}
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return is.Key.Sign(payload, req.ClientSecret)
}

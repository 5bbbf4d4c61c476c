package types

// CreateOAuth2ApplicationOptions is Gitea's body of POST and PATCH
// /user/applications/oauth2.
type CreateOAuth2ApplicationOptions struct {
	Name                       string   `json:"name"`
	ConfidentialClient         bool     `json:"confidential_client"`
	SkipSecondaryAuthorization bool     `json:"skip_secondary_authorization"`
	RedirectURIs               []string `json:"redirect_uris"`
}

// OAuth2Application is Gitea's OAuth2Application. ClientSecret is the
// plaintext only in the answers of create and update; empty otherwise.
type OAuth2Application struct {
	ID                         int64    `json:"id"`
	Name                       string   `json:"name"`
	ClientID                   string   `json:"client_id"`
	ClientSecret               string   `json:"client_secret"`
	ConfidentialClient         bool     `json:"confidential_client"`
	SkipSecondaryAuthorization bool     `json:"skip_secondary_authorization"`
	RedirectURIs               []string `json:"redirect_uris"`
	Created                    Time     `json:"created"`
}

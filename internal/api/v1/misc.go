package v1

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
)

// getVersion serves GET /version.
func (a *API) getVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, types.ServerVersion{Version: VersionString(a.Version)})
}

// getAPISettings serves GET /settings/api.
func (a *API) getAPISettings(w http.ResponseWriter, r *http.Request) {
	c := a.Config.API
	writeJSON(w, http.StatusOK, types.GeneralAPISettings{MaxResponseItems: c.MaxResponseItems, DefaultPagingNum: c.DefaultPagingNum,
		DefaultGitTreesPerPage: c.DefaultGitTreesPerPage, DefaultMaxBlobSize: c.DefaultMaxBlobSize})
}

// getUISettings serves GET /settings/ui.
func (a *API) getUISettings(w http.ResponseWriter, r *http.Request) {
	c := a.Config.UI
	writeJSON(w, http.StatusOK, types.GeneralUISettings{DefaultTheme: c.DefaultTheme, AllowedReactions: nonNil(c.Reactions), CustomEmojis: nonNil(c.CustomEmojis)})
}

// getRepoSettings serves GET /settings/repository.
func (a *API) getRepoSettings(w http.ResponseWriter, r *http.Request) {
	c := a.Config
	writeJSON(w, http.StatusOK, types.GeneralRepoSettings{
		MirrorsDisabled: !c.Mirror.Enabled, HTTPGitDisabled: c.Repository.HTTPTransferDisabled,
		MigrationsDisabled: c.Repository.DisableMigrations, StarsDisabled: c.Repository.DisableStars,
		TimeTrackingDisabled: !c.Service.EnableTimetracking, LFSDisabled: true,
	})
}

// getAttachmentSettings serves GET /settings/attachment.
func (a *API) getAttachmentSettings(w http.ResponseWriter, r *http.Request) {
	c := a.Config.Attachment
	writeJSON(w, http.StatusOK, types.GeneralAttachmentSettings{Enabled: c.Enabled, AllowedTypes: strings.Join(c.AllowedTypes, ","),
		MaxSize: c.MaxSize, MaxFiles: c.MaxFiles})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Package cors applies [cors]: which pages of other origins may call
// Cairn's API and its OAuth2 endpoints for clients from a browser (single
// page applications such as Decap CMS), with Gitea's settings.
package cors

import (
	"net/http"

	"github.com/rs/cors"

	"github.com/cairn-forge/cairn/internal/config"
)

// Middleware returns the CORS handler of c, or nil when [cors] ENABLED is
// false. headers are request headers allowed besides c.Headers.
func Middleware(c config.CORSSection, headers ...string) func(http.Handler) http.Handler {
	if !c.Enabled {
		return nil
	}
	h := cors.New(cors.Options{
		AllowedOrigins:   c.AllowDomain,
		AllowedMethods:   c.Methods,
		AllowedHeaders:   append(headers, c.Headers...),
		AllowCredentials: c.AllowCredentials,
		MaxAge:           int(c.MaxAge.Seconds()),
	})
	return h.Handler
}

package v1

import "github.com/go-chi/chi/v5"

func (a *API) userOrgRoutes(r chi.Router)  {}
func (a *API) usersOrgRoutes(r chi.Router) {}
func (a *API) adminOrgRoutes(r chi.Router) {}
func (a *API) orgRoutes(r chi.Router)      {}

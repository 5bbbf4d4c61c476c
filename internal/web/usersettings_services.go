package web

import (
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/templates"
)

// tokenService is the access-token store (internal/auth), shared with the API.
func (h *Handler) tokenService() *auth.Tokens { return h.Tokens }

// gpgKeyService is the GPG key service, shared with the API.
func (h *Handler) gpgKeyService() *signature.Service { return h.GPGKeys }

// avatarFiles is where uploaded avatars live (shared with the API and the
// /avatars/custom/ route).
func (h *Handler) avatarFiles() avatar.Files { return h.Avatars }

// templateSet is the README, .gitignore, license and label templates a new
// repository may start from.
func (h *Handler) templateSet() (*templates.Set, error) { return h.Templates, nil }

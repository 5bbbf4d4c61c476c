package types

import "time"

// GPGKeyEmail is Gitea's GPGKeyEmail: an address of a key's identities.
type GPGKeyEmail struct {
	Email    string `json:"email"`
	Verified bool   `json:"verified"`
}

// GPGKey is Gitea's GPGKey: a primary key with its subkeys. PublicKey is
// the base64 of the key's public key packet, as Gitea.
type GPGKey struct {
	ID                int64          `json:"id"`
	PrimaryKeyID      string         `json:"primary_key_id"`
	KeyID             string         `json:"key_id"`
	PublicKey         string         `json:"public_key"`
	Emails            []*GPGKeyEmail `json:"emails"`
	SubKeys           []*GPGKey      `json:"subkeys"`
	CanSign           bool           `json:"can_sign"`
	CanEncryptComms   bool           `json:"can_encrypt_comms"`
	CanEncryptStorage bool           `json:"can_encrypt_storage"`
	CanCertify        bool           `json:"can_certify"`
	Verified          bool           `json:"verified"`
	Created           time.Time      `json:"created_at"`
	Expires           time.Time      `json:"expires_at"`
}

// CreateGPGKeyOption is Gitea's CreateGPGKeyOption.
type CreateGPGKeyOption struct {
	ArmoredKey string `json:"armored_public_key" binding:"Text"`
	Signature  string `json:"armored_signature" binding:"Text"`
}

// VerifyGPGKeyOption is Gitea's VerifyGPGKeyOption: a key id and an armored
// signature of the user's verification token.
type VerifyGPGKeyOption struct {
	KeyID     string `json:"key_id"`
	Signature string `json:"armored_signature" binding:"Text"`
}

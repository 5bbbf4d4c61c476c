package types

import "time"

// DeployKey is Gitea's DeployKey: an SSH key giving access to one
// repository. Repository is sent only to site administrators and the
// repository's owner. The request body is CreateKeyOption (read_only
// defaults to false, i.e. a read-write key, as in Gitea).
type DeployKey struct {
	ID          int64       `json:"id"`
	KeyID       int64       `json:"key_id"`
	Key         string      `json:"key"`
	URL         string      `json:"url"`
	Title       string      `json:"title"`
	Fingerprint string      `json:"fingerprint"`
	Created     time.Time   `json:"created_at"`
	ReadOnly    bool        `json:"read_only"`
	Repository  *Repository `json:"repository,omitempty"`
}

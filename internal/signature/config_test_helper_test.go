package signature

import "github.com/cairn-forge/cairn/internal/config"

func signingConfig(key string) config.RepositorySigningSection {
	return config.RepositorySigningSection{SigningKey: key}
}

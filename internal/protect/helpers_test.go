package protect

import "github.com/cairn-forge/cairn/internal/hooks"

func hooksDirs(obj, alt, q string) hooks.ObjectDirs {
	return hooks.ObjectDirs{ObjectDirectory: obj, Alternates: alt, QuarantinePath: q}
}

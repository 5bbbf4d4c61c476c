// Package password hashes and verifies account passwords with argon2id.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id cost parameters. The defaults follow OWASP's
// recommendation (19 MiB, 2 passes, 1 lane).
type Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
	// KeyLen is the hash's length in bytes (0: 32).
	KeyLen uint32
}

// Default is the parameter set used for new hashes.
var Default = Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

// giteaArgon2 is what Gitea's PASSWORD_HASH_ALGO = argon2 stands for.
var giteaArgon2 = Params{Time: 2, MemoryKiB: 64 * 1024, Threads: 8, KeyLen: 50}

// ErrOtherAlgorithm is ParseAlgorithm's answer for Gitea's algorithms other
// than argon2 (pbkdf2, bcrypt, scrypt): Cairn hashes with argon2id only.
var ErrOtherAlgorithm = errors.New("Cairn hashes passwords with argon2id only")

// ParseAlgorithm reads [security] PASSWORD_HASH_ALGO: empty or "argon2id"
// for Default, "argon2" for Gitea's argon2 parameters, or, as in Gitea,
// "argon2$TIME$MEMORY_KIB$THREADS$KEY_LENGTH".
func ParseAlgorithm(spec string) (Params, error) {
	spec = strings.TrimSpace(spec)
	name, args, _ := strings.Cut(spec, "$")
	switch strings.ToLower(name) {
	case "", "argon2id":
		if args != "" {
			break
		}
		return Default, nil
	case "argon2":
		if args == "" {
			return giteaArgon2, nil
		}
		f := strings.Split(args, "$")
		if len(f) != 4 {
			break
		}
		var n [4]uint64
		for i, bits := range []int{32, 32, 8, 32} {
			v, err := strconv.ParseUint(f[i], 10, bits)
			if err != nil || v == 0 {
				return Params{}, fmt.Errorf("%q: %s must be a positive integer", spec, []string{"time", "memory", "threads", "key length"}[i])
			}
			n[i] = v
		}
		p := Params{Time: uint32(n[0]), MemoryKiB: uint32(n[1]), Threads: uint8(n[2]), KeyLen: uint32(n[3])}
		if p.MemoryKiB < 8*uint32(p.Threads) {
			return Params{}, fmt.Errorf("%q: argon2 needs at least 8 KiB of memory per thread", spec)
		}
		if p.KeyLen < 16 {
			return Params{}, fmt.Errorf("%q: a key length under 16 bytes is too weak", spec)
		}
		return p, nil
	case "pbkdf2", "pbkdf2_v1", "pbkdf2_v2", "pbkdf2_hi", "bcrypt", "scrypt":
		return Default, fmt.Errorf("%q: %w", spec, ErrOtherAlgorithm)
	}
	return Params{}, fmt.Errorf("%q: want argon2id, argon2 or argon2$TIME$MEMORY_KIB$THREADS$KEY_LENGTH", spec)
}

// Hash returns an encoded argon2id hash of pw in the PHC string format.
func Hash(pw string, p Params) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	keyLen := p.KeyLen
	if keyLen == 0 {
		keyLen = 32
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// Verify reports whether pw matches the encoded hash.
func Verify(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil || p.Time == 0 || p.Threads == 0 {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := enc.DecodeString(parts[5])
	if err != nil {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

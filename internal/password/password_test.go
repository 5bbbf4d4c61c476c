package password

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestHashVerify(t *testing.T) {
	p := Params{MemoryKiB: 1024, Time: 1, Threads: 1}
	for _, pw := range []string{"", "x", "correct horse battery staple", "ünïcødé"} {
		h, err := Hash(pw, p)
		if err != nil {
			t.Fatal(err)
		}
		if !Verify(h, pw) {
			t.Errorf("Verify(%q) = false for its own hash", pw)
		}
		if Verify(h, pw+"!") {
			t.Errorf("Verify accepted a wrong password for %q", pw)
		}
	}
	h1, _ := Hash("same", p)
	h2, _ := Hash("same", p)
	if h1 == h2 {
		t.Error("two hashes of one password are equal: salt not random")
	}
	for _, bad := range []string{"", "$argon2id$", "plain", "$argon2id$v=19$m=x$a$b"} {
		if Verify(bad, "x") {
			t.Errorf("Verify accepted malformed hash %q", bad)
		}
	}
}

func TestParseAlgorithm(t *testing.T) {
	for spec, want := range map[string]Params{
		"":                     Default,
		"argon2id":             Default,
		" ARGON2ID ":           Default,
		"argon2":               {Time: 2, MemoryKiB: 65536, Threads: 8, KeyLen: 50},
		"argon2$1$64$1$32":     {Time: 1, MemoryKiB: 64, Threads: 1, KeyLen: 32},
		"argon2$3$131072$4$64": {Time: 3, MemoryKiB: 131072, Threads: 4, KeyLen: 64},
	} {
		got, err := ParseAlgorithm(spec)
		if err != nil || got != want {
			t.Errorf("ParseAlgorithm(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, spec := range []string{"pbkdf2", "pbkdf2_hi", "bcrypt", "scrypt", "pbkdf2$50000$50", "bcrypt$10"} {
		got, err := ParseAlgorithm(spec)
		if !errors.Is(err, ErrOtherAlgorithm) || got != Default {
			t.Errorf("ParseAlgorithm(%q) = %+v, %v; want Default and ErrOtherAlgorithm", spec, got, err)
		}
	}
	for _, spec := range []string{"md5", "argon2$1$64$1", "argon2$0$64$1$32", "argon2$1$64$0$32", "argon2$1$7$1$32",
		"argon2$1$64$1$8", "argon2$1$64$300$32", "argon2$x$64$1$32", "argon2id$1", "argon2$1$64$1$32$9"} {
		if _, err := ParseAlgorithm(spec); err == nil || errors.Is(err, ErrOtherAlgorithm) {
			t.Errorf("ParseAlgorithm(%q) accepted or took it for another algorithm: %v", spec, err)
		}
	}
}

// TestHashKeepsParams: a hash records its parameters and key length, so it
// verifies after PASSWORD_HASH_ALGO changes.
func TestHashKeepsParams(t *testing.T) {
	p := Params{Time: 1, MemoryKiB: 64, Threads: 2, KeyLen: 50}
	h, err := Hash("pw", p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=2$") {
		t.Fatalf("hash %s", h)
	}
	key, err := base64.RawStdEncoding.DecodeString(h[strings.LastIndex(h, "$")+1:])
	if err != nil || len(key) != 50 {
		t.Fatalf("key of %d bytes, %v", len(key), err)
	}
	if !Verify(h, "pw") || Verify(h, "pW") {
		t.Fatal("verify")
	}
	if Verify("$argon2id$v=19$m=64,t=1,p=0$c2FsdHNhbHRzYWx0$a2V5", "pw") {
		t.Fatal("a hash with no threads verified")
	}
}

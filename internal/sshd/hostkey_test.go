package sshd

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestLoadHostKeyGeneratesOnceAndReuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ssh")
	first, err := LoadHostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first.PublicKey().Type() != ssh.KeyAlgoED25519 {
		t.Fatalf("host key type %s, want ed25519", first.PublicKey().Type())
	}
	path := filepath.Join(dir, HostKeyFile)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v, want 0600", info.Mode().Perm())
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pub, ssh.MarshalAuthorizedKey(first.PublicKey())) {
		t.Fatalf(".pub file %q does not match the key", pub)
	}
	// A restart reads the same key.
	second, err := LoadHostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.PublicKey().Marshal(), second.PublicKey().Marshal()) {
		t.Fatal("the host key changed on the second load")
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("ssh dir holds %v, want the key and its .pub", names)
	}
}

func TestLoadHostKeyConcurrentStartsAgree(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	keys := make([][]byte, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := LoadHostKey(dir)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = s.PublicKey().Marshal()
		}(i)
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if !bytes.Equal(keys[0], keys[i]) {
			t.Fatal("concurrent first starts produced different host keys")
		}
	}
}

func TestLoadHostKeyRefusesGarbage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, HostKeyFile), []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHostKey(dir); err == nil {
		t.Fatal("a corrupt host key was accepted (it must not be silently replaced)")
	}
}

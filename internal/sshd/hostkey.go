package sshd

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
)

// HostKeyFile is the name of the host key inside <data>/ssh.
const HostKeyFile = "cairn_host_ed25519_key"

// LoadHostKey returns the server's ed25519 host key from dir, generating it
// (mode 0600, OpenSSH format, with a .pub beside it) on first use. Two
// processes starting at once end up with the same key: the file is written
// under a temporary name and linked into place only if none exists yet.
func LoadHostKey(dir string) (ssh.Signer, error) {
	path := filepath.Join(dir, HostKeyFile)
	if signer, err := readHostKey(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return signer, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "cairn host key")
	if err != nil {
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, HostKeyFile+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600 already; Chmod guards against odd umasks.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	if _, err := tmp.Write(pem.EncodeToMemory(block)); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	// Link fails when another process won the race; its key is then used.
	switch err := os.Link(tmp.Name(), path); {
	case err == nil:
		if sshPub, err := ssh.NewPublicKey(pub); err == nil {
			_ = os.WriteFile(path+".pub", ssh.MarshalAuthorizedKey(sshPub), 0o644)
		}
	case !errors.Is(err, fs.ErrExist):
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	return readHostKey(path)
}

func readHostKey(path string) (ssh.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	signer, err := ssh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("ssh host key %s: %w", path, err)
	}
	return signer, nil
}

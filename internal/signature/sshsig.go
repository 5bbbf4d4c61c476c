package signature

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// sshsigMagic starts both the signature blob and the signed data of an SSH
// signature (OpenSSH's PROTOCOL.sshsig).
const sshsigMagic = "SSHSIG"

// sshArmorBegin and sshArmorEnd delimit an armored SSH signature.
const (
	sshArmorBegin = "-----BEGIN SSH SIGNATURE-----"
	sshArmorEnd   = "-----END SSH SIGNATURE-----"
)

// sshSignature is a parsed SSH signature envelope.
type sshSignature struct {
	PublicKey ssh.PublicKey
	Namespace string
	HashAlgo  string
	Signature *ssh.Signature
}

// isSSHSignature tells whether an armored signature is an SSH one.
func isSSHSignature(armored string) bool {
	return strings.HasPrefix(strings.TrimSpace(armored), sshArmorBegin)
}

// parseSSHSignature reads an armored SSH signature.
func parseSSHSignature(armored string) (*sshSignature, error) {
	s := strings.TrimSpace(armored)
	body, ok := strings.CutPrefix(s, sshArmorBegin)
	if !ok {
		return nil, errors.New("sshsig: missing armor header")
	}
	body, ok = strings.CutSuffix(body, sshArmorEnd)
	if !ok {
		return nil, errors.New("sshsig: missing armor footer")
	}
	blob, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		return nil, fmt.Errorf("sshsig: %w", err)
	}
	var env struct {
		Magic     [6]byte
		Version   uint32
		PublicKey []byte
		Namespace string
		Reserved  string
		HashAlgo  string
		Signature []byte
	}
	if err := ssh.Unmarshal(blob, &env); err != nil {
		return nil, fmt.Errorf("sshsig: %w", err)
	}
	if string(env.Magic[:]) != sshsigMagic {
		return nil, errors.New("sshsig: bad magic")
	}
	if env.Version != 1 {
		return nil, fmt.Errorf("sshsig: unsupported version %d", env.Version)
	}
	pk, err := ssh.ParsePublicKey(env.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("sshsig: %w", err)
	}
	sig := new(ssh.Signature)
	if err := ssh.Unmarshal(env.Signature, sig); err != nil {
		return nil, fmt.Errorf("sshsig: %w", err)
	}
	return &sshSignature{PublicKey: pk, Namespace: env.Namespace, HashAlgo: env.HashAlgo, Signature: sig}, nil
}

// verify checks that s signs message in namespace.
func (s *sshSignature) verify(message []byte, namespace string) error {
	if s.Namespace != namespace {
		return fmt.Errorf("sshsig: namespace %q, want %q", s.Namespace, namespace)
	}
	var digest []byte
	switch s.HashAlgo {
	case "sha256":
		d := sha256.Sum256(message)
		digest = d[:]
	case "sha512":
		d := sha512.Sum512(message)
		digest = d[:]
	default:
		return fmt.Errorf("sshsig: unsupported hash %q", s.HashAlgo)
	}
	signed := ssh.Marshal(struct {
		Magic     [6]byte
		Namespace string
		Reserved  string
		HashAlgo  string
		Hash      []byte
	}{[6]byte{'S', 'S', 'H', 'S', 'I', 'G'}, namespace, "", s.HashAlgo, digest})
	return s.PublicKey.Verify(signed, s.Signature)
}

// sameSSHKey tells whether two SSH public keys are the same key.
func sameSSHKey(a, b ssh.PublicKey) bool {
	return bytes.Equal(a.Marshal(), b.Marshal())
}

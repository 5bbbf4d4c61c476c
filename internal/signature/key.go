// Package signature verifies commit signatures (OpenPGP and SSH) against the
// keys of Cairn's accounts, keeps the accounts' GPG keys, and signs the
// instance's own commits.
package signature

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Key is an OpenPGP key of an account: a primary key with its subkeys.
type Key struct {
	ID      int64
	OwnerID int64
	// KeyID is the 16-hex-digit key id; PrimaryKeyID is the primary key's id
	// for a subkey, "" for a primary key.
	KeyID        string
	PrimaryKeyID string
	// Content is the armored public key (primary keys only).
	Content string
	// Emails are the addresses of the key's identities, lower-case.
	Emails []string
	// Verified is set when a token signature proved the key's possession.
	Verified          bool
	CanSign           bool
	CanEncryptComms   bool
	CanEncryptStorage bool
	CanCertify        bool
	Created           time.Time
	// Expires is zero for a key that does not expire.
	Expires time.Time
	Added   time.Time
	SubKeys []*Key
}

// parseArmoredKey reads one armored public key: its primary key and
// subkeys, unsaved. Keys that do not parse, hold several primary keys or
// have expired are refused with a 422 error.
func parseArmoredKey(armored string, now time.Time) (*Key, *openpgp.Entity, error) {
	armored = strings.TrimSpace(armored)
	if armored == "" {
		return nil, nil, errs.InvalidField("armored_public_key", "armored_public_key is required")
	}
	list, err := openpgp.ReadArmoredKeyRing(strings.NewReader(armored))
	if err != nil {
		return nil, nil, errs.InvalidField("armored_public_key", "failed to parse GPG key: %v", err)
	}
	if len(list) != 1 {
		return nil, nil, errs.InvalidField("armored_public_key", "failed to parse GPG key: expected one key, found %d", len(list))
	}
	e := list[0]
	if e.PrivateKey != nil {
		return nil, nil, errs.InvalidField("armored_public_key", "failed to parse GPG key: this is a private key, give the public key")
	}
	pub := e.PrimaryKey
	selfSig, _ := e.PrimarySelfSignature()
	if selfSig == nil {
		return nil, nil, errs.InvalidField("armored_public_key", "failed to parse GPG key: no self-signature")
	}
	if e.Revoked(now) {
		return nil, nil, errs.InvalidField("armored_public_key", "failed to parse GPG key: the key is revoked")
	}
	k := &Key{
		KeyID:   pub.KeyIdString(),
		Content: armored,
		Created: pub.CreationTime,
		Expires: expiry(pub, selfSig),
	}
	k.CanSign, k.CanEncryptComms, k.CanEncryptStorage, k.CanCertify = flags(pub, selfSig)
	if !k.Expires.IsZero() && k.Expires.Before(now) {
		return nil, nil, errs.InvalidField("armored_public_key", "failed to parse GPG key: the key expired on %s", k.Expires.UTC().Format(time.RFC3339))
	}
	seen := map[string]bool{}
	for _, id := range e.Identities {
		if id.Revoked(now) || id.UserId == nil {
			continue
		}
		addr := strings.ToLower(strings.TrimSpace(id.UserId.Email))
		if addr != "" && !seen[addr] {
			seen[addr] = true
			k.Emails = append(k.Emails, addr)
		}
	}
	for _, sk := range e.Subkeys {
		if sk.Sig == nil || sk.Revoked(now) {
			continue
		}
		s := &Key{KeyID: sk.PublicKey.KeyIdString(), PrimaryKeyID: k.KeyID, Created: sk.PublicKey.CreationTime, Expires: expiry(sk.PublicKey, sk.Sig)}
		s.CanSign, s.CanEncryptComms, s.CanEncryptStorage, s.CanCertify = flags(sk.PublicKey, sk.Sig)
		k.SubKeys = append(k.SubKeys, s)
	}
	return k, e, nil
}

// expiry is when a key expires by its binding signature, zero for never.
func expiry(pub *packet.PublicKey, sig *packet.Signature) time.Time {
	if sig.KeyLifetimeSecs == nil || *sig.KeyLifetimeSecs == 0 {
		return time.Time{}
	}
	return pub.CreationTime.Add(time.Duration(*sig.KeyLifetimeSecs) * time.Second)
}

// flags reads a key's capabilities: the key flags of its binding signature
// when given, otherwise what its algorithm can do.
func flags(pub *packet.PublicKey, sig *packet.Signature) (sign, encComms, encStorage, certify bool) {
	if sig.FlagsValid {
		return sig.FlagSign && pub.CanSign(), sig.FlagEncryptCommunications, sig.FlagEncryptStorage, sig.FlagCertify
	}
	return pub.CanSign(), false, false, pub.CanSign()
}

// readEntity parses the armored public key of a stored primary key.
func readEntity(armored string) (*openpgp.Entity, error) {
	list, err := openpgp.ReadArmoredKeyRing(strings.NewReader(armored))
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no key")
	}
	return list[0], nil
}

// readArmoredSignature reads one OpenPGP signature packet.
func readArmoredSignature(armored string) (*packet.Signature, error) {
	block, err := armor.Decode(strings.NewReader(armored))
	if err != nil {
		return nil, err
	}
	if block.Type != openpgp.SignatureType {
		return nil, fmt.Errorf("armor type %q is not a signature", block.Type)
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return nil, err
	}
	sig, ok := p.(*packet.Signature)
	if !ok {
		return nil, fmt.Errorf("not a signature packet")
	}
	return sig, nil
}

// issuerKeyID is the key id a signature names, as 16 hex digits, or "".
func issuerKeyID(sig *packet.Signature) string {
	if sig.IssuerKeyId != nil && *sig.IssuerKeyId != 0 {
		return fmt.Sprintf("%016X", *sig.IssuerKeyId)
	}
	if n := len(sig.IssuerFingerprint); n >= 20 {
		// v4 fingerprints end with the key id; v6 ones start with it.
		if sig.Version == 6 {
			return fmt.Sprintf("%X", sig.IssuerFingerprint[:8])
		}
		return fmt.Sprintf("%X", sig.IssuerFingerprint[n-8:])
	}
	return ""
}

// checkDetached verifies an armored detached signature of payload by one of
// keyring's keys, as of the signature's creation (a key that expired since
// still verifies the commits it signed while valid). It returns the key id
// that verified.
func checkDetached(keyring openpgp.EntityList, payload []byte, armored string, sig *packet.Signature) (string, error) {
	at := sig.CreationTime
	cfg := &packet.Config{Time: func() time.Time { return at }}
	block, err := armor.Decode(strings.NewReader(armored))
	if err != nil {
		return "", err
	}
	s, _, err := openpgp.VerifyDetachedSignature(keyring, bytes.NewReader(payload), block.Body, cfg)
	if err != nil {
		return "", err
	}
	return issuerKeyID(s), nil
}

// PacketContents maps the ids of a stored primary key and its subkeys to
// the base64 of their public key packets (Gitea's public_key field).
func PacketContents(k *Key) map[string]string {
	out := map[string]string{}
	e, err := readEntity(k.Content)
	if err != nil {
		return out
	}
	enc := func(p *packet.PublicKey) string {
		var buf bytes.Buffer
		if err := p.Serialize(&buf); err != nil {
			return ""
		}
		return base64.StdEncoding.EncodeToString(buf.Bytes())
	}
	out[e.PrimaryKey.KeyIdString()] = enc(e.PrimaryKey)
	for _, sk := range e.Subkeys {
		out[sk.PublicKey.KeyIdString()] = enc(sk.PublicKey)
	}
	return out
}

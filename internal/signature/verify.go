package signature

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/ProtonMail/go-crypto/openpgp"
	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/user"
)

// Reasons reported for unverified commits, Gitea's words.
const (
	ReasonNotSigned      = "gpg.error.not_signed_commit"
	ReasonExtractSign    = "gpg.error.extract_sign"
	ReasonNoKeyFound     = "gpg.error.no_gpg_keys_found"
	ReasonBadSignature   = "gpg.error.probable_bad_signature"
	ReasonNoCommitter    = "gpg.error.no_committer_account"
	ReasonFailedKeyLoads = "gpg.error.failed_retrieval_gpg_keys"
)

// Result is the verification of one commit's signature.
type Result struct {
	Verified bool
	// Reason is "<user> / <key id or fingerprint>" when verified, otherwise
	// one of the Reason constants.
	Reason string
	// Signer is the account whose key verified; nil when unverified or
	// signed by the instance's key.
	Signer *user.User
	// SignerName and SignerEmail name who signed (set when verified).
	SignerName, SignerEmail string
}

// Verifier checks commit signatures against the accounts' keys and the
// instance's own key.
type Verifier struct {
	db     *db.DB
	users  *user.Store
	git    *git.Git
	signer *Signer
}

// NewVerifier returns a verifier; signer may be nil.
func NewVerifier(d *db.DB, users *user.Store, g *git.Git, signer *Signer) *Verifier {
	return &Verifier{db: d, users: users, git: g, signer: signer}
}

// keyring holds the keys a batch of commits may be checked against.
type keyring struct {
	// owners maps a lower-case committer address to its account.
	owners map[string]*user.User
	// gpg maps a primary or subkey id to its primary key's entity and owner.
	gpg map[string]gpgEntry
	// ssh lists the SSH keys of each account.
	ssh map[int64][]sshKey
}

type gpgEntry struct {
	ownerID int64
	entity  *openpgp.Entity
}

type sshKey struct {
	key         ssh.PublicKey
	fingerprint string
}

// load reads, with a fixed number of queries, the accounts of the
// committers of signed commits, their GPG and SSH keys, and the GPG keys
// the signatures name.
func (v *Verifier) load(ctx context.Context, commits []git.CommitObject) (*keyring, error) {
	kr := &keyring{owners: map[string]*user.User{}, gpg: map[string]gpgEntry{}, ssh: map[int64][]sshKey{}}
	var addrs, issuers []any
	seen := map[string]bool{}
	for _, c := range commits {
		if c.Signature == "" {
			continue
		}
		if a := strings.ToLower(strings.TrimSpace(c.Committer.Email)); a != "" && !seen[a] {
			seen[a] = true
			addrs = append(addrs, a)
		}
		if !isSSHSignature(c.Signature) {
			if sig, err := readArmoredSignature(c.Signature); err == nil {
				if id := issuerKeyID(sig); id != "" && !seen["k"+id] {
					seen["k"+id] = true
					issuers = append(issuers, id)
				}
			}
		}
	}
	if len(addrs) == 0 {
		return kr, nil
	}
	rows, err := v.db.Query(ctx, `SELECT e.lower_email, e.uid FROM email_address e JOIN users u ON u.id = e.uid
		WHERE e.is_activated = ? AND u.type = ? AND e.lower_email IN `+db.In(len(addrs)),
		append([]any{true, int(user.TypeIndividual)}, addrs...)...)
	if err != nil {
		return nil, err
	}
	uidOf := map[string]int64{}
	var uids []int64
	for rows.Next() {
		var a string
		var uid int64
		if err := rows.Scan(&a, &uid); err != nil {
			rows.Close()
			return nil, err
		}
		uidOf[a] = uid
		uids = append(uids, uid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(uids) > 0 {
		users, err := v.users.GetByIDs(ctx, uids)
		if err != nil {
			return nil, err
		}
		for a, uid := range uidOf {
			if u := users[uid]; u != nil {
				kr.owners[a] = u
			}
		}
	}
	if err := v.loadGPG(ctx, kr, uids, issuers); err != nil {
		return nil, err
	}
	return kr, v.loadSSH(ctx, kr, uids)
}

// loadGPG reads the primary keys of the accounts uids and those holding the
// key ids issuers (as primary or subkey), in one query.
func (v *Verifier) loadGPG(ctx context.Context, kr *keyring, uids []int64, issuers []any) error {
	var conds []string
	var args []any
	if len(uids) > 0 {
		conds = append(conds, "owner_id IN "+db.In(len(uids)))
		args = append(args, db.Int64Args(uids)...)
	}
	if len(issuers) > 0 {
		conds = append(conds, "key_id IN "+db.In(len(issuers)),
			"key_id IN (SELECT primary_key_id FROM gpg_key WHERE key_id IN "+db.In(len(issuers))+")")
		args = append(args, issuers...)
		args = append(args, issuers...)
	}
	if len(conds) == 0 {
		return nil
	}
	rows, err := v.db.Query(ctx, "SELECT owner_id, content FROM gpg_key WHERE primary_key_id = '' AND ("+strings.Join(conds, " OR ")+")", args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner int64
		var content string
		if err := rows.Scan(&owner, &content); err != nil {
			return err
		}
		e, err := readEntity(content)
		if err != nil {
			continue
		}
		entry := gpgEntry{ownerID: owner, entity: e}
		kr.gpg[e.PrimaryKey.KeyIdString()] = entry
		for _, sk := range e.Subkeys {
			kr.gpg[sk.PublicKey.KeyIdString()] = entry
		}
	}
	return rows.Err()
}

// loadSSH reads the SSH keys of the accounts uids.
func (v *Verifier) loadSSH(ctx context.Context, kr *keyring, uids []int64) error {
	if len(uids) == 0 {
		return nil
	}
	rows, err := v.db.Query(ctx, "SELECT owner_id, fingerprint, content FROM public_key WHERE key_type = 'user' AND owner_id IN "+db.In(len(uids)), db.Int64Args(uids)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner int64
		var fp, content string
		if err := rows.Scan(&owner, &fp, &content); err != nil {
			return err
		}
		pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(content))
		if err != nil {
			continue
		}
		kr.ssh[owner] = append(kr.ssh[owner], sshKey{key: pk, fingerprint: fp})
	}
	return rows.Err()
}

// Verify checks the signatures of commits, in order, with a fixed number of
// queries for all of them.
func (v *Verifier) Verify(ctx context.Context, commits []git.CommitObject) ([]Result, error) {
	kr, err := v.load(ctx, commits)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(commits))
	// The checks only read the keyring: large batches (a push) use every
	// processor.
	workers := min(runtime.GOMAXPROCS(0), len(commits)/64+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(commits); i += workers {
				out[i] = v.verifyOne(kr, &commits[i])
			}
		})
	}
	wg.Wait()
	return out, nil
}

func (v *Verifier) verifyOne(kr *keyring, c *git.CommitObject) Result {
	if c.Signature == "" {
		return Result{Reason: ReasonNotSigned}
	}
	committer := kr.owners[strings.ToLower(strings.TrimSpace(c.Committer.Email))]
	if isSSHSignature(c.Signature) {
		sig, err := parseSSHSignature(c.Signature)
		if err != nil {
			return Result{Reason: ReasonExtractSign}
		}
		if committer == nil {
			return Result{Reason: ReasonNoKeyFound}
		}
		for _, k := range kr.ssh[committer.ID] {
			if sameSSHKey(k.key, sig.PublicKey) && sig.verify([]byte(c.Payload), "git") == nil {
				return Result{Verified: true, Reason: committer.Name + " / " + k.fingerprint, Signer: committer,
					SignerName: committer.Name, SignerEmail: c.Committer.Email}
			}
		}
		return Result{Reason: ReasonNoKeyFound}
	}
	sig, err := readArmoredSignature(c.Signature)
	if err != nil {
		return Result{Reason: ReasonExtractSign}
	}
	issuer := issuerKeyID(sig)
	reason := ReasonNoKeyFound
	if e, ok := kr.gpg[issuer]; ok && issuer != "" {
		keyID, err := checkDetached(openpgp.EntityList{e.entity}, []byte(c.Payload), c.Signature, sig)
		switch {
		case err != nil:
			reason = ReasonBadSignature
		case committer != nil && committer.ID == e.ownerID:
			return Result{Verified: true, Reason: committer.Name + " / " + keyID, Signer: committer,
				SignerName: committer.Name, SignerEmail: c.Committer.Email}
		}
	}
	if v.signer != nil && reason == ReasonNoKeyFound && (issuer == "" || v.signer.hasKey(issuer)) {
		keyID, err := checkDetached(openpgp.EntityList{v.signer.entity}, []byte(c.Payload), c.Signature, sig)
		if err == nil {
			return Result{Verified: true, Reason: v.signer.name + " / " + keyID, SignerName: v.signer.name, SignerEmail: v.signer.email}
		}
		if issuer != "" {
			reason = ReasonBadSignature
		}
	}
	return Result{Reason: reason}
}

// VerifyRange checks the commits a ref update from oldSHA to newSHA brings
// (reachable from newSHA, not from oldSHA, or from no existing ref when
// oldSHA is zero or empty) and returns the oldest one without a valid
// signature of a known key, or "" when all are verified. env is given to
// every git command (a push's quarantine object directories). It runs one
// rev-list and one cat-file --batch, whatever the number of commits.
func (v *Verifier) VerifyRange(ctx context.Context, repoPath string, env []string, oldSHA, newSHA string) (unverifiedSHA string, err error) {
	if newSHA == "" || strings.Trim(newSHA, "0") == "" {
		return "", nil
	}
	revs, err := v.git.NewCommits(ctx, repoPath, env, oldSHA, newSHA)
	if err != nil {
		return "", fmt.Errorf("signature: listing new commits: %w", err)
	}
	if len(revs) == 0 {
		return "", nil
	}
	commits, err := v.git.ReadCommitsEnv(ctx, repoPath, env, revs)
	if err != nil {
		return "", fmt.Errorf("signature: reading new commits: %w", err)
	}
	results, err := v.Verify(ctx, commits)
	if err != nil {
		return "", err
	}
	for i := len(results) - 1; i >= 0; i-- {
		if !results[i].Verified {
			return commits[i].SHA, nil
		}
	}
	return "", nil
}

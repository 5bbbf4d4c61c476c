package signature

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/user"
)

// SignFunc signs a commit object (without its gpgsig header) and returns
// the armored signature; nil means the commit is written unsigned.
type SignFunc = func(payload []byte) (string, error)

// Policy decides, by [repository.signing]'s INITIAL_COMMIT, CRUD_ACTIONS
// and MERGES (Gitea's rules), whether the instance signs a commit it
// writes for someone. Each setting is a list of conditions that must all
// hold: "always", "never", "pubkey" (the doer has a GPG key), "twofa" (the
// doer uses two-factor sign-in), "parentsigned" (CRUD: the new commit's
// parent is verified), "basesigned", "headsigned", "commitssigned" (merges:
// the base tip, the head tip, every commit the pull request brings are
// verified) and "approved" (merges: the base branch's rule is met by
// approvals).
type Policy struct {
	db       *db.DB
	git      *git.Git
	signer   *Signer
	verifier *Verifier
	twoFA    func(ctx context.Context, uid int64) (bool, error)

	initial, crud, merges []string
}

// rule names each setting accepts, as Gitea.
var policyRules = map[string][]string{
	"INITIAL_COMMIT": {"always", "never", "pubkey", "twofa"},
	"CRUD_ACTIONS":   {"always", "never", "pubkey", "twofa", "parentsigned"},
	"MERGES":         {"always", "never", "pubkey", "twofa", "approved", "basesigned", "headsigned", "commitssigned"},
}

// NewPolicy checks the settings of c. signer nil (no key) signs nothing.
// twoFA tells whether an account uses two-factor sign-in (nil: none can).
func NewPolicy(d *db.DB, g *git.Git, signer *Signer, v *Verifier, c config.RepositorySigningSection,
	twoFA func(ctx context.Context, uid int64) (bool, error)) (*Policy, error) {
	p := &Policy{db: d, git: g, signer: signer, verifier: v, twoFA: twoFA}
	for _, s := range []struct {
		key  string
		list []string
		into *[]string
	}{{"INITIAL_COMMIT", c.InitialCommit, &p.initial}, {"CRUD_ACTIONS", c.CRUDActions, &p.crud}, {"MERGES", c.Merges, &p.merges}} {
		for _, r := range s.list {
			r = strings.ToLower(strings.TrimSpace(r))
			if r == "" {
				continue
			}
			known := false
			for _, k := range policyRules[s.key] {
				known = known || k == r
			}
			if !known {
				return nil, fmt.Errorf("[repository.signing] %s: unknown rule %q (one of %s)", s.key, r, strings.Join(policyRules[s.key], ", "))
			}
			*s.into = append(*s.into, r)
		}
	}
	return p, nil
}

// decide applies rules: every condition must hold ("always" ends the list
// with yes, "never" with no); an empty list never signs.
func (p *Policy) decide(ctx context.Context, doer *user.User, rules []string, check func(rule string) (bool, error)) (SignFunc, error) {
	if p == nil || p.signer == nil || len(rules) == 0 {
		return nil, nil
	}
	for _, r := range rules {
		ok := false
		var err error
		switch r {
		case "always":
			return p.signer.Sign, nil
		case "never":
			return nil, nil
		case "pubkey":
			ok, err = p.db.Exists(ctx, "SELECT 1 FROM gpg_key WHERE owner_id = ?", doer.ID)
		case "twofa":
			if p.twoFA != nil {
				ok, err = p.twoFA(ctx, doer.ID)
			}
		default:
			ok, err = check(r)
		}
		if err != nil || !ok {
			return nil, err
		}
	}
	return p.signer.Sign, nil
}

// Initial decides for the first commit of a new repository.
func (p *Policy) Initial(ctx context.Context, doer *user.User) (SignFunc, error) {
	if p == nil {
		return nil, nil
	}
	return p.decide(ctx, doer, p.initial, func(string) (bool, error) { return false, nil })
}

// CRUD decides for a commit of the contents API on parent ("" for the
// first commit of a branch) in the repository at repoPath.
func (p *Policy) CRUD(ctx context.Context, doer *user.User, repoPath, parent string) (SignFunc, error) {
	if p == nil {
		return nil, nil
	}
	return p.decide(ctx, doer, p.crud, func(rule string) (bool, error) {
		if rule != "parentsigned" || parent == "" {
			return false, nil
		}
		return p.verified(ctx, repoPath, parent)
	})
}

// Merge decides for the commits of merging head into base; approved tells
// whether the base branch's rule is met by the approvals.
func (p *Policy) Merge(ctx context.Context, doer *user.User, repoPath, base, head string,
	approved func(ctx context.Context) (bool, error)) (SignFunc, error) {
	if p == nil {
		return nil, nil
	}
	return p.decide(ctx, doer, p.merges, func(rule string) (bool, error) {
		switch rule {
		case "approved":
			return approved(ctx)
		case "basesigned":
			return p.verified(ctx, repoPath, base)
		case "headsigned":
			return p.verified(ctx, repoPath, head)
		case "commitssigned":
			bad, err := p.verifier.VerifyRange(ctx, repoPath, nil, base, head)
			return err == nil && bad == "", err
		}
		return false, nil
	})
}

// verified tells whether commit sha carries a valid signature.
func (p *Policy) verified(ctx context.Context, repoPath, sha string) (bool, error) {
	commits, err := p.git.ReadCommits(ctx, repoPath, []string{sha})
	if err != nil || len(commits) == 0 {
		return false, err
	}
	res, err := p.verifier.Verify(ctx, commits)
	if err != nil || len(res) == 0 {
		return false, err
	}
	return res[0].Verified, nil
}

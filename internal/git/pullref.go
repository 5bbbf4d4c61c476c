package git

import (
	"context"
	"fmt"
	"strings"
)

// ForceRef points ref at commit sha whatever it pointed at before (or
// creates it): for references Cairn alone maintains, such as
// refs/pull/N/head.
func (g *Git) ForceRef(ctx context.Context, repoPath, ref, sha string) error {
	if !strings.HasPrefix(ref, "refs/") || !ValidRefName(strings.TrimPrefix(ref, "refs/")) || !IsSHA(sha) {
		return fmt.Errorf("%w: ref %q at %q", ErrInvalidArgument, ref, sha)
	}
	return g.repoCommand(repoPath, "update-ref", "--no-deref").EndOfOptions().Values(ref, sha).Run(ctx)
}

// RefTips returns the object each of refs (full names) points at, peeled
// to the commit for annotated tags; refs that do not exist are left out.
// One for-each-ref, whatever the number of refs.
func (g *Git) RefTips(ctx context.Context, repoPath string, refs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(refs) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, r := range refs {
		if !strings.HasPrefix(r, "refs/") || strings.ContainsAny(r, "*?[\x00") {
			return nil, fmt.Errorf("%w: ref %q", ErrInvalidArgument, r)
		}
		want[r] = true
	}
	err := g.forEachRef(ctx, repoPath, "--format=%(refname)%00%(objectname)%00%(*objectname)%00", "--sort=refname", 3, refs, func(f []string) error {
		if want[f[0]] {
			sha := f[1]
			if f[2] != "" {
				sha = f[2]
			}
			out[f[0]] = sha
		}
		return nil
	})
	return out, err
}

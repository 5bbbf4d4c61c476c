package protect

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
)

func isZero(sha string) bool { return strings.Trim(sha, "0") == "" }

// within reports whether p is dir or lies inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ObjectEnv returns the environment that lets git commands see the objects
// of a push in quarantine: every path must be absolute and inside the
// repository's directory, else the push is refused with an error.
func ObjectEnv(repoPath string, d hooks.ObjectDirs) ([]string, error) {
	if d == (hooks.ObjectDirs{}) {
		return nil, nil
	}
	dir, err := filepath.Abs(repoPath)
	if err != nil {
		return nil, err
	}
	// The repository's directory may be reached through a symbolic link
	// that git resolved: the resolved paths are compared too.
	real, _ := filepath.EvalSymlinks(dir)
	inside := func(p string) bool {
		if within(dir, p) {
			return true
		}
		rp, err := filepath.EvalSymlinks(p)
		return err == nil && real != "" && within(real, rp)
	}
	check := func(p string) error {
		if !filepath.IsAbs(p) || !inside(p) {
			return fmt.Errorf("protect: object directory %q is outside the repository", p)
		}
		return nil
	}
	var env []string
	if d.ObjectDirectory != "" {
		if err := check(d.ObjectDirectory); err != nil {
			return nil, err
		}
		env = append(env, "GIT_OBJECT_DIRECTORY="+d.ObjectDirectory)
	}
	if d.Alternates != "" {
		for _, a := range filepath.SplitList(d.Alternates) {
			if err := check(a); err != nil {
				return nil, err
			}
		}
		env = append(env, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+d.Alternates)
	}
	if d.QuarantinePath != "" {
		if err := check(d.QuarantinePath); err != nil {
			return nil, err
		}
		env = append(env, "GIT_QUARANTINE_PATH="+d.QuarantinePath)
	}
	return env, nil
}

// pushCheck is the state of one PreReceive call: rules and the pusher's
// teams are loaded once, and only when a protected ref is updated.
type pushCheck struct {
	s       *Service
	r       *repo.Repository
	req     hooks.Request
	path    string
	env     []string
	envDone bool
	teams   []int64
	teamsOK bool
}

func (c *pushCheck) objectEnv() ([]string, error) {
	if !c.envDone {
		env, err := ObjectEnv(c.path, c.req.ObjectDirs)
		if err != nil {
			return nil, err
		}
		c.env, c.envDone = env, true
	}
	return c.env, nil
}

func (c *pushCheck) pusherTeams(ctx context.Context) ([]int64, error) {
	if !c.teamsOK {
		t, err := c.s.userTeams(ctx, c.req.PusherID)
		if err != nil {
			return nil, err
		}
		c.teams, c.teamsOK = t, true
	}
	return c.teams, nil
}

// git runs a read-only git command in the repository with the quarantine.
func (c *pushCheck) git(ctx context.Context, sub git.Arg, args []git.Arg, values ...string) ([]byte, error) {
	env, err := c.objectEnv()
	if err != nil {
		return nil, err
	}
	cmd := c.s.git.Command(sub, args...).Repo(c.path).EndOfOptions().Values(values...)
	if len(env) > 0 {
		cmd = cmd.Env(env...)
	}
	return cmd.Output(ctx)
}

// forced reports whether moving old to new drops commits (a force push).
func (c *pushCheck) forced(ctx context.Context, oldSHA, newSHA string) (bool, error) {
	out, err := c.git(ctx, "rev-list", []git.Arg{"--max-count=1"}, oldSHA, "^"+newSHA)
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(out)) > 0, nil
}

// changedFiles lists the files the update changes: the diff between the
// tips, or for a new branch the files of the commits no ref has yet.
func (c *pushCheck) changedFiles(ctx context.Context, oldSHA, newSHA string) ([]string, error) {
	var out []byte
	var err error
	if isZero(oldSHA) {
		out, err = c.git(ctx, "log", []git.Arg{"--format=", "--name-only", "-z", "--no-renames", "--not", "--all", "--not"}, newSHA)
	} else {
		out, err = c.git(ctx, "diff", []git.Arg{"--name-only", "-z", "--no-renames"}, oldSHA, newSHA)
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		f = strings.TrimSpace(f)
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	return files, nil
}

// PushRule is the repo.PushRule of branch and tag protection: Gitea's
// pre-receive checks and messages. No git command runs and only one query
// when no updated ref is protected.
func (s *Service) PushRule(ctx context.Context, r *repo.Repository, req hooks.Request) (string, error) {
	var branches, tags bool
	for _, u := range req.Updates {
		branches = branches || strings.HasPrefix(u.Ref, git.BranchPrefix)
		tags = tags || strings.HasPrefix(u.Ref, "refs/tags/")
	}
	c := &pushCheck{s: s, r: r, req: req}
	if branches {
		rules, err := s.BranchRules(ctx, r.ID)
		if err != nil {
			return "", err
		}
		for _, u := range req.Updates {
			name, ok := strings.CutPrefix(u.Ref, git.BranchPrefix)
			if !ok {
				continue
			}
			rule := rules.Match(name)
			if rule == nil {
				continue
			}
			if c.path == "" {
				c.path = s.repoPath(r)
			}
			if msg, err := c.branch(ctx, rule, name, u); msg != "" || err != nil {
				return msg, err
			}
		}
	}
	if tags {
		rules, err := s.TagRules(ctx, r.ID)
		if err != nil || len(rules) == 0 {
			return "", err
		}
		for _, u := range req.Updates {
			name, ok := strings.CutPrefix(u.Ref, "refs/tags/")
			if !ok {
				continue
			}
			teams, err := c.pusherTeams(ctx)
			if err != nil {
				return "", err
			}
			if !tagAllowed(rules, name, req.PusherID, teams) {
				return fmt.Sprintf("Tag %s is protected", name), nil
			}
		}
	}
	return "", nil
}

// branch checks one update of a protected branch in Gitea's order.
func (c *pushCheck) branch(ctx context.Context, rule *BranchRule, name string, u hooks.RefUpdate) (string, error) {
	if isZero(u.NewSHA) {
		return fmt.Sprintf("branch %s is protected from deletion", name), nil
	}
	req := c.req
	deployKey := req.DeployKeyID != 0
	if !isZero(u.OldSHA) {
		forced, err := c.forced(ctx, u.OldSHA, u.NewSHA)
		if err != nil {
			return "", err
		}
		if forced {
			allowed := false
			if deployKey {
				allowed = rule.CanForcePush && (!rule.EnableForcePushAllowlist || rule.ForcePushAllowlistDeployKeys)
			} else {
				teams, err := c.pusherTeams(ctx)
				if err != nil {
					return "", err
				}
				allowed = rule.UserCanForcePush(req.PusherID, teams)
			}
			if !allowed {
				return fmt.Sprintf("branch %s is protected from force push", name), nil
			}
		}
	}
	if rule.RequireSignedCommits {
		if c.s.verifier == nil {
			return fmt.Sprintf("branch %s requires signed commits, and this server cannot verify commit signatures yet", name), nil
		}
		env, err := c.objectEnv()
		if err != nil {
			return "", err
		}
		bad, err := c.s.verifier.VerifyRange(ctx, c.path, env, u.OldSHA, u.NewSHA)
		if err != nil {
			return "", err
		}
		if bad != "" {
			return fmt.Sprintf("branch %s is protected from unverified commit %s", name, bad), nil
		}
	}
	var files []string
	filesRead := false
	readFiles := func() ([]string, error) {
		if !filesRead {
			f, err := c.changedFiles(ctx, u.OldSHA, u.NewSHA)
			if err != nil {
				return nil, err
			}
			files, filesRead = f, true
		}
		return files, nil
	}
	protectedFile := ""
	if len(filePatterns(rule.ProtectedFilePatterns)) > 0 {
		f, err := readFiles()
		if err != nil {
			return "", err
		}
		protectedFile = firstProtected(rule.ProtectedFilePatterns, f)
	}
	var canPush bool
	if deployKey {
		canPush = protectedFile == "" && rule.CanPush && (!rule.EnableWhitelist || rule.WhitelistDeployKeys)
	} else {
		teams, err := c.pusherTeams(ctx)
		if err != nil {
			return "", err
		}
		canPush = protectedFile == "" && rule.UserCanPush(req.PusherID, teams)
	}
	if canPush {
		return "", nil
	}
	if req.PullRequestID == 0 {
		if protectedFile != "" {
			return fmt.Sprintf("branch %s is protected from changing file %s", name, protectedFile), nil
		}
		if len(filePatterns(rule.UnprotectedFilePatterns)) > 0 {
			f, err := readFiles()
			if err != nil {
				return "", err
			}
			if onlyUnprotected(rule.UnprotectedFilePatterns, f) {
				return "", nil
			}
		}
		return fmt.Sprintf("Not allowed to push to protected branch %s", name), nil
	}
	// A merge Cairn makes: who may merge, not who may push (the merge
	// checks already ran the status and review rules).
	perm, _, err := c.s.permission(ctx, req.PusherID, c.r)
	if err != nil {
		return "", err
	}
	teams, err := c.pusherTeams(ctx)
	if err != nil {
		return "", err
	}
	if !rule.UserCanMerge(req.PusherID, teams, perm.CanWrite(repo.UnitCode)) {
		return fmt.Sprintf("Not allowed to push to protected branch %s", name), nil
	}
	if perm.IsAdmin() {
		return "", nil
	}
	if protectedFile != "" {
		return fmt.Sprintf("branch %s is protected from changing file %s", name, protectedFile), nil
	}
	return "", nil
}

package pull

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// ForRefPrefix is where a push opens or updates a pull request without a
// branch (AGit): refs/for/<base>/<topic>, or refs/for/<base> with
// -o topic=<topic>. Nothing is ever stored there.
const ForRefPrefix = "refs/for/"

// AGit executes pushes to refs/for/ as Gitea's AGit flow does, for the
// proc-receive hook (it implements hooks.ProcReceiver). The pull request's
// head branch is "<pusher's lower-case name>/<topic>" in the base
// repository itself, and refs/pull/N/head points at the pushed commit.
type AGit struct {
	s       *Service
	rootURL string
}

// NewAGit returns the AGit handler of s; rootURL (ending in "/") makes the
// pull request addresses shown to the pusher.
func NewAGit(s *Service, rootURL string) *AGit { return &AGit{s: s, rootURL: rootURL} }

// agitOptions are the push options AGit reads (-o key=value; a key alone
// is an empty value).
type agitOptions struct {
	topic, title, description string
	force                     bool
}

func parseAGitOptions(list []string) agitOptions {
	kv := map[string]string{}
	for _, o := range list {
		k, v, _ := strings.Cut(o, "=")
		kv[k] = v // a later option wins
	}
	o := agitOptions{topic: kv["topic"], title: strings.TrimSpace(kv["title"]), description: strings.TrimSpace(kv["description"])}
	if v, ok := kv["force-push"]; ok {
		b, err := strconv.ParseBool(v)
		o.force = v == "" || (err == nil && b)
	}
	return o
}

// ProcReceive opens or updates one pull request per command. A command
// that cannot be executed is refused with Gitea's reason; the others go on.
func (a *AGit) ProcReceive(ctx context.Context, req hooks.ProcReceiveRequest) (hooks.ProcReceiveResponse, error) {
	out := hooks.ProcReceiveResponse{Results: make([]hooks.ProcReceiveResult, len(req.Updates))}
	refuseAll := func(reason string) (hooks.ProcReceiveResponse, error) {
		for i, u := range req.Updates {
			out.Results[i] = hooks.ProcReceiveResult{Ref: u.Ref, Error: reason}
		}
		return out, nil
	}
	r, err := a.s.repos.GetByID(ctx, req.RepoID)
	if errs.IsNotFound(err) {
		return refuseAll("the repository no longer exists")
	}
	if err != nil {
		return out, err
	}
	if req.DeployKeyID != 0 {
		return refuseAll("pull requests cannot be pushed with a deploy key")
	}
	pusher, err := a.s.users.GetByID(ctx, req.PusherID)
	if errs.IsNotFound(err) {
		return refuseAll("User permission denied for creating pull-request.")
	}
	if err != nil {
		return out, err
	}
	if r.IsEmpty {
		return refuseAll("Can't create pull request for an empty repository.")
	}
	if !r.HasUnit(repo.UnitPulls) {
		return refuseAll("Pull requests are disabled for this repository.")
	}
	perm, err := a.s.Permission(ctx, pusher, r)
	if err != nil {
		return out, err
	}
	if !perm.CanRead(repo.UnitPulls) {
		return refuseAll("User permission denied for creating pull-request.")
	}
	opts := parseAGitOptions(req.Options)
	for i, u := range req.Updates {
		res, err := a.one(ctx, r, pusher, u, opts)
		if err != nil {
			var e *errs.Error
			if errors.As(err, &e) && e.Kind != errs.KindInternal {
				res = hooks.ProcReceiveResult{Error: e.Message}
			} else {
				slog.Error("pull: agit push", "repo", r.ID, "ref", u.Ref, "err", err)
				res = hooks.ProcReceiveResult{Error: "internal error"}
			}
		}
		res.Ref = u.Ref
		out.Results[i] = res
	}
	return out, nil
}

// one executes one command.
func (a *AGit) one(ctx context.Context, r *repo.Repository, pusher *user.User, u hooks.RefUpdate, opts agitOptions) (hooks.ProcReceiveResult, error) {
	s := a.s
	if strings.Trim(u.NewSHA, "0") == "" {
		return hooks.ProcReceiveResult{Error: "Can't delete not exist branch"}, nil
	}
	rest, ok := strings.CutPrefix(u.Ref, ForRefPrefix)
	if !ok {
		return hooks.ProcReceiveResult{FallThrough: true}, nil
	}
	path := s.repos.Path(r)
	base, topic, err := a.splitFor(ctx, path, rest)
	if err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	if base == "" {
		return hooks.ProcReceiveResult{Error: "Unexpected ref: " + u.Ref}, nil
	}
	if topic == "" {
		topic = opts.topic
	}
	if topic == "" {
		return hooks.ProcReceiveResult{Error: "topic-branch is not set"}, nil
	}
	// Several users may push one topic: the head branch is the pusher's.
	head := topic
	if prefix := strings.ToLower(pusher.Name) + "/"; !strings.HasPrefix(topic, prefix) {
		head = prefix + topic
	}
	if !git.ValidBranchName(head) {
		return hooks.ProcReceiveResult{Error: fmt.Sprintf("invalid topic %q", topic)}, nil
	}
	p, err := s.findOpen(ctx, r.ID, head, r.ID, base, FlowAGit)
	if err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	if p == nil {
		return a.open(ctx, r, pusher, path, base, head, u.NewSHA, opts)
	}
	return a.update(ctx, r, p, path, u.NewSHA, opts.force)
}

// splitFor finds the base branch of refs/for/<rest>: rest itself when it
// is a branch, else the shortest leading part of it that is one, the
// remainder being the topic. An empty base means none exists.
func (a *AGit) splitFor(ctx context.Context, path, rest string) (base, topic string, err error) {
	exists := func(name string) (bool, error) {
		if !git.ValidBranchName(name) {
			return false, nil
		}
		_, err := a.s.git.ResolveCommit(ctx, path, git.BranchPrefix+name)
		if errors.Is(err, git.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	if ok, err := exists(rest); ok || err != nil {
		return rest, "", err
	}
	for i := 0; i < len(rest)-1; i++ {
		if rest[i] != '/' {
			continue
		}
		if ok, err := exists(rest[:i]); err != nil {
			return "", "", err
		} else if ok {
			return rest[:i], rest[i+1:], nil
		}
	}
	return "", "", nil
}

// open creates the pull request of a first push to a topic: its title and
// description come from the push options, else from the commit message.
func (a *AGit) open(ctx context.Context, r *repo.Repository, pusher *user.User, path, base, head, sha string, opts agitOptions) (hooks.ProcReceiveResult, error) {
	s := a.s
	title, body := opts.title, opts.description
	if title == "" || body == "" {
		c, err := s.git.GetCommit(ctx, path, sha)
		if err != nil {
			return hooks.ProcReceiveResult{}, err
		}
		if title == "" {
			title = strings.TrimSpace(c.Subject())
		}
		if body == "" {
			_, body, _ = strings.Cut(c.Message, "\n\n")
			body = strings.TrimSpace(body)
		}
	}
	if body == "" {
		body = title
	}
	p, err := s.create(ctx, pusher, r, CreateOptions{Issue: issue.CreateOptions{Title: title, Body: body},
		HeadRepo: r, HeadBranch: head, BaseBranch: base}, sha, FlowAGit)
	if err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	// The push itself makes the head ref; the check queued by create may
	// have looked before it existed, so it runs again.
	if err := s.git.ForceRef(ctx, path, p.HeadRef(), sha); err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	s.checker.queue(p.ID)
	return hooks.ProcReceiveResult{UpdatedRef: p.HeadRef(), NewSHA: sha, URL: a.url(r, p)}, nil
}

// update moves the head of an open AGit pull request to sha: refused when
// nothing changes, or when it is not a fast-forward and force-push is not
// asked for.
func (a *AGit) update(ctx context.Context, r *repo.Repository, p *PullRequest, path, sha string, force bool) (hooks.ProcReceiveResult, error) {
	s := a.s
	old, err := s.git.ResolveCommit(ctx, path, p.HeadRef())
	if err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	if old == sha {
		return hooks.ProcReceiveResult{Error: "new commit is same with old commit"}, nil
	}
	ff, err := s.git.IsAncestor(ctx, path, old, sha)
	if err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	if !ff && !force {
		return hooks.ProcReceiveResult{Error: "request `force-push` push option"}, nil
	}
	if err := s.git.UpdateRef(ctx, path, p.HeadRef(), sha, old); err != nil {
		if errors.Is(err, git.ErrConflict) {
			return hooks.ProcReceiveResult{Error: "the pull request moved meanwhile: push again"}, nil
		}
		return hooks.ProcReceiveResult{}, err
	}
	// The timeline entry, stale reviews and the synchronized event now;
	// mergeability in the background.
	if err := s.recordHeadChange(ctx, p, path, sha); err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	if err := s.setStatus(ctx, p, StatusChecking); err != nil {
		return hooks.ProcReceiveResult{}, err
	}
	s.checker.queue(p.ID)
	return hooks.ProcReceiveResult{UpdatedRef: p.HeadRef(), OldSHA: old, NewSHA: sha, Forced: !ff, URL: a.url(r, p)}, nil
}

// url is the pull request's web address.
func (a *AGit) url(r *repo.Repository, p *PullRequest) string {
	return a.rootURL + r.OwnerName + "/" + r.Name + "/pulls/" + strconv.FormatInt(p.Index, 10)
}

package git

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Object formats.
const (
	ObjectFormatSHA1   = "sha1"
	ObjectFormatSHA256 = "sha256"
)

// InitOptions describes a new bare repository.
type InitOptions struct {
	// DefaultBranch is the branch HEAD points to; default "main".
	DefaultBranch string
	// ObjectFormat is "sha1" (default) or "sha256".
	ObjectFormat string
}

// InitBare creates a bare repository at path with no template files (no
// sample hooks). ErrAlreadyExists when path exists and is not an empty
// directory.
func (g *Git) InitBare(ctx context.Context, path string, opts InitOptions) error {
	abs, err := absRepo(path)
	if err != nil {
		return err
	}
	branch := opts.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	if err := checkBranch("branch", branch); err != nil {
		return err
	}
	var format Arg
	switch opts.ObjectFormat {
	case "", ObjectFormatSHA1:
		format = "--object-format=sha1"
	case ObjectFormatSHA256:
		format = "--object-format=sha256"
	default:
		return fmt.Errorf("%w: object format %q", ErrInvalidArgument, opts.ObjectFormat)
	}
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: %s", ErrAlreadyExists, abs)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return g.Command("init", "--bare", "--quiet", "--template=", format).
		Option("--initial-branch", branch).EndOfOptions().Values(abs).Run(ctx)
}

// IsEmpty reports whether the repository has no branches and no tags.
func (g *Git) IsEmpty(ctx context.Context, repoPath string) (bool, error) {
	out, err := g.repoCommand(repoPath, "for-each-ref", "--count=1", "--format=%(refname)").
		EndOfOptions().Values(BranchPrefix, TagPrefix).Output(ctx)
	if err != nil {
		return false, err
	}
	return len(strings.TrimSpace(string(out))) == 0, nil
}

// PackRefs moves the repository's loose references into packed-refs (git
// pack-refs --all --prune), as git gc does.
func (g *Git) PackRefs(ctx context.Context, repoPath string) error {
	return g.repoCommand(repoPath, "pack-refs", "--all", "--prune").Run(ctx)
}

// ObjectFormat returns the repository's object format, "sha1" or "sha256".
func (g *Git) ObjectFormat(ctx context.Context, repoPath string) (string, error) {
	out, err := g.repoCommand(repoPath, "rev-parse", "--show-object-format").Output(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// MirrorOptions configures CloneMirror and FetchMirror.
type MirrorOptions struct {
	// Env holds extra KEY=VALUE pairs (GIT_SSH_COMMAND, proxy settings,
	// GIT_ASKPASS...).
	Env []string
	// AllowProtocols lists the transport protocols git may use, also for
	// redirects and submodules (GIT_ALLOW_PROTOCOL). Default: https, http,
	// ssh, git. Add "file" only for trusted sources: it reads the server's
	// own disk.
	AllowProtocols []string
}

// env returns the environment of mirror commands.
func (o MirrorOptions) env() ([]string, error) {
	protos := o.AllowProtocols
	if len(protos) == 0 {
		protos = []string{"https", "http", "ssh", "git"}
	}
	for _, p := range protos {
		if p == "" || strings.ContainsAny(p, ":\x00") {
			return nil, fmt.Errorf("%w: protocol %q", ErrInvalidArgument, p)
		}
	}
	return append([]string{"GIT_ALLOW_PROTOCOL=" + strings.Join(protos, ":")}, o.Env...), nil
}

// CloneMirror clones remoteURL as a bare mirror (clone --mirror) into path.
// Credentials in the URL are masked in returned errors.
func (g *Git) CloneMirror(ctx context.Context, remoteURL, path string, opts MirrorOptions) error {
	abs, err := absRepo(path)
	if err != nil {
		return err
	}
	env, err := opts.env()
	if err != nil {
		return err
	}
	err = g.Command("clone", "--mirror", "--quiet", "--template=").Env(env...).
		EndOfOptions().Values(remoteURL, abs).Run(ctx)
	return maskURL(err, remoteURL)
}

// FetchMirror updates a mirror from its remotes (remote update --prune).
func (g *Git) FetchMirror(ctx context.Context, repoPath string, opts MirrorOptions) error {
	env, err := opts.env()
	if err != nil {
		return err
	}
	err = g.repoCommand(repoPath, "remote", "update", "--prune").Env(env...).Run(ctx)
	if err == nil {
		return nil
	}
	// Mask the credentials of the configured remote URL, if any.
	out, uerr := g.repoCommand(repoPath, "config", "--get", "remote.origin.url").Output(ctx)
	if uerr == nil {
		return maskURL(err, strings.TrimSpace(string(out)))
	}
	return err
}

// maskURL replaces the password (or, without one, the user name) of rawURL
// wherever it appears in err's message. errors.Is/As still work; an *Error
// extracted with errors.As is not masked.
func maskURL(err error, rawURL string) error {
	if err == nil {
		return nil
	}
	u, perr := url.Parse(rawURL)
	if perr != nil || u.User == nil {
		return err
	}
	secret, ok := u.User.Password()
	if !ok || secret == "" {
		secret = u.User.Username()
	}
	if secret == "" {
		return err
	}
	return &maskedError{err: err, secret: secret}
}

// maskedError hides a secret in the message of the error it wraps.
type maskedError struct {
	err    error
	secret string
}

func (e *maskedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "***")
}

func (e *maskedError) Unwrap() error { return e.err }

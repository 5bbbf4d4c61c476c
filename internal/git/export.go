package git

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// DiffOptions selects the two sides of a diff or patch series.
type DiffOptions struct {
	// Base is the old side. Empty means the first parent of Head (or
	// nothing, for a root commit): the changes of the single commit Head.
	Base string
	// Head is the new side (required).
	Head string
	// MergeBase compares Head with the merge base of Base and Head
	// ("Base...Head"), as a pull request shows it.
	MergeBase bool
	// Binary includes binary changes in a diff (git diff --binary), so it
	// applies with git apply; patches always include them.
	Binary bool
}

// diffSides validates the options and returns the old and new revisions
// (the old one may be a "base...head" expression).
func (g *Git) diffSides(ctx context.Context, repoPath string, opts DiffOptions) (string, string, error) {
	if err := checkRevision(opts.Head); err != nil {
		return "", "", err
	}
	if opts.Base != "" {
		if err := checkRevision(opts.Base); err != nil {
			return "", "", err
		}
		return opts.Base, opts.Head, nil
	}
	c, err := g.GetCommit(ctx, repoPath, opts.Head)
	if err != nil {
		return "", "", err
	}
	if len(c.Parents) == 0 {
		return emptyTreeLike(c.SHA), c.SHA, nil
	}
	return c.Parents[0], c.SHA, nil
}

// Diff writes the unified diff between two revisions to w (binary files as
// "Binary files differ"; no external diff drivers or text conversion).
func (g *Git) Diff(ctx context.Context, repoPath string, opts DiffOptions, w io.Writer) error {
	base, head, err := g.diffSides(ctx, repoPath, opts)
	if err != nil {
		return err
	}
	cmd := g.repoCommand(repoPath, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--full-index")
	if opts.Binary {
		cmd.Args("--binary")
	}
	cmd.EndOfOptions()
	if opts.MergeBase && opts.Base != "" {
		cmd.Values(base + "..." + head)
	} else {
		cmd.Values(base, head)
	}
	return cmd.Stdout(w).Run(ctx)
}

// Patch writes the commits reachable from Head but not from Base as an mbox
// patch series (format-patch --stdout) to w; with no Base, only the commit
// Head. MergeBase makes no difference here.
func (g *Git) Patch(ctx context.Context, repoPath string, opts DiffOptions, w io.Writer) error {
	if err := checkRevision(opts.Head); err != nil {
		return err
	}
	cmd := g.repoCommand(repoPath, "format-patch", "--stdout", "--no-color", "--no-ext-diff", "--no-textconv", "--no-signature", "-M")
	if opts.Base == "" {
		sha, err := g.ResolveCommit(ctx, repoPath, opts.Head)
		if err != nil {
			return err
		}
		cmd.Args("-1", "--root").EndOfOptions().Values(sha)
	} else {
		if err := checkRevision(opts.Base); err != nil {
			return err
		}
		cmd.EndOfOptions().Values(opts.Base + ".." + opts.Head)
	}
	return cmd.Stdout(w).Run(ctx)
}

// ArchiveFormat is a format of Archive.
type ArchiveFormat string

// Archive formats.
const (
	ArchiveZip   ArchiveFormat = "zip"
	ArchiveTarGz ArchiveFormat = "tar.gz"
	ArchiveTar   ArchiveFormat = "tar"
)

// ArchiveOptions describes an archive of a tree.
type ArchiveOptions struct {
	// Rev is the commit or tree to archive.
	Rev    string
	Format ArchiveFormat
	// Prefix is prepended to every path, e.g. "repo-v1.0"; a trailing
	// slash is added. It must be a clean relative path (see CleanTreePath).
	Prefix string
}

// Archive writes an archive of a revision's tree to w.
func (g *Git) Archive(ctx context.Context, repoPath string, opts ArchiveOptions, w io.Writer) error {
	if err := checkRevision(opts.Rev); err != nil {
		return err
	}
	var format Arg
	switch opts.Format {
	case ArchiveZip:
		format = "--format=zip"
	case ArchiveTarGz:
		format = "--format=tar.gz"
	case ArchiveTar:
		format = "--format=tar"
	default:
		return fmt.Errorf("%w: archive format %q", ErrInvalidArgument, opts.Format)
	}
	prefix, err := CleanWritePath(opts.Prefix)
	if err != nil {
		return err
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	cmd := g.repoCommand(repoPath, "archive", format)
	if prefix != "" {
		cmd.Option("--prefix", prefix)
	}
	err = cmd.EndOfOptions().Values(opts.Rev).Stdout(w).Run(ctx)
	if stderrHas(err, "not a valid object name", "Not a valid object name", "not a tree object") {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// Bundle writes a bundle of all references to w (bundle create - --all).
// An empty repository has nothing to bundle: ErrNotFound.
func (g *Git) Bundle(ctx context.Context, repoPath string, w io.Writer) error {
	err := g.repoCommand(repoPath, "bundle", "create", "--quiet", "-", "--all").Stdout(w).Run(ctx)
	if stderrHas(err, "Refusing to create empty bundle") {
		return fmt.Errorf("%w: empty repository: %w", ErrNotFound, err)
	}
	return err
}

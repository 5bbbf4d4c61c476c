package issueform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-forge/cairn/internal/git"
)

// Forms is what a branch holds for the issue tracker: its templates and
// where its configuration file is.
type Forms struct {
	Templates []*Template
	// Invalid maps the path of each unreadable template to its problem.
	Invalid map[string]error
	// ConfigPath and ConfigSHA name the configuration file, if any.
	ConfigPath, ConfigSHA string
}

// Load reads the templates of branch and finds its configuration file: one
// ls-tree of the root, one per template directory that exists, one blob read
// per template. A template's ref is taken for a branch unless it names a
// full ref, as Gitea does. A missing branch holds nothing.
func Load(ctx context.Context, g *git.Git, gitDir, branch string) (*Forms, error) {
	out := &Forms{Invalid: map[string]error{}}
	if branch == "" {
		return out, nil
	}
	rev := git.BranchPrefix + branch
	root, err := g.ListTree(ctx, gitDir, rev, "", false)
	if errors.Is(err, git.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, e := range root {
		if e.Type == git.TypeTree {
			dirs[e.Name] = true
		}
	}
	files := map[string]git.TreeEntry{}
	for _, dir := range TemplateDirs {
		top, _, _ := strings.Cut(dir, "/")
		if !dirs[top] {
			continue
		}
		entries, err := g.ListTree(ctx, gitDir, rev, dir, false)
		if errors.Is(err, git.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type != git.TypeBlob {
				continue
			}
			files[e.Path] = e
			if !CouldBe(e.Name) || slices.Contains(ConfigFiles, e.Path) {
				continue
			}
			content, err := g.ReadSmallBlob(ctx, gitDir, e.SHA, MaxFileSize)
			if err != nil {
				out.Invalid[e.Path] = err
				continue
			}
			t, err := Parse(e.Path, content)
			if err != nil {
				out.Invalid[e.Path] = err
				continue
			}
			if !strings.HasPrefix(t.Ref, "refs/") {
				t.Ref = git.BranchPrefix + t.Ref
			}
			out.Templates = append(out.Templates, t)
		}
	}
	for _, p := range ConfigFiles {
		if e, ok := files[p]; ok {
			out.ConfigPath, out.ConfigSHA = p, e.SHA
			break
		}
	}
	return out, nil
}

// Config reads the configuration file; without one it is DefaultConfig. An
// unreadable file is an error naming it (with the default configuration).
func (f *Forms) Config(ctx context.Context, g *git.Git, gitDir string) (Config, error) {
	if f.ConfigSHA == "" {
		return DefaultConfig(), nil
	}
	content, err := g.ReadSmallBlob(ctx, gitDir, f.ConfigSHA, MaxFileSize)
	if err != nil {
		return DefaultConfig(), err
	}
	c, err := ParseConfig(content)
	if err != nil {
		return c, fmt.Errorf("%s: %w", f.ConfigPath, err)
	}
	return c, nil
}

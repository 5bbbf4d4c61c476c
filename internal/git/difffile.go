package git

import (
	"context"
	"io"
)

// DiffFile streams the unified diff of one file between two revisions
// (base..head), the way a pull request shows that file: the caller reads it
// to the end or closes it early. A file the two sides do not differ in
// gives an empty stream.
func (g *Git) DiffFile(ctx context.Context, repoPath, base, head, path string) (io.ReadCloser, error) {
	if err := checkRevision(base); err != nil {
		return nil, err
	}
	if err := checkRevision(head); err != nil {
		return nil, err
	}
	clean, err := CleanTreePath(path)
	if err != nil {
		return nil, err
	}
	return g.repoCommand(repoPath, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--full-index").
		EndOfOptions().Values(base, head).Paths(clean).Stream(ctx)
}

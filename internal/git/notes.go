package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
)

// NotesRef is where git notes keeps the notes of commits.
const NotesRef = "refs/notes/commits"

// Note returns the note attached to commit (a full object id) under
// NotesRef and the commit of NotesRef that last changed it. ErrNotFound
// when the repository has no notes or none for commit. Three git
// processes: the note's path (whatever the fan-out), its blob, its last change.
func (g *Git) Note(ctx context.Context, repoPath, commit string) ([]byte, string, error) {
	if (len(commit) != 40 && len(commit) != 64) || !isHexName(commit) {
		return nil, "", fmt.Errorf("%w: %q is not an object id", ErrInvalidArgument, commit)
	}
	if _, err := g.ResolveCommit(ctx, repoPath, NotesRef); err != nil {
		return nil, "", err
	}
	paths := []string{commit, commit[:2] + "/" + commit[2:], commit[:2] + "/" + commit[2:4] + "/" + commit[4:]}
	out, err := g.repoCommand(repoPath, "ls-tree", "-r", "-z").EndOfOptions().Values(NotesRef).Paths(paths...).Output(ctx)
	if err != nil {
		return nil, "", err
	}
	line, _, _ := bytes.Cut(out, []byte{0})
	// "<mode> blob <sha>\t<path>"
	meta, path, ok := strings.Cut(string(line), "\t")
	fields := strings.Fields(meta)
	if !ok || len(fields) != 3 || fields[1] != TypeBlob {
		return nil, "", fmt.Errorf("%w: no note for %s", ErrNotFound, commit)
	}
	r, _, err := g.ReadBlob(ctx, repoPath, fields[2])
	if err != nil {
		return nil, "", err
	}
	message, err := io.ReadAll(io.LimitReader(r, maxNoteSize))
	r.Close()
	if err != nil {
		return nil, "", err
	}
	last, err := g.repoCommand(repoPath, "log", "-1", "--format=%H").EndOfOptions().Values(NotesRef).Paths(path).Output(ctx)
	if err != nil {
		return nil, "", err
	}
	return message, strings.TrimSpace(string(last)), nil
}

// maxNoteSize bounds how much of a note is read.
const maxNoteSize = 1 << 20

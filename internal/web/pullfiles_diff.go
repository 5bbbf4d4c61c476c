package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/cairn-forge/cairn/internal/git"
)

// diffFileSkipper passes git diff output through, leaving out the first
// skip files: a page of a large diff is parsed without keeping the files
// before it. Lines are read in chunks, so a long line costs no memory.
type diffFileSkipper struct {
	br   *bufio.Reader
	skip int
	// seen counts the file headers read; atStart reports that the next
	// chunk starts a line.
	seen    int
	atStart bool
	pending []byte
	err     error
}

var diffFileHeader = []byte("diff --git ")

func newDiffFileSkipper(r io.Reader, skip int) *diffFileSkipper {
	return &diffFileSkipper{br: bufio.NewReaderSize(r, 64<<10), skip: skip, atStart: true}
}

// Read implements io.Reader.
func (s *diffFileSkipper) Read(p []byte) (int, error) {
	for {
		if len(s.pending) > 0 {
			n := copy(p, s.pending)
			s.pending = s.pending[n:]
			return n, nil
		}
		if s.err != nil {
			return 0, s.err
		}
		chunk, err := s.br.ReadSlice('\n')
		if len(chunk) > 0 {
			if s.atStart && bytes.HasPrefix(chunk, diffFileHeader) {
				s.seen++
			}
			s.atStart = chunk[len(chunk)-1] == '\n'
			if s.seen > s.skip {
				// The chunk stays valid until the next ReadSlice, which
				// waits until it has been copied out.
				s.pending = chunk
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			s.err = err
		}
	}
}

// pullPageDiff parses the diff from base to head of the repository at
// repoPath, files skip to skip+opts.MaxFiles, streamed from git and stopped
// at the limits of opts (the diff renderer's parser and limits).
func (h *Handler) pullPageDiff(ctx context.Context, repoPath, base, head string, skip int, opts diffOptions) (*Diff, error) {
	opts.defaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := h.Git.Diff(ctx, repoPath, git.DiffOptions{Base: base, Head: head}, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	d, perr := parseDiff(newDiffFileSkipper(pr, skip), opts)
	cancel()
	pr.CloseWithError(errDiffStopped)
	gerr := <-done
	if perr != nil {
		return nil, perr
	}
	if !d.Truncated && gerr != nil {
		return nil, gerr
	}
	return d, nil
}

package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Whitespace modes of ChangedFilesOptions, with Gitea's names.
const (
	WhitespaceShowAll      = "show-all"
	WhitespaceIgnoreAll    = "ignore-all"
	WhitespaceIgnoreChange = "ignore-change"
	WhitespaceIgnoreEOL    = "ignore-eol"
)

// Statuses of a ChangedFile, with Gitea's names.
const (
	FileAdded    = "added"
	FileDeleted  = "deleted"
	FileModified = "modified"
	FileRenamed  = "renamed"
	FileCopied   = "copied"
	FileChanged  = "changed" // the type changed (file, symbolic link, submodule)
)

// ChangedFile is one file of a comparison.
type ChangedFile struct {
	Filename string
	// PreviousFilename is the source of a rename or copy, else "".
	PreviousFilename string
	// Status is one of the File* statuses.
	Status    string
	Additions int
	Deletions int
	// Binary reports a binary file (no line counts).
	Binary bool
}

// ChangedFilesOptions tunes ChangedFiles.
type ChangedFilesOptions struct {
	// Whitespace is "" or WhitespaceShowAll (count every change),
	// WhitespaceIgnoreAll (-w), WhitespaceIgnoreChange (-b) or
	// WhitespaceIgnoreEOL (--ignore-space-at-eol). When whitespace is
	// ignored, files whose only changes are whitespace are left out, as
	// git diff leaves them out.
	Whitespace string
	// DetectRenames reports renamed files as such (-M) instead of a
	// deletion and an addition.
	DetectRenames bool
	// MaxFiles caps the list; 0 means no cap.
	MaxFiles int
}

// ChangedFiles lists the files that differ between two tree-ish revisions
// (from..to: callers pass the merge base as from for a pull request), in
// git's path order, with their line counts, and whether the list was cut at
// opts.MaxFiles. One git diff --raw --numstat -z is parsed as it streams.
func (g *Git) ChangedFiles(ctx context.Context, repoPath, from, to string, opts ChangedFilesOptions) ([]ChangedFile, bool, error) {
	if err := checkRevision(from); err != nil {
		return nil, false, err
	}
	if err := checkRevision(to); err != nil {
		return nil, false, err
	}
	if opts.MaxFiles < 0 {
		return nil, false, fmt.Errorf("%w: negative file cap", ErrInvalidArgument)
	}
	cmd := g.repoCommand(repoPath, "diff", "--raw", "--numstat", "-z", "--no-color", "--no-ext-diff", "--no-textconv", "--no-abbrev")
	ignoring := true
	switch opts.Whitespace {
	case "", WhitespaceShowAll:
		ignoring = false
	case WhitespaceIgnoreAll:
		cmd.Args("-w")
	case WhitespaceIgnoreChange:
		cmd.Args("-b")
	case WhitespaceIgnoreEOL:
		cmd.Args("--ignore-space-at-eol")
	default:
		return nil, false, fmt.Errorf("%w: whitespace mode %q", ErrInvalidArgument, opts.Whitespace)
	}
	if opts.DetectRenames {
		cmd.Args("-M")
	} else {
		cmd.Args("--no-renames")
	}
	out, err := cmd.EndOfOptions().Values(from, to).Stream(ctx)
	if err != nil {
		return nil, false, err
	}
	defer out.Close()
	p := changedFilesParser{tok: nulTokens{bufio.NewReaderSize(out, 64<<10)}, max: opts.MaxFiles, ignoring: ignoring}
	files, truncated, err := p.parse()
	if err != nil {
		return nil, false, revNotFound(err)
	}
	return files, truncated, nil
}

// changedFilesParser reads "diff --raw --numstat -z": first a raw record
// per file (":<modes> <shas> <status>\0<path>\0", or two paths for a
// rename or copy), then a numstat record per file in the same order
// ("<add>\t<del>\t<path>\0", or "<add>\t<del>\t\0<old>\0<new>\0"; "-"
// counts for binary files). With whitespace ignored, files without a
// numstat record changed only in whitespace.
type changedFilesParser struct {
	tok      nulTokens
	max      int
	ignoring bool

	raw   []ChangedFile // raw records not yet matched
	extra bool          // raw records were left out of raw (cap reached)
	out   []ChangedFile
}

func (p *changedFilesParser) parse() ([]ChangedFile, bool, error) {
	for {
		s, err := p.tok.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, err
		}
		if strings.HasPrefix(s, ":") {
			if err := p.rawRecord(s); err != nil {
				return nil, false, err
			}
			continue
		}
		if done, err := p.numstatRecord(s); err != nil || done {
			return p.out, done, err
		}
	}
	// Without whitespace filtering every raw record has a numstat record;
	// keep any left unmatched, with no counts.
	if !p.ignoring {
		for _, f := range p.raw {
			if p.max > 0 && len(p.out) == p.max {
				return p.out, true, nil
			}
			p.out = append(p.out, f)
		}
		if p.extra {
			return p.out, true, nil
		}
	}
	return p.out, false, nil
}

// rawRecord parses one raw record whose header is s.
func (p *changedFilesParser) rawRecord(s string) error {
	f := strings.Fields(s)
	if len(f) != 5 || f[4] == "" {
		return fmt.Errorf("git: malformed diff entry %q", s)
	}
	cf := ChangedFile{}
	status := f[4][0]
	name, err := p.tok.next()
	if err != nil {
		return truncatedDiff(err)
	}
	cf.Filename = name
	switch status {
	case 'A':
		cf.Status = FileAdded
	case 'D':
		cf.Status = FileDeleted
	case 'M':
		cf.Status = FileModified
	case 'T':
		cf.Status = FileChanged
	case 'R', 'C':
		cf.Status = FileRenamed
		if status == 'C' {
			cf.Status = FileCopied
		}
		cf.PreviousFilename = name
		if cf.Filename, err = p.tok.next(); err != nil {
			return truncatedDiff(err)
		}
	default:
		cf.Status = FileChanged
	}
	// Without whitespace filtering, the first max+1 records are all that
	// can be listed or tell that the list is cut.
	if !p.ignoring && p.max > 0 && len(p.raw) > p.max {
		p.extra = true
		return nil
	}
	p.raw = append(p.raw, cf)
	return nil
}

// numstatRecord parses one numstat record starting with s, matches it with
// its raw record and reports whether the cap was reached.
func (p *changedFilesParser) numstatRecord(s string) (bool, error) {
	parts := strings.SplitN(s, "\t", 3)
	if len(parts) != 3 {
		return false, fmt.Errorf("git: malformed numstat entry %q", s)
	}
	name := parts[2]
	if name == "" {
		// A rename or copy: old and new paths follow.
		if _, err := p.tok.next(); err != nil {
			return false, truncatedDiff(err)
		}
		var err error
		if name, err = p.tok.next(); err != nil {
			return false, truncatedDiff(err)
		}
	}
	i := 0
	for i < len(p.raw) && p.raw[i].Filename != name {
		i++
	}
	if i == len(p.raw) {
		if p.extra {
			// Past the records kept: more files than the cap.
			return true, nil
		}
		return false, fmt.Errorf("git: numstat entry %q without raw entry", name)
	}
	if !p.ignoring {
		// Records before the match have no numstat line (not expected
		// without filtering): list them as they are.
		for _, f := range p.raw[:i] {
			if p.max > 0 && len(p.out) == p.max {
				return true, nil
			}
			p.out = append(p.out, f)
		}
	}
	cf := p.raw[i]
	p.raw = p.raw[i+1:]
	if p.max > 0 && len(p.out) == p.max {
		return true, nil
	}
	if parts[0] == "-" && parts[1] == "-" {
		cf.Binary = true
	} else {
		cf.Additions, _ = strconv.Atoi(parts[0])
		cf.Deletions, _ = strconv.Atoi(parts[1])
	}
	p.out = append(p.out, cf)
	return false, nil
}

// truncatedDiff turns an early end of output into an error.
func truncatedDiff(err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("git: truncated diff output")
	}
	return err
}

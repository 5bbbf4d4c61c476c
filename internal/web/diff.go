package web

// The diff renderer: git's unified diff, parsed as it streams into files,
// hunks and lines for the "diff" template (templates/layout/diff.tmpl),
// and cut at limits so that a huge change cannot make a huge page.
//
// Use it from any page that shows changes (a commit, a comparison, a pull
// request's files):
//
//	d, err := h.renderableDiff(ctx, repoPath, baseSHA, headSHA, diffOptions{MergeBase: true})
//	if err != nil { ... } // git.ErrNotFound for a missing revision
//	data.Diff = &diffView{Diff: d, Split: r.URL.Query().Get("style") == "split",
//		RepoLink: rc.Link, Base: baseSHA, Head: headSHA, RawURL: link + ".diff",
//		UnifiedURL: link + "?style=unified", SplitURL: link + "?style=split"}
//
// and in the page template {{template "diff" .Data.Page.Diff}}. The same
// file defines "diff_commits", a table of commits ([]codeCommitRow, see
// codeCommitRows), and "code_pager" (*codePager, see newCodePager).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/git"
)

// Default limits of renderableDiff.
const (
	diffMaxFiles     = 100
	diffMaxLines     = 10_000
	diffMaxFileLines = 1_000
	diffMaxLineBytes = 2_000
)

// diffOptions tunes renderableDiff; zero limits take the defaults.
type diffOptions struct {
	// MergeBase compares head with the merge base of base and head (what
	// a pull request or a base...head comparison shows).
	MergeBase bool
	// MaxFiles stops the diff after this many files, MaxLines after this
	// many lines in all (Diff.Truncated).
	MaxFiles, MaxLines int
	// MaxFileLines stops showing a file after this many lines
	// (DiffFile.TooLarge); MaxLineBytes cuts longer lines.
	MaxFileLines, MaxLineBytes int
}

func (o *diffOptions) defaults() {
	if o.MaxFiles <= 0 {
		o.MaxFiles = diffMaxFiles
	}
	if o.MaxLines <= 0 {
		o.MaxLines = diffMaxLines
	}
	if o.MaxFileLines <= 0 {
		o.MaxFileLines = diffMaxFileLines
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = diffMaxLineBytes
	}
}

// Diff is a parsed unified diff.
type Diff struct {
	Files []*DiffFile
	// Truncated reports that files or lines past the limits were left out:
	// the page should link to the raw diff.
	Truncated bool
}

// File statuses of a DiffFile.
const (
	diffAdded    = "added"
	diffDeleted  = "deleted"
	diffModified = "modified"
	diffRenamed  = "renamed"
	diffCopied   = "copied"
)

// DiffFile is one file of a diff.
type DiffFile struct {
	// Name is the new path, OldName the old one (the same unless the file
	// was renamed or copied).
	Name, OldName string
	// Status is added, deleted, modified, renamed or copied.
	Status string
	// OldMode and Mode are the file modes ("100644"); "" when unchanged.
	OldMode, Mode string
	// Similarity is the similarity index of a rename or copy (percent).
	Similarity int
	// Binary reports a binary file: no hunks.
	Binary bool
	Hunks  []*DiffHunk
	// Additions and Deletions count the file's lines, shown or not.
	Additions, Deletions int
	// TooLarge reports that the file's lines past the per-file limit are
	// not in Hunks.
	TooLarge bool
	// Index is the file's position in the diff (its anchor: diff-<Index>).
	Index int
}

// IsRenamed reports a rename or a copy (OldName is the source).
func (f *DiffFile) IsRenamed() bool { return f.Status == diffRenamed || f.Status == diffCopied }

// ModeChanged reports a change of mode only worth showing.
func (f *DiffFile) ModeChanged() bool { return f.OldMode != "" && f.Mode != "" && f.OldMode != f.Mode }

// DiffHunk is one "@@ -a,b +c,d @@" section.
type DiffHunk struct {
	// Header is the whole @@ line.
	Header             string
	OldStart, OldCount int
	NewStart, NewCount int
	Lines              []DiffLine
}

// Kinds of DiffLine.
const (
	DiffContext = ' '
	DiffAdd     = '+'
	DiffDelete  = '-'
)

// DiffLine is one line of a hunk.
type DiffLine struct {
	// Kind is DiffContext, DiffAdd or DiffDelete.
	Kind byte
	// OldNum and NewNum are the line's numbers on each side (0: absent).
	OldNum, NewNum int
	// Text is the line without its sign and end of line.
	Text string
	// NoNewline reports "\ No newline at end of file" after the line.
	NoNewline bool
	// Cut reports a line shortened to the line limit.
	Cut bool
}

// Sign is the line's "+", "-" or " ".
func (l DiffLine) Sign() string { return string(l.Kind) }

// Class is the CSS class of the line's row: add, del or ctx.
func (l DiffLine) Class() string {
	switch l.Kind {
	case DiffAdd:
		return "add"
	case DiffDelete:
		return "del"
	}
	return "ctx"
}

// DiffSplitRow is a row of the side-by-side view: the old side's line and
// the new side's (nil for an empty cell).
type DiffSplitRow struct{ Left, Right *DiffLine }

// SplitRows pairs the hunk's lines side by side: context on both sides,
// each run of deletions beside the additions that follow it.
func (h *DiffHunk) SplitRows() []DiffSplitRow {
	var rows []DiffSplitRow
	for i := 0; i < len(h.Lines); {
		l := &h.Lines[i]
		if l.Kind == DiffContext {
			rows = append(rows, DiffSplitRow{Left: l, Right: l})
			i++
			continue
		}
		var dels, adds []*DiffLine
		for i < len(h.Lines) && h.Lines[i].Kind == DiffDelete {
			dels = append(dels, &h.Lines[i])
			i++
		}
		for i < len(h.Lines) && h.Lines[i].Kind == DiffAdd {
			adds = append(adds, &h.Lines[i])
			i++
		}
		for j := 0; j < len(dels) || j < len(adds); j++ {
			var row DiffSplitRow
			if j < len(dels) {
				row.Left = dels[j]
			}
			if j < len(adds) {
				row.Right = adds[j]
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// diffView is what the "diff" template takes: the diff and the links around it.
type diffView struct {
	*Diff
	// Split shows the two sides next to each other.
	Split bool
	// RepoLink is the repository's path (/owner/name); Head and Base the
	// commits compared: files link to RepoLink/src/commit/{Head or Base}/...
	RepoLink, Head, Base string
	// RawURL is the plain diff (linked when the diff is truncated).
	RawURL string
	// UnifiedURL and SplitURL switch between the views ("" hides the switch).
	UnifiedURL, SplitURL string
}

// renderableDiff runs git diff between base and head of the repository at
// repoPath ("" base: head's first parent, or nothing for a root commit) and
// parses it as it streams, stopping git as soon as a limit of opts is
// reached. Revisions must be names a visitor may see (they are validated
// by internal/git); a missing one is git.ErrNotFound.
func (h *Handler) renderableDiff(ctx context.Context, repoPath, base, head string, opts diffOptions) (*Diff, error) {
	opts.defaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := h.Git.Diff(ctx, repoPath, git.DiffOptions{Base: base, Head: head, MergeBase: opts.MergeBase}, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	d, perr := parseDiff(pr, opts)
	// Stop git if the parser stopped early, and unblock its writes.
	cancel()
	pr.CloseWithError(errDiffStopped)
	gerr := <-done
	if perr != nil {
		return nil, perr // git's own failure comes through the pipe
	}
	if !d.Truncated && gerr != nil {
		return nil, gerr
	}
	return d, nil
}

// errDiffStopped ends a diff stream the parser no longer reads.
var errDiffStopped = errors.New("diff reading stopped")

// diffParser holds the state of parseDiff.
type diffParser struct {
	br    *bufio.Reader
	opts  diffOptions
	d     *Diff
	lines int // lines kept in all
	file  *DiffFile
	hunk  *DiffHunk
	kept  int // lines kept of the current file
	// oldNum and newNum are the numbers of the next lines of the hunk.
	oldNum, newNum int
	// fromHeader are the names of the "diff --git" line, used when
	// neither ---/+++ nor rename lines name the file.
	fromHeader [2]string
}

// parseDiff parses git diff output (no color, a/ and b/ prefixes) from r.
func parseDiff(r io.Reader, opts diffOptions) (*Diff, error) {
	opts.defaults()
	p := &diffParser{br: bufio.NewReaderSize(r, 64<<10), opts: opts, d: &Diff{}}
	for {
		line, cut, err := p.readLine()
		if errors.Is(err, io.EOF) {
			p.finishFile()
			return p.d, nil
		}
		if err != nil {
			return nil, err
		}
		if stop := p.line(line, cut); stop {
			p.d.Truncated = true
			p.finishFile()
			return p.d, nil
		}
	}
}

// readLine reads one line without its newline, at most MaxLineBytes of it
// (cut reports that the rest was skipped).
func (p *diffParser) readLine() (string, bool, error) {
	var sb strings.Builder
	cut := false
	for {
		chunk, err := p.br.ReadSlice('\n')
		if room := p.opts.MaxLineBytes - sb.Len(); room > 0 {
			if len(chunk) > room {
				chunk, cut = chunk[:room], true
			}
			sb.Write(chunk)
		} else if len(chunk) > 0 {
			cut = true
		}
		switch {
		case err == nil:
			return strings.TrimSuffix(sb.String(), "\n"), cut, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && sb.Len() > 0:
			return sb.String(), cut, nil
		default:
			return "", false, err
		}
	}
}

// line takes one line of output; true stops the parse (a limit).
func (p *diffParser) line(line string, cut bool) bool {
	if strings.HasPrefix(line, "diff --git ") {
		p.finishFile()
		if len(p.d.Files) >= p.opts.MaxFiles {
			return true
		}
		p.file = &DiffFile{Status: diffModified, Index: len(p.d.Files)}
		p.d.Files = append(p.d.Files, p.file)
		p.hunk, p.kept = nil, 0
		p.fromHeader = diffSplitHeader(strings.TrimPrefix(line, "diff --git "))
		return false
	}
	if p.file == nil {
		return false // nothing before the first file matters
	}
	if p.hunk == nil {
		p.header(line)
		return false
	}
	switch {
	case strings.HasPrefix(line, "@@ "):
		p.startHunk(line)
		return false
	case strings.HasPrefix(line, `\`):
		if n := len(p.hunk.Lines); n > 0 {
			p.hunk.Lines[n-1].NoNewline = true
		}
		return false
	}
	kind := byte(DiffContext)
	text := line
	if line != "" {
		kind, text = line[0], line[1:]
	}
	dl := DiffLine{Kind: kind, Text: text, Cut: cut}
	switch kind {
	case DiffAdd:
		p.file.Additions++
		dl.NewNum = p.newNum
		p.newNum++
	case DiffDelete:
		p.file.Deletions++
		dl.OldNum = p.oldNum
		p.oldNum++
	case DiffContext:
		dl.OldNum, dl.NewNum = p.oldNum, p.newNum
		p.oldNum++
		p.newNum++
	default:
		// Not a hunk line: the header of something else. Read it so.
		p.hunk = nil
		p.header(line)
		return false
	}
	if p.file.TooLarge {
		return false
	}
	if p.kept >= p.opts.MaxFileLines {
		p.file.TooLarge = true
		return false
	}
	if p.lines >= p.opts.MaxLines {
		return true
	}
	p.hunk.Lines = append(p.hunk.Lines, dl)
	p.kept++
	p.lines++
	return false
}

// header reads a line of a file's extended header.
func (p *diffParser) header(line string) {
	f := p.file
	switch {
	case strings.HasPrefix(line, "@@ "):
		p.startHunk(line)
	case strings.HasPrefix(line, "new file mode "):
		f.Status, f.Mode = diffAdded, strings.TrimPrefix(line, "new file mode ")
	case strings.HasPrefix(line, "deleted file mode "):
		f.Status, f.OldMode = diffDeleted, strings.TrimPrefix(line, "deleted file mode ")
	case strings.HasPrefix(line, "old mode "):
		f.OldMode = strings.TrimPrefix(line, "old mode ")
	case strings.HasPrefix(line, "new mode "):
		f.Mode = strings.TrimPrefix(line, "new mode ")
	case strings.HasPrefix(line, "similarity index "):
		f.Similarity, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "similarity index "), "%"))
	case strings.HasPrefix(line, "rename from "):
		f.Status, f.OldName = diffRenamed, diffUnquotePath(strings.TrimPrefix(line, "rename from "))
	case strings.HasPrefix(line, "rename to "):
		f.Status, f.Name = diffRenamed, diffUnquotePath(strings.TrimPrefix(line, "rename to "))
	case strings.HasPrefix(line, "copy from "):
		f.Status, f.OldName = diffCopied, diffUnquotePath(strings.TrimPrefix(line, "copy from "))
	case strings.HasPrefix(line, "copy to "):
		f.Status, f.Name = diffCopied, diffUnquotePath(strings.TrimPrefix(line, "copy to "))
	case strings.HasPrefix(line, "--- "):
		if n := diffSidePath(strings.TrimPrefix(line, "--- "), "a/"); n != "" {
			f.OldName = n
		}
	case strings.HasPrefix(line, "+++ "):
		if n := diffSidePath(strings.TrimPrefix(line, "+++ "), "b/"); n != "" {
			f.Name = n
		}
	case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
		f.Binary = true
	}
}

// startHunk opens a hunk at its "@@ -a,b +c,d @@ section" line.
func (p *diffParser) startHunk(line string) {
	h := &DiffHunk{Header: line}
	ranges, _, _ := strings.Cut(strings.TrimPrefix(line, "@@ "), " @@")
	old, nw, _ := strings.Cut(ranges, " ")
	h.OldStart, h.OldCount = diffHunkRange(strings.TrimPrefix(old, "-"))
	h.NewStart, h.NewCount = diffHunkRange(strings.TrimPrefix(nw, "+"))
	p.oldNum, p.newNum = h.OldStart, h.NewStart
	p.hunk = h
	if !p.file.TooLarge {
		p.file.Hunks = append(p.file.Hunks, h)
	}
}

// diffHunkRange parses "start,count" (count 1 when absent).
func diffHunkRange(s string) (int, int) {
	a, b, ok := strings.Cut(s, ",")
	start, _ := strconv.Atoi(a)
	count := 1
	if ok {
		count, _ = strconv.Atoi(b)
	}
	return start, count
}

// finishFile completes the names of the current file.
func (p *diffParser) finishFile() {
	f := p.file
	if f == nil {
		return
	}
	if f.Name == "" {
		f.Name = p.fromHeader[1]
	}
	if f.OldName == "" {
		f.OldName = p.fromHeader[0]
	}
	switch f.Status {
	case diffAdded:
		f.OldName = f.Name
	case diffDeleted:
		f.Name = f.OldName
	}
	// Drop hunks left empty by the per-file limit.
	if f.TooLarge && len(f.Hunks) > 0 && len(f.Hunks[len(f.Hunks)-1].Lines) == 0 {
		f.Hunks = f.Hunks[:len(f.Hunks)-1]
	}
	p.file, p.hunk = nil, nil
}

// diffSidePath reads the name of a ---/+++ line: "" for /dev/null.
func diffSidePath(s, prefix string) string {
	// git ends the name with a TAB when it contains a space.
	s = strings.TrimSuffix(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(diffUnquotePath(s), prefix)
}

// diffUnquotePath reads a path git may have written C-quoted ("a\tb", octal
// escapes for bytes).
func diffUnquotePath(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// diffSplitHeader reads the two names of a "diff --git a/x b/y" line. An
// unquoted pair is ambiguous when the names contain " b/"; both names are
// the same then (renames and copies have their own lines), which decides.
func diffSplitHeader(s string) [2]string {
	if strings.HasPrefix(s, `"`) {
		end := diffClosingQuote(s)
		if end < 0 {
			return [2]string{}
		}
		old := diffUnquotePath(s[:end+1])
		nw := diffUnquotePath(strings.TrimPrefix(s[end+1:], " "))
		return [2]string{strings.TrimPrefix(old, "a/"), strings.TrimPrefix(nw, "b/")}
	}
	if n := len(s); n%2 == 1 {
		half := n / 2
		if s[half] == ' ' && strings.HasPrefix(s, "a/") && strings.HasPrefix(s[half+1:], "b/") && s[2:half] == s[half+3:] {
			return [2]string{s[2:half], s[half+3:]}
		}
	}
	if i := strings.Index(s, ` "b/`); i >= 0 {
		return [2]string{strings.TrimPrefix(s[:i], "a/"), strings.TrimPrefix(diffUnquotePath(s[i+1:]), "b/")}
	}
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return [2]string{strings.TrimPrefix(s[:i], "a/"), s[i+3:]}
	}
	return [2]string{}
}

// diffClosingQuote is the index of the quote ending the C-quoted string s
// starts, or -1.
func diffClosingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// String is a short description, for tests and logs.
func (f *DiffFile) String() string {
	return fmt.Sprintf("%s %s (%s) +%d -%d", f.Status, f.Name, f.OldName, f.Additions, f.Deletions)
}

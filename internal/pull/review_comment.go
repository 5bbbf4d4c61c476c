package pull

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/user"
)

// maxLineCommentPath bounds the path of a line comment (the column).
const maxLineCommentPath = 255

// mergeBaseOf returns the merge base of p's base branch and head ("" when
// there is none): the one the last check stored when it describes head.
func (s *Service) mergeBaseOf(ctx context.Context, p *PullRequest, path, head string) string {
	if p.MergeBase != "" && p.CheckedHead == head {
		return p.MergeBase
	}
	mb, err := s.git.MergeBase(ctx, path, git.BranchPrefix+p.BaseBranch, head)
	if err != nil {
		return ""
	}
	return mb
}

// lineComment builds (without storing) doer's line comment c on p: the
// path checked, the head commit, and the diff hunk that ends at the line,
// read from the diff of the file between mergeBase and the head.
func (s *Service) lineComment(ctx context.Context, doer *user.User, p *PullRequest, path, mergeBase, head string, c ReviewCommentOptions) (*issue.Comment, error) {
	if strings.TrimSpace(c.Body) == "" {
		return nil, errs.Invalid("body is empty")
	}
	if len(c.Body) > issue.MaxCommentLength {
		return nil, errs.Invalid("body is longer than %d bytes", issue.MaxCommentLength)
	}
	tree, err := git.CleanTreePath(c.Path)
	if err != nil || tree == "" || len(tree) > maxLineCommentPath {
		return nil, errs.Invalid("invalid path %q", c.Path)
	}
	patch := ""
	if mergeBase != "" && c.Line != 0 {
		if patch, err = s.diffHunk(ctx, path, mergeBase, head, tree, c.Line); err != nil {
			return nil, err
		}
	}
	return &issue.Comment{Type: issue.CommentCode, PosterID: doer.ID, IssueID: p.IssueID, Content: c.Body,
		TreePath: tree, Line: c.Line, CommitSHA: head, Patch: patch, Created: time.Now()}, nil
}

// diffHunk reads the diff of one file, streamed, and keeps the lines
// around line.
func (s *Service) diffHunk(ctx context.Context, path, from, to, file string, line int64) (string, error) {
	rc, err := s.git.DiffFile(ctx, path, from, to, file)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	old := line < 0
	if old {
		line = -line
	}
	return cutDiffAroundLine(rc, line, old, commentLines)
}

// diffLine is one line of a hunk with the old and new line numbers it
// stands at.
type diffLine struct {
	text     string
	old, new int64
}

// cutDiffAroundLine reads a unified diff of one file and returns its
// header followed by a hunk made of at most keep lines ending with line
// (of the old side when old, else of the new side), with the hunk header
// counted for them. A line the diff does not show gives "".
func cutDiffAroundLine(r io.Reader, line int64, old bool, keep int) (string, error) {
	if line <= 0 || keep <= 0 {
		return "", nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var header []string
	var window []diffLine
	inHunk := false
	var oldNo, newNo int64
	for sc.Scan() {
		text := sc.Text()
		if strings.HasPrefix(text, "@@") {
			o, n, ok := parseHunkHeader(text)
			if !ok {
				return "", nil
			}
			inHunk, oldNo, newNo, window = true, o, n, window[:0]
			continue
		}
		if !inHunk {
			header = append(header, text)
			continue
		}
		if text == "" {
			text = " " // a blank context line whose space was trimmed
		}
		dl := diffLine{text: text, old: oldNo, new: newNo}
		hit := false
		switch text[0] {
		case ' ':
			hit = (old && oldNo == line) || (!old && newNo == line)
			oldNo++
			newNo++
		case '-':
			hit = old && oldNo == line
			oldNo++
		case '+':
			hit = !old && newNo == line
			newNo++
		case '\\':
			continue // "\ No newline at end of file"
		default:
			inHunk = false // the next file's header
			continue
		}
		window = append(window, dl)
		if len(window) > keep {
			window = window[1:]
		}
		if hit {
			return formatHunk(header, window), nil
		}
	}
	if err := sc.Err(); err != nil && err != bufio.ErrTooLong {
		return "", err
	}
	return "", nil
}

// parseHunkHeader reads the first old and new line numbers of "@@ -a,b +c,d @@".
func parseHunkHeader(h string) (int64, int64, bool) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	num := func(s string) (int64, bool) {
		s, _, _ = strings.Cut(s[1:], ",")
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	o, ok1 := num(f[1])
	n, ok2 := num(f[2])
	return o, n, ok1 && ok2
}

// formatHunk writes the file header and window as one hunk.
func formatHunk(header []string, window []diffLine) string {
	var oldCount, newCount int
	for _, l := range window {
		switch l.text[0] {
		case ' ':
			oldCount++
			newCount++
		case '-':
			oldCount++
		case '+':
			newCount++
		}
	}
	var b strings.Builder
	for _, h := range header {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@", window[0].old, oldCount, window[0].new, newCount)
	for _, l := range window {
		b.WriteByte('\n')
		b.WriteString(l.text)
	}
	return b.String()
}

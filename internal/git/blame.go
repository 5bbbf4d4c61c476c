package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// BlameCommit is a commit that last changed some lines of a blamed file.
type BlameCommit struct {
	SHA       string
	Author    Signature
	Committer Signature
	// Summary is the first line of the commit message.
	Summary string
	// Previous is the parent the lines are traced from, and PreviousPath
	// the file's path there ("" for lines the commit added to a new file
	// or at the boundary of history).
	Previous, PreviousPath string
}

// BlameLine is one line of a blamed file.
type BlameLine struct {
	// Commit is shared by every line of the same commit.
	Commit *BlameCommit
	// Number is the line's number in the blamed file (from 1), OrigNumber
	// its number in the file as Commit left it.
	Number, OrigNumber int
	// Text is the line without its end of line.
	Text string
}

// maxBlameLine bounds one line of blame output; a longer source line is
// cut there.
const maxBlameLine = 1 << 20

// Blame streams, line by line, which commit last changed each line of the
// file at path in the commit rev resolves to (git blame --porcelain, parsed
// as git writes it). It stops at the first error fn returns and returns it.
// ErrNotFound when rev names no commit or path no file there.
func (g *Git) Blame(ctx context.Context, repoPath, rev, path string, fn func(BlameLine) error) error {
	p, err := CleanTreePath(path)
	if err != nil {
		return err
	}
	if p == "" {
		return fmt.Errorf("%w: blame needs a file", ErrInvalidArgument)
	}
	// git blame takes no --end-of-options: hand it a full commit name.
	sha, err := g.ResolveCommit(ctx, repoPath, rev)
	if err != nil {
		return err
	}
	out, err := g.repoCommand(repoPath, "blame", "--porcelain").Values(sha).Paths(p).Stream(ctx)
	if err != nil {
		return err
	}
	defer out.Close()
	err = parseBlame(bufio.NewReaderSize(out, 64<<10), fn)
	if stderrHas(err, "no such path", "no such ref", "bad revision") {
		return fmt.Errorf("%w: %q at %s", ErrNotFound, p, sha)
	}
	return err
}

// parseBlame reads porcelain blame output: for every line a header
// "<sha> <orig> <final>[ <count>]", the commit's fields the first time the
// commit appears ("author Name", "author-time 1700000000", ...), and the
// line itself after a TAB.
func parseBlame(br *bufio.Reader, fn func(BlameLine) error) error {
	commits := map[string]*BlameCommit{}
	var cur BlameLine
	inHeader := false
	for {
		line, err := readBlameLine(br)
		if errors.Is(err, io.EOF) {
			if inHeader {
				return errors.New("git: truncated blame output")
			}
			return nil
		}
		if err != nil {
			return err
		}
		if !inHeader {
			f := strings.Fields(line)
			if len(f) < 3 || !IsSHA(f[0]) {
				return fmt.Errorf("git: unexpected blame header %q", line)
			}
			orig, err1 := strconv.Atoi(f[1])
			final, err2 := strconv.Atoi(f[2])
			if err1 != nil || err2 != nil {
				return fmt.Errorf("git: unexpected blame header %q", line)
			}
			c := commits[f[0]]
			if c == nil {
				c = &BlameCommit{SHA: f[0]}
				commits[f[0]] = c
			}
			cur = BlameLine{Commit: c, Number: final, OrigNumber: orig}
			inHeader = true
			continue
		}
		if text, ok := strings.CutPrefix(line, "\t"); ok {
			cur.Text = text
			inHeader = false
			if err := fn(cur); err != nil {
				return err
			}
			continue
		}
		blameField(cur.Commit, line)
	}
}

// blameField records one "key value" line of a commit's header.
func blameField(c *BlameCommit, line string) {
	key, val, _ := strings.Cut(line, " ")
	switch key {
	case "author":
		c.Author.Name = val
	case "author-mail":
		c.Author.Email = strings.TrimSuffix(strings.TrimPrefix(val, "<"), ">")
	case "author-time":
		c.Author.When = blameTime(c.Author.When, val, "")
	case "author-tz":
		c.Author.When = blameTime(c.Author.When, "", val)
	case "committer":
		c.Committer.Name = val
	case "committer-mail":
		c.Committer.Email = strings.TrimSuffix(strings.TrimPrefix(val, "<"), ">")
	case "committer-time":
		c.Committer.When = blameTime(c.Committer.When, val, "")
	case "committer-tz":
		c.Committer.When = blameTime(c.Committer.When, "", val)
	case "summary":
		c.Summary = val
	case "previous":
		c.Previous, c.PreviousPath, _ = strings.Cut(val, " ")
	}
}

// blameTime sets the seconds (sec) or the zone (tz) of t, whichever is
// given: git writes the seconds first.
func blameTime(t time.Time, sec, tz string) time.Time {
	if sec != "" {
		if n, err := strconv.ParseInt(sec, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
		return t
	}
	if parsed, err := parseRawDate(strconv.FormatInt(t.Unix(), 10) + " " + tz); err == nil {
		return parsed
	}
	return t
}

// readBlameLine reads one line without its newline; a line longer than
// maxBlameLine is cut there (the rest is skipped).
func readBlameLine(br *bufio.Reader) (string, error) {
	var sb strings.Builder
	for {
		chunk, err := br.ReadSlice('\n')
		if sb.Len() < maxBlameLine {
			room := maxBlameLine - sb.Len()
			if len(chunk) > room {
				sb.Write(chunk[:room])
			} else {
				sb.Write(chunk)
			}
		}
		switch {
		case err == nil:
			return strings.TrimSuffix(sb.String(), "\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && sb.Len() > 0:
			return sb.String(), nil
		default:
			return "", err
		}
	}
}

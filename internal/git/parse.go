package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Signature is an identity with a time: a commit's author or committer, a
// tag's tagger.
type Signature struct {
	Name  string
	Email string
	// When keeps the time zone offset recorded in the object.
	When time.Time
}

// String formats the signature as git writes it: "Name <email> unix +zzzz".
func (s Signature) String() string {
	return s.Name + " <" + s.Email + "> " + gitDate(s.When)
}

// gitDate formats t as git's raw date: "unix +hhmm".
func gitDate(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign = '-'
		off = -off
	}
	return fmt.Sprintf("%d %c%02d%02d", t.Unix(), sign, off/3600, off/60%60)
}

// check rejects identities git would mangle or that would break an object
// header.
func (s Signature) check(what string) error {
	if strings.TrimSpace(s.Name) == "" || strings.TrimSpace(s.Email) == "" {
		return fmt.Errorf("%w: %s needs a name and an email", ErrInvalidArgument, what)
	}
	if strings.ContainsAny(s.Name+s.Email, "<>\n\x00") {
		return fmt.Errorf("%w: %s contains '<', '>', a newline or NUL", ErrInvalidArgument, what)
	}
	return nil
}

// parseRawDate parses git's raw date "unix +hhmm".
func parseRawDate(s string) (time.Time, error) {
	ts, tz, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return time.Time{}, fmt.Errorf("git: malformed date %q", s)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git: malformed date %q", s)
	}
	loc := time.UTC
	if len(tz) == 5 && (tz[0] == '+' || tz[0] == '-') {
		hh, err1 := strconv.Atoi(tz[1:3])
		mm, err2 := strconv.Atoi(tz[3:5])
		if err1 == nil && err2 == nil {
			off := hh*3600 + mm*60
			if tz[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
		}
	}
	return time.Unix(sec, 0).In(loc), nil
}

// parseSignature parses "Name <email> unix +hhmm" as found in object headers.
func parseSignature(s string) Signature {
	var sig Signature
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		sig.Name = strings.TrimSpace(s)
		return sig
	}
	sig.Name = strings.TrimSpace(s[:lt])
	sig.Email = s[lt+1 : gt]
	if when, err := parseRawDate(s[gt+1:]); err == nil {
		sig.When = when
	}
	return sig
}

// signatureFields builds a Signature from separate name, email and raw date
// fields (for-each-ref and log output).
func signatureFields(name, email, date string) Signature {
	sig := Signature{Name: name, Email: email}
	if when, err := parseRawDate(date); err == nil {
		sig.When = when
	}
	return sig
}

// Commit is a parsed commit object.
type Commit struct {
	SHA       string
	Tree      string
	Parents   []string
	Author    Signature
	Committer Signature
	// Message is the full commit message as stored.
	Message string
}

// Subject returns the first line of the message.
func (c *Commit) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// parseCommit parses the body of a commit object.
func parseCommit(sha string, data []byte) (Commit, error) {
	c := Commit{SHA: sha}
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		if !found {
			return c, fmt.Errorf("git: malformed commit %s", sha)
		}
		data = rest
		if len(line) == 0 {
			c.Message = string(data)
			return c, nil
		}
		key, value, _ := strings.Cut(string(line), " ")
		switch key {
		case "tree":
			c.Tree = value
		case "parent":
			c.Parents = append(c.Parents, value)
		case "author":
			c.Author = parseSignature(value)
		case "committer":
			c.Committer = parseSignature(value)
		}
		// Other headers (gpgsig, mergetag, encoding and their
		// continuation lines starting with a space) are skipped.
	}
	return c, nil
}

// splitParents splits a space-separated parent list.
func splitParents(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// recordReader reads records of a fixed number of NUL-terminated fields,
// each record followed by a newline: the shape of for-each-ref and log
// output with a format whose every field ends in %00.
type recordReader struct {
	r      *bufio.Reader
	fields int
}

func newRecordReader(r io.Reader, fields int) *recordReader {
	return &recordReader{r: bufio.NewReaderSize(r, 64<<10), fields: fields}
}

// next returns the next record, or io.EOF at a clean end.
func (rr *recordReader) next() ([]string, error) {
	rec := make([]string, rr.fields)
	for i := range rec {
		s, err := rr.r.ReadString(0)
		if err != nil {
			if errors.Is(err, io.EOF) {
				if i == 0 && s == "" {
					return nil, io.EOF
				}
				return nil, errors.New("git: truncated output")
			}
			return nil, err
		}
		rec[i] = s[:len(s)-1]
	}
	b, err := rr.r.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("git: truncated output")
		}
		return nil, err
	}
	if b != '\n' {
		return nil, errors.New("git: malformed record")
	}
	return rec, nil
}

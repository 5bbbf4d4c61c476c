package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Names that a file system may resolve to git's own directory or to
// .gitmodules. Git refuses them when core.protectHFS and core.protectNTFS
// are on (see git's is_hfs_dotgit and is_ntfs_dotgit), and fsck reports
// them as hasDotgit; Cairn refuses them in every path it writes, so that a
// checkout on macOS or Windows cannot write into .git.

// DotGitError reports a path with a component that names the .git directory,
// or a symbolic link named like .gitmodules. It is an ErrInvalidArgument.
type DotGitError struct {
	// Path is the path as given.
	Path string
	// Reason says how the component names .git, e.g. "an NTFS short name";
	// empty when it is ".git" itself.
	Reason string
	// Gitmodules is set when the path is a symbolic link named like
	// .gitmodules.
	Gitmodules bool
}

// Error is the message with the "git: invalid argument: " prefix.
func (e *DotGitError) Error() string {
	return ErrInvalidArgument.Error() + ": " + e.Message()
}

// Message says what is wrong with the path, for the caller.
func (e *DotGitError) Message() string {
	return fmt.Sprintf("path %q %s", e.Path, e.Problem())
}

// Problem is Message without the path: "names the .git directory (an NTFS
// short name)".
func (e *DotGitError) Problem() string {
	what := "names the .git directory"
	if e.Gitmodules {
		what = "is a symbolic link named like .gitmodules, which git refuses"
	}
	if e.Reason == "" {
		return what
	}
	return what + " (" + e.Reason + ")"
}

// Is makes errors.Is(err, ErrInvalidArgument) true.
func (e *DotGitError) Is(target error) bool { return target == ErrInvalidArgument }

// dotGitReason reports whether one path component names the .git
// directory on HFS+ or NTFS, and how: "" with false when it does not.
func dotGitReason(comp string) (string, bool) {
	if comp == ".git" {
		return "", true
	}
	// NTFS reads a backslash as a separator, so each part between
	// backslashes counts (as in git fsck).
	for _, part := range strings.Split(comp, `\`) {
		if reason, ok := ntfsDotGit(part); ok {
			if part != comp {
				reason = "NTFS reads the backslash as a separator"
			}
			return reason, true
		}
	}
	if hfsDotName(comp, "git") {
		return "HFS+ ignores the invisible characters in it", true
	}
	return "", false
}

// ntfsDotGit is git's is_ntfs_dotgit for one name without separators:
// ".git" or its short name "git~1", in any letter case, followed only by
// dots and spaces (which NTFS drops), or by ':' and a stream name.
func ntfsDotGit(name string) (string, bool) {
	var rest, reason string
	switch {
	case len(name) >= 4 && name[0] == '.' && strings.EqualFold(name[1:4], "git"):
		rest = name[4:]
		if name[:4] != ".git" {
			reason = "git ignores letter case there"
		}
	case len(name) >= 5 && strings.EqualFold(name[:3], "git") && name[3:5] == "~1":
		rest, reason = name[5:], "an NTFS short name"
	default:
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '.', ' ':
			continue
		case ':':
			if reason == "" {
				reason = "an NTFS alternate data stream"
			}
			return reason, true
		}
		return "", false
	}
	if rest != "" && reason == "" {
		reason = "NTFS drops trailing dots and spaces"
	}
	return reason, true
}

// hfsIgnorable reports the code points HFS+ drops from file names.
func hfsIgnorable(r rune) bool {
	return (r >= 0x200c && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) ||
		(r >= 0x206a && r <= 0x206f) || r == 0xfeff
}

// hfsDotName is git's is_hfs_dot_generic for one name without separators:
// "." and needle (lower-case ASCII) in any letter case once the code points
// HFS+ ignores are dropped. Like git, it takes malformed UTF-8 right after
// the needle as the end of the name.
func hfsDotName(name, needle string) bool {
	next := func() (rune, bool) {
		for name != "" {
			r, size := utf8.DecodeRuneInString(name)
			if r == utf8.RuneError && size <= 1 {
				name = ""
				return 0, false
			}
			name = name[size:]
			if !hfsIgnorable(r) {
				return r, true
			}
		}
		return 0, false
	}
	if r, ok := next(); !ok || r != '.' {
		return false
	}
	for i := 0; i < len(needle); i++ {
		r, ok := next()
		if !ok || r >= utf8.RuneSelf || toLowerASCII(byte(r)) != needle[i] {
			return false
		}
	}
	_, more := next()
	return !more
}

// toLowerASCII folds an ASCII upper-case letter.
func toLowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isGitmodulesName reports whether a file name is .gitmodules on HFS+ or
// NTFS (git's is_hfs_dotgitmodules and is_ntfs_dotgitmodules): git refuses
// a symbolic link by such a name.
func isGitmodulesName(name string) bool {
	if hfsDotName(name, "gitmodules") {
		return true
	}
	return ntfsDotName(name, "gitmodules", "gi7eba")
}

// ntfsDotName is git's is_ntfs_dot_generic: "." and name in any letter
// case, its regular short name (the first six letters, "~" and 1 to 4) or
// its fall-back short name (shortPrefix's letters, "~" and a digit 1 to 9,
// then digits, eight characters in all), each followed only by dots and
// spaces, or by ':' and a stream name.
func ntfsDotName(s, name, shortPrefix string) bool {
	rest := ""
	switch {
	case len(s) > len(name) && s[0] == '.' && strings.EqualFold(s[1:1+len(name)], name):
		rest = s[1+len(name):]
	case len(s) >= 8 && strings.EqualFold(s[:6], name[:6]) && s[6] == '~' && s[7] >= '1' && s[7] <= '4':
		rest = s[8:]
	default:
		if len(s) < 8 {
			return false
		}
		tilde := false
		for i := 0; i < 8; i++ {
			c := s[i]
			switch {
			case tilde:
				if c < '0' || c > '9' {
					return false
				}
			case c == '~':
				i++
				if i >= 8 || s[i] < '1' || s[i] > '9' {
					return false
				}
				tilde = true
			case i >= 6 || c >= utf8.RuneSelf || toLowerASCII(c) != shortPrefix[i]:
				return false
			}
		}
		if !tilde {
			return false
		}
		rest = s[8:]
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case ':':
			return true
		case '.', ' ':
			continue
		}
		return false
	}
	return true
}

// checkGitmodulesLink returns a *DotGitError when p (a clean path) is a
// symbolic link (mode) whose last component is named like .gitmodules.
func checkGitmodulesLink(p, mode string) error {
	if mode != ModeSymlink {
		return nil
	}
	if isGitmodulesName(p[strings.LastIndexByte(p, '/')+1:]) {
		return &DotGitError{Path: p, Gitmodules: true}
	}
	return nil
}

// CheckTreePaths walks the whole tree of treeish and returns an
// ErrInvalidArgument error for the first path that CleanWritePath refuses or
// that is a symbolic link named like .gitmodules (a *DotGitError but for
// ".."), so that a tree from elsewhere (a template) can be checked before
// it is committed.
func (g *Git) CheckTreePaths(ctx context.Context, repoPath, treeish string) error {
	if err := checkRevision(treeish); err != nil {
		return err
	}
	out, err := g.repoCommand(repoPath, "ls-tree", "-r", "-z", "--full-tree").EndOfOptions().Values(treeish).Stream(ctx)
	if err != nil {
		return err
	}
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		rec, err := br.ReadString(0)
		if err == io.EOF && rec == "" {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		meta, p, ok := strings.Cut(strings.TrimSuffix(rec, "\x00"), "\t")
		mode, _, _ := strings.Cut(meta, " ")
		if !ok {
			return fmt.Errorf("git: malformed ls-tree entry %q", rec)
		}
		if _, err := CleanWritePath(p); err != nil {
			return err
		}
		if err := checkGitmodulesLink(p, mode); err != nil {
			return err
		}
	}
}

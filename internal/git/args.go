package git

import (
	"fmt"
	"strings"
)

// maxRevisionLen bounds revision expressions accepted from users.
const maxRevisionLen = 4096

// ValidRefName reports whether name is a valid reference name by git's
// check-ref-format rules (one-level names such as "main" allowed), and does
// not start with '-'. It accepts both short ("main", "release/1.0") and full
// ("refs/heads/main") names.
func ValidRefName(name string) bool {
	if name == "" || name == "@" || strings.HasPrefix(name, "-") {
		return false
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") {
		return false
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if ch < 0x20 || ch == 0x7f {
			return false
		}
		switch ch {
		case ' ', '~', '^', ':', '?', '*', '[', '\\':
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

// ValidBranchName reports whether name can be the short name of a branch or
// tag: a valid reference name other than "HEAD" that does not itself start
// with "refs/".
func ValidBranchName(name string) bool {
	return ValidRefName(name) && name != "HEAD" && !strings.HasPrefix(name, "refs/")
}

// ValidRevision reports whether rev is acceptable as a user-supplied revision
// expression ("main", "v1.0^{commit}", "HEAD~2", a SHA, "main:docs"): non
// empty, at most 4096 bytes, not starting with '-', and free of control
// characters (so it is also safe on a line of a batch input).
func ValidRevision(rev string) bool {
	if rev == "" || len(rev) > maxRevisionLen || strings.HasPrefix(rev, "-") {
		return false
	}
	for i := 0; i < len(rev); i++ {
		if rev[i] < 0x20 || rev[i] == 0x7f {
			return false
		}
	}
	return true
}

// IsSHA reports whether s is a full object name: 40 (SHA-1) or 64 (SHA-256)
// lower-case hexadecimal digits.
func IsSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// CleanTreePath validates a path inside a tree and returns it in canonical
// form: components separated by single slashes, "." components and empty
// components dropped. It rejects absolute paths, ".." components, NUL bytes
// and ".git" components (in any letter case, with trailing dots or spaces).
// The root is "". It is the check for reading: a path that Cairn writes (or
// hands out, as an archive prefix) goes through CleanWritePath, which also
// knows the other names a file system takes for .git.
func CleanTreePath(p string) (string, error) { return cleanTreePath(p, false) }

// CleanWritePath is CleanTreePath for a path that Cairn writes into a tree:
// it also rejects every component that git's core.protectHFS and
// core.protectNTFS rules take for ".git" (letter case, trailing dots and
// spaces, NTFS short names and streams, code points HFS+ ignores), with a
// *DotGitError that says which.
func CleanWritePath(p string) (string, error) { return cleanTreePath(p, true) }

func cleanTreePath(p string, write bool) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: path contains NUL", ErrInvalidArgument)
	}
	if strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%w: absolute path %q", ErrInvalidArgument, p)
	}
	var parts []string
	for _, comp := range strings.Split(p, "/") {
		switch {
		case comp == "" || comp == ".":
			continue
		case comp == "..":
			return "", fmt.Errorf("%w: path %q leaves the tree", ErrInvalidArgument, p)
		}
		if write {
			if reason, ok := dotGitReason(comp); ok {
				return "", &DotGitError{Path: p, Reason: reason}
			}
		} else if strings.EqualFold(strings.TrimRight(comp, ". "), ".git") {
			return "", fmt.Errorf("%w: path %q names a .git entry", ErrInvalidArgument, p)
		}
		parts = append(parts, comp)
	}
	return strings.Join(parts, "/"), nil
}

// checkRevision returns ErrInvalidArgument when rev is not ValidRevision.
func checkRevision(rev string) error {
	if !ValidRevision(rev) {
		return fmt.Errorf("%w: revision %q", ErrInvalidArgument, rev)
	}
	return nil
}

// checkBranch returns ErrInvalidArgument when name is not ValidBranchName.
func checkBranch(kind, name string) error {
	if !ValidBranchName(name) {
		return fmt.Errorf("%w: %s name %q", ErrInvalidArgument, kind, name)
	}
	return nil
}

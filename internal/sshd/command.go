package sshd

import (
	"errors"
	"strings"

	"github.com/cairn-forge/cairn/internal/git"
)

// command is a parsed exec request: a git service on owner/name.
type command struct {
	svc   git.Service
	owner string
	name  string
}

// errNotGit is returned for anything that is not one of the git services.
var errNotGit = errors.New("not a git command")

// badPathError is returned for a git service with an unusable repository path.
type badPathError struct{ path string }

func (e *badPathError) Error() string { return "invalid repository path " + e.path }

// parseCommand recognizes exactly
//
//	git-upload-pack|git-receive-pack|git-upload-archive ARG
//
// (also "git upload-pack ARG"), where ARG is one shell word: single-quoted
// the way git quotes it (a quote inside becomes quote, backslash, quote,
// quote), or bare without quotes, backslashes or spaces. ARG names
// owner/repo, optionally with a leading '/' and a trailing ".git".
// Everything else is refused: the command never reaches a shell.
func parseCommand(line string) (command, error) {
	verb, rest, ok := strings.Cut(line, " ")
	if !ok {
		return command{}, errNotGit
	}
	if verb == "git" {
		sub, r, ok := strings.Cut(rest, " ")
		if !ok {
			return command{}, errNotGit
		}
		verb, rest = "git-"+sub, r
	}
	if !strings.HasPrefix(verb, "git-") {
		return command{}, errNotGit
	}
	svc, ok := git.ParseService(verb)
	if !ok {
		return command{}, errNotGit
	}
	arg, ok := shellWord(rest)
	if !ok {
		return command{}, &badPathError{rest}
	}
	owner, name, ok := splitRepoPath(arg)
	if !ok {
		return command{}, &badPathError{arg}
	}
	return command{svc: svc, owner: owner, name: name}, nil
}

// shellWord reads s as exactly one shell word: single-quoted segments,
// backslash-escaped ' or ! between them (git's sq_quote), or a bare word.
func shellWord(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if s[0] != '\'' {
		if strings.ContainsAny(s, " \t\r\n'\"\\`$;&|<>(){}*?[]~#\x00") {
			return "", false
		}
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case '\\':
			if i+1 >= len(s) || (s[i+1] != '\'' && s[i+1] != '!') {
				return "", false
			}
			b.WriteByte(s[i+1])
			i += 2
		default:
			return "", false
		}
	}
	return b.String(), true
}

// splitRepoPath turns "/owner/repo.git", "owner/repo.git" or "owner/repo"
// into owner and repository name.
func splitRepoPath(p string) (owner, name string, ok bool) {
	p = strings.TrimPrefix(p, "/")
	owner, name, ok = strings.Cut(p, "/")
	if !ok {
		return "", "", false
	}
	name = strings.TrimSuffix(name, ".git")
	if !validSegment(owner) || !validSegment(name) {
		return "", "", false
	}
	return owner, name, true
}

// validSegment accepts the characters of account and repository names and
// refuses "." and "..".
func validSegment(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

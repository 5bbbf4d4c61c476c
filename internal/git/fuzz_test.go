package git

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzValidRefName checks that every accepted reference name obeys git's
// check-ref-format rules, written out here independently of ValidRefName.
func FuzzValidRefName(f *testing.F) {
	for _, s := range []string{
		"main", "refs/heads/main", "feature/x", "v1.0", "a@b", "-x", "a..b", "a@{1}", "@", "a.lock",
		"x/.hidden", "a//b", "a/", "/a", "a.", "a b", "a\x00b", "a\x7f", "a~b", "a^b", "a:b", "a?b",
		"a*b", "a[b", `a\b`, "ünïcode/名前", "a/b.lock/c", ".", "..", "refs/heads/@", "@{", "a.lock/b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !ValidRefName(name) {
			return
		}
		fail := func(why string) { t.Fatalf("ValidRefName(%q) accepted a name with %s", name, why) }
		switch {
		case name == "" || name == "@":
			fail(`no name or "@"`)
		case strings.HasPrefix(name, "-"):
			fail("a leading '-'")
		case strings.Contains(name, ".."):
			fail(`".."`)
		case strings.Contains(name, "@{"):
			fail(`"@{"`)
		case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//"):
			fail("an empty component")
		case strings.HasSuffix(name, "."):
			fail("a trailing '.'")
		case strings.ContainsAny(name, " ~^:?*[\\"):
			fail("a forbidden character")
		}
		for i := 0; i < len(name); i++ {
			if name[i] < 0x20 || name[i] == 0x7f {
				fail("a control character")
			}
		}
		for _, comp := range strings.Split(name, "/") {
			if strings.HasPrefix(comp, ".") {
				fail("a component starting with '.'")
			}
			if strings.HasSuffix(comp, ".lock") {
				fail(`a component ending in ".lock"`)
			}
		}
	})
}

// FuzzCleanWritePath checks that an accepted tree path is canonical, stays
// inside the tree and has no component that a file system could take for
// .git (checked by a rule written out here independently of dotGitReason).
func FuzzCleanWritePath(f *testing.F) {
	for _, s := range []string{
		"", ".", "README.md", "a//b/./c/", "/etc/passwd", "../x", "a/..", ".git/config", ".GIT/config",
		"git~1/config", "GIT~1.", ".git\u200c/config", ".g\u200cit/x", "\ufeff.git", ".git. . ./x",
		".git::$INDEX_ALLOCATION/x", `a\.git\b`, ".github/workflows/ci.yml", ".gitignore", "git~2/x",
		".gitx", "my.git", ".git\xff", ".g\xffit", "a\x00b", "\u200c", "./.", "-rf",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		out, err := CleanWritePath(p)
		if err != nil {
			return
		}
		if again, err := CleanWritePath(out); err != nil || again != out {
			t.Fatalf("CleanWritePath(%q) = %q, which is not canonical: %q, %v", p, out, again, err)
		}
		if out == "" {
			return
		}
		if strings.HasPrefix(out, "/") || strings.ContainsRune(out, 0) {
			t.Fatalf("CleanWritePath(%q) = %q: absolute or NUL", p, out)
		}
		for _, comp := range strings.Split(out, "/") {
			if comp == "" || comp == "." || comp == ".." {
				t.Fatalf("CleanWritePath(%q) = %q: component %q", p, out, comp)
			}
			if looksLikeDotGit(comp) {
				t.Fatalf("CleanWritePath(%q) = %q: component %q names .git", p, out, comp)
			}
		}
	})
}

// looksLikeDotGit is the reference rule of FuzzCleanWritePath. NTFS: in
// each part between backslashes, cut at the first ':' and drop trailing
// dots and spaces, the rest is ".git" or "git~1" in any letter case. HFS+:
// without the code points HFS+ ignores, and up to the first malformed
// UTF-8 byte if there is one after the name, the name is ".git" in any
// letter case.
func looksLikeDotGit(comp string) bool {
	for _, part := range strings.Split(comp, `\`) {
		head, _, _ := strings.Cut(part, ":")
		head = asciiLower(strings.TrimRight(head, ". "))
		if head == ".git" || head == "git~1" {
			return true
		}
	}
	var kept []byte
	for s := comp; s != ""; {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			break
		}
		s = s[size:]
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			continue
		}
		kept = utf8.AppendRune(kept, r)
	}
	return asciiLower(string(kept)) == ".git"
}

// asciiLower folds ASCII letters only.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

package git

import (
	"context"
	"errors"
	"path"
	"strings"
)

// languageByExt maps lower-case file extensions of programming and markup
// languages to their usual names (as GitHub's linguist names them; dialects
// are counted under their family, e.g. SCSS as CSS, TSX as TypeScript).
// Data, prose and configuration formats (JSON, YAML, Markdown, text) are
// deliberately absent: they do not count as code.
var languageByExt = map[string]string{
	".go": "Go", ".py": "Python", ".pyw": "Python", ".pyi": "Python",
	".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
	".ts": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".tsx": "TypeScript",
	".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".scala": "Scala", ".groovy": "Groovy", ".gradle": "Groovy",
	".c": "C", ".h": "C", ".cpp": "C++", ".cc": "C++", ".cxx": "C++", ".c++": "C++", ".hpp": "C++", ".hh": "C++", ".hxx": "C++",
	".cs": "C#", ".vb": "Visual Basic .NET", ".fs": "F#", ".fsi": "F#", ".fsx": "F#",
	".m": "Objective-C", ".mm": "Objective-C++", ".swift": "Swift", ".rs": "Rust", ".zig": "Zig", ".nim": "Nim",
	".rb": "Ruby", ".php": "PHP", ".pl": "Perl", ".pm": "Perl", ".lua": "Lua", ".r": "R", ".jl": "Julia",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".ksh": "Shell", ".fish": "fish",
	".ps1": "PowerShell", ".psm1": "PowerShell", ".bat": "Batchfile", ".cmd": "Batchfile",
	".hs": "Haskell", ".lhs": "Haskell", ".ml": "OCaml", ".mli": "OCaml", ".elm": "Elm",
	".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hrl": "Erlang",
	".clj": "Clojure", ".cljs": "Clojure", ".cljc": "Clojure", ".lisp": "Common Lisp", ".el": "Emacs Lisp",
	".scm": "Scheme", ".rkt": "Racket", ".dart": "Dart", ".cr": "Crystal", ".v": "V", ".sol": "Solidity",
	".f": "Fortran", ".for": "Fortran", ".f90": "Fortran", ".f95": "Fortran", ".pas": "Pascal",
	".asm": "Assembly", ".s": "Assembly", ".coffee": "CoffeeScript", ".tcl": "Tcl", ".vim": "Vim Script",
	".cmake": "CMake", ".mk": "Makefile", ".nix": "Nix", ".tf": "HCL", ".hcl": "HCL",
	".html": "HTML", ".htm": "HTML", ".xhtml": "HTML", ".css": "CSS", ".scss": "CSS", ".sass": "CSS", ".less": "CSS",
	".vue": "Vue", ".svelte": "Svelte", ".tex": "TeX", ".sty": "TeX", ".cls": "TeX",
	".tmpl": "Go Template", ".gotmpl": "Go Template", ".proto": "Protocol Buffer", ".graphql": "GraphQL",
}

// languageByName maps file names without a telling extension.
var languageByName = map[string]string{
	"makefile": "Makefile", "gnumakefile": "Makefile", "dockerfile": "Dockerfile",
	"cmakelists.txt": "CMake", "rakefile": "Ruby", "gemfile": "Ruby", "jenkinsfile": "Groovy",
}

// skippedDirs are directories whose files are not the repository's own code
// (vendored dependencies) or are documentation.
var skippedDirs = map[string]bool{
	"vendor": true, "node_modules": true, "bower_components": true, "third_party": true, "thirdparty": true,
	"godeps": true, "external": true, "docs": true, "doc": true, "documentation": true,
}

// errWalkLimit stops a walk that reached its bound.
var errWalkLimit = errors.New("git: walk limit reached")

// LanguageOf names the language of a file by its path ("" when it is not
// code of a known language): by file name, then by extension.
func LanguageOf(p string) string {
	base := strings.ToLower(path.Base(p))
	if l, ok := languageByName[base]; ok {
		return l
	}
	if strings.HasPrefix(base, "dockerfile.") {
		return "Dockerfile"
	}
	if strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".min.css") || strings.HasSuffix(base, ".pb.go") {
		return "" // generated
	}
	return languageByExt[path.Ext(base)]
}

// LanguageStats sums the sizes of the files of each language in the tree of
// rev, by file name and extension (see LanguageOf). Hidden files and
// directories, vendored dependencies, documentation directories, symbolic
// links and submodules are left out. The walk visits at most maxEntries tree
// entries (<= 0: no bound); past that the sums cover what was visited.
func (g *Git) LanguageStats(ctx context.Context, repoPath, rev string, maxEntries int) (map[string]int64, error) {
	stats := map[string]int64{}
	seen := 0
	err := g.WalkTree(ctx, repoPath, rev, "", true, func(e TreeEntry) error {
		seen++
		if maxEntries > 0 && seen > maxEntries {
			return errWalkLimit
		}
		if e.Type != TypeBlob || e.IsSymlink() || e.Size <= 0 {
			return nil
		}
		for _, comp := range strings.Split(e.Path, "/") {
			if strings.HasPrefix(comp, ".") || skippedDirs[strings.ToLower(comp)] {
				return nil
			}
		}
		if l := LanguageOf(e.Path); l != "" {
			stats[l] += e.Size
		}
		return nil
	})
	if err != nil && !errors.Is(err, errWalkLimit) {
		return nil, err
	}
	return stats, nil
}

package git

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// dotGitNames are single path components and whether git's core.protectHFS
// and core.protectNTFS rules take them for ".git".
var dotGitNames = []struct {
	name string
	want bool
}{
	{".git", true},
	{".GIT", true},
	{".Git", true},
	{".gIT", true},
	{".git.", true},
	{".git ", true},
	{".git. . .", true},
	{".GIT  ", true},
	{"git~1", true},
	{"GIT~1", true},
	{"Git~1.", true},
	{"git~1 . ", true},
	{".git:stream", true},
	{".git::$INDEX_ALLOCATION", true},
	{"git~1:$DATA", true},
	{".git. :x", true},
	{".git\u200c", true},
	{".g\u200cit", true},
	{"\u200c.git", true},
	{".\u200dgit", true},
	{".gi\u200et", true},
	{".git\u200f", true},
	{".git\u202a", true},
	{".git\u202e", true},
	{".git\u206a", true},
	{".git\u206f", true},
	{".git\ufeff", true},
	{".GIT\u200c\u200d", true},
	{".git\xff", true}, // malformed UTF-8 after the name ends it, as in git
	{`foo\.git`, true},
	{`.git\foo`, true},
	{`a\git~1\b`, true},
	{`a\.GIT.`, true},
	// Legitimate names.
	{"", false},
	{"git", false},
	{".github", false},
	{".gitignore", false},
	{".gitmodules", false},
	{".gitattributes", false},
	{".gitx", false},
	{".git.x", false},
	{".git x", false},
	{".gi", false},
	{"..git", false},
	{"my.git", false},
	{"repo.git", false},
	{"git~2", false},
	{"git~10", false},
	{"git~1x", false},
	{"git~1.x", false},
	{"gitx~1", false},
	{"g~1", false},
	{".git\u200b", false}, // ZERO WIDTH SPACE is not ignored by HFS+
	{".git\u00a0", false},
	{".g\xffit", false},
	{".ĝit", false},
	{`foo\bar`, false},
	{`a\.github`, false},
}

func TestDotGitReason(t *testing.T) {
	for _, tt := range dotGitNames {
		if _, got := dotGitReason(tt.name); got != tt.want {
			t.Errorf("dotGitReason(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// gitmodulesNames are file names and whether git refuses a symbolic link by
// that name (is_hfs_dotgitmodules, is_ntfs_dotgitmodules).
var gitmodulesNames = []struct {
	name string
	want bool
}{
	{".gitmodules", true},
	{".GITMODULES", true},
	{".GitModules", true},
	{".gitmodules.", true},
	{".gitmodules ", true},
	{".gitmodules:x", true},
	{".gitmodules\u200c", true},
	{".gitmodu\u200dles", true},
	{"gitmod~1", true},
	{"GITMOD~4", true},
	{"gitmod~1 .", true},
	{"gi7eba~1", true},
	{"GI7EBA~9", true},
	{"gi7eb~12", true},
	{"gi7e~123", true},
	{"gi7eba~1:x", true},
	{"gitmodules", false},
	{".gitmodule", false},
	{".gitmodulesx", false},
	{"gitmod~5", false},
	{"gitmod~1x", false},
	{"gi7eba~0", false},
	{"gi7ebax1", false},
	{"gi7eba~1x", false},
	{"gi7eb~1a", false},
	{".gitattributes", false},
	{"README", false},
}

func TestIsGitmodulesName(t *testing.T) {
	for _, tt := range gitmodulesNames {
		if got := isGitmodulesName(tt.name); got != tt.want {
			t.Errorf("isGitmodulesName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestDotGitMatchesFsck checks both tables against git itself: git fsck
// reports hasDotgit for a tree entry that names .git, and gitmodulesSymlink
// for a symbolic link named like .gitmodules.
func TestDotGitMatchesFsck(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, "")
	ctx := t.Context()
	blob, err := g.hashObject(ctx, repo, strings.NewReader("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	mktree := func(mode, name string) string {
		t.Helper()
		entry := fmt.Sprintf("%s blob %s\t%s\x00", mode, blob, name)
		out, err := g.repoCommand(repo, "mktree", "-z").Stdin(strings.NewReader(entry)).Output(ctx)
		if err != nil {
			t.Fatalf("mktree %q: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	dotgit := map[string]string{}
	for _, tt := range dotGitNames {
		if tt.name != "" {
			dotgit[mktree(ModeFile, tt.name)] = tt.name
		}
	}
	modules := map[string]string{}
	for _, tt := range gitmodulesNames {
		modules[mktree(ModeSymlink, tt.name)] = tt.name
	}
	// fsck exits non-zero because of the errors; its report is what counts.
	cmd := exec.Command(g.binary, "fsck", "--no-dangling", "--no-progress")
	cmd.Env = append(g.baseEnv(), "GIT_DIR="+repo)
	var report bytes.Buffer
	cmd.Stdout, cmd.Stderr = &report, &report
	_ = cmd.Run()
	flagged := map[string]bool{}
	for _, line := range strings.Split(report.String(), "\n") {
		for tree, name := range dotgit {
			if strings.Contains(line, tree) && strings.Contains(line, "hasDotgit") {
				flagged["dotgit "+name] = true
			}
		}
		for tree, name := range modules {
			if strings.Contains(line, tree) && strings.Contains(line, "gitmodulesSymlink") {
				flagged["modules "+name] = true
			}
		}
	}
	for _, tt := range dotGitNames {
		if tt.name != "" && flagged["dotgit "+tt.name] != tt.want {
			t.Errorf("git fsck hasDotgit for %q: %v, the table says %v", tt.name, !tt.want, tt.want)
		}
	}
	for _, tt := range gitmodulesNames {
		if flagged["modules "+tt.name] != tt.want {
			t.Errorf("git fsck gitmodulesSymlink for %q: %v, the table says %v", tt.name, !tt.want, tt.want)
		}
	}
}

func TestCleanWritePathDotGit(t *testing.T) {
	tests := []struct {
		in, msg string
	}{
		{"git~1/config", `path "git~1/config" names the .git directory (an NTFS short name)`},
		{".git\u200c/config", `path ".git\u200c/config" names the .git directory (HFS+ ignores the invisible characters in it)`},
		{".g\u200cit/config", `path ".g\u200cit/config" names the .git directory (HFS+ ignores the invisible characters in it)`},
		{".GIT/config", `path ".GIT/config" names the .git directory (git ignores letter case there)`},
		{"a/.git/hooks/x", `path "a/.git/hooks/x" names the .git directory`},
		{".git. /config", `path ".git. /config" names the .git directory (NTFS drops trailing dots and spaces)`},
		{".git::$INDEX_ALLOCATION/config", `path ".git::$INDEX_ALLOCATION/config" names the .git directory (an NTFS alternate data stream)`},
		{`a\.git\config`, `path "a\\.git\\config" names the .git directory (NTFS reads the backslash as a separator)`},
	}
	for _, tt := range tests {
		_, err := CleanWritePath(tt.in)
		var de *DotGitError
		if !errors.As(err, &de) || !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("CleanWritePath(%q) error = %v, want a *DotGitError", tt.in, err)
			continue
		}
		if de.Message() != tt.msg {
			t.Errorf("CleanWritePath(%q) message = %q, want %q", tt.in, de.Message(), tt.msg)
		}
	}
	// Reading keeps to the plain .git rule, so entries that an older
	// repository may hold stay readable.
	for _, ok := range []string{"git~1/config", ".git\u200c/config", ".g\u200cit/config"} {
		if got, err := CleanTreePath(ok); err != nil || got != ok {
			t.Errorf("CleanTreePath(%q) = %q, %v; want it unchanged", ok, got, err)
		}
	}
	for _, ok := range []string{".github/workflows/ci.yml", ".gitignore", "git~2/x", ".gitx/y", "my.git/z", "a/.gitmodules"} {
		if got, err := CleanWritePath(ok); err != nil || got != ok {
			t.Errorf("CleanWritePath(%q) = %q, %v; want it unchanged", ok, got, err)
		}
	}
}

func TestCommitFilesRefusesDotGit(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, "")
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("README", "hi\n")}})
	ctx := t.Context()
	refused := []CommitFilesOptions{
		{Changes: []FileChange{create("git~1/config", "x")}},
		{Changes: []FileChange{create("ok", "x"), create(".g\u200cit/config", "x")}},
		{Changes: []FileChange{{Op: ChangeCreate, Path: ".gitmodules", Mode: ModeSymlink, Content: strings.NewReader("target")}}},
		{Changes: []FileChange{{Op: ChangeCreate, Path: "sub/GITMOD~1", Mode: ModeSymlink, Content: strings.NewReader("target")}}},
		{Changes: []FileChange{{Op: ChangeRename, FromPath: "README", Path: ".GIT/config"}}},
		{Patch: []byte("diff --git a/.git\u200c/config b/.git\u200c/config\nnew file mode 100644\n--- /dev/null\n+++ b/.git\u200c/config\n@@ -0,0 +1 @@\n+x\n")},
		{Patch: []byte("diff --git a/README b/git~1/config\nsimilarity index 100%\nrename from README\nrename to git~1/config\n")},
	}
	for i, o := range refused {
		o.Branch, o.Author, o.Message = "main", testAuthor, "bad"
		_, err := g.CommitFiles(ctx, repo, o)
		var de *DotGitError
		if !errors.As(err, &de) {
			t.Errorf("case %d: CommitFiles error = %v, want a *DotGitError", i, err)
		}
	}
	// A regular file named .gitmodules, and a symbolic link elsewhere, are fine.
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		create(".gitmodules", ""),
		{Op: ChangeCreate, Path: "link", Mode: ModeSymlink, Content: strings.NewReader("README")},
	}})
}

// TestProtectConfig checks that git itself keeps look-alike paths out of
// an index, which Cairn's own commands build (apply, update-index,
// read-tree): update-index --index-info skips them with a message.
func TestProtectConfig(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, "")
	ctx := t.Context()
	blob, err := g.hashObject(ctx, repo, strings.NewReader("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".git\u200c/config", ".GIT/config", "git~1/config"} {
		index := "GIT_INDEX_FILE=" + t.TempDir() + "/index"
		info := fmt.Sprintf("%s %s\t%s\x00", ModeFile, blob, p)
		var stderr bytes.Buffer
		err := g.repoCommand(repo, "update-index", "-z", "--add", "--index-info").
			Env(index).Stdin(strings.NewReader(info)).Stderr(&stderr).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out, err := g.repoCommand(repo, "ls-files").Env(index).Output(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 0 || !strings.Contains(stderr.String(), "Ignoring path") {
			t.Errorf("update-index took %q: index %q, stderr %q", p, out, stderr.String())
		}
	}
}

func TestConfigEnvMerged(t *testing.T) {
	g, err := New(Options{TempDir: t.TempDir(), Env: []string{
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=cairn.operator", "GIT_CONFIG_VALUE_0=yes", "OTHER=1",
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.Command("config", "--list").Dir(t.TempDir()).
		Env("GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/hooks",
			"GIT_CONFIG_KEY_1=cairn.first", "GIT_CONFIG_VALUE_1=1", "GIT_CONFIG_KEY_2=cairn.ignored", "GIT_CONFIG_VALUE_2=1").
		Env("GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=cairn.second", "GIT_CONFIG_VALUE_0=2").
		Output(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	want := []string{"core.protecthfs=true", "core.protectntfs=true", "cairn.operator=yes",
		"core.hookspath=/hooks", "cairn.first=1", "cairn.second=2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("config = %q, want %q", got, want)
	}
	if _, err := g.Command("version").Env("GIT_CONFIG_COUNT=1").Output(t.Context()); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("an incomplete GIT_CONFIG_COUNT list: error = %v, want ErrInvalidArgument", err)
	}
}

func TestCheckTreePaths(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, "")
	ctx := t.Context()
	blob, err := g.hashObject(ctx, repo, strings.NewReader("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	mktree := func(entries ...string) string {
		t.Helper()
		out, err := g.repoCommand(repo, "mktree", "-z").Stdin(strings.NewReader(strings.Join(entries, ""))).Output(ctx)
		if err != nil {
			t.Fatalf("mktree: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	file := func(mode, name string) string { return fmt.Sprintf("%s blob %s\t%s\x00", mode, blob, name) }
	dir := func(tree, name string) string { return fmt.Sprintf("040000 tree %s\t%s\x00", tree, name) }

	good := mktree(file(ModeFile, ".gitmodules"), dir(mktree(file(ModeFile, "a"), file(ModeSymlink, "l")), ".github"))
	if err := g.CheckTreePaths(ctx, repo, good); err != nil {
		t.Errorf("CheckTreePaths(good) = %v", err)
	}
	bad := map[string]string{
		"sub/git~1/config": mktree(dir(mktree(dir(mktree(file(ModeFile, "config")), "git~1")), "sub")),
		".gitmodules link": mktree(file(ModeSymlink, ".gitmodules")),
		".GIT/config":      mktree(file(ModeFile, "README"), dir(mktree(file(ModeFile, "config")), ".GIT")),
	}
	for name, tree := range bad {
		var de *DotGitError
		if err := g.CheckTreePaths(ctx, repo, tree); !errors.As(err, &de) {
			t.Errorf("CheckTreePaths(%s) = %v, want a *DotGitError", name, err)
		}
	}
}

package protect

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRuleMatchingOrder(t *testing.T) {
	now := time.Now()
	rules := Rules{
		{ID: 1, RuleName: "release/*", Created: now},
		{ID: 2, RuleName: "*", Created: now.Add(-time.Hour)},
		{ID: 3, RuleName: "main", Created: now.Add(time.Hour)},
		{ID: 4, RuleName: "release/**", Priority: -1, Created: now},
		{ID: 5, RuleName: "feat/{a,b}", Created: now.Add(-2 * time.Hour)},
	}
	sortRules(rules)
	for branch, want := range map[string]int64{
		"main": 3, "release/1.0": 4, "release/1/x": 4, "dev": 2, "feat/a": 5, "feat/c": 0, "a/b": 0,
	} {
		got := rules.Match(branch)
		if (got == nil && want != 0) || (got != nil && got.ID != want) {
			t.Errorf("Match(%q) = %v, want rule %d", branch, got, want)
		}
	}
	// Without priorities: plain names first, then globs oldest first.
	rules = Rules{{ID: 1, RuleName: "ma*", Created: now.Add(-time.Hour)}, {ID: 2, RuleName: "main", Created: now}, {ID: 3, RuleName: "m*", Created: now.Add(-2 * time.Hour)}}
	sortRules(rules)
	if rules[0].ID != 2 || rules[1].ID != 3 || rules[2].ID != 1 {
		t.Fatalf("order = %d %d %d", rules[0].ID, rules[1].ID, rules[2].ID)
	}
	if !IsPlainName("release-1.0") || IsPlainName("rel*") || IsPlainName("a{b}") {
		t.Fatal("IsPlainName")
	}
	if _, err := CompileBranchGlob("[a-"); err == nil {
		t.Fatal("bad glob compiled")
	}
}

func TestFilePatterns(t *testing.T) {
	files := []string{"src/main.go", "README.md", "docs/a/b.txt"}
	if got := firstProtected("*.md;docs/**", files); got != "README.md" {
		t.Fatalf("firstProtected = %q", got)
	}
	if got := firstProtected("*.go", files); got != "" {
		t.Fatalf("'*' must not cross '/': %q", got)
	}
	if got := firstProtected("SRC/*.GO", files); got != "src/main.go" {
		t.Fatalf("patterns are case-insensitive: %q", got)
	}
	if !onlyUnprotected("docs/**;*.md", []string{"README.md", "docs/x/y"}) || onlyUnprotected("docs/**", files) || onlyUnprotected("", files) {
		t.Fatal("onlyUnprotected")
	}
	if _, ok := ValidFilePatterns("a;[b"); ok {
		t.Fatal("invalid pattern accepted")
	}
}

func TestRequiredStatuses(t *testing.T) {
	st := []Status{{"ci/build", "success"}, {"ci/test", "failure"}, {"lint", "success"}}
	for _, c := range []struct {
		contexts []string
		want     bool
	}{
		{nil, false}, {[]string{"ci/build"}, true}, {[]string{"ci/*"}, true}, {[]string{"ci/test"}, false},
		{[]string{"lint", "ci/build"}, true}, {[]string{"deploy"}, false},
	} {
		if got := RequiredStatusesPass(st, c.contexts); got != c.want {
			t.Errorf("contexts %v: %v, want %v", c.contexts, got, c.want)
		}
	}
	if !RequiredStatusesPass(nil, nil) || RequiredStatusesPass(nil, []string{"x"}) {
		t.Fatal("empty statuses")
	}
}

func TestAllowlists(t *testing.T) {
	b := &BranchRule{CanPush: true}
	if !b.UserCanPush(7, nil) {
		t.Fatal("writers push without an allowlist")
	}
	b.EnableWhitelist, b.WhitelistUserIDs, b.WhitelistTeamIDs = true, []int64{1}, []int64{9}
	if b.UserCanPush(7, nil) || !b.UserCanPush(1, nil) || !b.UserCanPush(7, []int64{3, 9}) {
		t.Fatal("push allowlist")
	}
	if (&BranchRule{}).UserCanPush(1, nil) || (&BranchRule{CanPush: true}).UserCanForcePush(1, nil) {
		t.Fatal("disabled push or force push")
	}
	f := &BranchRule{CanForcePush: true, EnableForcePushAllowlist: true, ForcePushAllowlistUserIDs: []int64{2}}
	if f.UserCanForcePush(1, nil) || !f.UserCanForcePush(2, nil) {
		t.Fatal("force push allowlist")
	}
	m := &BranchRule{}
	if !m.UserCanMerge(1, nil, true) || m.UserCanMerge(1, nil, false) {
		t.Fatal("merge without allowlist")
	}
	m.EnableMergeWhitelist, m.MergeWhitelistTeamIDs = true, []int64{4}
	if m.UserCanMerge(1, nil, true) || !m.UserCanMerge(1, []int64{4}, false) {
		t.Fatal("merge allowlist")
	}
}

func TestTagRules(t *testing.T) {
	rules := []*TagRule{{NamePattern: "v*", AllowlistUserIDs: []int64{1}}, {NamePattern: `/^rel-\d+$/`, AllowlistTeamIDs: []int64{5}}}
	for _, c := range []struct {
		tag   string
		uid   int64
		teams []int64
		want  bool
	}{
		{"v1.0", 1, nil, true}, {"v1.0", 2, nil, false}, {"rel-1", 2, []int64{5}, true}, {"rel-1", 1, nil, false},
		{"rel-x", 2, nil, true}, {"other", 2, nil, true},
	} {
		if got := tagAllowed(rules, c.tag, c.uid, c.teams); got != c.want {
			t.Errorf("tag %s user %d: %v, want %v", c.tag, c.uid, got, c.want)
		}
	}
	if _, err := CompileTagPattern("/[/"); err == nil {
		t.Fatal("bad regexp compiled")
	}
}

func TestObjectEnv(t *testing.T) {
	dir := t.TempDir()
	env, err := ObjectEnv(dir, hooksDirs(dir+"/objects/tmp_objdir-incoming-x", dir+"/objects", dir+"/objects/tmp_objdir-incoming-x"))
	if err != nil || len(env) != 3 {
		t.Fatalf("env = %v, %v", env, err)
	}
	for _, bad := range []string{"/etc", dir + "/../x", "relative/objects", dir + "x/objects"} {
		if _, err := ObjectEnv(dir, hooksDirs(bad, "", "")); err == nil {
			t.Errorf("%q accepted", bad)
		}
		if _, err := ObjectEnv(dir, hooksDirs(dir+"/objects", dir+"/objects:"+bad, "")); err == nil {
			t.Errorf("alternate %q accepted", bad)
		}
	}
	if env, err := ObjectEnv(dir, hooksDirs("", "", "")); err != nil || env != nil {
		t.Fatalf("no quarantine: %v %v", env, err)
	}
}

func TestObjectEnvSymlink(t *testing.T) {
	real := t.TempDir()
	if err := os.MkdirAll(filepath.Join(real, "objects", "incoming"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if _, err := ObjectEnv(link, hooksDirs(filepath.Join(real, "objects", "incoming"), "", "")); err != nil {
		t.Fatalf("resolved quarantine path refused: %v", err)
	}
	if _, err := ObjectEnv(link, hooksDirs(filepath.Join(real, "..", "x"), "", "")); err == nil {
		t.Fatal("path outside accepted")
	}
}

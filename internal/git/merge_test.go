package git

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	bobAuthor = Signature{Name: "Bob Builder", Email: "bob@example.com", When: time.Date(2023, 1, 2, 3, 4, 5, 0, time.FixedZone("", -5*3600))}
	mergeDoer = Signature{Name: "Mia Merger", Email: "mia@example.com", When: testTime.Add(48 * time.Hour)}
)

func update(path, content string) FileChange {
	return FileChange{Op: ChangeUpdate, Path: path, Content: strings.NewReader(content)}
}

// mergeRepo makes main: c0 (a.txt, b.txt, c.txt) <- m1 (b.txt changed);
// feature from c0: f1 (a.txt changed, by Ann) <- f2 (d.txt added, by Bob).
func mergeRepo(t *testing.T, g *Git, format string) (repo, c0, m1, f1, f2 string) {
	t.Helper()
	repo = initRepo(t, g, format)
	c0 = commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "base", Changes: []FileChange{
		create("a.txt", "a1\na2\na3\n"), create("b.txt", "b1\nb2\nb3\n"), create("c.txt", "c\n"),
	}})
	m1 = commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "main change", Changes: []FileChange{
		update("b.txt", "b1\nB2\nb3\n"),
	}})
	f1 = commitFiles(t, g, repo, CommitFilesOptions{Branch: "feature", StartPoint: c0, Message: "feature one\n\nwith body", Changes: []FileChange{
		update("a.txt", "a1\nA2\na3\n"),
	}})
	f2 = commitFiles(t, g, repo, CommitFilesOptions{Branch: "feature", Author: bobAuthor, Message: "feature two", Changes: []FileChange{
		create("d.txt", "d\n"),
	}})
	return
}

func getCommit(t *testing.T, g *Git, repo, rev string) Commit {
	t.Helper()
	c, err := g.GetCommit(t.Context(), repo, rev)
	if err != nil {
		t.Fatalf("GetCommit(%s): %v", rev, err)
	}
	return c
}

func sameSig(a, b Signature) bool {
	_, oa := a.When.Zone()
	_, ob := b.When.Zone()
	return a.Name == b.Name && a.Email == b.Email && a.When.Equal(b.When) && oa == ob
}

func mergeOpts(style, base, head string) MergeOptions {
	return MergeOptions{Style: style, Base: base, Head: head, Message: "Merge pull request #1\n\nbody", Author: testAuthor, Committer: mergeDoer}
}

// checkMergedContent checks the tree of rev has both sides' changes.
func checkMergedContent(t *testing.T, g *Git, repo, rev string) {
	t.Helper()
	want := map[string]string{"a.txt": "a1\nA2\na3\n", "b.txt": "b1\nB2\nb3\n", "c.txt": "c\n", "d.txt": "d\n"}
	for p, content := range want {
		if got := readBlob(t, g, repo, rev+":"+p); got != content {
			t.Errorf("%s:%s = %q, want %q", rev, p, got, content)
		}
	}
}

func TestMergeStyles(t *testing.T) {
	for _, format := range []string{ObjectFormatSHA1, ObjectFormatSHA256} {
		t.Run(format, func(t *testing.T) {
			g := newTestGit(t)
			ctx := t.Context()
			repo, c0, m1, f1, f2 := mergeRepo(t, g, format)
			mainBefore, _ := g.ResolveCommit(ctx, repo, "main")

			// merge: two parents, both changes, the given identities.
			sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, m1, f2))
			if err != nil {
				t.Fatalf("Merge(merge): %v", err)
			}
			c := getCommit(t, g, repo, sha)
			if !slices.Equal(c.Parents, []string{m1, f2}) || c.Message != "Merge pull request #1\n\nbody\n" {
				t.Fatalf("merge commit = %+v", c)
			}
			if !sameSig(c.Author, testAuthor) || !sameSig(c.Committer, mergeDoer) {
				t.Fatalf("merge identities = %+v / %+v", c.Author, c.Committer)
			}
			checkMergedContent(t, g, repo, sha)
			mergeTree := c.Tree

			// squash: one commit, parent base, the merged tree.
			sha, err = g.Merge(ctx, repo, mergeOpts(MergeStyleSquash, m1, f2))
			if err != nil {
				t.Fatalf("Merge(squash): %v", err)
			}
			c = getCommit(t, g, repo, sha)
			if !slices.Equal(c.Parents, []string{m1}) || c.Tree != mergeTree || !sameSig(c.Author, testAuthor) || !sameSig(c.Committer, mergeDoer) {
				t.Fatalf("squash commit = %+v", c)
			}

			// rebase: f1 and f2 replayed onto m1, authors and messages kept.
			sha, err = g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, m1, f2))
			if err != nil {
				t.Fatalf("Merge(rebase): %v", err)
			}
			r2 := getCommit(t, g, repo, sha)
			if len(r2.Parents) != 1 || r2.Tree != mergeTree || r2.Message != "feature two\n" || !sameSig(r2.Author, bobAuthor) || !sameSig(r2.Committer, mergeDoer) {
				t.Fatalf("rebased tip = %+v", r2)
			}
			r1 := getCommit(t, g, repo, r2.Parents[0])
			if !slices.Equal(r1.Parents, []string{m1}) || r1.Message != "feature one\n\nwith body\n" || !sameSig(r1.Author, testAuthor) || !sameSig(r1.Committer, mergeDoer) {
				t.Fatalf("rebased first = %+v", r1)
			}
			if r1.SHA == f1 || r2.SHA == f2 {
				t.Fatal("rebase kept the original commits")
			}
			rebased := sha

			// rebase-merge: a merge of base and the rebased branch.
			sha, err = g.Merge(ctx, repo, mergeOpts(MergeStyleRebaseMerge, m1, f2))
			if err != nil {
				t.Fatalf("Merge(rebase-merge): %v", err)
			}
			c = getCommit(t, g, repo, sha)
			if !slices.Equal(c.Parents, []string{m1, rebased}) || c.Tree != mergeTree || c.Message != "Merge pull request #1\n\nbody\n" {
				t.Fatalf("rebase-merge commit = %+v (rebased %s)", c, rebased)
			}

			// fast-forward-only: refused when diverged.
			if _, err := g.Merge(ctx, repo, mergeOpts(MergeStyleFastForwardOnly, m1, f2)); !errors.Is(err, ErrNotFastForward) {
				t.Fatalf("Merge(fast-forward-only) diverged = %v", err)
			}

			// Base an ancestor of head: fast-forward, rebase is head itself.
			if sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleFastForwardOnly, c0, f2)); err != nil || sha != f2 {
				t.Fatalf("Merge(fast-forward-only) = %s, %v", sha, err)
			}
			if sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, c0, f2)); err != nil || sha != f2 {
				t.Fatalf("Merge(rebase) of a descendant = %s, %v", sha, err)
			}
			sha, err = g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, c0, f2))
			if err != nil {
				t.Fatal(err)
			}
			if c := getCommit(t, g, repo, sha); !slices.Equal(c.Parents, []string{c0, f2}) || c.Tree != getCommit(t, g, repo, f2).Tree {
				t.Fatalf("no-ff merge = %+v", c)
			}
			sha, err = g.Merge(ctx, repo, mergeOpts(MergeStyleSquash, c0, f2))
			if err != nil {
				t.Fatal(err)
			}
			if c := getCommit(t, g, repo, sha); !slices.Equal(c.Parents, []string{c0}) || c.Tree != getCommit(t, g, repo, f2).Tree {
				t.Fatalf("squash onto ancestor = %+v", c)
			}

			// Head already in base: nothing to do, Base comes back.
			for _, style := range []string{MergeStyleMerge, MergeStyleRebase, MergeStyleRebaseMerge, MergeStyleSquash, MergeStyleFastForwardOnly} {
				if sha, err := g.Merge(ctx, repo, mergeOpts(style, m1, c0)); err != nil || sha != m1 {
					t.Errorf("Merge(%s) of an ancestor = %s, %v", style, sha, err)
				}
			}

			// No reference moved.
			if now, _ := g.ResolveCommit(ctx, repo, "main"); now != mainBefore {
				t.Fatalf("main moved to %s", now)
			}
		})
	}
}

func TestMergeBadOptions(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, _, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)
	bad := []MergeOptions{
		{Style: "octopus", Base: m1, Head: f2, Message: "m", Author: testAuthor},
		{Style: MergeStyleMerge, Base: "main", Head: f2, Message: "m", Author: testAuthor},
		{Style: MergeStyleMerge, Base: m1, Head: "-" + f2[1:], Message: "m", Author: testAuthor},
		{Style: MergeStyleMerge, Base: m1, Head: f2, Message: " \n", Author: testAuthor},
		{Style: MergeStyleSquash, Base: m1, Head: f2, Message: "m", Author: Signature{Name: "x<y", Email: "e"}},
		{Style: MergeStyleRebase, Base: m1, Head: f2},
	}
	for _, opts := range bad {
		if _, err := g.Merge(ctx, repo, opts); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Merge(%+v) = %v, want ErrInvalidArgument", opts, err)
		}
	}
	missing := strings.Repeat("1", 40)
	if _, err := g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, m1, missing)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Merge(missing head) = %v, want ErrNotFound", err)
	}
	// The committer defaults to the author.
	opts := mergeOpts(MergeStyleSquash, m1, f2)
	opts.Committer = Signature{}
	sha, err := g.Merge(ctx, repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := getCommit(t, g, repo, sha); !sameSig(c.Committer, testAuthor) {
		t.Fatalf("committer = %+v", c.Committer)
	}
}

func TestMergeConflict(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, _, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)
	// main changes the line feature changed, and removes c.txt which
	// feature changes.
	m2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		update("a.txt", "a1\nX2\na3\n"), {Op: ChangeDelete, Path: "c.txt"},
	}})
	f3 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "feature", Changes: []FileChange{update("c.txt", "c changed\n")}})
	for _, style := range []string{MergeStyleMerge, MergeStyleSquash, MergeStyleRebase, MergeStyleRebaseMerge} {
		_, err := g.Merge(ctx, repo, mergeOpts(style, m2, f3))
		var ce *MergeConflictError
		if !errors.Is(err, ErrMergeConflict) || !errors.As(err, &ce) {
			t.Fatalf("Merge(%s) = %v, want a merge conflict", style, err)
		}
		want := []string{"a.txt", "c.txt"}
		if style == MergeStyleRebase || style == MergeStyleRebaseMerge {
			// The first replayed commit (a.txt) stops the rebase.
			want = []string{"a.txt"}
			if ce.Commit == "" {
				t.Errorf("Merge(%s) conflict names no commit", style)
			}
		}
		if !slices.Equal(ce.Files, want) {
			t.Errorf("Merge(%s) conflicting files = %v, want %v", style, ce.Files, want)
		}
	}
	mc, err := g.CheckMerge(ctx, repo, m2, f3)
	if err != nil {
		t.Fatal(err)
	}
	if mc.Status != MergeStatusConflict || !slices.Equal(mc.ConflictedFiles, []string{"a.txt", "c.txt"}) || mc.Tree != "" {
		t.Fatalf("CheckMerge = %+v", mc)
	}
	if mc.CommitsAhead != 3 || mc.CommitsBehind != 2 {
		t.Fatalf("ahead/behind = %d/%d", mc.CommitsAhead, mc.CommitsBehind)
	}
	_ = m1
	_ = f2
}

func TestRebaseDropsEmptyAndKeepsAuthors(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, _, _, _ := mergeRepo(t, g, ObjectFormatSHA1)
	// main changes b.txt and c.txt in one commit; the branch makes the
	// same b.txt change alone (a different patch, so not skipped as a
	// cherry-pick, but empty once replayed), then Bob adds e.txt.
	m := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		update("b.txt", "b1\nB2\nb3\nb4\n"), update("c.txt", "C\n"),
	}})
	s1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "topic", StartPoint: c0, Message: "same b", Changes: []FileChange{
		update("b.txt", "b1\nB2\nb3\nb4\n"),
	}})
	s2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "topic", Author: bobAuthor, Message: "bob's e\n\nSigned-off-by: Bob", Changes: []FileChange{
		create("e.txt", "e\n"),
	}})
	sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, m, s2))
	if err != nil {
		t.Fatalf("Merge(rebase): %v", err)
	}
	c := getCommit(t, g, repo, sha)
	if !slices.Equal(c.Parents, []string{m}) {
		t.Fatalf("rebased tip parents = %v, want [%s] (the empty commit dropped)", c.Parents, m)
	}
	if !sameSig(c.Author, bobAuthor) || !sameSig(c.Committer, mergeDoer) || c.Message != "bob's e\n\nSigned-off-by: Bob\n" {
		t.Fatalf("rebased commit = %+v", c)
	}
	if got := readBlob(t, g, repo, sha+":e.txt"); got != "e\n" {
		t.Fatalf("e.txt = %q", got)
	}
	if got := readBlob(t, g, repo, sha+":c.txt"); got != "C\n" {
		t.Fatalf("c.txt = %q", got)
	}
	authors, err := g.CommitAuthors(ctx, repo, m, s2)
	if err != nil || len(authors) != 2 || !sameSig(authors[0], testAuthor) || !sameSig(authors[1], bobAuthor) {
		t.Fatalf("CommitAuthors = %+v, %v", authors, err)
	}
	// Only the empty commit: nothing is left, the base comes back, and
	// CheckMerge calls it empty.
	if sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, m, s1)); err != nil || sha != m {
		t.Fatalf("Merge(rebase) of an empty change = %s, %v", sha, err)
	}
	if sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleSquash, m, s1)); err != nil || sha != m {
		t.Fatalf("Merge(squash) of an empty change = %s, %v", sha, err)
	}
	if mc, err := g.CheckMerge(ctx, repo, m, s1); err != nil || mc.Status != MergeStatusEmpty || mc.CommitsAhead != 1 {
		t.Fatalf("CheckMerge(empty) = %+v, %v", mc, err)
	}
}

func TestRebaseSkipsMergesAndCherryPicks(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)
	// The branch merges main in (a merge commit, skipped), then adds g.txt.
	mm, err := g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, f2, m1))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.UpdateRef(ctx, repo, BranchPrefix+"feature", mm, f2); err != nil {
		t.Fatal(err)
	}
	f3 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "feature", Message: "g", Changes: []FileChange{create("g.txt", "g\n")}})
	// main gets the feature's first change by cherry-pick (same patch).
	m2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "picked", Changes: []FileChange{update("a.txt", "a1\nA2\na3\n")}})
	sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, m2, f3))
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	shas, err := g.RevList(ctx, repo, RevListOptions{Revs: []string{sha}, Not: []string{m2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shas {
		c := getCommit(t, g, repo, s)
		if len(c.Parents) != 1 {
			t.Fatalf("rebased history has a merge: %+v", c)
		}
		subjects = append(subjects, c.Subject())
	}
	if !slices.Equal(subjects, []string{"g", "feature two"}) {
		t.Fatalf("rebased commits = %v", subjects)
	}
	checkMergedContent(t, g, repo, sha)
	_ = c0
}

func TestCheckMerge(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)

	mc, err := g.CheckMerge(ctx, repo, "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if mc.Status != MergeStatusMergeable || mc.MergeBase != c0 || mc.BaseSHA != m1 || mc.HeadSHA != f2 ||
		mc.CommitsAhead != 2 || mc.CommitsBehind != 1 || len(mc.ConflictedFiles) != 0 {
		t.Fatalf("CheckMerge(mergeable) = %+v", mc)
	}
	merged, err := g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, m1, f2))
	if err != nil {
		t.Fatal(err)
	}
	if mc.Tree != getCommit(t, g, repo, merged).Tree {
		t.Fatalf("CheckMerge tree %s differs from the merge's", mc.Tree)
	}

	mc, err = g.CheckMerge(ctx, repo, m1, c0)
	if err != nil || mc.Status != MergeStatusAncestor || mc.CommitsAhead != 0 || mc.CommitsBehind != 1 {
		t.Fatalf("CheckMerge(ancestor) = %+v, %v", mc, err)
	}
	mc, err = g.CheckMerge(ctx, repo, m1, m1)
	if err != nil || mc.Status != MergeStatusAncestor {
		t.Fatalf("CheckMerge(same) = %+v, %v", mc, err)
	}
	mc, err = g.CheckMerge(ctx, repo, c0, f2)
	if err != nil || mc.Status != MergeStatusMergeable || mc.CommitsAhead != 2 || mc.CommitsBehind != 0 || mc.Tree != getCommit(t, g, repo, f2).Tree {
		t.Fatalf("CheckMerge(fast-forward) = %+v, %v", mc, err)
	}

	// Unrelated histories.
	other := commitFiles(t, g, repo, CommitFilesOptions{Branch: "orphan", Changes: []FileChange{create("z", "z")}})
	for _, fn := range []func() error{
		func() error { _, err := g.CheckMerge(ctx, repo, m1, other); return err },
		func() error { _, err := g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, m1, other)); return err },
	} {
		if err := fn(); !errors.Is(err, ErrUnrelatedHistories) || !errors.Is(err, ErrMergeConflict) {
			t.Fatalf("unrelated = %v", err)
		}
	}
	if mb, err := g.MergeBase(ctx, repo, m1, other); err != nil || mb != "" {
		t.Fatalf("MergeBase(unrelated) = %q, %v", mb, err)
	}
	if mb, err := g.MergeBase(ctx, repo, "main", "feature"); err != nil || mb != c0 {
		t.Fatalf("MergeBase = %q, %v", mb, err)
	}
	if ok, err := g.IsAncestor(ctx, repo, c0, "feature"); err != nil || !ok {
		t.Fatalf("IsAncestor = %v, %v", ok, err)
	}
	if ok, err := g.IsAncestor(ctx, repo, m1, "feature"); err != nil || ok {
		t.Fatalf("IsAncestor = %v, %v", ok, err)
	}
	if _, err := g.IsAncestor(ctx, repo, "nope", "feature"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("IsAncestor(missing) = %v", err)
	}
	if _, err := g.CheckMerge(ctx, repo, "main", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("CheckMerge(missing) = %v", err)
	}
	if _, err := g.CheckMerge(ctx, repo, "main", "--all"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("CheckMerge(option) = %v", err)
	}
}

func TestCheckMergeCapsConflicts(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	var base, ours, theirs []FileChange
	for i := range maxConflictFiles + 20 {
		p := fmt.Sprintf("f%03d", i)
		base = append(base, create(p, "x\n"))
		ours = append(ours, update(p, "ours\n"))
		theirs = append(theirs, update(p, "theirs\n"))
	}
	c0 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: base})
	m := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: ours})
	f := commitFiles(t, g, repo, CommitFilesOptions{Branch: "f", StartPoint: c0, Changes: theirs})
	mc, err := g.CheckMerge(ctx, repo, m, f)
	if err != nil || mc.Status != MergeStatusConflict || len(mc.ConflictedFiles) != maxConflictFiles || mc.ConflictedFiles[0] != "f000" {
		t.Fatalf("CheckMerge = %d files, %v, %v", len(mc.ConflictedFiles), mc.Status, err)
	}
}

func TestMergeUpdateDeleteRef(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, m1, _, _ := mergeRepo(t, g, ObjectFormatSHA1)
	const ref = "refs/pull/1/head"
	if err := g.UpdateRef(ctx, repo, ref, c0, ""); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := g.UpdateRef(ctx, repo, ref, m1, ""); !errors.Is(err, ErrConflict) || !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("create existing = %v", err)
	}
	if err := g.UpdateRef(ctx, repo, ref, m1, m1); !errors.Is(err, ErrConflict) {
		t.Fatalf("update with a stale old value = %v", err)
	}
	if err := g.UpdateRef(ctx, repo, ref, m1, c0); err != nil {
		t.Fatalf("update: %v", err)
	}
	if sha, err := g.ResolveRef(ctx, repo, ref); err != nil || sha != m1 {
		t.Fatalf("ref = %s, %v", sha, err)
	}
	if err := g.UpdateRef(ctx, repo, "refs/pull/2/head", m1, c0); !errors.Is(err, ErrConflict) {
		t.Fatalf("update of a missing ref = %v", err)
	}
	if err := g.UpdateRef(ctx, repo, "refs/x", strings.Repeat("2", 40), ""); err == nil {
		t.Fatal("ref to a missing object accepted")
	}
	for _, bad := range []string{"main", "-x", "refs/a..b", "refs/x.lock", ""} {
		if err := g.UpdateRef(ctx, repo, bad, m1, ""); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("UpdateRef(%q) = %v", bad, err)
		}
		if err := g.DeleteRef(ctx, repo, bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("DeleteRef(%q) = %v", bad, err)
		}
	}
	if err := g.UpdateRef(ctx, repo, ref, "main", m1); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("UpdateRef(non-SHA) = %v", err)
	}
	if err := g.DeleteRef(ctx, repo, ref); err != nil {
		t.Fatalf("DeleteRef: %v", err)
	}
	if _, err := g.ResolveRef(ctx, repo, ref); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted ref = %v", err)
	}
	if err := g.DeleteRef(ctx, repo, ref); err != nil {
		t.Fatalf("DeleteRef(missing): %v", err)
	}
}

func TestMergeFetchRef(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	base := initRepo(t, g, ObjectFormatSHA1)
	c0 := commitFiles(t, g, base, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("a", "a\n")}})
	fork := filepath.Join(t.TempDir(), "fork.git")
	if err := g.CloneMirror(ctx, base, fork, MirrorOptions{AllowProtocols: []string{"file"}}); err != nil {
		t.Fatal(err)
	}
	f1 := commitFiles(t, g, fork, CommitFilesOptions{Branch: "feature", StartPoint: "main", Changes: []FileChange{create("b", "b\n")}})
	if _, err := g.CreateTag(ctx, fork, CreateTagOptions{Name: "v9", Target: f1}); err != nil {
		t.Fatal(err)
	}
	if err := g.FetchRef(ctx, base, fork, "refs/heads/feature", "refs/pull/7/head"); err != nil {
		t.Fatalf("FetchRef: %v", err)
	}
	if sha, err := g.ResolveRef(ctx, base, "refs/pull/7/head"); err != nil || sha != f1 {
		t.Fatalf("refs/pull/7/head = %s, %v", sha, err)
	}
	if got := readBlob(t, g, base, "refs/pull/7/head:b"); got != "b\n" {
		t.Fatalf("fetched content = %q", got)
	}
	if _, err := g.GetTag(ctx, base, "v9"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tag fetched: %v", err)
	}
	// A force-push in the fork replaces the ref.
	f2 := commitFiles(t, g, fork, CommitFilesOptions{Branch: "rewrite", StartPoint: c0, Changes: []FileChange{create("c", "c\n")}})
	if err := g.UpdateRef(ctx, fork, "refs/heads/feature", f2, f1); err != nil {
		t.Fatal(err)
	}
	if err := g.FetchRef(ctx, base, fork, "refs/heads/feature", "refs/pull/7/head"); err != nil {
		t.Fatalf("FetchRef after force-push: %v", err)
	}
	if sha, err := g.ResolveRef(ctx, base, "refs/pull/7/head"); err != nil || sha != f2 {
		t.Fatalf("refs/pull/7/head = %s, %v", sha, err)
	}
	if err := g.FetchRef(ctx, base, fork, "refs/heads/nope", "refs/pull/8/head"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FetchRef(missing) = %v", err)
	}
	if err := g.FetchRef(ctx, base, fork, "feature", "refs/pull/8/head"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("FetchRef(short name) = %v", err)
	}
	if err := g.FetchRef(ctx, base, fork, "refs/heads/feature", "refs/heads/x:refs/heads/y"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("FetchRef(refspec) = %v", err)
	}
	// The same repository works too.
	if err := g.FetchRef(ctx, base, base, "refs/heads/main", "refs/pull/9/head"); err != nil {
		t.Fatalf("FetchRef(same repository): %v", err)
	}
	if sha, err := g.ResolveRef(ctx, base, "refs/pull/9/head"); err != nil || sha != c0 {
		t.Fatalf("refs/pull/9/head = %s, %v", sha, err)
	}
	if _, err := g.ResolveRef(ctx, base, "FETCH_HEAD"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FETCH_HEAD written: %v", err)
	}
}

// benchRepo writes a repository whose main commit has n files in nested
// directories, with fast-import, and branches base and head each changing
// one different file; it returns the tips of base and head.
func benchRepo(b *testing.B, g *Git, n int) (repo, base, head string) {
	b.Helper()
	repo = filepath.Join(b.TempDir(), "bench.git")
	ctx := b.Context()
	if err := g.InitBare(ctx, repo, InitOptions{DefaultBranch: "main"}); err != nil {
		b.Fatal(err)
	}
	var in strings.Builder
	path := func(i int) string { return fmt.Sprintf("d%02d/e%02d/f%05d.txt", i%20, i/20%20, i) }
	for i := range n {
		content := fmt.Sprintf("file %d\nline two\nline three\n", i)
		fmt.Fprintf(&in, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
	}
	fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> 1700000000 +0000\ndata 5\ninit\n", n+1)
	for i := range n {
		fmt.Fprintf(&in, "M 100644 :%d %s\n", i+1, path(i))
	}
	in.WriteString("\n")
	change := func(branch, p, content string, when int) {
		fmt.Fprintf(&in, "commit refs/heads/%s\ncommitter A <a@example.com> %d +0000\ndata 7\nchange\nfrom :%d\nM 100644 inline %s\ndata %d\n%s\n\n",
			branch, when, n+1, p, len(content), content)
	}
	change("base", path(1), "base change\n", 1700000100)
	change("head", path(n-2), "head change\n", 1700000200)
	if err := g.repoCommand(repo, "fast-import", "--quiet").Stdin(strings.NewReader(in.String())).Run(ctx); err != nil {
		b.Fatal(err)
	}
	files := 0
	err := g.WalkTree(ctx, repo, "main", "", true, func(e TreeEntry) error {
		if !e.IsDir() {
			files++
		}
		return nil
	})
	if err != nil || files != n {
		b.Fatalf("benchmark repository has %d files, want %d: %v", files, n, err)
	}
	if base, err = g.ResolveCommit(ctx, repo, "base"); err != nil {
		b.Fatal(err)
	}
	if head, err = g.ResolveCommit(ctx, repo, "head"); err != nil {
		b.Fatal(err)
	}
	return repo, base, head
}

// BenchmarkMerge measures CheckMerge and Merge of a one-file change in
// repositories of 4,000 and 20,000 files: the cost follows the change.
func BenchmarkMerge(b *testing.B) {
	for _, n := range []int{4000, 20000} {
		g, err := New(Options{HomeDir: b.TempDir(), TempDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		repo, base, head := benchRepo(b, g, n)
		b.Run(fmt.Sprintf("files=%d/check", n), func(b *testing.B) {
			for b.Loop() {
				mc, err := g.CheckMerge(b.Context(), repo, base, head)
				if err != nil || mc.Status != MergeStatusMergeable {
					b.Fatalf("CheckMerge = %+v, %v", mc, err)
				}
			}
		})
		for _, style := range []string{MergeStyleMerge, MergeStyleSquash, MergeStyleRebase} {
			b.Run(fmt.Sprintf("files=%d/%s", n, style), func(b *testing.B) {
				for b.Loop() {
					if _, err := g.Merge(b.Context(), repo, mergeOpts(style, base, head)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestRebaseRootAndEmptyCommits(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, _, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)
	// The branch gains an unrelated root commit through a merge, then a
	// commit that was empty from the start.
	root := commitFiles(t, g, repo, CommitFilesOptions{Branch: "orphan", Message: "root", Changes: []FileChange{create("z.txt", "z\n")}})
	tree, err := g.mergeTree(ctx, repo, f2, root, true)
	if err != nil {
		t.Fatal(err)
	}
	mc := mergeCommit{message: "merge orphan", author: testAuthor, committer: testAuthor}
	mm, err := g.commitTree(ctx, repo, tree, []string{f2, root}, mc)
	if err != nil {
		t.Fatal(err)
	}
	mc.message = "empty on purpose"
	empty, err := g.commitTree(ctx, repo, tree, []string{mm}, mc)
	if err != nil {
		t.Fatal(err)
	}
	sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, m1, empty))
	if err != nil {
		t.Fatalf("Merge(rebase): %v", err)
	}
	shas, err := g.RevList(ctx, repo, RevListOptions{Revs: []string{sha}, Not: []string{m1}})
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, s := range shas {
		c := getCommit(t, g, repo, s)
		subjects = append(subjects, c.Subject())
	}
	if !slices.Equal(subjects, []string{"empty on purpose", "root", "feature two", "feature one"}) {
		t.Fatalf("rebased commits = %v", subjects)
	}
	checkMergedContent(t, g, repo, sha)
	if got := readBlob(t, g, repo, sha+":z.txt"); got != "z\n" {
		t.Fatalf("z.txt = %q", got)
	}
	if c := getCommit(t, g, repo, sha); c.Tree != getCommit(t, g, repo, c.Parents[0]).Tree {
		t.Fatal("the empty commit is not empty")
	}
}

func TestMergeKeepsEncodingAndAuthorLine(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, m1, _, _ := mergeRepo(t, g, ObjectFormatSHA1)
	// A commit with an unusual author line and a Latin-1 message.
	treeOut, err := g.repoCommand(repo, "rev-parse", "feature^{tree}").Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	obj := "tree " + strings.TrimSpace(string(treeOut)) + "\nparent " + c0 + "\n" +
		"author  <odd@example.com> 1000000000 +1345\ncommitter C <c@example.com> 1000000000 +0000\nencoding ISO-8859-1\n\ncaf\xe9\n"
	out, err := g.repoCommand(repo, "hash-object", "-t", "commit", "-w", "--stdin").Stdin(strings.NewReader(obj)).Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	odd := strings.TrimSpace(string(out))
	sha, err := g.Merge(ctx, repo, mergeOpts(MergeStyleRebase, m1, odd))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := g.repoCommand(repo, "cat-file", "commit").Values(sha).Output(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nparent " + m1 + "\n", "\nauthor  <odd@example.com> 1000000000 +1345\n",
		"\ncommitter " + mergeDoer.String() + "\n", "\nencoding ISO-8859-1\n\ncaf\xe9\n"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("rebased commit lacks %q:\n%s", want, raw)
		}
	}
}

// TestMergeSigned: with Sign set, every commit a merge writes carries the
// signature of exactly its own object without the gpgsig header, and the
// same tree and identities as an unsigned merge.
func TestMergeSigned(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, _, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)
	signed := map[string]bool{}
	sign := func(payload []byte) (string, error) {
		signed[string(payload)] = true
		return fmt.Sprintf("-----BEGIN PGP SIGNATURE-----\n\nsig%d\n-----END PGP SIGNATURE-----\n", len(signed)), nil
	}
	for _, style := range []string{MergeStyleMerge, MergeStyleSquash, MergeStyleRebase, MergeStyleRebaseMerge} {
		plain, err := g.Merge(ctx, repo, mergeOpts(style, m1, f2))
		if err != nil {
			t.Fatal(err)
		}
		o := mergeOpts(style, m1, f2)
		o.Sign = sign
		sha, err := g.Merge(ctx, repo, o)
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		if got, want := getCommit(t, g, repo, sha).Tree, getCommit(t, g, repo, plain).Tree; got != want {
			t.Fatalf("%s: signed tree %s, unsigned %s", style, got, want)
		}
		// Every commit the merge wrote (on top of the base, not among
		// the head's own) is signed.
		out, err := g.repoCommand(repo, "rev-list").Values(sha, "^"+m1, "^"+f2).Output(ctx)
		if err != nil {
			t.Fatal(err)
		}
		written := strings.Fields(string(out))
		if want := map[string]int{MergeStyleMerge: 1, MergeStyleSquash: 1, MergeStyleRebase: 2, MergeStyleRebaseMerge: 3}[style]; len(written) != want {
			t.Fatalf("%s wrote %d commits, want %d", style, len(written), want)
		}
		commits, err := g.ReadCommits(ctx, repo, written)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range commits {
			if c.Signature == "" || !signed[c.Payload] {
				t.Fatalf("%s: commit %s not signed over its payload (signature %q)", style, c.SHA, c.Signature)
			}
		}
	}
}

// TestMergeKnownBase: a merge given its merge base (as a mergeability
// check records it) writes the same merge as one that computes it, and a
// head already in the base merges to the base.
func TestMergeKnownBase(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, m1, _, f2 := mergeRepo(t, g, ObjectFormatSHA1)
	computed, err := g.Merge(ctx, repo, mergeOpts(MergeStyleMerge, m1, f2))
	if err != nil {
		t.Fatal(err)
	}
	for _, style := range []string{MergeStyleMerge, MergeStyleSquash} {
		plain, err := g.Merge(ctx, repo, mergeOpts(style, m1, f2))
		if err != nil {
			t.Fatal(err)
		}
		o := mergeOpts(style, m1, f2)
		o.MergeBase = c0
		known, err := g.Merge(ctx, repo, o)
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		if known != plain {
			t.Fatalf("%s with a known base = %s, computed %s", style, known, plain)
		}
	}
	o := mergeOpts(MergeStyleMerge, computed, f2)
	o.MergeBase = f2
	if got, err := g.Merge(ctx, repo, o); err != nil || got != computed {
		t.Fatalf("merging a contained head = %s, %v; want the base %s", got, err, computed)
	}
	// Conflicts are still reported.
	x := commitFiles(t, g, repo, CommitFilesOptions{Branch: "x", StartPoint: c0, Message: "x", Changes: []FileChange{update("b.txt", "other\n")}})
	o = mergeOpts(MergeStyleMerge, m1, x)
	o.MergeBase = c0
	if _, err := g.Merge(ctx, repo, o); !errors.Is(err, ErrMergeConflict) {
		t.Fatalf("conflicting merge with a known base: %v", err)
	}
}

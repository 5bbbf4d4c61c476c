package git

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestLastCommits(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, ObjectFormatSHA1)
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		create("a/x", "1"), create("b", "1"), create("dir/y", "1"), create("dir/sub/z", "1"),
	}})
	c2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		{Op: ChangeUpdate, Path: "dir/sub/z", Content: strings.NewReader("2")},
	}})
	odd := "odd\nname"
	c3 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create(odd, "x")}})
	// A side branch changing b, and a merge of it whose tree differs from
	// both parents (merges list no files).
	side := commitFiles(t, g, repo, CommitFilesOptions{Branch: "side", StartPoint: c1, Changes: []FileChange{
		{Op: ChangeUpdate, Path: "b", Content: strings.NewReader("side")},
	}})
	both := commitFiles(t, g, repo, CommitFilesOptions{Branch: "tmp", StartPoint: c3, Changes: []FileChange{
		{Op: ChangeUpdate, Path: "b", Content: strings.NewReader("side")},
	}})
	tree, err := g.Stat(t.Context(), repo, both+"^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.repoCommand(repo, "commit-tree").Values(tree.SHA).Args("-p").Values(c3).Args("-p").Values(side).
		Env("GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x").
		Stdin(strings.NewReader("merge\n")).Output(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	merge := strings.TrimSpace(string(out))

	tests := []struct {
		name  string
		rev   string
		dir   string
		paths []string
		want  map[string]string
	}{
		{"root", c3, "", []string{"a", "b", "dir", odd, "missing"}, map[string]string{"a": c1, "b": c1, "dir": c2, odd: c3}},
		{"subdir", c3, "dir", []string{"dir/y", "dir/sub"}, map[string]string{"dir/y": c1, "dir/sub": c2}},
		{"file", c3, "dir/sub/z", []string{"dir/sub/z"}, map[string]string{"dir/sub/z": c2}},
		{"older rev", c1, "", []string{"dir", odd}, map[string]string{"dir": c1}},
		{"through merge", merge, "", []string{"a", "b", "dir", odd}, map[string]string{"a": c1, "b": side, "dir": c2, odd: c3}},
		{"nothing asked", c3, "", nil, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.LastCommits(t.Context(), repo, tt.rev, tt.dir, tt.paths)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for p, sha := range tt.want {
				if got[p] != sha {
					t.Errorf("%q: got %s, want %s", p, got[p], sha)
				}
			}
		})
	}

	for _, bad := range []struct{ rev, dir string }{{"-x", ""}, {c3, "../x"}, {c3, ".git"}} {
		if _, err := g.LastCommits(t.Context(), repo, bad.rev, bad.dir, []string{"a"}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("LastCommits(%q, %q): %v, want ErrInvalidArgument", bad.rev, bad.dir, err)
		}
	}
	if _, err := g.LastCommits(t.Context(), repo, "no-such-branch", "", []string{"a"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown revision: %v, want ErrNotFound", err)
	}
}

func TestCommitFilesBeforeUpdate(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, ObjectFormatSHA1)
	refused := errors.New("refused by rule")
	var gotOld, gotNew string
	hook := func(ret error) func(context.Context, string, string) error {
		return func(_ context.Context, oldSHA, newSHA string) error {
			gotOld, gotNew = oldSHA, newSHA
			return ret
		}
	}

	// A refused root commit leaves no branch.
	_, err := g.CommitFiles(t.Context(), repo, CommitFilesOptions{Branch: "main", Message: "m", Author: testAuthor,
		Changes: []FileChange{create("a", "1")}, BeforeUpdate: hook(refused)})
	if !errors.Is(err, refused) {
		t.Fatalf("refused root commit: %v", err)
	}
	if gotOld != "" || !IsSHA(gotNew) {
		t.Fatalf("hook saw %q -> %q", gotOld, gotNew)
	}
	if _, err := g.GetBranch(t.Context(), repo, "main"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("branch exists after a refused commit: %v", err)
	}

	first, err := g.CommitFiles(t.Context(), repo, CommitFilesOptions{Branch: "main", Message: "m", Author: testAuthor,
		Changes: []FileChange{create("a", "1")}, BeforeUpdate: hook(nil)})
	if err != nil || gotNew != first {
		t.Fatalf("allowed commit: %v (hook saw %s, made %s)", err, gotNew, first)
	}

	// A refused update leaves the branch where it was.
	_, err = g.CommitFiles(t.Context(), repo, CommitFilesOptions{Branch: "main", Message: "m", Author: testAuthor,
		Changes: []FileChange{create("b", "2")}, BeforeUpdate: hook(refused)})
	if !errors.Is(err, refused) || gotOld != first {
		t.Fatalf("refused update: %v (old %s)", err, gotOld)
	}
	if tip, _ := g.ResolveCommit(t.Context(), repo, "main"); tip != first {
		t.Fatalf("branch moved to %s after a refused update", tip)
	}

	// A new branch from a start point is a creation (old "").
	_, err = g.CommitFiles(t.Context(), repo, CommitFilesOptions{Branch: "topic", StartPoint: "main", Message: "m", Author: testAuthor,
		Changes: []FileChange{create("c", "3")}, BeforeUpdate: hook(nil)})
	if err != nil || gotOld != "" {
		t.Fatalf("new branch: %v (old %q)", err, gotOld)
	}
}

package sshd

import (
	"errors"
	"testing"

	"github.com/cairn-forge/cairn/internal/git"
)

func TestParseCommand(t *testing.T) {
	ok := []struct {
		line        string
		svc         git.Service
		owner, name string
	}{
		{"git-upload-pack 'alice/repo.git'", git.UploadPack, "alice", "repo"},
		{"git-upload-pack '/alice/repo.git'", git.UploadPack, "alice", "repo"},
		{"git-receive-pack 'alice/repo'", git.ReceivePack, "alice", "repo"},
		{"git-upload-archive 'alice/repo.git'", git.UploadArchive, "alice", "repo"},
		{"git-upload-pack alice/repo.git", git.UploadPack, "alice", "repo"},
		{"git-upload-pack /alice/repo", git.UploadPack, "alice", "repo"},
		{"git upload-pack 'alice/repo.git'", git.UploadPack, "alice", "repo"},
		{"git-receive-pack 'Org-1/my_repo.v2.git'", git.ReceivePack, "Org-1", "my_repo.v2"},
		{"git-upload-pack 'ali''ce/repo.git'", git.UploadPack, "alice", "repo"},
	}
	for _, c := range ok {
		got, err := parseCommand(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if got.svc != c.svc || got.owner != c.owner || got.name != c.name {
			t.Errorf("%q: got %+v", c.line, got)
		}
	}
	notGit := []string{
		"", "ls", "ls -la", "bash", "sh -c 'git-upload-pack a/b'", "git", "git-upload-pack",
		"git-foo 'a/b.git'", "git clone 'a/b.git'", "scp -t /tmp", "git-lfs-authenticate a/b download",
		"rm -rf /", "cat /etc/passwd", "git-upload-packx 'a/b'",
	}
	for _, line := range notGit {
		if _, err := parseCommand(line); !errors.Is(err, errNotGit) {
			t.Errorf("%q: err %v, want errNotGit", line, err)
		}
	}
	badPath := []string{
		"git-upload-pack 'a/b.git' extra", "git-upload-pack 'a/b.git';id", "git-upload-pack 'a/b.git' && id",
		"git-upload-pack '../b.git'", "git-upload-pack 'a/../b'", "git-upload-pack 'a/b/c.git'",
		"git-upload-pack 'a'", "git-upload-pack '/a/'", "git-upload-pack 'a/b", "git-upload-pack \"a/b\"",
		"git-upload-pack a/$(id)", "git-upload-pack 'a/b c'", "git-upload-pack 'a/.git'", "git-upload-pack '~/a/b'",
		"git-upload-pack ''", "git-upload-pack 'a/b'\\x", "git-upload-pack a/b\x00", "git-upload-pack  'a/b'",
		"git-upload-pack '//a/b'", "git-upload-pack 'a/b.git/'",
	}
	for _, line := range badPath {
		_, err := parseCommand(line)
		var bp *badPathError
		if !errors.As(err, &bp) {
			t.Errorf("%q: err %v, want a bad path error", line, err)
		}
	}
}

func TestShellWord(t *testing.T) {
	cases := map[string]string{
		`'abc'`:        "abc",
		`'it'\''s'`:    "it's",
		`'a'\!'b'`:     "a!b",
		`plain/word`:   "plain/word",
		`'a''b'`:       "ab",
		`'/x/y.git'`:   "/x/y.git",
		`'with space'`: "with space",
	}
	for in, want := range cases {
		got, ok := shellWord(in)
		if !ok || got != want {
			t.Errorf("shellWord(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{``, `'open`, `'a'b`, `'a'\x'b'`, `a b`, `a'b`, `a\b`, `'a'\`} {
		if got, ok := shellWord(in); ok {
			t.Errorf("shellWord(%q) = %q, want refusal", in, got)
		}
	}
}

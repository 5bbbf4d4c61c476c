package git

import (
	"errors"
	"strings"
	"testing"
)

func TestValidRefName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"main", true},
		{"feature/login", true},
		{"refs/heads/main", true},
		{"v1.0.0", true},
		{"release-1.x", true},
		{"a@b", true},
		{"", false},
		{"@", false},
		{"-main", false},
		{"--upload-pack=evil", false},
		{"a..b", false},
		{"a b", false},
		{"a~1", false},
		{"a^", false},
		{"a:b", false},
		{"a?", false},
		{"a*", false},
		{"a[b", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\x7fb", false},
		{"a@{1}", false},
		{"main.lock", false},
		{"feature/x.lock", false},
		{"feature.lock/x", false},
		{"main/", false},
		{"/main", false},
		{"main.", false},
		{"a//b", false},
		{".hidden", false},
		{"feature/.hidden", false},
	}
	for _, tt := range tests {
		if got := ValidRefName(tt.name); got != tt.want {
			t.Errorf("ValidRefName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestValidBranchName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"main", true},
		{"HEAD", false},
		{"refs/heads/x", false},
		{"-x", false},
	}
	for _, tt := range tests {
		if got := ValidBranchName(tt.name); got != tt.want {
			t.Errorf("ValidBranchName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestValidRevision(t *testing.T) {
	tests := []struct {
		rev  string
		want bool
	}{
		{"main", true},
		{"HEAD~2", true},
		{"v1.0^{commit}", true},
		{"main:docs/read me.md", true},
		{"0123456789abcdef0123456789abcdef01234567", true},
		{"", false},
		{"-n", false},
		{"--upload-pack=evil", false},
		{"main\nHEAD", false},
		{"a\x00b", false},
		{strings.Repeat("a", maxRevisionLen+1), false},
	}
	for _, tt := range tests {
		if got := ValidRevision(tt.rev); got != tt.want {
			t.Errorf("ValidRevision(%q) = %v, want %v", tt.rev, got, tt.want)
		}
	}
}

func TestIsSHA(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{strings.Repeat("a", 40), true},
		{strings.Repeat("0", 64), true},
		{strings.Repeat("A", 40), false},
		{strings.Repeat("a", 39), false},
		{strings.Repeat("g", 40), false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsSHA(tt.s); got != tt.want {
			t.Errorf("IsSHA(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestCleanWritePath(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"", "", false},
		{".", "", false},
		{"README.md", "README.md", false},
		{"docs//guide/./a.md", "docs/guide/a.md", false},
		{"docs/", "docs", false},
		{"-rf", "-rf", false},
		{".github/workflows/ci.yml", ".github/workflows/ci.yml", false},
		{".gitignore", ".gitignore", false},
		{"/etc/passwd", "", true},
		{"../x", "", true},
		{"a/../../x", "", true},
		{"a/..", "", true},
		{".git/config", "", true},
		{".GIT/config", "", true},
		{"sub/.Git/hooks/pre-receive", "", true},
		{".git", "", true},
		{".git./config", "", true},
		{".git /config", "", true},
		{"a\x00b", "", true},
	}
	for _, tt := range tests {
		got, err := CleanWritePath(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("CleanWritePath(%q) error = %v, want ErrInvalidArgument", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CleanWritePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSanitizeProtocol(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"version=2", "version=2"},
		{"version=1:version=2", "version=1:version=2"},
		{"version=2:evil=1", "version=2"},
		{"version=x", ""},
		{"version=", ""},
		{"version=2\nGIT_DIR=/", ""},
		{"GIT_DIR=/etc", ""},
	}
	for _, tt := range tests {
		if got := SanitizeProtocol(tt.in); got != tt.want {
			t.Errorf("SanitizeProtocol(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseService(t *testing.T) {
	tests := []struct {
		in   string
		want Service
		ok   bool
	}{
		{"git-upload-pack", UploadPack, true},
		{"receive-pack", ReceivePack, true},
		{"git-upload-archive", UploadArchive, true},
		{"git-shell", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseService(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseService(%q) = %q, %v", tt.in, got, ok)
		}
	}
}

func TestCmdArguments(t *testing.T) {
	g := &Git{binary: "git"}
	tests := []struct {
		name    string
		build   func() *Cmd
		want    string
		wantErr bool
	}{
		{"values after end of options", func() *Cmd {
			return g.Command("log", "--oneline").EndOfOptions().Values("main")
		}, "git log --oneline --end-of-options main", false},
		{"paths last and literal", func() *Cmd {
			return g.Command("log").Paths("-x", ":(glob)*").Values("main")
		}, "git --literal-pathspecs log main -- -x :(glob)*", false},
		{"option with user value", func() *Cmd {
			return g.Command("archive").Option("--prefix", "-evil/")
		}, "git archive --prefix=-evil/", false},
		{"config before subcommand", func() *Cmd {
			return g.Command("log").Config("core.quotePath", "false")
		}, "git -c core.quotePath=false log", false},
		{"dash value", func() *Cmd { return g.Command("fetch").Values("--upload-pack=evil") }, "", true},
		{"empty value", func() *Cmd { return g.Command("fetch").Values("") }, "", true},
		{"NUL value", func() *Cmd { return g.Command("fetch").Values("a\x00b") }, "", true},
		{"NUL path", func() *Cmd { return g.Command("log").Paths("a\x00") }, "", true},
		{"empty path", func() *Cmd { return g.Command("log").Paths("") }, "", true},
		{"short option flag", func() *Cmd { return g.Command("log").Option("-n", "1") }, "", true},
		{"config value newline", func() *Cmd { return g.Command("log").Config("a.b", "x\ny") }, "", true},
		{"dash subcommand", func() *Cmd { return g.Command("--exec-path") }, "", true},
		{"bad env", func() *Cmd { return g.Command("log").Env("NOEQUALS") }, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.build()
			if tt.wantErr {
				if !errors.Is(c.err, ErrInvalidArgument) {
					t.Fatalf("err = %v, want ErrInvalidArgument", c.err)
				}
				if err := c.Run(t.Context()); !errors.Is(err, ErrInvalidArgument) {
					t.Fatalf("Run err = %v, want ErrInvalidArgument", err)
				}
				return
			}
			if c.err != nil {
				t.Fatalf("unexpected error %v", c.err)
			}
			if got := c.String(); got != tt.want {
				t.Fatalf("command = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{limit: 8}
	tb.Write([]byte("hello "))
	tb.Write([]byte("world"))
	if got := tb.String(); got != "lo world" {
		t.Fatalf("tail = %q", got)
	}
	tb.Write([]byte("0123456789"))
	if got := tb.String(); got != "23456789" {
		t.Fatalf("tail = %q", got)
	}
}

func TestSignatureRoundTrip(t *testing.T) {
	for _, raw := range []string{
		"Jane Doe <jane@example.com> 1700000000 +0530",
		"X <x@y> 0 -0800",
		"Büro Ärger <b@ü.de> 1234567890 +0000",
	} {
		sig := parseSignature(raw)
		if got := sig.String(); got != raw {
			t.Errorf("round trip %q -> %q", raw, got)
		}
	}
}

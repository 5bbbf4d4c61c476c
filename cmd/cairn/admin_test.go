package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPasswordFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("from-file\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
		bad   bool
	}{
		{args: []string{"--password", "literal"}, want: "literal"},
		{args: []string{"--password-stdin"}, stdin: "from-stdin\nignored\n", want: "from-stdin"},
		{args: []string{"--password-stdin"}, stdin: "no-newline", want: "no-newline"},
		{args: []string{"--password-file", file}, want: "from-file"},
		{args: nil, bad: true},
		{args: []string{"--password-stdin"}, stdin: "\n", bad: true},
		{args: []string{"--password", "x", "--password-stdin"}, stdin: "y\n", bad: true},
		{args: []string{"--password-file", file + ".missing"}, bad: true},
	} {
		fs := newFlagSet("test")
		p := addPasswordFlags(fs, "password")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		got, err := p.read(strings.NewReader(c.stdin))
		if c.bad != (err != nil) || got != c.want {
			t.Errorf("%v: %q, %v", c.args, got, err)
		}
	}
}

func TestInstanceFlags(t *testing.T) {
	env := map[string]string{"CAIRN_CONFIG": "/env.ini", "CAIRN_DATA_DIR": "/env", "CAIRN_HTTP_ADDR": "x"}
	for _, c := range []struct {
		args            []string
		config, dataDir string
	}{
		{nil, "/env.ini", "/env"},
		{[]string{"--data-dir", "/flag"}, "/env.ini", "/flag"},
		{[]string{"--config", "/flag.ini"}, "/flag.ini", "/env"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		inst := addInstanceFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		getenv := inst.getenv(func(k string) string { return env[k] })
		if getenv("CAIRN_CONFIG") != c.config || getenv("CAIRN_DATA_DIR") != c.dataDir || getenv("CAIRN_HTTP_ADDR") != "x" {
			t.Errorf("%v: config %q, data %q", c.args, getenv("CAIRN_CONFIG"), getenv("CAIRN_DATA_DIR"))
		}
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/cairn/data": "/srv/cairn/data",
		"cairn-admin":     "cairn-admin",
		"/a b":            "'/a b'",
		"it's":            `'it'\''s'`,
		"":                "''",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}

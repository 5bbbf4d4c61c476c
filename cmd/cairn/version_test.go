package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadBuildSource(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "6cde2efbc5e41d20d9699ac8837eff38859b4e55"},
		{Key: "vcs.time", Value: "2026-11-26T15:57:49Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		name                   string
		info                   *debug.BuildInfo
		commit, date, modified string
		want                   buildSource
	}{
		{"no build information", nil, "", "", "", buildSource{}},
		{"no VCS stamp", &debug.BuildInfo{GoVersion: "go1.26.8"}, "", "", "", buildSource{Go: "go1.26.8"}},
		{"stamp", stamped, "", "", "", buildSource{Commit: "6cde2efbc5e41d20d9699ac8837eff38859b4e55", Date: "2026-11-26T15:57:49Z", Modified: true, Go: "go1.26.8"}},
		{"link-time values without stamp", &debug.BuildInfo{GoVersion: "go1.26.8"}, "abc123", "2026-01-02T03:04:05Z", "true",
			buildSource{Commit: "abc123", Date: "2026-01-02T03:04:05Z", Modified: true, Go: "go1.26.8"}},
		{"link-time values win over the stamp", stamped, "abc123", "2026-01-02T03:04:05Z", "false",
			buildSource{Commit: "abc123", Date: "2026-01-02T03:04:05Z", Go: "go1.26.8"}},
		{"date and state alone change nothing", stamped, "", "2026-01-02T03:04:05Z", "false",
			buildSource{Commit: "6cde2efbc5e41d20d9699ac8837eff38859b4e55", Date: "2026-11-26T15:57:49Z", Modified: true, Go: "go1.26.8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readBuildSource(tt.info, tt.commit, tt.date, tt.modified); got != tt.want {
				t.Errorf("readBuildSource = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWriteVersion(t *testing.T) {
	first := "cairn 0.1.0 (Gitea API 1.23.0, reported as 1.23.0+cairn.0.1.0)\n"
	tests := []struct {
		name string
		src  buildSource
		want string
	}{
		{"unknown", buildSource{Go: "go1.26.8"}, "commit unknown, built with go1.26.8 for linux/arm64\n"},
		{"clean", buildSource{Commit: "abc123", Date: "2026-11-26T15:57:49Z", Go: "go1.26.8"},
			"commit abc123 (2026-11-26T15:57:49Z), built with go1.26.8 for linux/arm64\n"},
		{"modified", buildSource{Commit: "abc123", Date: "2026-11-26T15:57:49Z", Modified: true, Go: "go1.26.8"},
			"commit abc123 (2026-11-26T15:57:49Z) with uncommitted changes, built with go1.26.8 for linux/arm64\n"},
		{"commit without date", buildSource{Commit: "abc123", Go: "go1.26.8"},
			"commit abc123, built with go1.26.8 for linux/arm64\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeVersion(&b, "0.1.0", tt.src, "linux", "arm64")
			if got := b.String(); got != first+tt.want {
				t.Errorf("output = %q, want %q", got, first+tt.want)
			}
		})
	}
}

func TestRunVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		var out bytes.Buffer
		if err := run(t.Context(), args, &out, &out, func(string) string { return "" }); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "cairn "+version+" (Gitea API ") || !strings.HasPrefix(lines[1], "commit ") {
			t.Errorf("%v printed %q", args, out.String())
		}
	}
}

package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	v1 "github.com/cairn-forge/cairn/internal/api/v1"
)

// version is Cairn's own release version.
const version = "0.1.0"

// Release builds name their source with -ldflags "-X main.commit=<revision>
// -X main.commitDate=<RFC 3339 time> -X main.commitModified=true|false" where
// the Go toolchain stamps none (-buildvcs=false, no .git); when commit is set
// the three win over the build information. Only the linker sets them.
var (
	commit         string
	commitDate     string
	commitModified string
)

// buildSource says which source a binary was built from.
type buildSource struct {
	Commit   string // revision, empty when unknown
	Date     string // the commit's time (RFC 3339), empty when unknown
	Modified bool   // built from a tree with uncommitted changes
	Go       string // Go version that built the binary
}

// readBuildSource takes the commit, its date and the tree state from the
// build information (vcs.revision, vcs.time, vcs.modified), or from the
// link-time values when linkCommit is set.
func readBuildSource(info *debug.BuildInfo, linkCommit, linkDate, linkModified string) buildSource {
	var s buildSource
	if info != nil {
		s.Go = info.GoVersion
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				s.Commit = kv.Value
			case "vcs.time":
				s.Date = kv.Value
			case "vcs.modified":
				s.Modified = kv.Value == "true"
			}
		}
	}
	if linkCommit != "" {
		s.Commit, s.Date, s.Modified = linkCommit, linkDate, linkModified == "true"
	}
	return s
}

// writeVersion prints what `cairn --version` shows: the first line names
// Cairn's version and the Gitea API level, the second the source and
// toolchain of the build.
func writeVersion(w io.Writer, cairnVersion string, s buildSource, goos, goarch string) {
	fmt.Fprintf(w, "cairn %s (Gitea API %s, reported as %s)\n", cairnVersion, v1.GiteaAPILevel, v1.VersionString(cairnVersion))
	c := "commit unknown"
	if s.Commit != "" {
		c = "commit " + s.Commit
	}
	if s.Date != "" {
		c += " (" + s.Date + ")"
	}
	if s.Commit != "" && s.Modified {
		c += " with uncommitted changes"
	}
	goVersion := s.Go
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	fmt.Fprintf(w, "%s, built with %s for %s/%s\n", c, goVersion, goos, goarch)
}

// printVersion writes the version of the running binary.
func printVersion(w io.Writer) {
	info, _ := debug.ReadBuildInfo()
	writeVersion(w, version, readBuildSource(info, commit, commitDate, commitModified), runtime.GOOS, runtime.GOARCH)
}

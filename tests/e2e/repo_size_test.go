package e2e

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRepoSizeAfterPush: the size of a repository follows a push; it is
// measured in the background, off the push's path.
func TestRepoSizeAfterPush(t *testing.T) {
	s := StartServer(t)
	u := s.CreateUser("sizer")
	createRepo(t, s, u, "big", false)
	work := t.TempDir()
	gdGit(t, work, nil, "init", "-q", "-b", "main")
	blob := make([]byte, 300<<10) // incompressible
	_, _ = rand.Read(blob)
	if err := os.WriteFile(filepath.Join(work, "blob.bin"), blob, 0o644); err != nil {
		t.Fatal(err)
	}
	gdGit(t, work, nil, "add", "blob.bin")
	gdGit(t, work, nil, "commit", "-qm", "a large file")
	remote := strings.Replace(s.URL, "http://", "http://sizer:"+u.Password+"@", 1) + "sizer/big.git"
	gdGit(t, work, nil, "push", "-q", remote, "main:blob")
	var repo struct {
		Size  int  `json:"size"`
		Empty bool `json:"empty"`
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		s.API("GET", "repos/sizer/big", u.Token, nil).Decode(t, &repo)
		if repo.Size >= 300 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if repo.Empty || repo.Size < 300 {
		t.Fatalf("after pushing 300 KiB: size %d KiB, empty %v", repo.Size, repo.Empty)
	}
	// The same background pass packed the references first, so later
	// pushes do not read a file per reference.
	var info struct {
		ID int64 `json:"id"`
	}
	s.API("GET", "repos/sizer/big", u.Token, nil).Decode(t, &info)
	dir := filepath.Join(s.DataDir, "repositories", fmt.Sprintf("%d.git", info.ID))
	packed, err := os.ReadFile(filepath.Join(dir, "packed-refs"))
	if err != nil || !strings.Contains(string(packed), " refs/heads/blob\n") {
		t.Fatalf("packed-refs after the push: %q %v", packed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "refs", "heads", "blob")); !os.IsNotExist(err) {
		t.Fatalf("the pushed branch is still a loose reference: %v", err)
	}
}

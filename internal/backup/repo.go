package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// repackedError reports that the object store changed under a copy in a
// way that could lose objects (a pack or loose object removed by gc or
// repack).
type repackedError struct{}

func (repackedError) Error() string { return "the object store was repacked during the copy" }

// objectCopyAttempts is how often the object store is copied as files before
// falling back to git pack-objects.
const objectCopyAttempts = 3

// objectSnapshot is a repository's recorded refs and the opened files of an
// object store holding every object they reach.
type objectSnapshot struct {
	refs  []byte
	files []snapFile
}

type snapFile struct {
	name string // relative to the repository, slash-separated
	f    *os.File
}

func (s *objectSnapshot) close() {
	for _, sf := range s.files {
		sf.f.Close()
	}
	s.files = nil
}

// isHex reports whether s is n to m lowercase hexadecimal digits.
func isHex(s string, n, m int) bool {
	if len(s) < n || len(s) > m {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isLoose reports whether name is a loose object's path, objects/xx/yyyy.
func isLoose(name string) bool {
	rest, ok := strings.CutPrefix(name, "objects/")
	dir, file, ok2 := strings.Cut(rest, "/")
	return ok && ok2 && isHex(dir, 2, 2) && isHex(file, 38, 62)
}

// isPack reports whether name is a pack's or its index's path,
// objects/pack/pack-<hash>.pack or .idx.
func isPack(name string) bool {
	rest, ok := strings.CutPrefix(name, "objects/pack/pack-")
	if !ok {
		return false
	}
	hash, ok := strings.CutSuffix(rest, ".pack")
	if !ok {
		hash, ok = strings.CutSuffix(rest, ".idx")
	}
	return ok && isHex(hash, 40, 64)
}

// packNames returns the base names ("pack-<hash>") of the packs whose index
// is in place: git renames a pack's .idx into place last.
func packNames(repo string) (map[string]bool, error) {
	entries, err := os.ReadDir(filepath.Join(repo, "objects", "pack"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		if base, ok := strings.CutSuffix(e.Name(), ".idx"); ok && isPack("objects/pack/"+e.Name()) {
			out[base] = true
		}
	}
	return out, nil
}

// snapshotObjects records the refs of repo, then opens every object file of
// its store. Objects are immutable and new ones appear by rename, so the
// files opened hold every object the refs reach unless git removed some
// meanwhile: a pack seen before the refs were recorded and gone after the
// loose objects were listed, or a listed file gone before it was opened.
// Both return repackedError{}. Open files stay readable whatever happens to
// their names later.
func snapshotObjects(ctx context.Context, inst Instance, repo string) (*objectSnapshot, error) {
	before, err := packNames(repo)
	if err != nil {
		return nil, err
	}
	refs, err := inst.Git.Command("for-each-ref", "--format=%(objectname) %(refname)").Repo(repo).Output(ctx)
	if err != nil {
		return nil, err
	}
	s := &objectSnapshot{refs: refs}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	open := func(name string) error {
		f, err := os.Open(filepath.Join(repo, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			return repackedError{}
		}
		if err != nil {
			return err
		}
		s.files = append(s.files, snapFile{name, f})
		return nil
	}
	// Loose objects first: one packed meanwhile is in a pack listed below.
	dirs, err := os.ReadDir(filepath.Join(repo, "objects"))
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if len(d.Name()) != 2 || !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(repo, "objects", d.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, repackedError{}
		}
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			name := "objects/" + d.Name() + "/" + f.Name()
			if !isLoose(name) { // temporary files
				continue
			}
			if err := open(name); err != nil {
				return nil, err
			}
		}
	}
	after, err := packNames(repo)
	if err != nil {
		return nil, err
	}
	for p := range before {
		if !after[p] {
			return nil, repackedError{}
		}
	}
	packs := make([]string, 0, len(after))
	for p := range after {
		packs = append(packs, p)
	}
	sort.Strings(packs)
	for _, p := range packs {
		// The pack before its index: restore places them in this order.
		if err := open("objects/pack/" + p + ".pack"); err != nil {
			return nil, err
		}
		if err := open("objects/pack/" + p + ".idx"); err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

// dumpRepo writes repository id: its object format, config and HEAD, its
// object store and last its refs. The object store is copied as files
// (packs and loose objects, see snapshotObjects); when git repacks it during
// every attempt, or it borrows objects from elsewhere (alternates), the refs
// are recorded again and exactly the objects they reach are packed with git
// pack-objects instead.
func dumpRepo(ctx context.Context, inst Instance, a *archive, id int64) error {
	path := filepath.Join(inst.Paths.Repos, strconv.FormatInt(id, 10)+".git")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("the repository's directory is missing (deleted during the dump? run it again): %w", err)
	}
	prefix := "repositories/" + strconv.FormatInt(id, 10) + ".git/"
	format, err := inst.Git.Command("rev-parse", "--show-object-format").Repo(path).Output(ctx)
	if err != nil {
		return err
	}
	if err := a.writeBytes(prefix+"object-format", bytes.TrimSpace(format)); err != nil {
		return err
	}
	for _, name := range []string{"config", "HEAD"} {
		b, err := os.ReadFile(filepath.Join(path, name))
		if err != nil {
			return err
		}
		if err := a.writeBytes(prefix+name, b); err != nil {
			return err
		}
	}
	var snap *objectSnapshot
	if _, err := os.Stat(filepath.Join(path, "objects", "info", "alternates")); errors.Is(err, fs.ErrNotExist) {
		for range objectCopyAttempts {
			snap, err = snapshotObjects(ctx, inst, path)
			if err == nil {
				break
			}
			if !errors.As(err, &repackedError{}) {
				return err
			}
		}
	}
	if snap == nil {
		fmt.Fprintf(inst.Log, "repository %d: the object store changed during the copy, packing it instead\n", id)
		return packRepo(ctx, inst, a, path, prefix)
	}
	defer snap.close()
	for _, sf := range snap.files {
		if err := a.writeFile(prefix+sf.name, sf.f); err != nil {
			return err
		}
	}
	return a.writeBytes(prefix+"refs", snap.refs)
}

// packRepo records the refs of the repository at path, then packs exactly
// the objects they reach: objects are only ever added, and a ref recorded
// here points at objects present now.
func packRepo(ctx context.Context, inst Instance, a *archive, path, prefix string) error {
	refs, err := inst.Git.Command("for-each-ref", "--format=%(objectname) %(refname)").Repo(path).Output(ctx)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(refs)) > 0 {
		tips := map[string]bool{}
		var stdin bytes.Buffer
		for _, l := range strings.Split(strings.TrimSpace(string(refs)), "\n") {
			oid, _, _ := strings.Cut(l, " ")
			if !tips[oid] {
				tips[oid] = true
				stdin.WriteString(oid + "\n")
			}
		}
		f, err := os.CreateTemp(inst.Paths.TempDir, "dump-*.pack")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		// Packed objects and deltas are copied as they are; loose ones are
		// compressed at git's loose-object level, without a delta search.
		err = inst.Git.Command("pack-objects", "--stdout", "--revs", "--delta-base-offset", "--window=0", "-q").
			Config("pack.compression", "1").Repo(path).Stdin(&stdin).Stdout(f).Run(ctx)
		if err != nil {
			return err
		}
		if err := a.writeFile(prefix+"objects.pack", f); err != nil {
			return err
		}
	}
	return a.writeBytes(prefix+"refs", refs)
}

// restoreRepoEntry handles one file of a dumped repository; entries come in
// the order Dump writes them (object-format, config, HEAD, the object store
// files or objects.pack, refs).
func restoreRepoEntry(ctx context.Context, inst Instance, dir, file string, r io.Reader) error {
	switch {
	case file == "object-format":
		b, err := io.ReadAll(io.LimitReader(r, 64))
		if err != nil {
			return err
		}
		if _, err := os.Stat(dir); err == nil {
			return fmt.Errorf("%s already exists", dir)
		}
		return inst.Git.Command("init", "--bare", "-q").Option("--object-format", strings.TrimSpace(string(b))).Paths(dir).Run(ctx)
	case file == "config" || file == "HEAD":
		return placeFile(filepath.Join(dir, file), r, 0o644)
	case isLoose(file) || isPack(file):
		return placeFile(filepath.Join(dir, filepath.FromSlash(file)), r, 0o444)
	case file == "objects.pack":
		return inst.Git.Command("index-pack", "--stdin").Repo(dir).Stdin(r).Stdout(io.Discard).Run(ctx)
	case file == "refs":
		// "<oid> <ref>" lines are the packed-refs format.
		return placeFile(filepath.Join(dir, "packed-refs"), r, 0o644)
	}
	return fmt.Errorf("unexpected file %q", file)
}

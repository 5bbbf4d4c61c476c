package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What `cairn doctor` inspects in the repositories directory. These
// functions take the directory itself, not a Service, so the doctor can run
// without building (or migrating) anything.

// DirIDs returns the repository directories under root (<id>.git) by id.
// A missing root holds none.
func DirIDs(root string) (map[int64]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return map[int64]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[int64]string{}
	for _, e := range entries {
		if !e.IsDir() || !repoDirName.MatchString(e.Name()) {
			continue
		}
		id, err := strconv.ParseInt(strings.TrimSuffix(e.Name(), ".git"), 10, 64)
		if err != nil {
			continue
		}
		out[id] = filepath.Join(root, e.Name())
	}
	return out, nil
}

// MoveAside moves the directory dir into lostFound (created when missing)
// under its own name with a UTC time suffix, so nothing is ever overwritten,
// and returns the new path.
func MoveAside(dir, lostFound string, now time.Time) (string, error) {
	if err := os.MkdirAll(lostFound, 0o750); err != nil {
		return "", err
	}
	dst := filepath.Join(lostFound, filepath.Base(dir)+"."+now.UTC().Format("20060102T150405Z"))
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = filepath.Join(lostFound, fmt.Sprintf("%s.%s-%d", filepath.Base(dir), now.UTC().Format("20060102T150405Z"), i))
	}
	if err := os.Rename(dir, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// StaleQuarantine lists the push quarantine directories of the repositories
// under root in which nothing was modified at or after cutoff: what
// SweepQuarantine would remove.
func StaleQuarantine(ctx context.Context, root string, cutoff time.Time) ([]string, error) {
	dirs, err := DirIDs(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, repoDir := range dirs {
		objects := filepath.Join(repoDir, "objects")
		if fi, err := os.Lstat(objects); err != nil || !fi.IsDir() {
			continue
		}
		entries, err := os.ReadDir(objects)
		if err != nil {
			return out, err
		}
		for _, e := range entries {
			if !e.IsDir() || !quarantineName.MatchString(e.Name()) {
				continue
			}
			dir := filepath.Join(objects, e.Name())
			fresh, _, err := inspectQuarantine(ctx, dir, cutoff)
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			if errors.Is(err, fs.ErrNotExist) || err == nil && fresh {
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, dir)
		}
	}
	return out, nil
}

// SweepStaleQuarantine removes what StaleQuarantine lists (the sweep that
// `cairn serve` runs), for repositories under root.
func SweepStaleQuarantine(ctx context.Context, root string, cutoff time.Time) (QuarantineSweep, error) {
	return sweepQuarantine(ctx, root, cutoff)
}

// topLockFiles are the lock files git takes at the top of a bare repository.
var topLockFiles = []string{"packed-refs.lock", "config.lock", "index.lock", "HEAD.lock", "shallow.lock"}

// StaleLocks lists git's lock files in the repositories under root (every
// *.lock under refs/, and packed-refs.lock, config.lock, index.lock,
// HEAD.lock, shallow.lock) last modified before cutoff. A git process that
// was killed leaves them, and git then refuses to update the ref or file.
// Symbolic links are neither followed nor listed.
func StaleLocks(ctx context.Context, root string, cutoff time.Time) ([]string, error) {
	dirs, err := DirIDs(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, repoDir := range dirs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		for _, name := range topLockFiles {
			p := filepath.Join(repoDir, name)
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && !modifiedSince(fi.ModTime(), cutoff) {
				out = append(out, p)
			}
		}
		refs := filepath.Join(repoDir, "refs")
		if fi, err := os.Lstat(refs); err != nil || !fi.IsDir() {
			continue
		}
		err := filepath.WalkDir(refs, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".lock") {
				return nil
			}
			fi, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !modifiedSince(fi.ModTime(), cutoff) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// RemoveStaleLock removes the lock file path if it is still a regular file
// last modified before cutoff (it is looked at again just before), and
// reports whether it did.
func RemoveStaleLock(path string, cutoff time.Time) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || modifiedSince(fi.ModTime(), cutoff) {
		return false, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

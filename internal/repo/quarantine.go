package repo

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// Push quarantine: git receive-pack writes the objects of a push into a
// temporary directory inside objects/ and moves them in only once the hooks
// accept the push. A git process killed midway (kill -9 of the server with its
// children, a power loss) leaves that directory behind, and nothing else
// removes it: the sweep below does, at start-up and periodically.

var (
	repoDirName = regexp.MustCompile(`^[0-9]+\.git$`)
	// quarantineName matches git's temporary object directories:
	// tmp_objdir-<purpose>-XXXXXX since git 2.36 ("incoming" for pushes,
	// "bulk-fsync", "remerge-diff"), incoming-XXXXXX before.
	quarantineName = regexp.MustCompile(`^(tmp_objdir-[a-z0-9-]+|incoming)-[A-Za-z0-9]{6}$`)
)

// QuarantineSweep is what one sweep removed.
type QuarantineSweep struct {
	Dirs  int
	Bytes int64
}

// SweepQuarantine removes, in every repository, the quarantine directories
// in which nothing (the directory itself included) was modified at or after
// cutoff.
func (s *Service) SweepQuarantine(ctx context.Context, cutoff time.Time) (QuarantineSweep, error) {
	return sweepQuarantine(ctx, s.root, cutoff)
}

// RunQuarantineSweeper removes what a previous process left (nothing
// modified since started, the start of this process), then every `every`
// the directories untouched for maxAge; maxAge <= 0 keeps only the start-up
// sweep. It returns when ctx ends.
func (s *Service) RunQuarantineSweeper(ctx context.Context, started time.Time, every, maxAge time.Duration) {
	sweep := func(cutoff time.Time, when string) {
		res, err := s.SweepQuarantine(ctx, cutoff)
		if res.Dirs > 0 {
			slog.Info("removed stale push quarantine directories", "sweep", when, "count", res.Dirs, "bytes", res.Bytes)
		}
		if err != nil && ctx.Err() == nil {
			slog.Warn("push quarantine sweep", "err", err)
		}
	}
	sweep(started, "start-up")
	if maxAge <= 0 {
		return
	}
	if every <= 0 {
		every = 10 * time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			sweep(now.Add(-maxAge), "periodic")
		}
	}
}

// sweepQuarantine removes the stale quarantine directories of the
// repositories under root (<id>.git). Symbolic links are never followed: a
// repository, objects/ or quarantine entry that is a link is left alone, and
// links inside a removed directory are removed, not their targets. Problems
// with one directory are logged and the sweep goes on.
func sweepQuarantine(ctx context.Context, root string, cutoff time.Time) (QuarantineSweep, error) {
	var res QuarantineSweep
	repos, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	for _, r := range repos {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if !r.IsDir() || !repoDirName.MatchString(r.Name()) {
			continue
		}
		objects := filepath.Join(root, r.Name(), "objects")
		if fi, err := os.Lstat(objects); err != nil || !fi.IsDir() {
			continue
		}
		entries, err := os.ReadDir(objects)
		if err != nil {
			slog.Warn("push quarantine sweep: read objects directory", "path", objects, "err", err)
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || !quarantineName.MatchString(e.Name()) {
				continue
			}
			dir := filepath.Join(objects, e.Name())
			fresh, size, err := inspectQuarantine(ctx, dir, cutoff)
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue // git finished with it meanwhile
			}
			if err != nil {
				slog.Warn("push quarantine sweep: inspect", "path", dir, "err", err)
				continue
			}
			if fresh {
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				slog.Warn("push quarantine sweep: remove", "path", dir, "err", err)
				continue
			}
			slog.Debug("removed stale push quarantine directory", "path", dir, "bytes", size)
			res.Dirs++
			res.Bytes += size
		}
	}
	return res, nil
}

// inspectQuarantine reports whether anything under dir (dir included) was
// modified at or after cutoff, and otherwise the size of its regular files.
// It looks at links without following them.
func inspectQuarantine(ctx context.Context, dir string, cutoff time.Time) (fresh bool, size int64, err error) {
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if modifiedSince(fi.ModTime(), cutoff) {
			fresh = true
			return fs.SkipAll
		}
		if fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	return fresh, size, err
}

// modifiedSince reports whether mtime is at or after cutoff. A time without
// a fraction of a second may come from a file system that keeps whole (or
// even two) seconds, so it counts as up to two seconds later than it reads.
func modifiedSince(mtime, cutoff time.Time) bool {
	if mtime.Nanosecond() == 0 {
		mtime = mtime.Add(2 * time.Second)
	}
	return !mtime.Before(cutoff)
}

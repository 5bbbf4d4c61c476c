package release

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/storage"
)

// Create records a release. The tag of a published release must already
// exist (rel.SHA1 set by the caller, who created it); a tag-only row of the
// same tag becomes the release. 409 when the tag already has a release.
func (s *Service) Create(ctx context.Context, rel *Release) error {
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		old, err := s.GetByTag(ctx, rel.RepoID, rel.TagName)
		switch {
		case errs.IsNotFound(err):
			if rel.Created.IsZero() {
				rel.Created = time.Now()
			}
			rel.ID, err = s.db.Insert(ctx, `INSERT INTO releases (repo_id, publisher_id, tag_name, lower_tag_name, target, title,
				sha1, num_commits, note, is_draft, is_prerelease, is_tag, created_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				rel.RepoID, rel.PublisherID, rel.TagName, strings.ToLower(rel.TagName), rel.Target, rel.Title, rel.SHA1,
				rel.NumCommits, rel.Note, rel.IsDraft, rel.IsPrerelease, rel.IsTag, rel.Created.Unix())
			if db.IsUniqueViolation(err) {
				return errs.Conflict("release already exists [tag: %s]", rel.TagName)
			}
			if err != nil {
				return err
			}
		case err != nil:
			return err
		case !old.IsTag:
			return errs.Conflict("release already exists [tag: %s]", rel.TagName)
		default:
			rel.ID, rel.Created = old.ID, time.Now()
			if rel.SHA1 == "" {
				rel.SHA1, rel.NumCommits = old.SHA1, old.NumCommits
			}
			if err := s.save(ctx, rel); err != nil {
				return err
			}
		}
		if err := s.updateCount(ctx, rel.RepoID); err != nil {
			return err
		}
		if rel.IsDraft || rel.IsTag {
			return nil
		}
		return s.notify(ctx, Event{Kind: EventPublished, Release: rel, DoerID: rel.PublisherID})
	})
	return err
}

func (s *Service) save(ctx context.Context, rel *Release) error {
	_, err := s.db.Exec(ctx, `UPDATE releases SET publisher_id = ?, tag_name = ?, lower_tag_name = ?, target = ?, title = ?, sha1 = ?,
		num_commits = ?, note = ?, is_draft = ?, is_prerelease = ?, is_tag = ?, created_unix = ? WHERE id = ?`,
		rel.PublisherID, rel.TagName, strings.ToLower(rel.TagName), rel.Target, rel.Title, rel.SHA1, rel.NumCommits, rel.Note,
		rel.IsDraft, rel.IsPrerelease, rel.IsTag, rel.Created.Unix(), rel.ID)
	if db.IsUniqueViolation(err) {
		return errs.Conflict("release already exists [tag: %s]", rel.TagName)
	}
	return err
}

// Update saves an edited release; wasDraft is its state before the edit (a
// draft that is no longer one is published: its creation time becomes now).
func (s *Service) Update(ctx context.Context, doerID int64, rel *Release, wasDraft bool) error {
	published := wasDraft && !rel.IsDraft
	if published {
		rel.Created = time.Now()
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		// A tag-only row of a new tag name gives way to the release.
		if _, err := s.db.Exec(ctx, "DELETE FROM releases WHERE repo_id = ? AND tag_name = ? AND is_tag = ? AND id <> ?",
			rel.RepoID, rel.TagName, true, rel.ID); err != nil {
			return err
		}
		if err := s.save(ctx, rel); err != nil {
			return err
		}
		if err := s.updateCount(ctx, rel.RepoID); err != nil {
			return err
		}
		kind := EventUpdated
		if published {
			kind = EventPublished
		}
		return s.notify(ctx, Event{Kind: kind, Release: rel, DoerID: doerID})
	})
	return err
}

// Delete deletes a release and its assets; its tag stays. A release whose
// tag exists becomes a tag-only row, as Gitea does.
func (s *Service) Delete(ctx context.Context, doerID int64, rel *Release) error {
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		var err error
		if rel.SHA1 != "" && !rel.IsDraft {
			_, err = s.db.Exec(ctx, "UPDATE releases SET is_tag = ?, is_draft = ?, is_prerelease = ? WHERE id = ?", true, false, false, rel.ID)
		} else {
			_, err = s.db.Exec(ctx, "DELETE FROM releases WHERE id = ?", rel.ID)
		}
		if err != nil {
			return err
		}
		if err := s.dropAssets(ctx, "release_id = ?", rel.ID); err != nil {
			return err
		}
		if err := s.updateCount(ctx, rel.RepoID); err != nil {
			return err
		}
		return s.notify(ctx, Event{Kind: EventDeleted, Release: rel, DoerID: doerID})
	})
	return err
}

// dropAssets deletes the attachment rows matching where and removes their
// files once the transaction has committed.
func (s *Service) dropAssets(ctx context.Context, where string, args ...any) error {
	list, err := s.issues.ListAttachments(ctx, "WHERE "+where, args...)
	if err != nil || len(list) == 0 {
		return err
	}
	if _, err := s.db.Exec(ctx, "DELETE FROM attachment WHERE "+where, args...); err != nil {
		return err
	}
	db.AfterCommit(ctx, func() {
		for _, at := range list {
			if err := s.files.Delete(context.WithoutCancel(ctx), at.UUID); err != nil && !errors.Is(err, storage.ErrNotFound) {
				slog.Warn("release: could not remove an asset file", "uuid", at.UUID, "err", err)
			}
		}
	})
	return nil
}

// DeleteRepoData removes the releases of a deleted repository and their
// asset files (a repository delete hook).
func (s *Service) DeleteRepoData(ctx context.Context, r *repo.Repository) error {
	if err := s.dropAssets(ctx, "release_id <> 0 AND repo_id = ?", r.ID); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "DELETE FROM releases WHERE repo_id = ?", r.ID)
	return err
}

// TagReader reads a tag of a repository (git.Git.GetTag with the path).
type TagReader func(ctx context.Context, r *repo.Repository, name string) (git.Tag, error)

// PushListener keeps releases in step with tags, as Gitea's push handling
// does: a new tag without a release gets a tag-only row, a moved tag updates
// its release's commit, and a deleted tag removes its tag-only row and turns
// its release back into a draft.
func (s *Service) PushListener(readTag TagReader) repo.PushListener {
	return func(ctx context.Context, r *repo.Repository, req hooks.Request) {
		changed := false
		for _, u := range req.Updates {
			name, ok := strings.CutPrefix(u.Ref, git.TagPrefix)
			if !ok {
				continue
			}
			var err error
			if strings.Trim(u.NewSHA, "0") == "" {
				err = s.tagDeleted(ctx, r.ID, name)
			} else {
				err = s.tagPushed(ctx, r, req.PusherID, name, readTag)
			}
			if err != nil {
				slog.Error("release: recording a tag change", "repo", r.ID, "tag", name, "err", err)
			}
			changed = true
		}
		if changed {
			if err := s.updateCount(ctx, r.ID); err != nil {
				slog.Error("release: counting releases", "repo", r.ID, "err", err)
			}
		}
	}
}

func (s *Service) tagDeleted(ctx context.Context, repoID int64, name string) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM releases WHERE repo_id = ? AND tag_name = ? AND is_tag = ?", repoID, name, true); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "UPDATE releases SET is_draft = ?, sha1 = '', num_commits = 0 WHERE repo_id = ? AND tag_name = ?", true, repoID, name)
	return err
}

func (s *Service) tagPushed(ctx context.Context, r *repo.Repository, pusher int64, name string, readTag TagReader) error {
	t, err := readTag(ctx, r, name)
	if err != nil {
		return err
	}
	rel, err := s.GetByTag(ctx, r.ID, name)
	if err == nil {
		_, err = s.db.Exec(ctx, "UPDATE releases SET sha1 = ? WHERE id = ?", t.CommitSHA, rel.ID)
		return err
	}
	if !errs.IsNotFound(err) {
		return err
	}
	created := time.Now()
	if t.Tagger != nil && !t.Tagger.When.IsZero() {
		created = t.Tagger.When
	}
	err = s.Create(ctx, &Release{RepoID: r.ID, PublisherID: pusher, TagName: name, SHA1: t.CommitSHA, IsTag: true, Created: created})
	if errs.Is(err, errs.KindConflict) {
		return nil // recorded meanwhile
	}
	return err
}

// AssetLimits are the [repository.release] settings an upload must meet.
type AssetLimits = issue.AttachmentLimits

// CheckAssetName refuses names with path separators, "..", or that
// attachments refuse (empty, control characters, too long).
func CheckAssetName(name string) (string, error) {
	if strings.ContainsAny(name, "/\\") || strings.Contains(name, "..") {
		return "", errs.InvalidField("name", "[Name]: must not contain path separators or \"..\"")
	}
	return issue.CleanAttachmentName(name)
}

// UploadAsset streams body to storage as a new asset of rel: 422 for a
// refused name or type, 413 over the size limit; nothing is kept on failure.
func (s *Service) UploadAsset(ctx context.Context, uploaderID int64, rel *Release, name string, body io.Reader, lim AssetLimits) (*issue.Attachment, error) {
	name, err := CheckAssetName(name)
	if err != nil {
		return nil, err
	}
	key, size, err := issue.StoreUpload(ctx, s.files, name, body, lim)
	if err != nil {
		return nil, err
	}
	at := &issue.Attachment{UUID: key, RepoID: rel.RepoID, ReleaseID: rel.ID, UploaderID: uploaderID, Name: name, Size: size, Created: time.Now()}
	if err := s.issues.InsertUploaded(ctx, at); err != nil {
		return nil, err
	}
	return at, nil
}

// GetAsset loads asset id of rel (404 when it belongs elsewhere).
func (s *Service) GetAsset(ctx context.Context, rel *Release, id int64) (*issue.Attachment, error) {
	at, err := s.issues.GetAttachment(ctx, id)
	if err == nil && (at.ReleaseID != rel.ID || at.RepoID != rel.RepoID) {
		err = errs.NotFound("attachment does not exist [id: %d]", id)
	}
	return at, err
}

// RenameAsset renames an asset; the name is checked as at upload.
func (s *Service) RenameAsset(ctx context.Context, at *issue.Attachment, name string, allowed []string) error {
	name, err := CheckAssetName(name)
	if err != nil {
		return err
	}
	return s.issues.RenameAttachment(ctx, at, name, allowed)
}

// DeleteAsset deletes an asset and its file.
func (s *Service) DeleteAsset(ctx context.Context, at *issue.Attachment) error {
	return s.issues.DeleteAttachment(ctx, at)
}

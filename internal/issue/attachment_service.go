package issue

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/storage"
	"github.com/cairn-forge/cairn/internal/user"
)

// AttachmentStore is where attachment files are kept, under their UUIDs.
type AttachmentStore = storage.Store

// SetAttachmentStorage sets the file store of attachments; call it only while wiring.
func (s *Service) SetAttachmentStorage(st AttachmentStore) { s.files = st }

// AttachmentLimits are the [attachment] settings an upload must meet.
type AttachmentLimits struct {
	// AllowedTypes lists extensions (".png"), MIME types ("image/png") and
	// wildcards ("image/*", "*/*"); empty allows everything.
	AllowedTypes []string
	// MaxSize is the largest file in bytes; negative means no limit.
	MaxSize int64
}

// LimitsMiB are the limits of a configuration that gives the largest file
// in MiB (negative: no limit), as [attachment] and [repository.release] do.
func LimitsMiB(allowedTypes []string, maxMiB int64) AttachmentLimits {
	lim := AttachmentLimits{AllowedTypes: allowedTypes, MaxSize: -1}
	if maxMiB >= 0 {
		lim.MaxSize = maxMiB << 20
	}
	return lim
}

// MaxAttachmentNameLength bounds an attachment's name, in characters.
const MaxAttachmentNameLength = 255

// sniffLength is how much of a file decides its detected type.
const sniffLength = 512

// CleanAttachmentName keeps the last element of a client-supplied file name
// and checks it: not empty, no control characters, at most 255 characters.
func CleanAttachmentName(name string) (string, error) {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." {
		return "", errs.InvalidField("name", "[Name]: Required (the attachment needs a file name)")
	}
	if !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", errs.InvalidField("name", "[Name]: must not contain control characters")
	}
	if utf8.RuneCountInString(name) > MaxAttachmentNameLength {
		return "", errs.InvalidField("name", "[Name]: MaxSize (at most %d characters)", MaxAttachmentNameLength)
	}
	return name, nil
}

// DetectType returns the media type sniffed from the head of a file.
func DetectType(head []byte) string {
	mt, _, err := mime.ParseMediaType(http.DetectContentType(head))
	if err != nil {
		return "application/octet-stream"
	}
	return mt
}

// CheckAttachmentType refuses (422) a file whose extension and sniffed type
// are both outside allowed. With an empty head only extensions (and "*/*")
// can allow it, as when a file is renamed.
func CheckAttachmentType(allowed []string, name string, head []byte) error {
	var entries []string
	for _, e := range allowed {
		for _, part := range strings.Split(e, "|") {
			if part = strings.ToLower(strings.TrimSpace(part)); part != "" {
				entries = append(entries, part)
			}
		}
	}
	if len(entries) == 0 {
		return nil
	}
	ext := strings.ToLower(path.Ext(name))
	mt := ""
	if len(head) > 0 {
		mt = DetectType(head)
	}
	for _, e := range entries {
		switch {
		case e == "*/*":
			return nil
		case strings.HasPrefix(e, "."):
			if e == ext {
				return nil
			}
		case mt == "":
		case e == mt:
			return nil
		case strings.HasSuffix(e, "/*") && strings.HasPrefix(mt, e[:len(e)-1]):
			return nil
		}
	}
	what := fmt.Sprintf("extension %q", ext)
	if mt != "" {
		what += fmt.Sprintf(", type %q", mt)
	}
	return errs.InvalidField("attachment", "this file cannot be uploaded: its %s is not allowed (allowed: %s)", what, strings.Join(entries, ", "))
}

// UploadAttachment stores body as a new attachment of issue is (c nil) or
// of comment c. The file is streamed to storage (never held in memory), its
// size counted on the way; a forbidden type answers 422 and a file over the
// limit 413, and nothing is kept in either case. Read errors of body are
// returned wrapped, so the caller can recognise its own.
func (s *Service) UploadAttachment(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, c *Comment, name string, body io.Reader, lim AttachmentLimits) (*Attachment, error) {
	if s.files == nil {
		return nil, errors.New("attachment storage is not configured")
	}
	name, err := CleanAttachmentName(name)
	if err != nil {
		return nil, err
	}
	key, size, err := StoreUpload(ctx, s.files, name, body, lim)
	if err != nil {
		return nil, err
	}
	at := &Attachment{UUID: key, RepoID: r.ID, IssueID: is.ID, UploaderID: doer.ID, Name: name, Size: size, Created: time.Now()}
	if c != nil {
		at.CommentID = c.ID
	}
	if err := s.InsertUploaded(ctx, at); err != nil {
		return nil, err
	}
	return at, nil
}

// StoreUpload streams body into files under a new random key: its type
// (by name and first bytes) must be allowed by lim (422) and its size
// within lim.MaxSize (413). Nothing is kept when it fails. Read errors of
// body are returned wrapped, so the caller can recognise its own.
func StoreUpload(ctx context.Context, files storage.Store, name string, body io.Reader, lim AttachmentLimits) (key string, size int64, err error) {
	head := make([]byte, sniffLength)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", 0, fmt.Errorf("reading the upload: %w", err)
	}
	head = head[:n]
	if err := CheckAttachmentType(lim.AllowedTypes, name, head); err != nil {
		return "", 0, err
	}
	key = uuid.NewString()
	size, err = files.Put(ctx, key, &limitedReader{r: io.MultiReader(bytes.NewReader(head), body), left: lim.MaxSize})
	if err != nil {
		if derr := files.Delete(context.WithoutCancel(ctx), key); derr != nil && !errors.Is(derr, storage.ErrNotFound) {
			slog.Warn("attachment: could not remove a partial upload", "uuid", key, "err", derr)
		}
		if errors.Is(err, errTooLarge) {
			return "", 0, &errs.Error{Kind: errs.KindTooLarge, Message: fmt.Sprintf("attachment exceeds limit %d", lim.MaxSize)}
		}
		return "", 0, fmt.Errorf("storing the upload: %w", err)
	}
	return key, size, nil
}

// InsertUploaded records at, whose file StoreUpload stored, and sets its
// id; the file is removed when the row cannot be written.
func (s *Service) InsertUploaded(ctx context.Context, at *Attachment) error {
	var err error
	at.ID, err = s.db.Insert(ctx, `INSERT INTO attachment (uuid, repo_id, issue_id, comment_id, release_id, uploader_id, name,
		download_count, size, created_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		at.UUID, at.RepoID, at.IssueID, at.CommentID, at.ReleaseID, at.UploaderID, at.Name, 0, at.Size, at.Created.Unix())
	if err != nil && s.files != nil {
		if derr := s.files.Delete(context.WithoutCancel(ctx), at.UUID); derr != nil {
			slog.Warn("attachment: could not remove the file of a failed upload", "uuid", at.UUID, "err", derr)
		}
	}
	return err
}

// errTooLarge marks a file over the size limit (reported as a 413 error).
var errTooLarge = errors.New("attachment too large")

// limitedReader fails with errTooLarge once more than left bytes were read
// (left < 0: no limit).
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return l.r.Read(p)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

func (s *Service) getAttachment(ctx context.Context, what, where string, args ...any) (*Attachment, error) {
	at, err := scanAttachment(s.db.QueryRow(ctx, "SELECT "+AttachmentColumns+" FROM attachment a WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("attachment does not exist [%s]", what)
	}
	return at, err
}

// GetAttachment loads an attachment by id.
func (s *Service) GetAttachment(ctx context.Context, id int64) (*Attachment, error) {
	return s.getAttachment(ctx, "id: "+itoa(id), "a.id = ?", id)
}

// GetAttachmentByUUID loads an attachment by its UUID.
func (s *Service) GetAttachmentByUUID(ctx context.Context, uuid string) (*Attachment, error) {
	if !storage.ValidKey(uuid) {
		return nil, errs.NotFound("attachment does not exist [uuid: %s]", uuid)
	}
	return s.getAttachment(ctx, "uuid: "+uuid, "a.uuid = ?", uuid)
}

// RenameAttachment changes an attachment's name; the new extension must be
// allowed (the content was checked at upload).
func (s *Service) RenameAttachment(ctx context.Context, at *Attachment, name string, allowed []string) error {
	name, err := CleanAttachmentName(name)
	if err != nil {
		return err
	}
	if err := CheckAttachmentType(allowed, name, nil); err != nil {
		return err
	}
	if _, err := s.db.Exec(ctx, "UPDATE attachment SET name = ? WHERE id = ?", name, at.ID); err != nil {
		return err
	}
	at.Name = name
	return nil
}

// DeleteAttachment removes an attachment and then its file.
func (s *Service) DeleteAttachment(ctx context.Context, at *Attachment) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM attachment WHERE id = ?", at.ID); err != nil {
		return err
	}
	if s.files != nil {
		if err := s.files.Delete(context.WithoutCancel(ctx), at.UUID); err != nil {
			slog.Warn("attachment: could not remove the file", "uuid", at.UUID, "err", err)
		}
	}
	return nil
}

// dropAttachments deletes the attachments matching where (a condition on the
// attachment table) and removes their files once the surrounding transaction
// has committed, so a rollback never loses a file.
func (s *Service) dropAttachments(ctx context.Context, where string, args ...any) error {
	rows, err := s.db.Query(ctx, "SELECT uuid FROM attachment WHERE "+where, args...)
	if err != nil {
		return err
	}
	var uuids []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			rows.Close()
			return err
		}
		uuids = append(uuids, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(uuids) == 0 {
		return nil
	}
	if _, err := s.db.Exec(ctx, "DELETE FROM attachment WHERE "+where, args...); err != nil {
		return err
	}
	if s.files != nil {
		db.AfterCommit(ctx, func() {
			for _, u := range uuids {
				if err := s.files.Delete(context.WithoutCancel(ctx), u); err != nil && !errors.Is(err, storage.ErrNotFound) {
					slog.Warn("attachment: could not remove the file", "uuid", u, "err", err)
				}
			}
		})
	}
	return nil
}

// OpenAttachment opens the file of an attachment.
func (s *Service) OpenAttachment(ctx context.Context, at *Attachment) (storage.Object, storage.Info, error) {
	if s.files == nil {
		return nil, storage.Info{}, errors.New("attachment storage is not configured")
	}
	info, err := s.files.Stat(ctx, at.UUID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, info, errs.NotFound("attachment file is missing [uuid: %s]", at.UUID)
	}
	if err != nil {
		return nil, info, err
	}
	f, err := s.files.Open(ctx, at.UUID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, info, errs.NotFound("attachment file is missing [uuid: %s]", at.UUID)
	}
	return f, info, err
}

// CountDownload adds one to an attachment's download count.
func (s *Service) CountDownload(ctx context.Context, at *Attachment) error {
	_, err := s.db.Exec(ctx, "UPDATE attachment SET download_count = download_count + 1 WHERE id = ?", at.ID)
	if err == nil {
		at.DownloadCount++
	}
	return err
}

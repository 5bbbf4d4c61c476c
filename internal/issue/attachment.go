package issue

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// Attachment is a file uploaded to an issue, a comment or a release.
type Attachment struct {
	ID            int64
	UUID          string
	RepoID        int64
	IssueID       int64
	CommentID     int64
	ReleaseID     int64
	UploaderID    int64
	Name          string
	DownloadCount int64
	Size          int64
	Created       time.Time
}

// AttachmentColumns is the select list scanAttachment reads, for alias "a".
const AttachmentColumns = "a.id, a.uuid, a.repo_id, a.issue_id, a.comment_id, a.release_id, a.uploader_id, a.name, a.download_count, a.size, a.created_unix"

func scanAttachment(row scanner) (*Attachment, error) {
	at := &Attachment{}
	var created int64
	if err := row.Scan(&at.ID, &at.UUID, &at.RepoID, &at.IssueID, &at.CommentID, &at.ReleaseID, &at.UploaderID, &at.Name,
		&at.DownloadCount, &at.Size, &created); err != nil {
		return nil, err
	}
	at.Created = time.Unix(created, 0)
	return at, nil
}

// ListAttachments selects attachments with the given tail (over alias a).
func (s *Service) ListAttachments(ctx context.Context, tail string, args ...any) ([]*Attachment, error) {
	rows, err := s.db.Query(ctx, "SELECT "+AttachmentColumns+" FROM attachment a "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Attachment
	for rows.Next() {
		at, err := scanAttachment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, at)
	}
	return out, rows.Err()
}

// AttachmentsOfIssues returns the attachments of issue bodies (not of their comments) in one query.
func (s *Service) AttachmentsOfIssues(ctx context.Context, issueIDs []int64) (map[int64][]*Attachment, error) {
	out := map[int64][]*Attachment{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	list, err := s.ListAttachments(ctx, "WHERE a.comment_id = 0 AND a.issue_id IN "+db.In(len(issueIDs))+" ORDER BY a.id", db.Int64Args(issueIDs)...)
	for _, at := range list {
		out[at.IssueID] = append(out[at.IssueID], at)
	}
	return out, err
}

// AttachmentsOfComments returns the attachments of many comments in one query.
func (s *Service) AttachmentsOfComments(ctx context.Context, commentIDs []int64) (map[int64][]*Attachment, error) {
	out := map[int64][]*Attachment{}
	if len(commentIDs) == 0 {
		return out, nil
	}
	list, err := s.ListAttachments(ctx, "WHERE a.comment_id IN "+db.In(len(commentIDs))+" ORDER BY a.id", db.Int64Args(commentIDs)...)
	for _, at := range list {
		out[at.CommentID] = append(out[at.CommentID], at)
	}
	return out, err
}

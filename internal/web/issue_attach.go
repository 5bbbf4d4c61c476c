package web

import (
	"io"
	"mime/multipart"
	"net/http"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
)

// issueAttachmentLimits are the [attachment] limits in bytes.
func (h *Handler) issueAttachmentLimits() issue.AttachmentLimits {
	return issue.LimitsMiB(h.Config.Attachment.AllowedTypes, h.Config.Attachment.MaxSize)
}

// issueFormFiles are the files chosen in the form field "files" (none when the
// form is not multipart or no file was chosen).
func issueFormFiles(r *http.Request) []*multipart.FileHeader {
	if r.MultipartForm == nil {
		return nil
	}
	return r.MultipartForm.File["files"]
}

// checkIssueUploads checks files against the [attachment] settings before
// anything is created: attachments on, not too many, each within the size
// limit, with a clean name and an allowed type.
func (h *Handler) checkIssueUploads(files []*multipart.FileHeader) error {
	if !h.Config.Attachment.Enabled {
		return errs.Forbidden("Attachments are disabled on this instance.")
	}
	if max := h.Config.Attachment.MaxFiles; max > 0 && len(files) > max {
		return errs.InvalidField("files", "at most %d files can be attached at once", max)
	}
	lim := h.issueAttachmentLimits()
	for _, fh := range files {
		name, err := issue.CleanAttachmentName(fh.Filename)
		if err != nil {
			return err
		}
		if lim.MaxSize >= 0 && fh.Size > lim.MaxSize {
			return &errs.Error{Kind: errs.KindTooLarge, Message: "the file " + name + " is larger than the limit of " + fileSize(lim.MaxSize)}
		}
		f, err := fh.Open()
		if err != nil {
			return err
		}
		head := make([]byte, 512)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if err := issue.CheckAttachmentType(lim.AllowedTypes, name, head[:n]); err != nil {
			return err
		}
	}
	return nil
}

// storeIssueUploads stores files as attachments of the issue (cm nil) or of
// comment cm, through the attachment service's upload path.
func (h *Handler) storeIssueUploads(r *http.Request, c *issueCtx, cm *issue.Comment, files []*multipart.FileHeader) error {
	lim := h.issueAttachmentLimits()
	for _, fh := range files {
		f, err := fh.Open()
		if err != nil {
			return err
		}
		_, err = h.Issues.UploadAttachment(r.Context(), c.doer, c.rc.Repo, c.issue, cm, fh.Filename, f, lim)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

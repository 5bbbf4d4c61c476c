package web

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// issueCtx is the issue or pull request a page or form is about, in its
// repository, with the visitor's rights on it.
type issueCtx struct {
	rc    *repoCtx
	issue *issue.Issue
	// unit is the unit the issue belongs to (pull requests: the pulls unit).
	unit string
	// doer is the signed-in visitor, or nil.
	doer *user.User
}

// issueUnitOf is the unit of an issue: pull requests live in the pulls unit.
func issueUnitOf(is *issue.Issue) string {
	if is.IsPull {
		return repo.UnitPulls
	}
	return repo.UnitIssues
}

// issueUnitReadable reports whether unit is on and readable by the visitor.
func issueUnitReadable(rc *repoCtx, unit string) bool {
	return rc.Repo.HasUnit(unit) && rc.Perm.CanRead(unit)
}

// loadIssue loads issue {index} of the route's repository; one the visitor
// may not read (its unit off or unreadable) is not found, like a missing one.
func (h *Handler) loadIssue(r *http.Request) (*issueCtx, error) {
	rc, err := h.loadRepo(r)
	if err != nil {
		return nil, err
	}
	raw := chi.URLParam(r, "index")
	idx, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || idx <= 0 {
		return nil, errs.NotFound("issue does not exist [index: %s]", raw)
	}
	is, err := h.Issues.GetByIndex(r.Context(), rc.Repo.ID, idx)
	if err != nil {
		return nil, err
	}
	unit := issueUnitOf(is)
	if !issueUnitReadable(rc, unit) {
		return nil, issue.ErrIndexNotExist(rc.Repo.ID, idx)
	}
	rc.Tab = "issues"
	if is.IsPull {
		rc.Tab = "pulls"
	}
	return &issueCtx{rc: rc, issue: is, unit: unit, doer: doer(r)}, nil
}

// link is the issue's page, /owner/repo/issues/N or /owner/repo/pulls/N.
func (c *issueCtx) link() string { return issueLink(c.rc.Link, c.issue) }

// issueLink is the page of is in the repository at repoLink.
func issueLink(repoLink string, is *issue.Issue) string {
	kind := "/issues/"
	if is.IsPull {
		kind = "/pulls/"
	}
	return repoLink + kind + strconv.FormatInt(is.Index, 10)
}

// writer reports whether the visitor may change the issue's metadata
// (labels, milestone, assignees, others' issues): write access to its unit,
// which an archived repository grants nobody.
func (c *issueCtx) writer() bool { return c.doer != nil && c.rc.Perm.CanWrite(c.unit) }

// isPoster reports whether the visitor opened the issue.
func (c *issueCtx) isPoster() bool { return c.doer != nil && c.doer.ID == c.issue.PosterID }

// canEdit reports whether the visitor may change the title, body and state:
// writers, and the poster while the conversation is not locked.
func (c *issueCtx) canEdit() bool {
	if c.doer == nil || c.rc.Repo.IsArchived {
		return false
	}
	return c.writer() || (c.isPoster() && !c.issue.IsLocked)
}

// canComment reports whether the visitor may comment: anyone signed in who
// reads the issue, except on a locked conversation (writers only) or in an
// archived repository.
func (c *issueCtx) canComment() bool {
	if c.doer == nil || c.rc.Repo.IsArchived {
		return false
	}
	return !c.issue.IsLocked || c.writer()
}

// canAdmin reports whether the visitor administers the repository (lock,
// pin), which an archived repository allows nobody.
func (c *issueCtx) canAdmin() bool {
	return c.doer != nil && !c.rc.Repo.IsArchived && c.rc.Perm.IsAdmin()
}

// canChangeComment reports whether the visitor may edit or delete comment c:
// its poster or a writer, as the API rules.
func (c *issueCtx) canChangeComment(cm *issue.Comment) bool {
	if c.doer == nil || c.rc.Repo.IsArchived {
		return false
	}
	return c.writer() || (c.doer.ID == cm.PosterID && (!c.issue.IsLocked || c.writer()))
}

// refuse is the error of a change the visitor may not make: archived
// repositories and locked conversations say so.
func (c *issueCtx) refuse(what string) error {
	switch {
	case c.doer == nil:
		return errs.Unauthorized("sign in first")
	case c.rc.Repo.IsArchived:
		return errs.Forbidden("This repository is archived: its issues and pull requests cannot be changed.")
	case c.issue.IsLocked && !c.writer():
		return errs.Forbidden("This conversation is locked: only collaborators can %s.", what)
	}
	return errs.Forbidden("You may not %s.", what)
}

// issueBack finishes a form: a domain refusal of what the visitor asked (bad
// input, a rule) is shown as a flash error on the page at back; anything
// else (missing, forbidden, our failure) is returned for fail.
func (h *Handler) issueBack(w http.ResponseWriter, r *http.Request, back string, err error) error {
	if err != nil {
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind == errs.KindInternal || e.Kind == errs.KindNotFound || e.Kind == errs.KindUnauthorized {
			return err
		}
		h.flash(w, "error", errMessage(err, "The change was refused."))
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// issueDone redirects to back with a success message.
func (h *Handler) issueDone(w http.ResponseWriter, r *http.Request, back, msg string) error {
	if msg != "" {
		h.flash(w, "success", msg)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// issueOrgID is the organization owning the repository (its labels are
// usable there), or 0.
func issueOrgID(rc *repoCtx) int64 {
	if rc.Owner.IsOrganization() {
		return rc.Owner.ID
	}
	return 0
}

// issueLabelView is a label as pages show it: the colour is checked to be six
// hex digits, so it can go into an SVG fill attribute (the CSP forbids
// inline styles).
type issueLabelView struct {
	ID          int64
	Name        string
	Description string
	Color       string // "#rrggbb"
	Archived    bool
	// Checked marks the labels of the issue in a form.
	Checked bool
}

var issueHexColor = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

// toIssueLabel prepares l for a page.
func toIssueLabel(l *issue.Label) issueLabelView {
	c := strings.TrimPrefix(l.Color, "#")
	if !issueHexColor.MatchString(c) {
		c = "888888"
	}
	return issueLabelView{ID: l.ID, Name: l.Name, Description: l.Description, Color: "#" + strings.ToLower(c), Archived: l.IsArchived()}
}

// toIssueLabels prepares many labels.
func toIssueLabels(list []*issue.Label) []issueLabelView {
	out := make([]issueLabelView, 0, len(list))
	for _, l := range list {
		out = append(out, toIssueLabel(l))
	}
	return out
}

// issueUserOr returns the user of id in users, or the ghost of deleted accounts.
func issueUserOr(users map[int64]*user.User, id int64) *user.User {
	if u, ok := users[id]; ok {
		return u
	}
	return user.Ghost()
}

// issueFormIDs reads the int64 values of a form field given as repeated values
// or comma-separated lists; blanks and non-numbers are refused.
func issueFormIDs(r *http.Request, field string) ([]int64, error) {
	var out []int64
	for _, v := range r.PostForm[field] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil || id < 0 {
				return nil, errs.InvalidField(field, "invalid id %q", part)
			}
			out = append(out, id)
		}
	}
	return out, nil
}

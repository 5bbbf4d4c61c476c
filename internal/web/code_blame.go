package web

import (
	"context"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
)

// codeBlamePage is the data of repo_blame.tmpl.
type codeBlamePage struct {
	Ref    *codeRef
	Crumbs []codeCrumb
	File   *codeFile
	// Groups are runs of lines last changed by the same commit; Message
	// says why there are none (binary, too large).
	Groups  []*codeBlameGroup
	Message string
	// SourceURL is the file's page.
	SourceURL string
}

// codeBlameGroup is a run of consecutive lines of one commit.
type codeBlameGroup struct {
	Commit    *git.BlameCommit
	CommitURL string
	// First is the first line (its row holds the commit), Rest the rows of
	// the others, built once; Count the number of lines.
	First codeLine
	Rest  template.HTML
	Count int
}

// blame serves /blame/{kind}/{ref}/{path}: each line of a file with the
// commit that last changed it, streamed from git blame and codeHighlighted.
func (c *codePages) blame(kind string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, repoPath, ref, err := c.loadRef(r, kind)
		if err != nil {
			return err
		}
		ctx := r.Context()
		e, err := c.h.Git.GetTreeEntry(ctx, repoPath, ref.Commit, ref.Path)
		if err != nil {
			return gitNotFound(err)
		}
		if e.Type != git.TypeBlob {
			return errs.NotFound("not a file")
		}
		page := &codeBlamePage{Ref: ref, Crumbs: codeCrumbs(rc, ref, ref.Path), SourceURL: rc.Link + "/src/" + ref.PathURL(ref.Path),
			File: &codeFile{Name: e.Name, Size: e.Size, RawURL: rc.Link + "/raw/" + ref.PathURL(ref.Path)}}
		title := "Blame " + ref.Path + " at " + ref.ShortName()
		if e.Size > codeMaxDisplay {
			page.Message = "This file is too large to blame here."
			return c.h.renderRepo(w, r, http.StatusOK, "repo_blame", title, rc, page)
		}
		b := c.blob(ctx, repoPath, e.SHA)
		kind, err := c.kind(b, e.Name, e.IsSymlink())
		if err != nil {
			return err
		}
		if kind != codeKindText {
			page.Message = "This is a binary file: it has no lines to blame."
			return c.h.renderRepo(w, r, http.StatusOK, "repo_blame", title, rc, page)
		}
		hl, err := c.highlight(b, e.Name)
		if err != nil {
			return err
		}
		groups, err := c.blameGroups(ctx, rc.Repo.ID, repoPath, ref.Commit, ref.Path, hl)
		if err != nil {
			return err
		}
		for _, g := range groups {
			g.CommitURL = rc.Link + "/commit/" + g.Commit.SHA
			page.Groups = append(page.Groups, &g)
		}
		return c.h.renderRepo(w, r, http.StatusOK, "repo_blame", title, rc, page)
	}
}

// codeBlameCacheLines bounds the blame cache: this many lines in all.
const codeBlameCacheLines = 500_000

// blameGroups runs git blame on path at commit and groups its lines by
// commit, each line's HTML taken from the highlighted file; cached, since a
// commit's blame never changes.
func (c *codePages) blameGroups(ctx context.Context, repoID int64, repoPath, commit, path string, hl *codeHighlighted) ([]codeBlameGroup, error) {
	key := strconv.FormatInt(repoID, 10) + "\x00" + commit + "\x00" + path
	if g, ok := c.blameCache.get(key); ok {
		return g, nil
	}
	var groups []codeBlameGroup
	var rest strings.Builder
	lines := 0
	flush := func() {
		if n := len(groups); n > 0 {
			groups[n-1].Rest = template.HTML(rest.String()) // #nosec: rows of escaped lines
			rest.Reset()
		}
	}
	err := c.h.Git.Blame(ctx, repoPath, commit, path, func(l git.BlameLine) error {
		html := template.HTML(template.HTMLEscapeString(l.Text)) // #nosec: escaped
		if l.Number >= 1 && l.Number <= len(hl.Lines) {
			html = hl.Lines[l.Number-1]
		}
		lines++
		if n := len(groups); n > 0 && groups[n-1].Commit == l.Commit {
			groups[n-1].Count++
			writeCodeRow(&rest, l.Number, html)
			return nil
		}
		flush()
		groups = append(groups, codeBlameGroup{Commit: l.Commit, First: codeLine{Num: l.Number, HTML: html}, Count: 1})
		return nil
	})
	if err != nil {
		return nil, gitNotFound(err)
	}
	flush()
	c.blameCache.put(key, groups, lines+len(groups))
	return groups, nil
}

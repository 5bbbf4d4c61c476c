package repo

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/user"
)

// GenerateOptions describes a repository made from a template.
type GenerateOptions struct {
	Name          string
	Description   string
	Private       bool
	DefaultBranch string
	// GitContent copies the files of the template's default branch as one
	// new initial commit (no history of the template).
	GitContent bool
	// Topics copies the template's topics.
	Topics bool
	// Labels copies the template's issue labels.
	Labels bool
}

// Generate creates a repository of owner from the template repository tmpl.
// On failure nothing is left.
func (s *Service) Generate(ctx context.Context, doer, owner *user.User, tmpl *Repository, o GenerateOptions) (*Repository, error) {
	if !tmpl.IsTemplate {
		return nil, errs.Invalid("this is not a template repo")
	}
	branch := o.DefaultBranch
	if branch == "" {
		branch = tmpl.DefaultBranch
	}
	r, err := s.Create(ctx, doer, owner, CreateOptions{
		Name: o.Name, Description: o.Description, DefaultBranch: branch, ObjectFormat: tmpl.ObjectFormat,
		Private: o.Private, TemplateID: tmpl.ID,
	})
	if err != nil {
		return nil, err
	}
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), copyTimeout)
	defer cancel()
	path := s.Path(r)
	if err := s.Git.InitBare(gctx, path, git.InitOptions{DefaultBranch: r.DefaultBranch, ObjectFormat: r.ObjectFormat}); err != nil {
		return nil, s.abandon(ctx, r, err)
	}
	if o.GitContent && !tmpl.IsEmpty {
		if err := s.copyTemplateContent(gctx, doer, tmpl, r); err != nil {
			return nil, s.abandon(ctx, r, err)
		}
	}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		now := db.Now()
		if o.Topics {
			if _, err := s.db.Exec(ctx, "INSERT INTO repo_topic (repo_id, topic, created_unix) SELECT ?, topic, ? FROM repo_topic WHERE repo_id = ?",
				r.ID, now, tmpl.ID); err != nil {
				return err
			}
		}
		if o.Labels {
			if _, err := s.db.Exec(ctx, `INSERT INTO label (repo_id, org_id, name, exclusive, description, color, created_unix, updated_unix)
				SELECT ?, 0, name, exclusive, description, color, ?, ? FROM label WHERE repo_id = ? AND archived_unix = 0`,
				r.ID, now, now, tmpl.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.abandon(ctx, r, err)
	}
	if err := s.finishCopy(gctx, r, r.DefaultBranch); err != nil {
		return nil, s.abandon(ctx, r, err)
	}
	return s.GetByID(ctx, r.ID)
}

// copyTemplateContent makes, in r, one commit whose tree is the tree of the
// template's default branch. The template's objects are borrowed through a
// temporary alternate only while the commit is written and then packed into
// r, which ends up self-contained.
func (s *Service) copyTemplateContent(ctx context.Context, doer *user.User, tmpl, r *Repository) error {
	src, dst := s.Path(tmpl), s.Path(r)
	if !git.ValidBranchName(tmpl.DefaultBranch) {
		return errs.Invalid("template has an invalid default branch %q", tmpl.DefaultBranch)
	}
	out, err := s.Git.Command("rev-parse", "--verify", "--quiet").EndOfOptions().
		Values("refs/heads/" + tmpl.DefaultBranch + "^{tree}").Repo(src).Output(ctx)
	if err != nil {
		// The template's default branch does not exist: nothing to copy.
		return nil
	}
	tree := strings.TrimSpace(string(out))
	if !git.IsSHA(tree) {
		return errs.Invalid("cannot read the tree of template %s", tmpl.FullName())
	}
	// The copy gets the same path checks as any other write.
	if err := s.Git.CheckTreePaths(ctx, src, tree); err != nil {
		var dotgit *git.DotGitError
		if errors.As(err, &dotgit) {
			return errs.Invalid("template %s: %s", tmpl.FullName(), dotgit.Message())
		}
		if errors.Is(err, git.ErrInvalidArgument) {
			return errs.Invalid("template %s has a path git refuses: %s", tmpl.FullName(),
				strings.TrimPrefix(err.Error(), git.ErrInvalidArgument.Error()+": "))
		}
		return err
	}
	alt := "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(src, "objects")
	sig := s.Signature(doer)
	date := sig.When.Format("2006-01-02T15:04:05-0700")
	env := []string{alt,
		"GIT_AUTHOR_NAME=" + sig.Name, "GIT_AUTHOR_EMAIL=" + sig.Email, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=" + sig.Name, "GIT_COMMITTER_EMAIL=" + sig.Email, "GIT_COMMITTER_DATE=" + date,
	}
	var sign func([]byte) (string, error)
	if s.signing != nil {
		if sign, err = s.signing.Initial(ctx, doer); err != nil {
			return err
		}
	}
	if sign != nil {
		// Signed by INITIAL_COMMIT, as a new repository's first commit.
		commit, err := s.Git.SignAndWriteCommit(ctx, dst, []string{alt}, git.CommitPayload(tree, nil, sig, sig, "Initial commit\n"), sign)
		if err != nil {
			return err
		}
		out = []byte(commit)
	} else if out, err = s.Git.Command("commit-tree").Env(env...).Values(tree).
		Stdin(strings.NewReader("Initial commit\n")).Repo(dst).Output(ctx); err != nil {
		return err
	}
	commit := strings.TrimSpace(string(out))
	if !git.IsSHA(commit) {
		return errs.Invalid("unexpected output of git commit-tree")
	}
	if err := s.Git.Command("update-ref").Values("refs/heads/"+r.DefaultBranch, commit).Repo(dst).Run(ctx); err != nil {
		return err
	}
	// Copy every object the new commit needs into r, then check that r
	// stands on its own.
	if err := s.Git.Command("repack", "-a", "-d", "-q").Env(alt).Repo(dst).Run(ctx); err != nil {
		return err
	}
	return s.Git.Command("fsck", "--connectivity-only", "--no-dangling", "--no-progress").Repo(dst).Run(ctx)
}

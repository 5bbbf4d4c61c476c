package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Reference name prefixes.
const (
	BranchPrefix = "refs/heads/"
	TagPrefix    = "refs/tags/"
)

// ListOptions selects a page of a list. Skip entries are skipped, then at
// most Limit are returned; Limit <= 0 returns all the rest.
type ListOptions struct {
	Skip  int
	Limit int
}

// take reports whether the i-th entry (0-based) of the full list is on the page.
func (o ListOptions) take(i int) bool {
	if i < o.Skip {
		return false
	}
	return o.Limit <= 0 || i < o.Skip+o.Limit
}

// Branch is a branch and the commit at its tip.
type Branch struct {
	// Name is the short name ("main").
	Name   string
	Commit Commit
}

// Tag is a tag, annotated or lightweight.
type Tag struct {
	// Name is the short name ("v1.0").
	Name string
	// ObjectSHA is what the reference points to: the tag object of an
	// annotated tag, the target of a lightweight one.
	ObjectSHA string
	// ObjectType is the type of ObjectSHA ("tag" for annotated tags).
	ObjectType string
	// CommitSHA is the commit the tag points to after peeling one
	// annotated tag; empty when that is not a commit.
	CommitSHA string
	// Annotated reports an annotated tag; Message and Tagger are set only
	// for those.
	Annotated bool
	Message   string
	Tagger    *Signature
}

// for-each-ref formats: every field ends in %00, so records are N
// NUL-terminated fields followed by the newline for-each-ref adds.
const (
	branchFormat = "--format=%(refname)%00%(objectname)%00%(tree)%00%(parent)%00" +
		"%(authorname)%00%(authoremail:trim)%00%(authordate:raw)%00" +
		"%(committername)%00%(committeremail:trim)%00%(committerdate:raw)%00%(contents)%00"
	branchFields = 11
	tagFormat    = "--format=%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)%00" +
		"%(taggername)%00%(taggeremail:trim)%00%(taggerdate:raw)%00%(contents)%00"
	tagFields = 9
)

func branchFromRecord(f []string) Branch {
	return Branch{
		Name: strings.TrimPrefix(f[0], BranchPrefix),
		Commit: Commit{
			SHA:       f[1],
			Tree:      f[2],
			Parents:   splitParents(f[3]),
			Author:    signatureFields(f[4], f[5], f[6]),
			Committer: signatureFields(f[7], f[8], f[9]),
			Message:   f[10],
		},
	}
}

func tagFromRecord(f []string) Tag {
	t := Tag{
		Name:       strings.TrimPrefix(f[0], TagPrefix),
		ObjectType: f[1],
		ObjectSHA:  f[2],
	}
	switch {
	case f[1] == "tag":
		t.Annotated = true
		t.Message = f[8]
		if f[5] != "" || f[6] != "" {
			sig := signatureFields(f[5], f[6], f[7])
			t.Tagger = &sig
		}
		if f[3] == "commit" {
			t.CommitSHA = f[4]
		}
	case f[1] == "commit":
		t.CommitSHA = f[2]
	}
	return t
}

// forEachRef streams for-each-ref records to fn.
func (g *Git) forEachRef(ctx context.Context, repoPath string, format, sort Arg, fields int, patterns []string, fn func([]string) error) error {
	cmd := g.repoCommand(repoPath, "for-each-ref", format, sort).EndOfOptions().Values(patterns...)
	out, err := cmd.Stream(ctx)
	if err != nil {
		return err
	}
	defer out.Close()
	rr := newRecordReader(out, fields)
	for {
		rec, err := rr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// ListBranches returns a page of the branches sorted by name, and the total
// number of branches. All refs are parsed as a stream; only the page is kept.
func (g *Git) ListBranches(ctx context.Context, repoPath string, opts ListOptions) ([]Branch, int, error) {
	var page []Branch
	total := 0
	err := g.forEachRef(ctx, repoPath, branchFormat, "--sort=refname", branchFields, []string{BranchPrefix}, func(f []string) error {
		if opts.take(total) {
			page = append(page, branchFromRecord(f))
		}
		total++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// GetBranch returns one branch, or ErrNotFound.
func (g *Git) GetBranch(ctx context.Context, repoPath, name string) (Branch, error) {
	if err := checkBranch("branch", name); err != nil {
		return Branch{}, err
	}
	var found *Branch
	full := BranchPrefix + name
	err := g.forEachRef(ctx, repoPath, branchFormat, "--sort=refname", branchFields, []string{full}, func(f []string) error {
		if f[0] == full {
			b := branchFromRecord(f)
			found = &b
		}
		return nil
	})
	if err != nil {
		return Branch{}, err
	}
	if found == nil {
		return Branch{}, fmt.Errorf("%w: branch %q", ErrNotFound, name)
	}
	return *found, nil
}

// ListTags returns a page of the tags, newest first, and the total number of
// tags. All refs are parsed as a stream; only the page is kept.
func (g *Git) ListTags(ctx context.Context, repoPath string, opts ListOptions) ([]Tag, int, error) {
	var page []Tag
	total := 0
	err := g.forEachRef(ctx, repoPath, tagFormat, "--sort=-creatordate", tagFields, []string{TagPrefix}, func(f []string) error {
		if opts.take(total) {
			page = append(page, tagFromRecord(f))
		}
		total++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// GetTag returns one tag, or ErrNotFound.
func (g *Git) GetTag(ctx context.Context, repoPath, name string) (Tag, error) {
	if err := checkBranch("tag", name); err != nil {
		return Tag{}, err
	}
	var found *Tag
	full := TagPrefix + name
	err := g.forEachRef(ctx, repoPath, tagFormat, "--sort=refname", tagFields, []string{full}, func(f []string) error {
		if f[0] == full {
			t := tagFromRecord(f)
			found = &t
		}
		return nil
	})
	if err != nil {
		return Tag{}, err
	}
	if found == nil {
		return Tag{}, fmt.Errorf("%w: tag %q", ErrNotFound, name)
	}
	return *found, nil
}

// ResolveRef returns the full object name rev points to (rev-parse
// --verify), without peeling tags. ErrNotFound when it names nothing.
func (g *Git) ResolveRef(ctx context.Context, repoPath, rev string) (string, error) {
	if err := checkRevision(rev); err != nil {
		return "", err
	}
	return g.revParse(ctx, repoPath, rev)
}

// ResolveCommit returns the full name of the commit rev points to, peeling
// tags. ErrNotFound when rev names no commit.
func (g *Git) ResolveCommit(ctx context.Context, repoPath, rev string) (string, error) {
	if err := checkRevision(rev); err != nil {
		return "", err
	}
	return g.revParse(ctx, repoPath, rev+"^{commit}")
}

// revParse resolves an already validated revision with rev-parse --verify.
func (g *Git) revParse(ctx context.Context, repoPath, rev string) (string, error) {
	out, err := g.repoCommand(repoPath, "rev-parse", "--verify", "--quiet").EndOfOptions().Values(rev).Output(ctx)
	if err != nil {
		if exitCode(err) == 1 || stderrHas(err, "Needed a single revision", "unknown revision") {
			return "", fmt.Errorf("%w: revision %q", ErrNotFound, rev)
		}
		return "", err
	}
	sha := strings.TrimSpace(string(out))
	if !IsSHA(sha) {
		return "", fmt.Errorf("%w: revision %q", ErrNotFound, rev)
	}
	return sha, nil
}

// refUpdate is one instruction of an update-ref --stdin -z transaction.
type refUpdate struct {
	ref    string
	newSHA string // "" for delete
	oldSHA string // "" for create (must not exist); for update, "" means no check
	create bool
}

// updateRefs applies ref updates atomically, mapping git's refusals to
// ErrAlreadyExists / ErrConflict / ErrNotFound.
func (g *Git) updateRefs(ctx context.Context, repoPath string, updates ...refUpdate) error {
	var in bytes.Buffer
	for _, u := range updates {
		if strings.ContainsRune(u.ref, 0) || strings.ContainsRune(u.newSHA, 0) || strings.ContainsRune(u.oldSHA, 0) {
			return fmt.Errorf("%w: ref update", ErrInvalidArgument)
		}
		switch {
		case u.create:
			fmt.Fprintf(&in, "create %s\x00%s\x00", u.ref, u.newSHA)
		case u.newSHA == "":
			fmt.Fprintf(&in, "delete %s\x00%s\x00", u.ref, u.oldSHA)
		default:
			fmt.Fprintf(&in, "update %s\x00%s\x00%s\x00", u.ref, u.newSHA, u.oldSHA)
		}
	}
	err := g.repoCommand(repoPath, "update-ref", "--stdin", "-z").Stdin(&in).Run(ctx)
	switch {
	case err == nil:
		return nil
	case stderrHas(err, "reference already exists"):
		return fmt.Errorf("%w: %w", ErrAlreadyExists, err)
	case stderrHas(err, "but expected", "reference is missing", "unable to resolve reference",
		"exists; cannot create", "cannot lock ref", "is at "):
		return fmt.Errorf("%w: %w", ErrConflict, err)
	}
	return err
}

// CreateBranch creates branch name at the commit startRev resolves to and
// returns that commit. ErrAlreadyExists when the branch exists, ErrNotFound
// when startRev names no commit.
func (g *Git) CreateBranch(ctx context.Context, repoPath, name, startRev string) (string, error) {
	if err := checkBranch("branch", name); err != nil {
		return "", err
	}
	sha, err := g.ResolveCommit(ctx, repoPath, startRev)
	if err != nil {
		return "", err
	}
	if err := g.updateRefs(ctx, repoPath, refUpdate{ref: BranchPrefix + name, newSHA: sha, create: true}); err != nil {
		return "", err
	}
	return sha, nil
}

// DeleteBranch deletes a branch. With expectedSHA set, it is deleted only
// while it still points there (ErrConflict otherwise). ErrNotFound when the
// branch does not exist.
func (g *Git) DeleteBranch(ctx context.Context, repoPath, name, expectedSHA string) error {
	if err := checkBranch("branch", name); err != nil {
		return err
	}
	return g.deleteRef(ctx, repoPath, BranchPrefix+name, expectedSHA)
}

// DeleteTag deletes a tag. With expectedSHA set (the tag's ObjectSHA), it is
// deleted only while it still points there. ErrNotFound when missing.
func (g *Git) DeleteTag(ctx context.Context, repoPath, name, expectedSHA string) error {
	if err := checkBranch("tag", name); err != nil {
		return err
	}
	return g.deleteRef(ctx, repoPath, TagPrefix+name, expectedSHA)
}

// deleteRef deletes a full reference name, checking its old value.
func (g *Git) deleteRef(ctx context.Context, repoPath, ref, expectedSHA string) error {
	current, err := g.revParse(ctx, repoPath, ref)
	if err != nil {
		return err
	}
	if expectedSHA == "" {
		expectedSHA = current
	} else if !IsSHA(expectedSHA) {
		return fmt.Errorf("%w: expected SHA %q", ErrInvalidArgument, expectedSHA)
	}
	return g.updateRefs(ctx, repoPath, refUpdate{ref: ref, oldSHA: expectedSHA})
}

// RenameBranch renames a branch in one transaction (the new name must not
// exist, the old one must not move meanwhile) and moves HEAD along when it
// pointed to the old branch.
func (g *Git) RenameBranch(ctx context.Context, repoPath, oldName, newName string) error {
	if err := checkBranch("branch", oldName); err != nil {
		return err
	}
	if err := checkBranch("branch", newName); err != nil {
		return err
	}
	if oldName == newName {
		return fmt.Errorf("%w: branch %q renamed to itself", ErrInvalidArgument, oldName)
	}
	sha, err := g.revParse(ctx, repoPath, BranchPrefix+oldName)
	if err != nil {
		return err
	}
	head, err := g.HeadBranch(ctx, repoPath)
	if err != nil {
		return err
	}
	err = g.updateRefs(ctx, repoPath,
		refUpdate{ref: BranchPrefix + newName, newSHA: sha, create: true},
		refUpdate{ref: BranchPrefix + oldName, oldSHA: sha},
	)
	if err != nil {
		return err
	}
	if head == oldName {
		return g.SetHeadBranch(ctx, repoPath, newName)
	}
	return nil
}

// HeadBranch returns the short name of the branch HEAD points to (which may
// not exist yet in an empty repository), or "" when HEAD is detached.
func (g *Git) HeadBranch(ctx context.Context, repoPath string) (string, error) {
	out, err := g.repoCommand(repoPath, "symbolic-ref", "--quiet", "HEAD").Output(ctx)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), BranchPrefix), nil
}

// SetHeadBranch points HEAD at a branch (the repository's default branch).
// The branch need not exist yet.
func (g *Git) SetHeadBranch(ctx context.Context, repoPath, name string) error {
	if err := checkBranch("branch", name); err != nil {
		return err
	}
	return g.repoCommand(repoPath, "symbolic-ref").EndOfOptions().Args("HEAD").Values(BranchPrefix + name).Run(ctx)
}

// CreateTagOptions describes a tag to create.
type CreateTagOptions struct {
	// Name is the short tag name.
	Name string
	// Target is a revision resolving to the commit to tag.
	Target string
	// Message makes the tag annotated when non-empty; Tagger is then
	// required (a zero When means now).
	Message string
	Tagger  *Signature
}

// CreateTag creates a lightweight tag, or an annotated one when a message is
// given. ErrAlreadyExists when the tag exists, ErrNotFound when the target
// names no commit.
func (g *Git) CreateTag(ctx context.Context, repoPath string, opts CreateTagOptions) (Tag, error) {
	if err := checkBranch("tag", opts.Name); err != nil {
		return Tag{}, err
	}
	commit, err := g.ResolveCommit(ctx, repoPath, opts.Target)
	if err != nil {
		return Tag{}, err
	}
	target := commit
	if opts.Message != "" {
		if opts.Tagger == nil {
			return Tag{}, fmt.Errorf("%w: an annotated tag needs a tagger", ErrInvalidArgument)
		}
		tagger := *opts.Tagger
		if err := tagger.check("tagger"); err != nil {
			return Tag{}, err
		}
		if tagger.When.IsZero() {
			tagger.When = g.now()
		}
		msg := opts.Message
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		obj := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger %s\n\n%s", commit, opts.Name, tagger, msg)
		out, err := g.repoCommand(repoPath, "mktag").Stdin(strings.NewReader(obj)).Output(ctx)
		if err != nil {
			return Tag{}, err
		}
		target = strings.TrimSpace(string(out))
	}
	if err := g.updateRefs(ctx, repoPath, refUpdate{ref: TagPrefix + opts.Name, newSHA: target, create: true}); err != nil {
		return Tag{}, err
	}
	return g.GetTag(ctx, repoPath, opts.Name)
}

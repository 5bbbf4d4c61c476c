package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
)

// NewCommits lists the commits a ref update from oldSHA to newSHA brings,
// newest first: reachable from newSHA and not from oldSHA, or, when oldSHA is
// zero or empty, from no existing ref (rev-list newSHA --not --all). env is
// given to git (a push's quarantine object directories).
func (g *Git) NewCommits(ctx context.Context, repoPath string, env []string, oldSHA, newSHA string) ([]string, error) {
	if !IsSHA(newSHA) {
		return nil, fmt.Errorf("git: %q is not an object name", newSHA)
	}
	var cmd *Cmd
	if oldSHA == "" || strings.Trim(oldSHA, "0") == "" {
		cmd = g.repoCommand(repoPath, "rev-list").Values(newSHA).Args("--not", "--all")
	} else {
		if !IsSHA(oldSHA) {
			return nil, fmt.Errorf("git: %q is not an object name", oldSHA)
		}
		cmd = g.repoCommand(repoPath, "rev-list").Values(newSHA, "^"+oldSHA)
	}
	out, err := cmd.Env(env...).Output(ctx)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// ReadCommitsEnv is ReadCommits with extra environment variables for git
// (a push's quarantine object directories): one git process for all revs.
func (g *Git) ReadCommitsEnv(ctx context.Context, repoPath string, env []string, revs []string) ([]CommitObject, error) {
	if len(revs) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, rev := range revs {
		if err := checkRevision(rev); err != nil {
			return nil, err
		}
		in.WriteString(rev + "^{commit}\n")
	}
	out, err := g.repoCommand(repoPath, "cat-file", "--batch").Env(env...).Stdin(&in).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	list := make([]CommitObject, 0, len(revs))
	for _, rev := range revs {
		sha, typ, data, err := readBatchObject(br)
		if err != nil {
			return nil, err
		}
		if typ != TypeCommit {
			return nil, fmt.Errorf("%w: commit %q", ErrNotFound, rev)
		}
		sig, payload := splitCommitSignature(data)
		c, err := parseCommit(sha, data)
		if err != nil {
			return nil, err
		}
		co := CommitObject{Commit: c, Signature: sig}
		if sig != "" {
			co.Payload = string(payload)
		}
		list = append(list, co)
	}
	return list, nil
}

// WriteSignedCommit stores a commit object made of payload (a commit object
// without signature, as git commit-tree would write it) and an armored
// signature in a gpgsig header, and returns its name. env is given to git.
func (g *Git) WriteSignedCommit(ctx context.Context, repoPath string, env []string, payload []byte, signature string) (string, error) {
	head, body, ok := bytes.Cut(payload, []byte("\n\n"))
	if !ok {
		head, body = bytes.TrimSuffix(payload, []byte("\n")), nil
	}
	var obj bytes.Buffer
	obj.Write(head)
	obj.WriteString("\ngpgsig")
	for _, line := range strings.Split(strings.TrimRight(signature, "\n"), "\n") {
		obj.WriteString(" " + line + "\n")
	}
	obj.WriteString("\n")
	obj.Write(body)
	out, err := g.repoCommand(repoPath, "hash-object", "-t", "commit", "-w", "--stdin").Env(env...).Stdin(&obj).Output(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// CommitPayload is the text of an unsigned commit object of tree with
// parents, as git commit-tree writes it: what a signature signs.
func CommitPayload(tree string, parents []string, author, committer Signature, message string) []byte {
	var b bytes.Buffer
	b.WriteString("tree " + tree + "\n")
	for _, p := range parents {
		b.WriteString("parent " + p + "\n")
	}
	b.WriteString("author " + author.String() + "\ncommitter " + committer.String() + "\n\n" + message)
	return b.Bytes()
}

// writeSignedCommitOf writes a commit of tree on parent ("" for a root
// commit) signed by sign.
func (g *Git) writeSignedCommitOf(ctx context.Context, repoPath, tree, parent string, author, committer Signature, msg string,
	sign func([]byte) (string, error)) (string, error) {
	if !IsSHA(tree) || (parent != "" && !IsSHA(parent)) {
		return "", fmt.Errorf("git: bad object name in commit")
	}
	if strings.ContainsAny(author.Name+author.Email+committer.Name+committer.Email, "<>\n") {
		return "", fmt.Errorf("git: bad identity in commit")
	}
	var parents []string
	if parent != "" {
		parents = []string{parent}
	}
	return g.SignAndWriteCommit(ctx, repoPath, nil, CommitPayload(tree, parents, author, committer, msg), sign)
}

// SignAndWriteCommit signs payload (a commit object without gpgsig header)
// with sign and writes the signed commit; env is given to git.
func (g *Git) SignAndWriteCommit(ctx context.Context, repoPath string, env []string, payload []byte, sign func([]byte) (string, error)) (string, error) {
	sig, err := sign(payload)
	if err != nil {
		return "", fmt.Errorf("git: signing the commit: %w", err)
	}
	sha, err := g.WriteSignedCommit(ctx, repoPath, env, payload, sig)
	if err != nil {
		return "", err
	}
	if !IsSHA(sha) {
		return "", fmt.Errorf("git: unexpected hash-object output %q", sha)
	}
	return sha, nil
}

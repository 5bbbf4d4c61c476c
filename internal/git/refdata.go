package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Ref is a reference and the object it points to.
type Ref struct {
	// Name is the full name ("refs/heads/main").
	Name string
	SHA  string
	// Type is the type of SHA ("commit", or "tag" for annotated tags).
	Type string
}

// WalkRefs streams the references whose full name starts with prefix (any
// string, e.g. "refs/heads/fea"; "" for all), sorted by name, to fn. HEAD is
// not a reference here. It stops at the first error fn returns.
func (g *Git) WalkRefs(ctx context.Context, repoPath, prefix string, fn func(Ref) error) error {
	if strings.ContainsAny(prefix, "\x00\n") {
		return fmt.Errorf("%w: reference prefix", ErrInvalidArgument)
	}
	cmd := g.repoCommand(repoPath, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)%00", "--sort=refname")
	// for-each-ref matches whole path components; ask for the directory
	// part of the prefix and filter the rest here. Glob characters are
	// never passed on.
	if dir := prefix[:strings.LastIndexByte(prefix, '/')+1]; dir != "" {
		if strings.ContainsAny(dir, "*?[\\") {
			return nil
		}
		cmd.EndOfOptions().Values(dir)
	}
	out, err := cmd.Stream(ctx)
	if err != nil {
		return err
	}
	defer out.Close()
	rr := newRecordReader(out, 3)
	for {
		f, err := rr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !strings.HasPrefix(f[0], prefix) {
			continue
		}
		if err := fn(Ref{Name: f[0], SHA: f[1], Type: f[2]}); err != nil {
			return err
		}
	}
}

// TagObject is a parsed annotated tag object.
type TagObject struct {
	SHA string
	// Object and ObjectType are what the tag points to directly.
	Object     string
	ObjectType string
	// Name is the tag name recorded in the object.
	Name   string
	Tagger *Signature
	// Message is the message without its signature.
	Message string
	// Signature is the armored signature appended to the message, if any.
	Signature string
	// Payload is the object without its signature: what the signature signs.
	Payload string
}

// ReadTagObject reads the annotated tag object sha (a full or abbreviated
// object name). ErrNotFound when it names nothing or something other than a
// tag object.
func (g *Git) ReadTagObject(ctx context.Context, repoPath, sha string) (TagObject, error) {
	if !isHexName(sha) {
		return TagObject{}, fmt.Errorf("%w: object name %q", ErrNotFound, sha)
	}
	out, err := g.repoCommand(repoPath, "cat-file", "--batch").Stdin(strings.NewReader(sha + "\n")).Output(ctx)
	if err != nil {
		return TagObject{}, err
	}
	name, typ, data, err := readBatchObject(bufio.NewReader(bytes.NewReader(out)))
	if err != nil {
		return TagObject{}, err
	}
	if typ != TypeTag {
		return TagObject{}, fmt.Errorf("%w: %q is not an annotated tag", ErrNotFound, sha)
	}
	return parseTagObject(name, data), nil
}

// signatureMarkers start a signature appended to a tag message.
var signatureMarkers = []string{"-----BEGIN PGP SIGNATURE-----", "-----BEGIN SSH SIGNATURE-----", "-----BEGIN SIGNED MESSAGE-----"}

// parseTagObject parses the body of a tag object.
func parseTagObject(sha string, data []byte) TagObject {
	t := TagObject{SHA: sha}
	rest := data
	for len(rest) > 0 {
		line, tail, found := bytes.Cut(rest, []byte{'\n'})
		rest = tail
		if len(line) == 0 {
			break
		}
		key, value, _ := strings.Cut(string(line), " ")
		switch key {
		case "object":
			t.Object = value
		case "type":
			t.ObjectType = value
		case "tag":
			t.Name = value
		case "tagger":
			sig := parseSignature(value)
			t.Tagger = &sig
		}
		if !found {
			rest = nil
		}
	}
	msg := string(rest)
	for _, m := range signatureMarkers {
		if i := strings.Index(msg, m); i >= 0 && (i == 0 || msg[i-1] == '\n') {
			t.Signature = msg[i:]
			t.Payload = string(data[:len(data)-len(msg)+i])
			msg = msg[:i]
			break
		}
	}
	t.Message = msg
	return t
}

// isHexName reports an abbreviated or full object name: 4 to 64 lower- or
// upper-case hexadecimal digits.
func isHexName(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// BundleCommit writes a bundle holding the history of one commit to w, with
// the single branch "bundle" and HEAD pointing at it. The repository is not
// modified: the bundle is made in a temporary repository that borrows its
// objects.
func (g *Git) BundleCommit(ctx context.Context, repoPath, commit string, w io.Writer) error {
	if !IsSHA(commit) {
		return fmt.Errorf("%w: commit name %q", ErrInvalidArgument, commit)
	}
	abs, err := absRepo(repoPath)
	if err != nil {
		return err
	}
	objects := filepath.Join(abs, "objects")
	if _, err := os.Stat(objects); err != nil {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	tmp, err := os.MkdirTemp(g.tempDir, "cairn-bundle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	format := Arg("--object-format=sha1")
	if len(commit) == 64 {
		format = "--object-format=sha256"
	}
	if err := g.Command("init", "--bare", "--quiet", "--template=", format).EndOfOptions().Values(tmp).Run(ctx); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "objects", "info", "alternates"), []byte(objects+"\n"), 0o644); err != nil {
		return err
	}
	if err := g.updateRefs(ctx, tmp, refUpdate{ref: BranchPrefix + "bundle", newSHA: commit, create: true}); err != nil {
		return err
	}
	if err := g.repoCommand(tmp, "symbolic-ref", "HEAD", BranchPrefix+"bundle").Run(ctx); err != nil {
		return err
	}
	return g.repoCommand(tmp, "bundle", "create", "--quiet", "-", BranchPrefix+"bundle", "HEAD").Stdout(w).Run(ctx)
}

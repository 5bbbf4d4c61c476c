// Package markup renders Markdown to HTML that is safe to show: GitHub
// Flavored Markdown (tables, task lists, strikethrough, autolinks) through
// goldmark, links for @mentions and #issue references in comments, and a
// sanitizer that runs last and keeps only harmless elements, attributes and
// URL schemes, whatever the input.
package markup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"path"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	xhtml "golang.org/x/net/html"
)

// Modes of rendering, with Gitea's names.
const (
	// ModeMarkdown renders a document: no hard line breaks, no reference links.
	ModeMarkdown = "markdown"
	// ModeComment renders an issue or comment body: line breaks are kept
	// and @mentions and #N references become links.
	ModeComment = "comment"
	// ModeGFM is the older name of ModeComment.
	ModeGFM = "gfm"
	// ModeWiki renders a wiki page (as a document, with reference links).
	ModeWiki = "wiki"
	// ModeFile renders a file by its extension (Markdown only).
	ModeFile = "file"
)

// ErrUnsupported is returned for a mode or file type that cannot be rendered.
type ErrUnsupported struct{ What string }

func (e ErrUnsupported) Error() string { return e.What }

// Options say how a text is rendered.
type Options struct {
	Mode string
	// RepoLink is the web address of the repository the text belongs to
	// ("https://host/owner/repo"); #N references link into it. Empty: no
	// reference links.
	RepoLink string
	// FilePath is the file being rendered in ModeFile.
	FilePath string
}

// MaxText is the largest text Render takes (ErrTooLarge beyond).
const MaxText = 1 << 20

// largeText is the size above which texts are rendered one at a time.
// Goldmark's time grows with the square of some inputs (unclosed link
// brackets, deep quote nesting: 40 KB of them take about a second), so
// crafted texts rendered side by side could hold every core; one at a time
// they hold at most one, while ordinary texts, far smaller, render at once.
const largeText = 64 << 10

// ErrTooLarge is returned for a text longer than MaxText.
var ErrTooLarge = errors.New("markup: the text is larger than 1 MiB")

// Renderer renders Markdown. It is safe for concurrent use.
type Renderer struct {
	document goldmark.Markdown
	comment  goldmark.Markdown
	policy   *bluemonday.Policy
	rootURL  string
	large    chan struct{} // a token for the one large render at a time
}

// New returns a renderer whose user links start with rootURL (ending in "/").
func New(rootURL string) *Renderer {
	ext := goldmark.WithExtensions(extension.GFM)
	// Raw HTML is passed to the sanitizer, which decides what survives.
	return &Renderer{
		document: goldmark.New(ext, goldmark.WithRendererOptions(gmhtml.WithUnsafe())),
		comment:  goldmark.New(ext, goldmark.WithRendererOptions(gmhtml.WithUnsafe(), gmhtml.WithHardWraps())),
		policy:   newPolicy(),
		rootURL:  rootURL,
		large:    make(chan struct{}, 1),
	}
}

// newPolicy is the sanitizer: bluemonday's policy for user content, plus the
// little GFM and Cairn's links need.
func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[\w.+#-]{1,40}$`)).OnElements("code")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^(mention|ref-issue)$`)).OnElements("a")
	// Task list items: disabled checkboxes only.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$|^checked$|^disabled$`)).OnElements("input")
	p.AllowElements("input", "kbd", "details", "summary")
	p.RequireNoFollowOnLinks(true)
	p.AllowURLSchemes("http", "https", "mailto")
	return p
}

// Render renders src. A text over largeText waits, as long as ctx allows,
// for the large renders before it.
func (r *Renderer) Render(ctx context.Context, src []byte, o Options) ([]byte, error) {
	if len(src) > MaxText {
		return nil, ErrTooLarge
	}
	if len(src) > largeText {
		select {
		case r.large <- struct{}{}:
			defer func() { <-r.large }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	md, links := r.document, false
	switch o.Mode {
	case "", ModeMarkdown:
	case ModeComment, ModeGFM:
		md, links = r.comment, true
	case ModeWiki:
		links = true
	case ModeFile:
		switch strings.ToLower(path.Ext(o.FilePath)) {
		case ".md", ".markdown", ".mdown", ".mkd", ".mkdn":
		default:
			return nil, ErrUnsupported{What: fmt.Sprintf("Unsupported render extension: %s", path.Ext(o.FilePath))}
		}
	default:
		return nil, ErrUnsupported{What: fmt.Sprintf("Unknown mode: %s", o.Mode)}
	}
	var buf bytes.Buffer
	if err := md.Convert(src, &buf); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	if links {
		out = r.linkReferences(out, o.RepoLink)
	}
	return r.policy.SanitizeBytes(out), nil
}

var (
	mentionPattern = regexp.MustCompile(`(^|[\s(\[{])@([0-9A-Za-z_](?:[0-9A-Za-z_.-]*[0-9A-Za-z_])?)\b`)
	issuePattern   = regexp.MustCompile(`(^|[\s(\[{])#([0-9]{1,10})\b`)
)

// linkReferences turns @name and #N in the text of doc (outside links and
// code) into links to the user and to the issue.
func (r *Renderer) linkReferences(doc []byte, repoLink string) []byte {
	z := xhtml.NewTokenizer(bytes.NewReader(doc))
	var out bytes.Buffer
	skip := 0 // depth inside a, code and pre
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return out.Bytes()
		case xhtml.StartTagToken, xhtml.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "a", "code", "pre":
				if tt == xhtml.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			}
		case xhtml.TextToken:
			if skip == 0 {
				out.WriteString(r.linkText(string(z.Text()), repoLink))
				continue
			}
		}
		out.Write(z.Raw())
	}
}

// linkText escapes text and links the references in it.
func (r *Renderer) linkText(text, repoLink string) string {
	s := html.EscapeString(text)
	s = mentionPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := mentionPattern.FindStringSubmatch(m)
		return fmt.Sprintf(`%s<a href="%s%s" class="mention">@%s</a>`, sub[1], r.rootURL, sub[2], sub[2])
	})
	if repoLink != "" {
		s = issuePattern.ReplaceAllStringFunc(s, func(m string) string {
			sub := issuePattern.FindStringSubmatch(m)
			return fmt.Sprintf(`%s<a href="%s/issues/%s" class="ref-issue">#%s</a>`, sub[1], html.EscapeString(repoLink), sub[2], sub[2])
		})
	}
	return s
}

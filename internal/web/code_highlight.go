package web

import (
	"html/template"
	"path"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// codeMaxHighlight is the largest file whose lines are highlighted; larger
// files (up to codeMaxDisplay) are shown as plain text.
const codeMaxHighlight = 512 << 10

// highlightCacheBytes bounds the cache of highlighted files.
const highlightCacheBytes = 64 << 20

// codeHighlighted is a file's lines as HTML, and the name of the language.
type codeHighlighted struct {
	Lines    []template.HTML
	Language string
	// Rows are the table rows of the file view, numbered and linkable
	// (#L12), built once: a large file is a few thousand rows.
	Rows template.HTML
}

// rows builds the file view's table rows from the lines.
func (hl *codeHighlighted) rows() {
	var b strings.Builder
	for i, l := range hl.Lines {
		writeCodeRow(&b, i+1, l)
	}
	hl.Rows = template.HTML(b.String()) // #nosec: numbers and lines escaped by highlightCode
}

// writeCodeRow writes one numbered, linkable (#L12) row of a code table;
// line is HTML already escaped.
func writeCodeRow(b *strings.Builder, num int, line template.HTML) {
	n := strconv.Itoa(num)
	b.WriteString(`<tr id="L`)
	b.WriteString(n)
	b.WriteString(`"><td class="num"><a href="#L`)
	b.WriteString(n)
	b.WriteString(`">`)
	b.WriteString(n)
	b.WriteString(`</a></td><td class="line">`)
	b.WriteString(string(line))
	b.WriteString("</td></tr>\n")
}

// highlight splits src into lines, each as HTML: tokens wrapped in spans
// whose classes are Chroma's short token classes (styled by cairn.css, no
// inline style), every text escaped. The lexer is chosen by file name, then
// by content; files over codeMaxHighlight and unknown types are escaped text.
// Results are cached by blob and name (a blob's content never changes), so
// a warm file is not read again.
func (c *codePages) highlight(b *codeBlob, name string) (*codeHighlighted, error) {
	key := b.sha + "\x00" + path.Base(name)
	if hl, ok := c.highlightCache.get(key); ok {
		return hl, nil
	}
	src, err := b.bytes()
	if err != nil {
		return nil, err
	}
	hl := highlightCode(name, src)
	hl.rows()
	weight := 64 + len(hl.Rows)
	for _, l := range hl.Lines {
		weight += len(l) + 16
	}
	c.highlightCache.put(key, hl, weight)
	return hl, nil
}

// highlightCode is highlight without the cache.
func highlightCode(name string, src []byte) *codeHighlighted {
	text := strings.ReplaceAll(strings.ToValidUTF8(string(src), "\uFFFD"), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	if len(src) > codeMaxHighlight {
		return plainCodeLines(text)
	}
	lexer := lexers.Match(path.Base(name))
	if lexer == nil {
		head := text
		if len(head) > 4096 {
			head = head[:4096]
		}
		lexer = lexers.Analyse(head)
	}
	if lexer == nil {
		return plainCodeLines(text)
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, text+"\n")
	if err != nil {
		return plainCodeLines(text)
	}
	out := &codeHighlighted{Language: lexer.Config().Name}
	var line strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		class := chromaClass(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, part := range parts {
			if i > 0 {
				out.Lines = append(out.Lines, template.HTML(line.String())) // #nosec: built from escaped text and fixed class names
				line.Reset()
			}
			if part == "" {
				continue
			}
			if class != "" {
				line.WriteString(`<span class="`)
				line.WriteString(class)
				line.WriteString(`">`)
				template.HTMLEscape(&line, []byte(part))
				line.WriteString(`</span>`)
			} else {
				template.HTMLEscape(&line, []byte(part))
			}
		}
	}
	if line.Len() > 0 {
		out.Lines = append(out.Lines, template.HTML(line.String()))
	}
	// The lexer was fed a final newline so that the last line ends; the
	// lines must match the text's, whatever the lexer did with it.
	want := strings.Count(text, "\n") + 1
	if len(out.Lines) != want {
		return plainCodeLines(text)
	}
	return out
}

// plainCodeLines is text's lines, escaped.
func plainCodeLines(text string) *codeHighlighted {
	lines := strings.Split(text, "\n")
	out := &codeHighlighted{Lines: make([]template.HTML, len(lines))}
	for i, l := range lines {
		out.Lines[i] = template.HTML(template.HTMLEscapeString(l)) // #nosec: escaped
	}
	return out
}

// chromaClass is Chroma's short CSS class of a token type ("k" for a
// keyword), or "" for plain text.
func chromaClass(t chroma.TokenType) string {
	for ; t != 0; t = t.Parent() {
		if cls, ok := chroma.StandardTypes[t]; ok {
			if cls == "w" {
				return "" // whitespace needs no span
			}
			return cls
		}
	}
	return ""
}

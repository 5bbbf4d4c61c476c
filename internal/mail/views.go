package mail

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
)

//go:embed templates
var templateFiles embed.FS

// views are the mail bodies: templates/NAME.txt (text/template) and
// templates/NAME.html (html/template, which escapes user content), each
// defining "body" in the shared layout.
type views struct {
	text map[string]*texttemplate.Template
	html map[string]*htmltemplate.Template
}

// errNoView is the error of a view that does not exist.
var errNoView = errors.New("mail: no such view")

var viewNames = []string{"activate", "reset_password", "register_notify", "issue", "text"}

func loadViews() (*views, error) {
	v := &views{text: map[string]*texttemplate.Template{}, html: map[string]*htmltemplate.Template{}}
	for _, name := range viewNames {
		t, err := texttemplate.ParseFS(templateFiles, "templates/"+name+".txt")
		if err != nil {
			return nil, err
		}
		v.text[name] = t
		h, err := htmltemplate.ParseFS(templateFiles, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		v.html[name] = h
	}
	return v, nil
}

// render returns the message bodies of view name for data.
func (v *views) render(name string, data any) (*Message, error) {
	t, h := v.text[name], v.html[name]
	if t == nil || h == nil {
		return nil, fmt.Errorf("%w: %s", errNoView, name)
	}
	var tb, hb bytes.Buffer
	if err := t.Execute(&tb, data); err != nil {
		return nil, err
	}
	if err := h.ExecuteTemplate(&hb, "layout", data); err != nil {
		return nil, err
	}
	return &Message{Text: strings.TrimSpace(tb.String()) + "\n", HTML: hb.String()}, nil
}

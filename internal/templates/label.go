package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Label is one label of a label template.
type Label struct {
	Name        string
	Color       string // six lowercase hex digits, no '#'
	Description string
	// Exclusive: an issue carries at most one label of this label's scope
	// (the part of the name before the last '/').
	Exclusive bool
}

// labelFile is the format of data/label/<Name>.json.
type labelFile struct {
	Labels []struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
		Exclusive   bool   `json:"exclusive"`
	} `json:"labels"`
}

const labelExt = ".json"

func (s *Set) loadLabels() error {
	files, err := names(s.fsys, labelDir)
	if err != nil {
		return err
	}
	for _, f := range files {
		name, ok := strings.CutSuffix(f, labelExt)
		if !ok || name == "" {
			return fmt.Errorf("%s: label templates are <Name>%s files", f, labelExt)
		}
		raw, err := fs.ReadFile(s.fsys, path.Join(labelDir, f))
		if err != nil {
			return err
		}
		labels, err := parseLabels(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		s.labels[name] = labels
		s.labelNames = append(s.labelNames, name)
	}
	return nil
}

// parseLabels reads and checks one label template file.
func parseLabels(raw []byte) ([]Label, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var lf labelFile
	if err := dec.Decode(&lf); err != nil {
		return nil, err
	}
	if len(lf.Labels) == 0 {
		return nil, fmt.Errorf("no labels")
	}
	seen := map[string]bool{}
	out := make([]Label, 0, len(lf.Labels))
	for i, l := range lf.Labels {
		name := strings.TrimSpace(l.Name)
		if name == "" {
			return nil, fmt.Errorf("label %d: empty name", i+1)
		}
		if seen[name] {
			return nil, fmt.Errorf("label %q: listed twice", name)
		}
		seen[name] = true
		color, err := normalizeColor(l.Color)
		if err != nil {
			return nil, fmt.Errorf("label %q: %w", name, err)
		}
		if l.Exclusive {
			if i := strings.LastIndexByte(name, '/'); i <= 0 || i == len(name)-1 {
				return nil, fmt.Errorf("label %q: only scoped labels (Scope/Name) can be exclusive", name)
			}
		}
		out = append(out, Label{Name: name, Color: color, Description: strings.TrimSpace(l.Description), Exclusive: l.Exclusive})
	}
	return out, nil
}

// normalizeColor accepts ^#?[0-9a-fA-F]{6}$ and returns the six digits in
// lower case without '#'.
func normalizeColor(c string) (string, error) {
	h := strings.TrimPrefix(c, "#")
	if len(h) != 6 {
		return "", fmt.Errorf("color %q is not six hex digits", c)
	}
	for i := 0; i < len(h); i++ {
		b := h[i]
		if !('0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F') {
			return "", fmt.Errorf("color %q is not six hex digits", c)
		}
	}
	return strings.ToLower(h), nil
}

// LabelTemplates lists the label template names, sorted.
func (s *Set) LabelTemplates() []string { return clone(s.labelNames) }

// LabelTemplate returns the labels of one template in file order, colors
// normalized; errs.NotFound for an unknown name.
func (s *Set) LabelTemplate(name string) ([]Label, error) {
	labels, ok := s.labels[name]
	if !ok {
		return nil, errs.NotFound("label template %q does not exist", name)
	}
	return clone(labels), nil
}

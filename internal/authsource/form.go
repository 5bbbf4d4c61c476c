package authsource

import (
	"sort"
	"strings"
)

// Form is how the administration's web pages edit the settings of one kind
// of source: the fields it shows (besides the name, active and sync boxes,
// which every source has) and the conversions between a Config and the
// submitted values. A kind without a Form is listed and can be deleted on
// the web, but its settings are changed with the CLI only.
type Form struct {
	// Fields are the kind's inputs, in the order shown.
	Fields []Field
	// Syncable tells whether sources of this kind can synchronise their
	// users (the form then offers the box).
	Syncable bool
	// Values returns the fields' values for c (nil: a new source's
	// defaults). Secret fields are left out; a checked box is "on".
	Values func(c Config) map[string]string
	// Apply returns the settings made of the submitted values, got by field
	// name, over old (nil for a new source): a secret field left blank keeps
	// old's secret. A malformed value is an errs.InvalidField of its field;
	// the rest of the checks are the Config's Validate, called by the
	// service when it stores the source.
	Apply func(old Config, get func(name string) string) (Config, error)
}

// Input is the kind of a form field.
type Input string

// The inputs a form field can be.
const (
	InputText     Input = "text"
	InputNumber   Input = "number"
	InputSecret   Input = "password" // never shown back; blank keeps the stored value
	InputCheckbox Input = "checkbox"
	InputSelect   Input = "select"
)

// Field is one input of a kind's form.
type Field struct {
	// Name is the form field's name (Gitea's, e.g. "bind_dn").
	Name  string
	Label string
	// Help explains the field under it ("" for none).
	Help     string
	Input    Input
	Required bool
	// Options are the choices of a select.
	Options []Option
}

// Option is one choice of a select field.
type Option struct {
	Value, Label string
}

// Types returns the types of the registered kinds, in Gitea's order.
func (r *Registry) Types() []Type {
	out := make([]Type, 0, len(r.kinds))
	for t := range r.kinds {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Kinds returns the source kinds this instance knows, by type.
func (s *Service) Kinds() []Kind {
	var out []Kind
	for _, t := range s.kinds.Types() {
		k, _ := s.kinds.Kind(t)
		out = append(out, k)
	}
	return out
}

// Kind returns the kind of type t, if this instance knows it.
func (s *Service) Kind(t Type) (Kind, bool) {
	return s.kinds.Kind(t)
}

// FormChecked tells whether a submitted checkbox is ticked.
func FormChecked(v string) bool {
	switch v {
	case "on", "true", "1":
		return true
	}
	return false
}

// FormBox is a checkbox's value in a form's values ("on" or "").
func FormBox(b bool) string {
	if b {
		return "on"
	}
	return ""
}

// FormText reads a submitted text field without surrounding spaces.
func FormText(get func(string) string, name string) string {
	return strings.TrimSpace(get(name))
}

// SkipLocalTwoFAField is the checkbox of Gitea's SkipLocalTwoFA, which
// every kind's form offers.
var SkipLocalTwoFAField = Field{Name: "skip_local_2fa", Label: "Skip local two-factor authentication",
	Help:  "The source's accounts sign in without the second factor they enrolled here: the source is trusted to have checked enough.",
	Input: InputCheckbox}

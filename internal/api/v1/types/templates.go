package types

// GitignoreTemplateInfo is the body of GET /gitignore/templates/{name}.
type GitignoreTemplateInfo struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// LicensesTemplateListEntry is one entry of GET /licenses.
type LicensesTemplateListEntry struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// LicenseTemplateInfo is the body of GET /licenses/{name}.
type LicenseTemplateInfo struct {
	Key            string `json:"key"`
	Name           string `json:"name"`
	URL            string `json:"url"`
	Implementation string `json:"implementation"`
	Body           string `json:"body"`
}

// LabelTemplate is one label of GET /label/templates/{name}. Color is six
// hex digits without '#', as Gitea sends it.
type LabelTemplate struct {
	Name        string `json:"name"`
	Exclusive   bool   `json:"exclusive"`
	Color       string `json:"color"`
	Description string `json:"description"`
}

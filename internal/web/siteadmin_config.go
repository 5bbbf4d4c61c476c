package web

import (
	"net/http"
	"net/mail"
	"path/filepath"
	"strings"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/errs"
)

// configRow is one key of the configuration with its effective value.
type configRow struct {
	Name, Env, Value, Source, Doc string
	// Changed marks a value set away from its default.
	Changed bool
}

// configSection is the keys of one [section].
type configSection struct {
	Name string
	Keys []configRow
}

// adminConfigPage is the data of /-/admin/config.
type adminConfigPage struct {
	adminPage
	ConfigFile      string
	ConfigFileFound bool
	// Fixed are the operator variables' results (addresses, database).
	Fixed    [][2]string
	Sections []configSection
	// Ignored are the keys of the file without effect.
	Ignored []config.KeyWarning
	// MailOn shows the test mail form.
	MailOn bool
}

// adminConfig serves GET /-/admin/config: the effective configuration, the
// same report as 'cairn admin config check' (secrets hidden), with every
// supported key and where its value came from.
func (h *Handler) adminConfig(w http.ResponseWriter, r *http.Request) error {
	c := h.Config
	database := "SQLite " + filepath.Join(c.DataDir, "cairn.db")
	if file, ok := strings.CutPrefix(c.DatabaseURL, "sqlite:"); ok {
		database = "SQLite " + file
	} else if c.DatabaseURL != "" {
		database = c.RedactedDatabaseURL()
	}
	p := adminConfigPage{adminPage: newAdminPage("config"), ConfigFile: c.ConfigFile, ConfigFileFound: c.ConfigFileFound,
		Fixed: [][2]string{{"Data directory", c.DataDir}, {"HTTP address", c.HTTPAddr}, {"SSH address", c.SSHAddr},
			{"Root URL", c.RootURL}, {"Database", database}, {"Repositories", c.RepositoryRoot()}},
		Ignored: c.Warnings, MailOn: h.Mail != nil}
	changed := map[string]config.Setting{}
	for _, s := range c.Changed {
		changed[s.Section+"\x00"+s.Name] = s
	}
	for _, k := range config.Keys() {
		row := configRow{Name: k.Name, Env: k.Env, Value: k.Default, Source: "default", Doc: k.Doc}
		if s, ok := changed[k.Section+"\x00"+k.Name]; ok {
			row.Value, row.Source, row.Changed = s.Shown(), s.Source, true
		} else if k.Secret && k.Default != "" {
			row.Value = "(hidden)"
		}
		if n := len(p.Sections); n == 0 || p.Sections[n-1].Name != k.Section {
			p.Sections = append(p.Sections, configSection{Name: k.Section})
		}
		sec := &p.Sections[len(p.Sections)-1]
		sec.Keys = append(sec.Keys, row)
	}
	return h.render(w, r, http.StatusOK, "admin_config", "Configuration", p)
}

// adminTestMail serves POST /-/admin/config/test_mail (Gitea's): a test
// mail to an address, queued like every mail.
func (h *Handler) adminTestMail(w http.ResponseWriter, r *http.Request) error {
	if h.Mail == nil {
		return errs.NotFound("no such page")
	}
	to := strings.TrimSpace(r.PostFormValue("email"))
	if _, err := mail.ParseAddress(to); err != nil || len(to) > 255 {
		h.flash(w, "error", "That is not an e-mail address.")
		http.Redirect(w, r, "/-/admin/config", http.StatusSeeOther)
		return nil
	}
	if err := h.Mail.SendText(r.Context(), "", to, "Cairn test mail", "This is a test mail from Cairn: mail works."); err != nil {
		return err
	}
	h.flash(w, "success", "A test mail to "+to+" is on its way.")
	http.Redirect(w, r, "/-/admin/config", http.StatusSeeOther)
	return nil
}

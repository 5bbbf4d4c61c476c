package pam

import "github.com/cairn-forge/cairn/internal/authsource"

// form is the web administration's form of a PAM source; nil when PAM is
// not built into this binary (its sources can then only be deleted).
func form() *authsource.Form {
	if !Built {
		return nil
	}
	fields := []authsource.Field{
		{Name: "service_name", Label: "PAM service name", Help: "The PAM stack that checks the login and password: /etc/pam.d/<name>.", Input: authsource.InputText, Required: true},
		{Name: "email_domain", Label: "E-mail domain", Help: "A login without @ gets the address login@domain (blank: a made-up address).", Input: authsource.InputText},
		authsource.SkipLocalTwoFAField,
	}
	return &authsource.Form{Fields: fields, Values: formValues, Apply: applyForm}
}

// formValues returns the form's values of a PAM source.
func formValues(cfg authsource.Config) map[string]string {
	c, ok := cfg.(*Config)
	if !ok {
		c = &Config{}
	}
	return map[string]string{"service_name": c.ServiceName, "email_domain": c.EmailDomain,
		"skip_local_2fa": authsource.FormBox(c.SkipLocalTwoFA)}
}

// applyForm makes the settings of a PAM source from the submitted form.
func applyForm(_ authsource.Config, get func(string) string) (authsource.Config, error) {
	return &Config{ServiceName: authsource.FormText(get, "service_name"), EmailDomain: authsource.FormText(get, "email_domain"),
		TwoFactorPolicy: authsource.TwoFactorPolicy{SkipLocalTwoFA: authsource.FormChecked(get("skip_local_2fa"))}}, nil
}

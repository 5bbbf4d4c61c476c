package smtp

import (
	"strconv"

	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// form is the web administration's form of an SMTP source.
func form() *authsource.Form {
	var mechanisms []authsource.Option
	for _, a := range []string{AuthPlain, AuthLogin, AuthCRAMMD5} {
		mechanisms = append(mechanisms, authsource.Option{Value: a, Label: a})
	}
	fields := []authsource.Field{
		{Name: "auth_type", Label: "Authentication type", Input: authsource.InputSelect, Required: true, Options: mechanisms},
		{Name: "host", Label: "Host", Help: "The mail server that checks the address and password.", Input: authsource.InputText, Required: true},
		{Name: "port", Label: "Port", Help: "587 with STARTTLS, 465 with SMTPS.", Input: authsource.InputNumber, Required: true},
		{Name: "allowed_domains", Label: "Allowed domains", Help: "Comma-separated e-mail domains whose addresses may sign in (blank: any).", Input: authsource.InputText},
		{Name: "force_smtps", Label: "Force SMTPS", Help: "Speak TLS from the first byte (always so on port 465); otherwise STARTTLS is used when the server offers it.", Input: authsource.InputCheckbox},
		{Name: "skip_verify", Label: "Skip TLS verification", Help: "Accept any certificate from the server.", Input: authsource.InputCheckbox},
		{Name: "helo_hostname", Label: "HELO host name", Help: "The name sent with EHLO (blank: this host's name).", Input: authsource.InputText},
		{Name: "disable_helo", Label: "Disable HELO", Help: "Send no name of Cairn's own with EHLO.", Input: authsource.InputCheckbox},
		authsource.SkipLocalTwoFAField,
	}
	return &authsource.Form{Fields: fields, Values: formValues, Apply: applyForm}
}

// formValues returns the form's values of an SMTP source (PLAIN on port
// 587 for a new one).
func formValues(cfg authsource.Config) map[string]string {
	c, ok := cfg.(*Config)
	if !ok {
		c = &Config{Auth: AuthPlain, Port: 587}
	}
	return map[string]string{
		"auth_type": c.Auth, "host": c.Host, "port": strconv.Itoa(c.Port), "allowed_domains": c.AllowedDomains,
		"force_smtps": authsource.FormBox(c.ForceSMTPS), "skip_verify": authsource.FormBox(c.SkipVerify),
		"helo_hostname": c.HeloHostname, "disable_helo": authsource.FormBox(c.DisableHelo),
		"skip_local_2fa": authsource.FormBox(c.SkipLocalTwoFA),
	}
}

// applyForm makes the settings of an SMTP source from the submitted form.
func applyForm(_ authsource.Config, get func(string) string) (authsource.Config, error) {
	port, err := strconv.Atoi(authsource.FormText(get, "port"))
	if err != nil {
		return nil, errs.InvalidField("port", "the port must be a number between 1 and 65535")
	}
	return &Config{
		Auth: authsource.FormText(get, "auth_type"), Host: authsource.FormText(get, "host"), Port: port,
		AllowedDomains: authsource.FormText(get, "allowed_domains"), ForceSMTPS: authsource.FormChecked(get("force_smtps")),
		SkipVerify: authsource.FormChecked(get("skip_verify")), HeloHostname: authsource.FormText(get, "helo_hostname"),
		DisableHelo:     authsource.FormChecked(get("disable_helo")),
		TwoFactorPolicy: authsource.TwoFactorPolicy{SkipLocalTwoFA: authsource.FormChecked(get("skip_local_2fa"))},
	}, nil
}

package ldap

import (
	"strconv"

	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// form is the web administration's form of an LDAP source of mode, with
// Gitea's field names.
func form(mode authsource.Type) *authsource.Form {
	bindDN := mode == authsource.TypeLDAP
	text := func(name, label, help string, required bool) authsource.Field {
		return authsource.Field{Name: name, Label: label, Help: help, Input: authsource.InputText, Required: required}
	}
	check := func(name, label, help string) authsource.Field {
		return authsource.Field{Name: name, Label: label, Help: help, Input: authsource.InputCheckbox}
	}
	var protocols []authsource.Option
	for _, p := range []SecurityProtocol{Unencrypted, LDAPS, StartTLS} {
		protocols = append(protocols, authsource.Option{Value: strconv.Itoa(int(p)), Label: p.String()})
	}
	fields := []authsource.Field{
		{Name: "security_protocol", Label: "Security protocol", Input: authsource.InputSelect, Required: true, Options: protocols},
		text("host", "Host", "The LDAP server's name or address.", true),
		{Name: "port", Label: "Port", Help: "389 for LDAP and StartTLS, 636 for LDAPS.", Input: authsource.InputNumber, Required: true},
		check("skip_verify", "Skip TLS verification", "Accept any certificate from the server (LDAPS and StartTLS)."),
	}
	if bindDN {
		fields = append(fields,
			text("bind_dn", "Bind DN", "The account that searches for users, e.g. cn=reader,dc=example,dc=org (blank: an anonymous search).", false),
			authsource.Field{Name: "bind_password", Label: "Bind password", Help: "Stored encrypted. Leave blank to keep the current password.", Input: authsource.InputSecret},
			text("user_base", "User search base", "Where users are searched, e.g. ou=people,dc=example,dc=org.", true),
		)
	} else {
		fields = append(fields, text("user_dn", "User DN", "The users' DN, %s standing for the login, e.g. uid=%s,ou=people,dc=example,dc=org.", true))
	}
	fields = append(fields,
		text("filter", "User filter", "Finds the user signing in, %s standing for the login, e.g. (&(objectClass=inetOrgPerson)(uid=%s)).", true),
		text("admin_filter", "Admin filter", "Searched with the user's DN as base: a match makes the account a site administrator (blank: not managed by the source).", false),
		text("restricted_filter", "Restricted filter", "Searched with the user's DN as base: a match makes the account restricted (blank: not managed by the source).", false),
		text("attribute_username", "Username attribute", "Blank: the login typed.", false),
		text("attribute_name", "First name attribute", "", false),
		text("attribute_surname", "Surname attribute", "", false),
		text("attribute_mail", "E-mail attribute", "", true),
		text("attribute_ssh_public_key", "Public SSH key attribute", "Blank: the accounts' keys are not managed by the source.", false),
		text("attribute_avatar", "Avatar attribute", "An image attribute such as jpegPhoto.", false),
	)
	if bindDN {
		fields = append(fields,
			check("attributes_in_bind", "Fetch attributes in bind DN context", "Read the user's attributes as the bind DN rather than as the user."),
			authsource.Field{Name: "search_page_size", Label: "Search page size", Help: "Entries per page of the synchronisation's search (0: 500).", Input: authsource.InputNumber},
			check("allow_deactivate_all", "Allow an empty search result to deactivate all users", "Without it, a synchronisation that finds nobody deactivates no account."),
		)
	}
	fields = append(fields, authsource.SkipLocalTwoFAField)
	return &authsource.Form{Fields: fields, Syncable: bindDN, Values: formValues(mode), Apply: applyForm(mode)}
}

// formValues returns the form's values of an LDAP source (Unencrypted on
// port 389 for a new one).
func formValues(mode authsource.Type) func(authsource.Config) map[string]string {
	return func(cfg authsource.Config) map[string]string {
		c, ok := cfg.(*Config)
		if !ok {
			c = &Config{Mode: mode, Port: 389}
		}
		box := authsource.FormBox
		v := map[string]string{
			"security_protocol": strconv.Itoa(int(c.SecurityProtocol)), "host": c.Host, "port": strconv.Itoa(c.Port),
			"skip_verify": box(c.SkipVerify), "filter": c.Filter, "admin_filter": c.AdminFilter, "restricted_filter": c.RestrictedFilter,
			"attribute_username": c.AttributeUsername, "attribute_name": c.AttributeName, "attribute_surname": c.AttributeSurname,
			"attribute_mail": c.AttributeMail, "attribute_ssh_public_key": c.AttributeSSHPublicKey, "attribute_avatar": c.AttributeAvatar,
			"skip_local_2fa": box(c.SkipLocalTwoFA),
		}
		if mode == authsource.TypeLDAP {
			v["bind_dn"], v["user_base"] = c.BindDN, c.UserBase
			v["attributes_in_bind"], v["allow_deactivate_all"] = box(c.AttributesInBind), box(c.AllowDeactivateAll)
			v["search_page_size"] = strconv.FormatUint(uint64(c.SearchPageSize), 10)
		} else {
			v["user_dn"] = c.UserDN
		}
		return v
	}
}

// applyForm makes the settings of an LDAP source from the submitted form;
// settings the form does not show (the timeout) are kept from old.
func applyForm(mode authsource.Type) func(authsource.Config, func(string) string) (authsource.Config, error) {
	return func(old authsource.Config, get func(string) string) (authsource.Config, error) {
		c := &Config{Mode: mode}
		if o, ok := old.(*Config); ok {
			copied := *o
			c = &copied
		}
		text := func(name string) string { return authsource.FormText(get, name) }
		checked := func(name string) bool { return authsource.FormChecked(get(name)) }
		p, err := strconv.Atoi(text("security_protocol"))
		if err != nil || SecurityProtocol(p).String() == "" {
			return nil, errs.InvalidField("security_protocol", "choose a security protocol: Unencrypted, LDAPS or StartTLS")
		}
		c.SecurityProtocol = SecurityProtocol(p)
		if c.Port, err = strconv.Atoi(text("port")); err != nil {
			return nil, errs.InvalidField("port", "the port must be a number between 1 and 65535")
		}
		c.Host, c.SkipVerify = text("host"), checked("skip_verify")
		c.SkipLocalTwoFA = checked("skip_local_2fa")
		c.Filter, c.AdminFilter, c.RestrictedFilter = text("filter"), text("admin_filter"), text("restricted_filter")
		c.AttributeUsername, c.AttributeName, c.AttributeSurname = text("attribute_username"), text("attribute_name"), text("attribute_surname")
		c.AttributeMail, c.AttributeSSHPublicKey, c.AttributeAvatar = text("attribute_mail"), text("attribute_ssh_public_key"), text("attribute_avatar")
		if mode == authsource.TypeDLDAP {
			c.UserDN = text("user_dn")
			return c, nil
		}
		c.BindDN, c.UserBase = text("bind_dn"), text("user_base")
		if pw := get("bind_password"); pw != "" {
			c.BindPassword = pw
		}
		if c.BindDN == "" {
			c.BindPassword = "" // an anonymous search has no password to keep
		}
		c.AttributesInBind, c.AllowDeactivateAll = checked("attributes_in_bind"), checked("allow_deactivate_all")
		size := uint64(0)
		if v := text("search_page_size"); v != "" {
			if size, err = strconv.ParseUint(v, 10, 32); err != nil {
				return nil, errs.InvalidField("search_page_size", "the search page size must be a number from 0 (500) to 4294967295")
			}
		}
		c.SearchPageSize = uint32(size)
		return c, nil
	}
}

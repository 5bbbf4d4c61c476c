package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/ini.v1"
)

// Key describes one supported key of the INI file.
type Key struct {
	Section string // e.g. "server", "repository.issue"
	Name    string // e.g. "ROOT_URL"
	Env     string // e.g. "CAIRN_SERVER_ROOT_URL"
	Default string
	Doc     string
	Secret  bool // never printed
}

// Setting is a key whose value differs from its default.
type Setting struct {
	Key
	Value  string // as given; empty for secrets
	Source string // "file" or the environment variable's name
}

// Shown is the value as it may be printed: secrets are hidden.
func (s Setting) Shown() string {
	if s.Secret {
		return "(set, hidden)"
	}
	return s.Value
}

// KeyWarning is a key of the file, or a CAIRN_* environment variable, that
// has no effect.
type KeyWarning struct {
	Section string // "" for keys before the first section
	Key     string
	// Env is the variable's name for a warning about the environment.
	Env string
	// NotSupportedYet is true for Gitea keys Cairn does not support yet,
	// false for keys it does not know at all (a typo, another program's key).
	NotSupportedYet bool
	// Detail, if set, says why a key Cairn reads has no effect with the
	// value given.
	Detail string
}

// Reason is "not supported yet", "unknown key", "unknown variable" or the
// warning's Detail.
func (w KeyWarning) Reason() string {
	switch {
	case w.Detail != "":
		return w.Detail
	case w.NotSupportedYet:
		return "not supported yet"
	case w.Env != "":
		return "unknown variable"
	}
	return "unknown key"
}

// Name is the key as [section] KEY, or the variable's name.
func (w KeyWarning) Name() string {
	switch {
	case w.Env != "":
		return w.Env + " (environment)"
	case w.Section == "":
		return w.Key + " (top level)"
	}
	return "[" + w.Section + "] " + w.Key
}

// otherVariables are the CAIRN_* variables that name no key: the fixed
// operator variables, the first administrator, and those Cairn passes to
// its own hook processes.
func otherVariables() []string {
	return []string{"CAIRN_DATA_DIR", "CAIRN_HTTP_ADDR", "CAIRN_SSH_ADDR", "CAIRN_ROOT_URL", "CAIRN_DATABASE_URL", "CAIRN_CONFIG",
		"CAIRN_ADMIN_USERNAME", "CAIRN_ADMIN_PASSWORD", "CAIRN_ADMIN_EMAIL",
		"CAIRN_INTERNAL_URL", "CAIRN_INTERNAL_TOKEN", "CAIRN_HOOK_EXECUTABLE", "CAIRN_REPO_ID", "CAIRN_PUSHER_ID", "CAIRN_DEPLOY_KEY_ID"}
}

// EnvWarnings returns a warning for every CAIRN_* variable of environ
// ("NAME=value" pairs, as os.Environ gives) that Cairn does not read, such
// as a misspelt CAIRN_<SECTION>_<KEY>.
func EnvWarnings(environ []string) []KeyWarning {
	known := map[string]bool{}
	for _, k := range Keys() {
		known[k.Env] = true
	}
	for _, v := range otherVariables() {
		known[v] = true
	}
	var out []KeyWarning
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CAIRN_") && !known[name] {
			out = append(out, KeyWarning{Env: name})
		}
	}
	slices.SortFunc(out, func(a, b KeyWarning) int { return strings.Compare(a.Env, b.Env) })
	return out
}

// Keys lists every supported key of the INI file in declaration order.
func Keys() []Key {
	var out []Key
	walk(reflect.ValueOf(&Config{}).Elem(), func(k Key, _ reflect.Value) { out = append(out, k) })
	return out
}

// EnvName is the environment variable that sets key of section.
func EnvName(section, key string) string {
	return "CAIRN_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(section)) + "_" + key
}

// walk calls fn for every key field of the section structs of c.
func walk(c reflect.Value, fn func(Key, reflect.Value)) {
	t := c.Type()
	for i := 0; i < t.NumField(); i++ {
		section := t.Field(i).Tag.Get("section")
		if section == "" {
			continue
		}
		sv := c.Field(i)
		st := sv.Type()
		for j := 0; j < st.NumField(); j++ {
			f := st.Field(j)
			name := f.Tag.Get("key")
			if name == "" {
				continue
			}
			fn(Key{Section: section, Name: name, Env: EnvName(section, name), Default: f.Tag.Get("default"),
				Doc: f.Tag.Get("doc"), Secret: f.Tag.Get("secret") == "true"}, sv.Field(j))
		}
	}
}

// fill sets each key from its default, the file, then the environment, and
// records in c.Changed those that end up away from their default.
func fill(c *Config, file *ini.File, getenv func(string) string) error {
	var err error
	walk(reflect.ValueOf(c).Elem(), func(k Key, f reflect.Value) {
		if err != nil {
			return
		}
		raw, source := k.Default, ""
		if v, ok := ownKey(file, k.Section, k.Name); ok {
			raw, source = v, "file"
		}
		if v := getenv(k.Env); v != "" {
			raw, source = v, k.Env
		}
		if e := set(f, raw); e != nil {
			where := "in " + source
			if source == "file" {
				where = "in the config file"
			}
			err = fmt.Errorf("[%s] %s (%s): %w", k.Section, k.Name, where, e)
			return
		}
		if source == "" {
			return
		}
		if c.given == nil {
			c.given = map[string]bool{}
		}
		c.given[k.Section+"\x00"+k.Name] = true
		def := reflect.New(f.Type()).Elem()
		if set(def, k.Default) == nil && reflect.DeepEqual(def.Interface(), f.Interface()) {
			return
		}
		s := Setting{Key: k, Value: strings.TrimSpace(raw), Source: source}
		if k.Secret {
			s.Value = ""
		}
		c.Changed = append(c.Changed, s)
	})
	return err
}

// ownKey is the value of key in section itself: ini's HasKey and Key also
// look in the parent section ([repository] for [repository.issue]).
func ownKey(file *ini.File, section, key string) (string, bool) {
	sec, err := file.GetSection(section)
	if err != nil {
		return "", false
	}
	for _, k := range sec.Keys() {
		if k.Name() == key {
			return k.String(), true
		}
	}
	return "", false
}

// checkKeys returns a warning for every key of file that Cairn does not read.
func checkKeys(file *ini.File) []KeyWarning {
	known := map[string]bool{}
	for _, k := range Keys() {
		known[k.Section+"\x00"+k.Name] = true
	}
	var out []KeyWarning
	for _, sec := range file.Sections() {
		section := sec.Name()
		if section == ini.DefaultSection {
			section = ""
		}
		for _, k := range sec.Keys() {
			if known[section+"\x00"+k.Name()] {
				continue
			}
			out = append(out, KeyWarning{Section: section, Key: k.Name(), NotSupportedYet: notSupportedYet(section, k.Name())})
		}
	}
	return out
}

func set(f reflect.Value, raw string) error {
	raw = strings.TrimSpace(raw)
	switch f.Interface().(type) {
	case string:
		f.SetString(raw)
	case bool:
		// The words ini (and so Gitea) accepts.
		switch strings.ToLower(raw) {
		case "", "0", "f", "false", "n", "no", "off":
			f.SetBool(false)
		case "1", "t", "true", "y", "yes", "on":
			f.SetBool(true)
		default:
			return fmt.Errorf("%q is not a boolean (true or false)", raw)
		}
	case int, int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case time.Duration:
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil { // a bare number is seconds, as Gitea's integer keys
			f.SetInt(n * int64(time.Second))
			return nil
		}
		d, err := time.ParseDuration(raw)
		if err != nil {
			return err
		}
		f.SetInt(int64(d))
	case []string:
		var out []string
		for _, p := range strings.Split(raw, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		f.Set(reflect.ValueOf(out))
	default:
		return fmt.Errorf("unsupported setting type %s", f.Type())
	}
	return nil
}

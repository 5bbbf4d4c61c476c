// Package config loads Cairn's settings: built-in defaults, overridden by an
// INI file with Gitea's section and key names, overridden by CAIRN_* environment
// variables. The result is one immutable value passed down to every service.
package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/ini.v1"
)

// Config is the complete set of settings of one Cairn instance.
type Config struct {
	// DataDir holds the SQLite database, repositories, attachments and host keys.
	DataDir string
	// HTTPAddr is the listen address of the web interface, API and git over HTTP.
	HTTPAddr string
	// SSHAddr is the listen address of the built-in SSH server; "off" disables it.
	SSHAddr string
	// RootURL is the public base URL, always ending in "/".
	RootURL string
	// DatabaseURL selects the database: empty for SQLite in DataDir, postgres:// or mysql://.
	DatabaseURL string
	// ConfigFile is the INI file the settings were read from (may not exist).
	ConfigFile string

	Server     ServerSection     `section:"server"`
	API        APISection        `section:"api"`
	UI         UISection         `section:"ui"`
	Repository RepositorySection `section:"repository"`
	// RepositoryIssue is [repository.issue].
	RepositoryIssue RepositoryIssueSection `section:"repository.issue"`
	Attachment      AttachmentSection      `section:"attachment"`
	Picture         PictureSection         `section:"picture"`
	Security        SecuritySection        `section:"security"`
	Migrations      MigrationsSection      `section:"migrations"`
	Mirror          MirrorSection          `section:"mirror"`
	Service         ServiceSection         `section:"service"`
	Admin           AdminSection           `section:"admin"`
	Debug           DebugSection           `section:"debug"`
}

// ServerSection is [server].
type ServerSection struct {
	SSHAnonymousClone bool          `key:"SSH_ANONYMOUS_CLONE" default:"false"`
	SSHDomain         string        `key:"SSH_DOMAIN" default:""`
	SSHPort           int           `key:"SSH_PORT" default:"0"`
	ShutdownTimeout   time.Duration `key:"SHUTDOWN_TIMEOUT" default:"30s"`
}

// APISection is [api].
type APISection struct {
	EnableSwagger           bool  `key:"ENABLE_SWAGGER" default:"true"`
	MaxResponseItems        int   `key:"MAX_RESPONSE_ITEMS" default:"50"`
	DefaultPagingNum        int   `key:"DEFAULT_PAGING_NUM" default:"30"`
	DefaultGitTreesPerPage  int   `key:"DEFAULT_GIT_TREES_PER_PAGE" default:"1000"`
	DefaultMaxBlobSize      int64 `key:"DEFAULT_MAX_BLOB_SIZE" default:"10485760"`
	DefaultMaxResponseSize  int64 `key:"DEFAULT_MAX_RESPONSE_SIZE" default:"52428800"`
	TokenLastUsedFlushEvery int   `key:"TOKEN_LAST_USED_FLUSH_SECONDS" default:"10"`
}

// UISection is [ui].
type UISection struct {
	DefaultTheme     string   `key:"DEFAULT_THEME" default:"gitea-auto"`
	Reactions        []string `key:"REACTIONS" default:"+1,-1,laugh,hooray,confused,heart,rocket,eyes"`
	CustomEmojis     []string `key:"CUSTOM_EMOJIS" default:"gitea,codeberg,gitlab,git,github,gogs"`
	ExplorePagingNum int      `key:"EXPLORE_PAGING_NUM" default:"20"`
}

// RepositorySection is [repository].
type RepositorySection struct {
	ForcePrivate         bool     `key:"FORCE_PRIVATE" default:"false"`
	DefaultPrivate       string   `key:"DEFAULT_PRIVATE" default:"last"`
	DefaultBranch        string   `key:"DEFAULT_BRANCH" default:"main"`
	DefaultRepoUnits     []string `key:"DEFAULT_REPO_UNITS" default:"repo.code,repo.releases,repo.issues,repo.pulls,repo.wiki,repo.projects,repo.packages,repo.actions"`
	DisabledRepoUnits    []string `key:"DISABLED_REPO_UNITS" default:""`
	DisableMigrations    bool     `key:"DISABLE_MIGRATIONS" default:"false"`
	DisableStars         bool     `key:"DISABLE_STARS" default:"false"`
	MirrorInterval       string   `key:"MIRROR_INTERVAL" default:"8h"`
	MaxCreationLimit     int      `key:"MAX_CREATION_LIMIT" default:"-1"`
	HTTPTransferDisabled bool     `key:"DISABLE_HTTP_GIT" default:"false"`
	// QuarantineMaxAge is how long a push quarantine directory (objects/
	// tmp_objdir-incoming-*) may go unmodified before the periodic sweep
	// removes it; 0 keeps only the sweep at start-up.
	QuarantineMaxAge time.Duration `key:"QUARANTINE_MAX_AGE" default:"1h"`
}

// RepositoryIssueSection is [repository.issue].
type RepositoryIssueSection struct {
	// MaxPinned is how many issues (and, separately, pull requests) a
	// repository may pin; 0 turns pinning off.
	MaxPinned int `key:"MAX_PINNED" default:"3"`
}

// PictureSection is [picture]: limits of uploaded avatars.
type PictureSection struct {
	AvatarMaxWidth    int   `key:"AVATAR_MAX_WIDTH" default:"4096"`
	AvatarMaxHeight   int   `key:"AVATAR_MAX_HEIGHT" default:"4096"`
	AvatarMaxFileSize int64 `key:"AVATAR_MAX_FILE_SIZE" default:"1048576"`
}

// AttachmentSection is [attachment].
type AttachmentSection struct {
	Enabled      bool     `key:"ENABLED" default:"true"`
	AllowedTypes []string `key:"ALLOWED_TYPES" default:".avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip"`
	MaxSize      int64    `key:"MAX_SIZE" default:"2048"`
	MaxFiles     int      `key:"MAX_FILES" default:"5"`
}

// SecuritySection is [security].
type SecuritySection struct {
	ImportLocalPaths  bool `key:"IMPORT_LOCAL_PATHS" default:"false"`
	MinPasswordLength int  `key:"MIN_PASSWORD_LENGTH" default:"1"`
	// LoginFailuresPerAccount is how many failed password checks one login
	// may have in LoginFailureWindow before password checks for it are
	// refused with 429 until the window ends; 0 turns the limit off.
	LoginFailuresPerAccount int `key:"LOGIN_FAILURES_PER_ACCOUNT" default:"10"`
	// LoginFailuresPerAddress is the same limit per client address (IPv4
	// address, IPv6 /64), over all logins; 0 turns it off.
	LoginFailuresPerAddress int `key:"LOGIN_FAILURES_PER_ADDRESS" default:"30"`
	// LoginFailureWindow is how long failures count, from the first; 0 turns
	// the throttle off.
	LoginFailureWindow time.Duration `key:"LOGIN_FAILURE_WINDOW" default:"15m"`
}

// MigrationsSection is [migrations].
type MigrationsSection struct {
	AllowLocalNetworks bool     `key:"ALLOW_LOCALNETWORKS" default:"false"`
	AllowedDomains     []string `key:"ALLOWED_DOMAINS" default:""`
	BlockedDomains     []string `key:"BLOCKED_DOMAINS" default:""`
}

// MirrorSection is [mirror].
type MirrorSection struct {
	// Enabled allows pull mirrors; GET /settings/repository reports mirrors_disabled = !Enabled.
	Enabled bool `key:"ENABLED" default:"true"`
}

// ServiceSection is [service].
type ServiceSection struct {
	DefaultUserVisibility string `key:"DEFAULT_USER_VISIBILITY" default:"public"`
	DefaultOrgVisibility  string `key:"DEFAULT_ORG_VISIBILITY" default:"public"`
	DefaultKeepEmailPriv  bool   `key:"DEFAULT_KEEP_EMAIL_PRIVATE" default:"false"`
	AllowOnlyInternalReg  bool   `key:"ALLOW_ONLY_INTERNAL_REGISTRATION" default:"false"`
	EnableTimetracking    bool   `key:"ENABLE_TIMETRACKING" default:"true"`
	EnableDependencies    bool   `key:"DEFAULT_ENABLE_DEPENDENCIES" default:"true"`
}

// AdminSection is [admin].
type AdminSection struct {
	DefaultEmailNotifications string `key:"DEFAULT_EMAIL_NOTIFICATIONS" default:"enabled"`
}

// DebugSection is [debug]: switches that help tests and benchmarks observe the server.
type DebugSection struct {
	// QueryCountHeader adds X-Cairn-Query-Count to every API response.
	QueryCountHeader bool `key:"QUERY_COUNT_HEADER" default:"false"`
}

// Load reads the settings. getenv is usually os.Getenv; tests pass their own.
func Load(getenv func(string) string) (*Config, error) {
	c := &Config{
		DataDir:     envOr(getenv, "CAIRN_DATA_DIR", "./data"),
		HTTPAddr:    envOr(getenv, "CAIRN_HTTP_ADDR", "127.0.0.1:3000"),
		SSHAddr:     envOr(getenv, "CAIRN_SSH_ADDR", "127.0.0.1:2222"),
		DatabaseURL: getenv("CAIRN_DATABASE_URL"),
	}
	abs, err := filepath.Abs(c.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	c.DataDir = abs
	c.ConfigFile = envOr(getenv, "CAIRN_CONFIG", filepath.Join(c.DataDir, "cairn.ini"))

	file := ini.Empty()
	if _, err := os.Stat(c.ConfigFile); err == nil {
		file, err = ini.Load(c.ConfigFile)
		if err != nil {
			return nil, fmt.Errorf("config file %s: %w", c.ConfigFile, err)
		}
	}
	if err := fill(reflect.ValueOf(c).Elem(), file, getenv); err != nil {
		return nil, err
	}

	root := getenv("CAIRN_ROOT_URL")
	if root == "" {
		root = file.Section("server").Key("ROOT_URL").String()
	}
	if root == "" {
		root = "http://" + c.HTTPAddr + "/"
	}
	if _, err := url.Parse(root); err != nil {
		return nil, fmt.Errorf("CAIRN_ROOT_URL: %w", err)
	}
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	c.RootURL = root
	if c.API.MaxResponseItems < 1 {
		c.API.MaxResponseItems = 50
	}
	if c.API.DefaultPagingNum < 1 {
		c.API.DefaultPagingNum = 30
	}
	return c, nil
}

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// fill walks the section structs and sets each field from default, file, env.
func fill(v reflect.Value, file *ini.File, getenv func(string) string) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sectionName := t.Field(i).Tag.Get("section")
		if sectionName == "" {
			continue
		}
		sv := v.Field(i)
		st := sv.Type()
		sec := file.Section(sectionName)
		for j := 0; j < st.NumField(); j++ {
			f := st.Field(j)
			key := f.Tag.Get("key")
			raw := f.Tag.Get("default")
			if sec.HasKey(key) {
				raw = sec.Key(key).String()
			}
			envName := "CAIRN_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(sectionName)) + "_" + key
			if ev, ok := lookup(getenv, envName); ok {
				raw = ev
			}
			if err := set(sv.Field(j), raw); err != nil {
				return fmt.Errorf("[%s] %s: %w", sectionName, key, err)
			}
		}
	}
	return nil
}

func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

func set(f reflect.Value, raw string) error {
	raw = strings.TrimSpace(raw)
	switch f.Interface().(type) {
	case string:
		f.SetString(raw)
	case bool:
		if raw == "" {
			f.SetBool(false)
			return nil
		}
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case int, int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case time.Duration:
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

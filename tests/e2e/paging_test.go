package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestPaging(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_API_DEFAULT_PAGING_NUM=2", "CAIRN_API_MAX_RESPONSE_ITEMS=3"))
	for _, n := range []string{"pg-a", "pg-b", "pg-c", "pg-d", "pg-e"} {
		s.CreateUser(n)
	}
	// Six users: pg-a .. pg-e and root, alphabetical.
	all := []string{"pg-a", "pg-b", "pg-c", "pg-d", "pg-e", adminName}
	base := s.URL + "api/v1/admin/users"
	cases := []struct {
		query string
		want  []string
		link  string
	}{
		{"", all[0:2], `<` + base + `?page=2>; rel="next",<` + base + `?page=3>; rel="last"`},
		{"?page=2", all[2:4], `<` + base + `?page=3>; rel="next",<` + base + `?page=3>; rel="last",<` + base + `?page=1>; rel="first",<` + base + `?page=1>; rel="prev"`},
		{"?page=3", all[4:6], `<` + base + `?page=1>; rel="first",<` + base + `?page=2>; rel="prev"`},
		{"?page=4", nil, `<` + base + `?page=1>; rel="first",<` + base + `?page=3>; rel="prev"`},
		{"?limit=10", all[0:3], `<` + base + `?limit=10&page=2>; rel="next",<` + base + `?limit=10&page=2>; rel="last"`},
		{"?limit=3&page=2", all[3:6], `<` + base + `?limit=3&page=1>; rel="first",<` + base + `?limit=3&page=1>; rel="prev"`},
		{"?limit=1&page=3", all[2:3], `<` + base + `?limit=1&page=4>; rel="next",<` + base + `?limit=1&page=6>; rel="last",<` + base + `?limit=1&page=1>; rel="first",<` + base + `?limit=1&page=2>; rel="prev"`},
		{"?limit=0", all[0:2], ""},
		{"?limit=-4", all[0:2], ""},
		{"?limit=abc", all[0:2], ""},
		{"?page=0", all[0:2], ""},
		{"?page=-1", all[0:2], ""},
		{"?page=x", all[0:2], ""},
		{"?page=9223372036854775807", nil, ""},
		{"?page=99999999999&limit=3", nil, ""},
	}
	for _, c := range cases {
		r := s.Do("GET", "api/v1/admin/users"+c.query, Token(s.AdminTok))
		fndStatus(t, r, 200, "admin users "+c.query)
		got := fndLogins(fndDecodeUsers(t, r))
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("admin users%s = %v, want %v", c.query, got, c.want)
		}
		if string(r.Body) == "null\n" || string(r.Body) == "null" {
			t.Errorf("admin users%s: null instead of []", c.query)
		}
		if tc := r.Header.Get("X-Total-Count"); tc != "6" {
			t.Errorf("admin users%s: X-Total-Count %q, want 6", c.query, tc)
		}
		if c.link != "" && r.Header.Get("Link") != c.link {
			t.Errorf("admin users%s: Link\n got %s\nwant %s", c.query, r.Header.Get("Link"), c.link)
		}
		exp := r.Header.Get("Access-Control-Expose-Headers")
		if !strings.Contains(exp, "X-Total-Count") || !strings.Contains(exp, "Link") {
			t.Errorf("admin users%s: Access-Control-Expose-Headers %q", c.query, exp)
		}
	}
	// One page only: no Link header.
	r := s.Do("GET", "api/v1/admin/users?login_name=pg-a", Token(s.AdminTok))
	if r.Header.Get("Link") != "" || r.Header.Get("X-Total-Count") != "1" {
		t.Errorf("single page: Link %q, total %q", r.Header.Get("Link"), r.Header.Get("X-Total-Count"))
	}
	// Search pages the same way, inside its envelope; other parameters are kept in the links.
	r = s.Do("GET", "api/v1/users/search?q=pg&page=2", Token(s.AdminTok))
	fndStatus(t, r, 200, "search page 2")
	var env struct {
		Data []fndUser `json:"data"`
	}
	r.Decode(t, &env)
	if got := strings.Join(fndLogins(env.Data), ","); got != "pg-c,pg-d" || r.Header.Get("X-Total-Count") != "5" {
		t.Errorf("search page 2 = %s (total %s)", got, r.Header.Get("X-Total-Count"))
	}
	sb := s.URL + "api/v1/users/search"
	if want := `<` + sb + `?page=3&q=pg>; rel="next",<` + sb + `?page=3&q=pg>; rel="last",<` + sb + `?page=1&q=pg>; rel="first",<` + sb + `?page=1&q=pg>; rel="prev"`; r.Header.Get("Link") != want {
		t.Errorf("search Link\n got %s\nwant %s", r.Header.Get("Link"), want)
	}
	if got := fndSearch(t, s, "q=pg&limit=50"); len(got) != 3 {
		t.Errorf("search with limit 50 over a cap of 3 = %v", got)
	}
	// Follower lists, key lists and token lists page too.
	for _, n := range []string{"pg-a", "pg-b", "pg-c", "pg-d"} {
		tok := s.CreateToken(n, n+"-pw-123", "follow", "all")
		fndStatus(t, s.Do("PUT", "api/v1/user/following/pg-e", Token(tok)), 204, n+" follows pg-e")
	}
	r = s.Do("GET", "api/v1/users/pg-e/followers", Token(s.AdminTok))
	if got := strings.Join(fndLogins(fndDecodeUsers(t, r)), ","); got != "pg-a,pg-b" || r.Header.Get("X-Total-Count") != "4" {
		t.Errorf("followers page 1 = %s (total %s)", got, r.Header.Get("X-Total-Count"))
	}
	r = s.Do("GET", "api/v1/users/pg-e/followers?page=2&limit=3", Token(s.AdminTok))
	if got := strings.Join(fndLogins(fndDecodeUsers(t, r)), ","); got != "pg-d" {
		t.Errorf("followers page 2 of 3 = %s", got)
	}
	// The settings report the configured numbers.
	r = s.Do("GET", "api/v1/settings/api")
	var st map[string]any
	r.Decode(t, &st)
	if st["default_paging_num"] != 2.0 || st["max_response_items"] != 3.0 {
		t.Errorf("settings/api = %v", st)
	}
}

func TestListQueryCountIsFixed(t *testing.T) {
	s := StartServer(t)
	for i := 0; i < 60; i++ {
		name := fmt.Sprintf("qc-%02d", i)
		fndStatus(t, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{
			"username": name, "email": name + "@example.com", "password": "pw-" + name, "must_change_password": false,
		})), 201, "create "+name)
	}
	viewer := s.CreateUser("viewer")
	// Give the viewer 55 followers (the admin acts as each through Sudo) so follower lists have pages too.
	for i := 0; i < 55; i++ {
		name := fmt.Sprintf("qc-%02d", i)
		fndStatus(t, s.Do("PUT", "api/v1/user/following/viewer", Token(s.AdminTok), Header("Sudo", name)), 204, name+" follows viewer")
	}
	count := func(path string, opts ...RequestOption) (string, int) {
		t.Helper()
		r := s.Do("GET", path, opts...)
		fndStatus(t, r, 200, path)
		qc := r.Header.Get("X-Cairn-Query-Count")
		if qc == "" || qc == "0" {
			t.Fatalf("%s: X-Cairn-Query-Count %q", path, qc)
		}
		var n int
		if strings.Contains(path, "search") {
			var env struct {
				Data []json.RawMessage `json:"data"`
			}
			r.Decode(t, &env)
			n = len(env.Data)
		} else {
			var l []json.RawMessage
			r.Decode(t, &l)
			n = len(l)
		}
		return qc, n
	}
	for _, c := range []struct {
		path string
		opts []RequestOption
	}{
		{"api/v1/admin/users", []RequestOption{Token(s.AdminTok)}},
		{"api/v1/users/search", []RequestOption{Token(s.AdminTok)}},
		{"api/v1/users/search", []RequestOption{Token(viewer.Token)}},
		{"api/v1/users/search", nil},
		{"api/v1/users/search?q=qc", nil},
		{"api/v1/users/viewer/followers", []RequestOption{Token(viewer.Token)}},
		{"api/v1/user/followers", []RequestOption{Token(viewer.Token)}},
	} {
		sep := "?"
		if strings.Contains(c.path, "?") {
			sep = "&"
		}
		q5, n5 := count(c.path+sep+"limit=5", c.opts...)
		q50, n50 := count(c.path+sep+"limit=50", c.opts...)
		if n5 != 5 || n50 != 50 {
			t.Fatalf("%s: got %d and %d items for limits 5 and 50", c.path, n5, n50)
		}
		if q5 != q50 {
			t.Errorf("%s: %s queries for 5 items but %s for 50", c.path, q5, q50)
		}
	}
}

func TestSettingsEndpoints(t *testing.T) {
	s := StartServer(t)
	get := func(path string) map[string]any {
		t.Helper()
		r := s.Do("GET", "api/v1/settings/"+path)
		fndStatus(t, r, 200, "settings/"+path)
		var m map[string]any
		r.Decode(t, &m)
		return m
	}
	keys := func(m map[string]any) string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		sort.Strings(k)
		return strings.Join(k, ",")
	}
	api := get("api")
	if keys(api) != "default_git_trees_per_page,default_max_blob_size,default_paging_num,max_response_items" ||
		api["max_response_items"] != 50.0 || api["default_paging_num"] != 30.0 || api["default_git_trees_per_page"] != 1000.0 ||
		api["default_max_blob_size"] != 10485760.0 {
		t.Errorf("settings/api = %v", api)
	}
	ui := get("ui")
	if keys(ui) != "allowed_reactions,custom_emojis,default_theme" || ui["default_theme"] != "gitea-auto" ||
		fmt.Sprint(ui["allowed_reactions"]) != "[+1 -1 laugh hooray confused heart rocket eyes]" ||
		fmt.Sprint(ui["custom_emojis"]) != "[gitea codeberg gitlab git github gogs]" {
		t.Errorf("settings/ui = %v", ui)
	}
	repo := get("repository")
	if keys(repo) != "http_git_disabled,lfs_disabled,migrations_disabled,mirrors_disabled,stars_disabled,time_tracking_disabled" ||
		repo["http_git_disabled"] != false || repo["migrations_disabled"] != false || repo["mirrors_disabled"] != false ||
		repo["stars_disabled"] != false || repo["time_tracking_disabled"] != false {
		t.Errorf("settings/repository = %v", repo)
	}
	att := get("attachment")
	types, _ := att["allowed_types"].(string)
	if keys(att) != "allowed_types,enabled,max_files,max_size" || att["enabled"] != true || att["max_size"] != 2048.0 ||
		att["max_files"] != 5.0 || !strings.Contains(types, ".zip") || !strings.Contains(types, ".png") || strings.Contains(types, " ") {
		t.Errorf("settings/attachment = %v", att)
	}
	// No sign-in needed, and a signed-in caller gets the same.
	r := s.Do("GET", "api/v1/settings/ui", Token(s.AdminTok))
	var ui2 map[string]any
	r.Decode(t, &ui2)
	if fmt.Sprint(ui2) != fmt.Sprint(ui) {
		t.Errorf("settings/ui differs for a signed-in caller: %v", ui2)
	}
}

// TestConfigPrecedence starts a server with an INI file and environment
// overrides and reads the result back through the settings endpoints.
func TestConfigPrecedence(t *testing.T) {
	ini := filepath.Join(t.TempDir(), "cairn.ini")
	if err := os.WriteFile(ini, []byte(`[api]
DEFAULT_PAGING_NUM = 7
MAX_RESPONSE_ITEMS = 9

[ui]
DEFAULT_THEME = from-file
REACTIONS = +1, heart

[repository]
DISABLE_MIGRATIONS = true
DISABLE_STARS = true

[mirror]
ENABLED = false

[attachment]
MAX_SIZE = 16
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, WithEnv("CAIRN_CONFIG="+ini, "CAIRN_API_MAX_RESPONSE_ITEMS=11", "CAIRN_UI_DEFAULT_THEME=from-env",
		"CAIRN_REPOSITORY_DISABLE_STARS=false", "CAIRN_ATTACHMENT_ENABLED=false"))
	get := func(path string) map[string]any {
		t.Helper()
		var m map[string]any
		s.Do("GET", "api/v1/settings/"+path).Decode(t, &m)
		return m
	}
	if api := get("api"); api["default_paging_num"] != 7.0 || api["max_response_items"] != 11.0 {
		t.Errorf("settings/api = %v (want paging 7 from the file, max 11 from the environment)", api)
	}
	if ui := get("ui"); ui["default_theme"] != "from-env" || fmt.Sprint(ui["allowed_reactions"]) != "[+1 heart]" {
		t.Errorf("settings/ui = %v", ui)
	}
	if repo := get("repository"); repo["migrations_disabled"] != true || repo["stars_disabled"] != false || repo["mirrors_disabled"] != true {
		t.Errorf("settings/repository = %v", repo)
	}
	if att := get("attachment"); att["enabled"] != false || att["max_size"] != 16.0 {
		t.Errorf("settings/attachment = %v", att)
	}
}

// TestMirrorsAndMigrationsAreSeparate: disabling migrations does not report mirrors disabled, and the other way round.
func TestMirrorsAndMigrationsAreSeparate(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_DISABLE_MIGRATIONS=true"))
	var m map[string]any
	s.Do("GET", "api/v1/settings/repository").Decode(t, &m)
	if m["migrations_disabled"] != true || m["mirrors_disabled"] != false {
		t.Errorf("with migrations disabled: %v", m)
	}
	s2 := StartServer(t, WithEnv("CAIRN_MIRROR_ENABLED=false"))
	m = nil
	s2.Do("GET", "api/v1/settings/repository").Decode(t, &m)
	if m["migrations_disabled"] != false || m["mirrors_disabled"] != true {
		t.Errorf("with mirrors disabled: %v", m)
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestUserPermissionMatrix calls every GET route under /users and /user that
// the router has (read from /swagger.v1.json) as {signed out, user, restricted
// user, admin} about {public, limited, private} users, and checks the status
// and that no hidden user or e-mail address leaks into any answer.
func TestUserPermissionMatrix(t *testing.T) {
	s := StartServer(t)
	s.CreateUser("star") // public; everyone below follows star
	pub := s.CreateUser("pub")
	lim := s.CreateUser("lim", "limited")
	priv := s.CreateUser("priv", "private")
	hider := s.CreateUser("hider") // public, hides the e-mail address
	viewer := s.CreateUser("viewer")
	restr := s.CreateUser("restr", "restricted")
	root := &User{Name: adminName, Password: adminPassword, Token: s.AdminTok}
	fndPatchSettings(t, s, hider.Token, map[string]any{"hide_email": true})
	for _, u := range []*User{pub, lim, priv, hider} {
		fndStatus(t, s.Do("PUT", "api/v1/user/following/star", Token(u.Token)), 204, u.Name+" follows star")
		line, _ := fndNewSSHKey(t, u.Name)
		fndStatus(t, s.Do("POST", "api/v1/user/keys", Token(u.Token), JSON(map[string]any{"title": "k", "key": line})), 201, u.Name+" key")
	}
	// Who follows whom among viewers (for /user/following/{username}).
	follows := map[string]map[string]bool{"viewer": {"pub": true, "lim": true}, "restr": {"pub": true}, adminName: {"priv": true}}
	for v, targets := range follows {
		tok := map[string]string{"viewer": viewer.Token, "restr": restr.Token, adminName: s.AdminTok}[v]
		for target := range targets {
			fndStatus(t, s.Do("PUT", "api/v1/user/following/"+target, Token(tok)), 204, v+" follows "+target)
		}
	}
	// Each viewer has a key of their own (for /user/keys/{id}).
	keyID := map[string]int64{}
	for _, u := range []*User{viewer, restr, root} {
		line, _ := fndNewSSHKey(t, u.Name)
		r := s.Do("POST", "api/v1/user/keys", Token(u.Token), JSON(map[string]any{"title": "own", "key": line}))
		fndStatus(t, r, 201, u.Name+" own key")
		var k struct {
			ID int64 `json:"id"`
		}
		r.Decode(t, &k)
		keyID[u.Name] = k.ID
	}

	type viewerT struct {
		kind string // "anon", "user", "restricted", "admin"
		user *User  // nil when signed out
	}
	viewers := []viewerT{{"anon", nil}, {"user", viewer}, {"restricted", restr}, {"admin", root}}
	visibility := map[string]string{"star": "public", "pub": "public", "hider": "public", "lim": "limited", "priv": "private"}
	visible := func(v viewerT, target string) bool {
		switch visibility[target] {
		case "public":
			return true
		case "limited":
			return v.kind == "user" || v.kind == "admin"
		}
		return v.kind == "admin"
	}
	// emailMayShow: target's real address may appear in an answer to v.
	emailMayShow := func(v viewerT, target string) bool {
		if v.user == nil || !visible(v, target) {
			return false
		}
		return target != "hider" || v.kind == "admin"
	}
	// checkLeaks fails when an answer to v shows a user v may not see, or an address v may not read.
	checkLeaks := func(what string, v viewerT, r *Response) {
		t.Helper()
		body := string(r.Body)
		for target := range visibility {
			if !emailMayShow(v, target) && strings.Contains(body, target+"@example.com") {
				t.Errorf("%s: leaks %s's e-mail address: %s", what, target, body)
			}
			if !visible(v, target) && (strings.Contains(body, `"login":"`+target+`"`) || strings.Contains(body, `"username":"`+target+`"`)) {
				t.Errorf("%s: leaks hidden user %s: %s", what, target, body)
			}
		}
		if v.user == nil && strings.Contains(body, "@example.com") {
			t.Errorf("%s: shows an e-mail address to a signed-out caller: %s", what, body)
		}
	}

	// The GET routes under /users and /user, from the router's own document.
	var routes []string
	for _, op := range fndSwaggerOps(t, s) {
		method, path, _ := strings.Cut(op, " ")
		if method == "GET" && (path == "/user" || strings.HasPrefix(path, "/user/") || strings.HasPrefix(path, "/users/")) {
			routes = append(routes, path)
		}
	}
	sort.Strings(routes)
	for _, must := range []string{"/user", "/user/emails", "/user/followers", "/user/following", "/user/following/{username}",
		"/user/keys", "/user/keys/{id}", "/user/settings", "/users/search", "/users/{username}", "/users/{username}/followers",
		"/users/{username}/following", "/users/{username}/following/{target}", "/users/{username}/keys", "/users/{username}/tokens"} {
		if !fndContains(routes, must) {
			t.Fatalf("the router has no GET %s (routes: %v)", must, routes)
		}
	}
	t.Logf("checking %d GET routes: %v", len(routes), routes)

	param := regexp.MustCompile(`\{([^}]+)\}`)
	targets := []string{"pub", "lim", "priv", "hider", "star"}
	checked := 0
	for _, route := range routes {
		for _, v := range viewers {
			tgts := []string{""}
			if strings.Contains(route, "{username}") || route == "/users/search" {
				tgts = targets
			}
			for _, target := range tgts {
				path := param.ReplaceAllStringFunc(route, func(p string) string {
					switch p {
					case "{username}":
						return target
					case "{target}":
						return "star"
					case "{id}":
						if v.user != nil {
							return fmt.Sprint(keyID[v.user.Name])
						}
						return fmt.Sprint(keyID["viewer"])
					}
					return "zz-no-such-thing"
				})
				if route == "/users/search" {
					path += "?q=" + target
				}
				var opts []RequestOption
				if v.user != nil {
					opts = append(opts, Token(v.user.Token))
					if route == "/users/{username}/tokens" {
						opts = []RequestOption{Basic(v.user.Name, v.user.Password)}
					}
				}
				r := s.Do("GET", "api/v1"+path, opts...)
				what := fmt.Sprintf("GET %s as %s", path, v.kind)
				checked++
				checkLeaks(what, v, r)
				want := fndExpectUserRoute(route, v.kind, target, v.user, visible(v, target), follows)
				if len(want) == 0 {
					t.Fatalf("%s: no expectation", what)
				}
				if !fndIntIn(r.Status, want) {
					t.Errorf("%s: status %d, want one of %v; body %s", what, r.Status, want, r.Body)
					continue
				}
				// Positive checks on what visible answers contain.
				switch {
				case route == "/users/search":
					var env struct {
						Data []fndUser `json:"data"`
					}
					r.Decode(t, &env)
					found := fndContains(fndLogins(env.Data), target)
					if found != visible(v, target) {
						t.Errorf("%s: target found %v, visible %v", what, found, visible(v, target))
					}
				case route == "/users/{username}/followers" && target == "star" && r.Status == 200:
					var l []fndUser
					r.Decode(t, &l)
					got := fndLogins(l)
					for _, f := range []string{"pub", "lim", "priv", "hider"} {
						if fndContains(got, f) != visible(v, f) {
							t.Errorf("%s: follower %s listed %v, visible %v (got %v)", what, f, fndContains(got, f), visible(v, f), got)
						}
					}
					if tc := r.Header.Get("X-Total-Count"); tc != fmt.Sprint(len(got)) {
						t.Errorf("%s: X-Total-Count %s counts hidden followers (%d shown)", what, tc, len(got))
					}
				case route == "/users/{username}" && r.Status == 200:
					u := fndDecodeUser(t, r)
					wantEmail := target + "@noreply.127.0.0.1"
					if emailMayShow(v, target) {
						wantEmail = target + "@example.com"
					}
					if u.Login != target || u.Email != wantEmail {
						t.Errorf("%s: login %q email %q, want %q", what, u.Login, u.Email, wantEmail)
					}
				case route == "/users/{username}/keys" && r.Status == 200:
					var l []map[string]any
					r.Decode(t, &l)
					if want := map[bool]int{true: 0, false: 1}[target == "star"]; len(l) != want {
						t.Errorf("%s: %d keys, want %d", what, len(l), want)
					}
				}
			}
		}
	}
	t.Logf("%d requests checked", checked)

	// Nothing about hidden users through search for signed-out callers, whatever the query.
	for _, q := range []string{"", "q=li", "q=pr", "q=example.com", "q=%40", "limit=50"} {
		r := s.Do("GET", "api/v1/users/search?"+q)
		checkLeaks("anonymous search "+q, viewerT{"anon", nil}, r)
		var env struct {
			Data []json.RawMessage `json:"data"`
		}
		r.Decode(t, &env)
		if tc := r.Header.Get("X-Total-Count"); tc != fmt.Sprint(len(env.Data)) && q != "" {
			t.Errorf("anonymous search %q: X-Total-Count %s for %d results", q, tc, len(env.Data))
		}
	}
}

// fndExpectUserRoute returns the acceptable statuses of GET route for a viewer kind and target.
func fndExpectUserRoute(route, kind, target string, v *User, vis bool, follows map[string]map[string]bool) []int {
	anon := kind == "anon"
	switch route {
	case "/users/search":
		return []int{200}
	case "/users/{username}":
		if vis {
			return []int{200}
		}
		return []int{404}
	case "/users/{username}/keys", "/users/{username}/followers", "/users/{username}/following":
		switch {
		case anon:
			return []int{401}
		case vis:
			return []int{200}
		}
		return []int{404}
	case "/users/{username}/following/{target}":
		switch {
		case anon:
			return []int{401}
		case vis && target != "star":
			return []int{204} // every target follows star
		}
		return []int{404}
	case "/users/{username}/tokens":
		switch {
		case anon:
			return []int{401}
		case kind == "admin":
			return []int{200}
		case vis:
			return []int{403}
		}
		return []int{404}
	case "/user", "/user/settings", "/user/emails", "/user/keys", "/user/followers", "/user/following", "/user/keys/{id}":
		if anon {
			return []int{401}
		}
		return []int{200}
	case "/user/following/{username}":
		switch {
		case anon:
			return []int{401}
		case follows[v.Name][target]:
			return []int{204}
		}
		return []int{404}
	}
	// Routes of other parts (organizations, repositories, ...): a hidden user is
	// never confirmed, and signed-out callers get at most what is public.
	if strings.HasPrefix(route, "/user/") {
		if anon {
			return []int{401}
		}
		return []int{200, 204, 404}
	}
	if !vis {
		if anon {
			return []int{401, 404}
		}
		return []int{404}
	}
	if anon {
		return []int{200, 204, 401, 404}
	}
	return []int{200, 204, 404}
}

func fndIntIn(n int, list []int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

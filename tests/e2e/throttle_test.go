package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoginThrottle: failed password checks lock an account, then an address,
// for the window: further password attempts (even right ones) answer 429 with
// Retry-After on the API and on git over HTTP, while tokens keep working and
// other accounts within the address limit can sign in.
func TestLoginThrottle(t *testing.T) {
	const window = 5 * time.Second
	s := StartServer(t, WithEnv(
		"CAIRN_SECURITY_LOGIN_FAILURES_PER_ACCOUNT=3",
		"CAIRN_SECURITY_LOGIN_FAILURES_PER_ADDRESS=8",
		"CAIRN_SECURITY_LOGIN_FAILURE_WINDOW="+window.String(),
	))
	k := newRTKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	k.create(carol.Token, "user/repos", map[string]any{"name": "secret", "private": true, "auto_init": true})

	// throttled checks a 429 in Gitea's error shape with a Retry-After in the window.
	throttled := func(resp *Response, what string) {
		t.Helper()
		k.want(resp, 429, "too many failed sign-in attempts", what)
		if !strings.Contains(string(resp.Body), `"url":`) {
			t.Fatalf("%s: body %s lacks the url key", what, resp.Body)
		}
		n, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || n < 1 || n > int(window/time.Second) {
			t.Fatalf("%s: Retry-After %q, want 1..%d seconds", what, resp.Header.Get("Retry-After"), int(window/time.Second))
		}
	}
	user := func(opts ...RequestOption) *Response { return s.Do("GET", "api/v1/user", opts...) }

	// The API: three wrong passwords lock alice, for her right password too.
	for i := 0; i < 3; i++ {
		k.want(user(Basic("alice", "wrong-"+strconv.Itoa(i))), 401, "", "wrong password "+strconv.Itoa(i))
	}
	throttled(user(Basic("alice", alice.Password)), "right password of a locked account")
	throttled(user(Basic("Alice", "wrong-again")), "wrong password of a locked account")
	throttled(s.Do("GET", "attachments/00000000-0000-0000-0000-000000000000", Basic("alice", alice.Password)), "attachment download with a locked account's password")

	// Tokens are never throttled, in any form.
	k.want(user(Token(alice.Token)), 200, "", "token header")
	k.want(user(Header("Authorization", "Bearer "+alice.Token)), 200, "", "bearer")
	k.want(user(Basic("alice", alice.Token)), 200, "", "token as basic password")
	k.want(user(Basic(alice.Token, "x-oauth-basic")), 200, "", "token as basic user name")
	k.want(s.Do("GET", "api/v1/user?token="+alice.Token), 200, "", "URL token")

	// Git over HTTP: wrong passwords count the same, then the right one gets 429.
	for i := 0; i < 3; i++ {
		if out, err := k.git("", nil, "ls-remote", k.url("carol", "wrong-"+strconv.Itoa(i), "carol/secret")); err == nil || strings.Contains(out, "429") {
			t.Fatalf("git with wrong password %d: %v\n%s", i, err, out)
		}
	}
	lastFailure := time.Now()
	if out, err := k.git("", nil, "ls-remote", k.url("carol", carol.Password, "carol/secret")); err == nil || !strings.Contains(out, "429") {
		t.Fatalf("git with the right password of a locked account: %v, want HTTP 429\n%s", err, out)
	}
	resp := rtGitHTTP(t, s, "GET", "carol/secret.git/info/refs?service=git-upload-pack", nil, nil, "carol", carol.Password)
	body := rtDrain(resp)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("info/refs of a locked account: %d (Retry-After %q) %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	k.mustGit("", "ls-remote", k.url("carol", carol.Token, "carol/secret"))

	// Six failures from this address so far: bob, within the address limit, signs in.
	k.want(user(Basic("bob", bob.Password)), 200, "", "another account from the same address")
	// Two more failures, on an account that does not exist, reach the address limit.
	k.want(user(Basic("nobody", "x")), 401, "", "unknown account")
	k.want(user(Basic("nobody@example.com", "x")), 401, "", "unknown e-mail")
	lastFailure = time.Now()
	throttled(user(Basic("bob", bob.Password)), "right password from an address over its limit")
	k.want(user(Token(bob.Token)), 200, "", "token from an address over its limit")

	// Once the windows end, the right passwords work again.
	time.Sleep(time.Until(lastFailure.Add(window + 300*time.Millisecond)))
	k.want(user(Basic("alice", alice.Password)), 200, "", "alice after the window")
	k.want(user(Basic("bob", bob.Password)), 200, "", "bob after the window")
	k.mustGit("", "ls-remote", k.url("carol", carol.Password, "carol/secret"))
}

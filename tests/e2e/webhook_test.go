package e2e

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// ---------------------------------------------------------------------------
// Helpers of the webhook tests (prefix wh): a receiver recording what it gets,
// hook creation, payload access.

// whStart starts an instance whose hooks may deliver to loopback receivers,
// with quick retries and a short delivery timeout.
func whStart(t *testing.T, extra ...string) *Server {
	t.Helper()
	env := append([]string{
		"CAIRN_WEBHOOK_ALLOWED_HOST_LIST=loopback",
		"CAIRN_WEBHOOK_RETRY_BACKOFF=1s",
		"CAIRN_WEBHOOK_DELIVERY_ATTEMPTS=3",
		"CAIRN_WEBHOOK_DELIVER_TIMEOUT=2s",
	}, extra...)
	return StartServer(t, WithEnv(env...))
}

// whRequest is one request a receiver got.
type whRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	At     time.Time
}

func (r whRequest) event() string     { return r.Header.Get("X-Gitea-Event") }
func (r whRequest) eventType() string { return r.Header.Get("X-Gitea-Event-Type") }
func (r whRequest) delivery() string  { return r.Header.Get("X-Gitea-Delivery") }

// payload is the JSON payload: the body, or its payload field for a form.
func (r whRequest) payload() []byte {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		v, err := url.ParseQuery(string(r.Body))
		if err != nil {
			return nil
		}
		return []byte(v.Get("payload"))
	}
	return r.Body
}

// doc decodes the payload (nil when it is not JSON).
func (r whRequest) doc() map[string]any {
	var m map[string]any
	if err := json.Unmarshal(r.payload(), &m); err != nil {
		return nil
	}
	return m
}

// str is the payload's value at a dotted path as text ("" when absent).
func (r whRequest) str(path string) string { return whStr(r.doc(), path) }

func (r whRequest) String() string {
	d := r.doc()
	return fmt.Sprintf("[%s %s event=%q type=%q action=%q]", r.Method, r.Path, r.event(), r.eventType(), whStr(d, "action"))
}

// whGet walks a decoded JSON value along a dotted path ("commits.0.id").
func whGet(v any, path string) any {
	if path == "" {
		return v
	}
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// whStr is whGet as text: strings as they are, numbers and booleans
// formatted, "" for null or missing.
func whStr(v any, path string) string {
	x := whGet(v, path)
	switch y := x.(type) {
	case nil:
		return ""
	case string:
		return y
	case float64:
		return strconv.FormatFloat(y, 'f', -1, 64)
	default:
		return fmt.Sprint(y)
	}
}

// whReceiver is an HTTP server on loopback that records every request.
type whReceiver struct {
	t       *testing.T
	srv     *httptest.Server
	URL     string
	mu      sync.Mutex
	reqs    []whRequest
	changed chan struct{}
	// respond, when set, chooses the answer to the n-th request (1-based);
	// the default is 200 "ok".
	respond func(n int, r whRequest) (int, string)
	// block, when set, holds every request until it is closed.
	block    chan struct{}
	inflight int
	release  sync.Once
}

// newWhReceiver starts a receiver, stopped at the end of the test.
func newWhReceiver(t *testing.T) *whReceiver {
	t.Helper()
	rc := &whReceiver{t: t, changed: make(chan struct{})}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	rc.URL = rc.srv.URL + "/hook"
	t.Cleanup(rc.srv.Close)
	return rc
}

// blocking makes the receiver hold every request until the test ends (or
// unblock is called).
func (rc *whReceiver) blocking() {
	rc.block = make(chan struct{})
	rc.t.Cleanup(rc.unblock) // runs before srv.Close (registered earlier)
}

func (rc *whReceiver) unblock() { rc.release.Do(func() { close(rc.block) }) }

func (rc *whReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := whRequest{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, At: time.Now()}
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, req)
	n := len(rc.reqs)
	rc.inflight++
	close(rc.changed)
	rc.changed = make(chan struct{})
	respond, block := rc.respond, rc.block
	rc.mu.Unlock()
	defer func() {
		rc.mu.Lock()
		rc.inflight--
		rc.mu.Unlock()
	}()
	if block != nil {
		select {
		case <-block:
		case <-time.After(30 * time.Second):
		}
	}
	status, text := http.StatusOK, "ok"
	if respond != nil {
		status, text = respond(n, req)
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

// inFlight is how many requests are being held or answered.
func (rc *whReceiver) inFlight() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.inflight
}

// all returns the requests matching pred so far.
func (rc *whReceiver) all(pred func(whRequest) bool) []whRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []whRequest
	for _, r := range rc.reqs {
		if pred == nil || pred(r) {
			out = append(out, r)
		}
	}
	return out
}

func (rc *whReceiver) summary() string {
	var parts []string
	for _, r := range rc.all(nil) {
		parts = append(parts, r.String())
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " ")
}

// waitN waits until n requests match pred and returns them.
func (rc *whReceiver) waitN(pred func(whRequest) bool, n int, timeout time.Duration, what string) []whRequest {
	rc.t.Helper()
	deadline := time.After(timeout)
	for {
		rc.mu.Lock()
		ch := rc.changed
		rc.mu.Unlock()
		if got := rc.all(pred); len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			rc.t.Fatalf("%s: %d matching deliveries within %v, want %d; the receiver got %s", what, len(rc.all(pred)), timeout, n, rc.summary())
		}
	}
}

// waitFor waits for a request matching pred (10s at most) and returns it.
func (rc *whReceiver) waitFor(pred func(whRequest) bool, what string) whRequest {
	rc.t.Helper()
	return rc.waitN(pred, 1, 10*time.Second, what)[0]
}

// none fails if a request matching pred arrived or arrives within d.
func (rc *whReceiver) none(pred func(whRequest) bool, d time.Duration, what string) {
	rc.t.Helper()
	deadline := time.After(d)
	for {
		rc.mu.Lock()
		ch := rc.changed
		rc.mu.Unlock()
		if got := rc.all(pred); len(got) > 0 {
			rc.t.Fatalf("%s: unexpected delivery %s", what, got[0])
		}
		select {
		case <-ch:
		case <-deadline:
			return
		}
	}
}

// atMost fails if more than n requests arrived or arrive within d.
func (rc *whReceiver) atMost(n int, d time.Duration, what string) {
	rc.t.Helper()
	time.Sleep(d)
	if got := rc.all(nil); len(got) > n {
		rc.t.Fatalf("%s: %d requests, want at most %d: %s", what, len(got), n, rc.summary())
	}
}

// whIs matches a request by X-Gitea-Event, X-Gitea-Event-Type and the
// payload's action ("" for any).
func whIs(event, eventType, action string) func(whRequest) bool {
	return func(r whRequest) bool {
		return r.event() == event && r.eventType() == eventType && (action == "" || r.str("action") == action)
	}
}

// whAnd adds conditions on the payload: path, value, path, value...
func whAnd(pred func(whRequest) bool, kv ...string) func(whRequest) bool {
	return func(r whRequest) bool {
		if !pred(r) {
			return false
		}
		d := r.doc()
		for i := 0; i+1 < len(kv); i += 2 {
			if whStr(d, kv[i]) != kv[i+1] {
				return false
			}
		}
		return true
	}
}

// whHook is a hook as the API returns it.
type whHook struct {
	ID                  int64             `json:"id"`
	Type                string            `json:"type"`
	Config              map[string]string `json:"config"`
	Events              []string          `json:"events"`
	BranchFilter        string            `json:"branch_filter"`
	AuthorizationHeader string            `json:"authorization_header"`
	Active              bool              `json:"active"`
}

// whBody is a CreateHookOption of a gitea hook posting JSON to u.
func whBody(u string, events ...string) map[string]any {
	return map[string]any{"type": "gitea", "config": map[string]string{"url": u, "content_type": "json"}, "events": events, "active": true}
}

// whCreate creates a hook at api/v1/<path> (e.g. "repos/o/r/hooks") and
// returns it.
func whCreate(t *testing.T, s *Server, tok, path string, body map[string]any) whHook {
	t.Helper()
	r := s.API("POST", path, tok, body)
	mustStatus(t, r, http.StatusCreated, "create hook at "+path)
	var h whHook
	r.Decode(t, &h)
	if h.ID == 0 {
		t.Fatalf("created hook has no id: %s", r.Body)
	}
	return h
}

// whMessage is the message of an API error answer.
func whMessage(r *Response) string {
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Message
}

// whWant checks an answer's status and that its message contains msg.
func whWant(t *testing.T, r *Response, status int, msg, what string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d, want %d: %s", what, r.Status, status, r.Body)
	}
	if msg != "" && !strings.Contains(whMessage(r), msg) {
		t.Fatalf("%s: message %q does not contain %q", what, whMessage(r), msg)
	}
}

var whUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func whHMAC256(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func whHMAC1(secret string, body []byte) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// whDelivery is an entry of the deliveries extension.
type whDelivery struct {
	ID        int64  `json:"id"`
	UUID      string `json:"uuid"`
	Event     string `json:"event"`
	EventType string `json:"event_type"`
	Delivered bool   `json:"delivered"`
	Succeeded bool   `json:"succeeded"`
	Attempts  int    `json:"attempts"`
	Request   *struct {
		URL        string            `json:"url"`
		HTTPMethod string            `json:"http_method"`
		Headers    map[string]string `json:"headers"`
		Body       string            `json:"body"`
	} `json:"request"`
	Response *struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
		Error   string            `json:"error"`
	} `json:"response"`
}

// whDeliveries lists the deliveries of hook id at api/v1/<hooks>/<id>.
func whDeliveries(t *testing.T, s *Server, tok, hooks string, id int64) []whDelivery {
	t.Helper()
	r := s.API("GET", fmt.Sprintf("%s/%d/deliveries", hooks, id), tok, nil)
	mustStatus(t, r, http.StatusOK, "list deliveries")
	var list []whDelivery
	r.Decode(t, &list)
	return list
}

// whWaitDelivery waits until the delivery with uuid is recorded as done
// with the given number of attempts at least.
func whWaitDelivery(t *testing.T, s *Server, tok, hooks string, id int64, uuid string, attempts int) whDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, d := range whDeliveries(t, s, tok, hooks, id) {
			if d.UUID == uuid && d.Delivered && d.Attempts >= attempts && d.Response != nil {
				return d
			}
		}
		if time.Now().After(deadline) {
			r := s.API("GET", fmt.Sprintf("%s/%d/deliveries", hooks, id), tok, nil)
			t.Fatalf("delivery %s of hook %d never recorded (%d attempts): %s", uuid, id, attempts, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func whHeaderKeys(h map[string]string) string {
	var keys []string
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// whHeader finds a header of a recorded map whatever its case.
func whHeader(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// ---------------------------------------------------------------------------
// Tests.

// TestWebhookCRUD manages hooks of the four scopes with the Go SDK (and raw
// HTTP where the SDK has no call), checks who may, and refuses bad input.
func TestWebhookCRUD(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	createRepo(t, s, alice, "proj", false)
	createRepo(t, s, alice, "other", false)
	addCollaborator(t, s, alice, "proj", "bob", "write")
	c := s.Client(alice.Token)
	const target = "http://127.0.0.1:9/hook"

	// Repository hooks.
	h, resp, err := c.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": target, "content_type": "json", "secret": "topsecret"}, Active: true,
		AuthorizationHeader: "Bearer abc"})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create repo hook: %v %v", err, resp)
	}
	if h.Type != "gitea" || !h.Active || !slices.Equal(h.Events, []string{"push"}) || h.AuthorizationHeader != "Bearer abc" {
		t.Fatalf("created hook = %+v, want type gitea, active, events [push], authorization_header", h)
	}
	if h.Config["url"] != target || h.Config["content_type"] != "json" {
		t.Fatalf("created hook config = %v", h.Config)
	}
	if _, ok := h.Config["secret"]; ok {
		t.Fatalf("config shows the secret: %v", h.Config)
	}
	h2, resp, err := c.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGogs,
		Config: map[string]string{"url": target + "2", "content_type": "form"}, Events: []string{"issues_only", "release"}, Active: false})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create second repo hook: %v %v", err, resp)
	}
	if h2.Active || h2.Type != "gogs" || h2.Config["content_type"] != "form" || !slices.Equal(h2.Events, []string{"issues", "release"}) {
		t.Fatalf("second hook = %+v", h2)
	}
	list, resp, err := c.ListRepoHooks("alice", "proj", gitea.ListHooksOptions{})
	if err != nil || len(list) != 2 || list[0].ID != h.ID || list[1].ID != h2.ID {
		t.Fatalf("list repo hooks: %v %d", err, len(list))
	}
	if resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("X-Total-Count = %q, want 2", resp.Header.Get("X-Total-Count"))
	}
	raw := s.API("GET", "repos/alice/proj/hooks", alice.Token, nil)
	if strings.Contains(string(raw.Body), "topsecret") {
		t.Fatalf("the list shows the secret: %s", raw.Body)
	}
	got, _, err := c.GetRepoHook("alice", "proj", h.ID)
	if err != nil || got.ID != h.ID || got.Config["url"] != target || got.AuthorizationHeader != "Bearer abc" {
		t.Fatalf("get repo hook: %v %+v", err, got)
	}
	if _, err := c.EditRepoHook("alice", "proj", h.ID, gitea.EditHookOption{Config: map[string]string{"url": target + "/new"},
		Events: []string{"pull_request_only", "status"}, BranchFilter: "main", Active: ptr(false), AuthorizationHeader: "Bearer def"}); err != nil {
		t.Fatalf("edit repo hook: %v", err)
	}
	got, _, err = c.GetRepoHook("alice", "proj", h.ID)
	if err != nil || got.Config["url"] != target+"/new" || got.Config["content_type"] != "json" || got.Active ||
		!slices.Equal(got.Events, []string{"pull_request", "status"}) || got.BranchFilter != "main" || got.AuthorizationHeader != "Bearer def" {
		t.Fatalf("edited hook = %v %+v", err, got)
	}
	// Another repository's hook id is not found through this one.
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		var body any
		if m == "PATCH" {
			body = map[string]any{"active": true}
		}
		whWant(t, s.API(m, fmt.Sprintf("repos/alice/other/hooks/%d", h.ID), alice.Token, body), http.StatusNotFound, "", m+" another repo's hook")
	}
	whWant(t, s.API("GET", "repos/alice/proj/hooks/999999", alice.Token, nil), http.StatusNotFound, "", "missing hook")
	// A writer who is not an administrator of the repository may not.
	whWant(t, s.API("GET", "repos/alice/proj/hooks", bob.Token, nil), http.StatusForbidden, "", "writer lists hooks")
	whWant(t, s.API("POST", "repos/alice/proj/hooks", bob.Token, whBody(target)), http.StatusForbidden, "", "writer creates hook")
	whWant(t, s.API("GET", fmt.Sprintf("repos/alice/proj/hooks/%d", h.ID), bob.Token, nil), http.StatusForbidden, "", "writer reads hook")
	whWant(t, s.API("DELETE", fmt.Sprintf("repos/alice/proj/hooks/%d", h.ID), bob.Token, nil), http.StatusForbidden, "", "writer deletes hook")

	// Bad input.
	bad := []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"unknown type", map[string]any{"type": "jenkins", "config": map[string]string{"url": target, "content_type": "json"}}, "Invalid hook type"},
		{"no url", map[string]any{"type": "gitea", "config": map[string]string{"content_type": "json"}}, "Missing config option: url"},
		{"no content type", map[string]any{"type": "gitea", "config": map[string]string{"url": target}}, "Missing config option: content_type"},
		{"xml", map[string]any{"type": "gitea", "config": map[string]string{"url": target, "content_type": "xml"}}, "Invalid content type"},
		{"unknown event", map[string]any{"type": "gitea", "config": map[string]string{"url": target, "content_type": "json"}, "events": []string{"push", "teleport"}}, "teleport"},
		{"ftp url", map[string]any{"type": "gitea", "config": map[string]string{"url": "ftp://x", "content_type": "json"}}, ""},
		{"bad glob", map[string]any{"type": "gitea", "config": map[string]string{"url": target, "content_type": "json"}, "branch_filter": "["}, ""},
	}
	for _, b := range bad {
		whWant(t, s.API("POST", "repos/alice/proj/hooks", alice.Token, b.body), http.StatusUnprocessableEntity, b.msg, "create with "+b.name)
	}
	whWant(t, s.API("PATCH", fmt.Sprintf("repos/alice/proj/hooks/%d", h.ID), alice.Token, map[string]any{"branch_filter": "["}),
		http.StatusUnprocessableEntity, "", "edit with a bad glob")
	whWant(t, s.API("PATCH", fmt.Sprintf("repos/alice/proj/hooks/%d", h.ID), alice.Token, map[string]any{"config": map[string]string{"content_type": "xml"}}),
		http.StatusUnprocessableEntity, "Invalid content type", "edit with content type xml")
	if n := len(whListHooks(t, s, alice.Token, "repos/alice/proj/hooks")); n != 2 {
		t.Fatalf("refused creations left %d hooks, want 2", n)
	}
	if _, err := c.DeleteRepoHook("alice", "proj", h.ID); err != nil {
		t.Fatalf("delete repo hook: %v", err)
	}
	if _, resp, _ := c.GetRepoHook("alice", "proj", h.ID); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted hook: %v", resp)
	}
	whWant(t, s.API("DELETE", fmt.Sprintf("repos/alice/proj/hooks/%d", h.ID), alice.Token, nil), http.StatusNotFound, "", "delete twice")

	// Organization hooks: owners only.
	k := newOrgKit(t, s)
	k.createOrg(alice, "acme", "public")
	devs := k.createTeam(alice, "acme", map[string]any{"name": "devs", "permission": "write", "includes_all_repositories": true, "units": []string{"repo.code"}})
	k.addToTeam(alice, devs.ID, "bob")
	oh, resp, err := c.CreateOrgHook("acme", gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": target, "content_type": "json"}, Events: []string{"repository", "push"}, Active: true})
	if err != nil || resp.StatusCode != http.StatusCreated || !slices.Equal(oh.Events, []string{"push", "repository"}) {
		t.Fatalf("create org hook: %v %v %+v", err, resp, oh)
	}
	ol, resp, err := c.ListOrgHooks("acme", gitea.ListHooksOptions{})
	if err != nil || len(ol) != 1 || ol[0].ID != oh.ID || resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("list org hooks: %v %d", err, len(ol))
	}
	if _, err := c.EditOrgHook("acme", oh.ID, gitea.EditHookOption{Events: []string{"create"}, Active: ptr(true)}); err != nil {
		t.Fatalf("edit org hook: %v", err)
	}
	if g, _, err := c.GetOrgHook("acme", oh.ID); err != nil || !slices.Equal(g.Events, []string{"create"}) {
		t.Fatalf("get org hook: %v %+v", err, g)
	}
	whWant(t, s.API("GET", "orgs/acme/hooks", bob.Token, nil), http.StatusForbidden, "", "org member lists org hooks")
	whWant(t, s.API("POST", "orgs/acme/hooks", bob.Token, whBody(target)), http.StatusForbidden, "", "org member creates org hook")
	whWant(t, s.API("GET", fmt.Sprintf("orgs/acme/hooks/%d", oh.ID), carol.Token, nil), http.StatusForbidden, "", "outsider reads org hook")
	// The org hook is not reachable as a repository's or a user's.
	whWant(t, s.API("GET", fmt.Sprintf("repos/alice/proj/hooks/%d", oh.ID), alice.Token, nil), http.StatusNotFound, "", "org hook through a repo")
	whWant(t, s.API("GET", fmt.Sprintf("user/hooks/%d", oh.ID), alice.Token, nil), http.StatusNotFound, "", "org hook through /user/hooks")
	if _, err := c.DeleteOrgHook("acme", oh.ID); err != nil {
		t.Fatalf("delete org hook: %v", err)
	}
	if l, _, _ := c.ListOrgHooks("acme", gitea.ListHooksOptions{}); len(l) != 0 {
		t.Fatalf("org hooks after delete: %d", len(l))
	}

	// User hooks: each user sees their own.
	bc := s.Client(bob.Token)
	uh, resp, err := bc.CreateMyHook(gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": target, "content_type": "json", "secret": "bobsecret"}, Events: []string{"issues"}, Active: true})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create user hook: %v %v", err, resp)
	}
	if !slices.Equal(uh.Events, []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}) {
		t.Fatalf("user hook events = %v", uh.Events)
	}
	if ml, _, err := bc.ListMyHooks(gitea.ListHooksOptions{}); err != nil || len(ml) != 1 || ml[0].ID != uh.ID {
		t.Fatalf("bob's hooks: %v %d", err, len(ml))
	}
	if ml, _, err := c.ListMyHooks(gitea.ListHooksOptions{}); err != nil || len(ml) != 0 {
		t.Fatalf("alice's hooks: %v %d", err, len(ml))
	}
	if _, resp, _ := c.GetMyHook(uh.ID); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("alice reads bob's hook: %v", resp)
	}
	if _, err := bc.EditMyHook(uh.ID, gitea.EditHookOption{Events: []string{"push"}, Active: ptr(false)}); err != nil {
		t.Fatalf("edit user hook: %v", err)
	}
	if g, _, err := bc.GetMyHook(uh.ID); err != nil || g.Active || !slices.Equal(g.Events, []string{"push"}) {
		t.Fatalf("get user hook: %v %+v", err, g)
	}
	if strings.Contains(string(s.API("GET", "user/hooks", bob.Token, nil).Body), "bobsecret") {
		t.Fatalf("user hook list shows the secret")
	}
	if _, err := c.DeleteMyHook(uh.ID); err == nil {
		t.Fatalf("alice deleted bob's hook")
	}
	if _, err := bc.DeleteMyHook(uh.ID); err != nil {
		t.Fatalf("delete user hook: %v", err)
	}

	// Admin hooks: site administrators only.
	ah, resp, err := s.Admin.CreateAdminHook(gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": target, "content_type": "json"}, Events: []string{"push"}, Active: true})
	if err != nil || resp.StatusCode != http.StatusCreated || ah.Config["url"] != target {
		t.Fatalf("create admin hook: %v %v %+v", err, resp, ah)
	}
	al, _, err := s.Admin.ListAdminHooks(gitea.ListAdminHooksOptions{Type: "all"})
	if err != nil || len(al) != 1 || al[0].ID != ah.ID {
		t.Fatalf("list admin hooks: %v %d", err, len(al))
	}
	if ed, _, err := s.Admin.EditAdminHook(ah.ID, gitea.EditHookOption{Events: []string{"release"}, Active: ptr(true)}); err != nil || !slices.Equal(ed.Events, []string{"release"}) {
		t.Fatalf("edit admin hook: %v %+v", err, ed)
	}
	if g, _, err := s.Admin.GetAdminHook(ah.ID); err != nil || !slices.Equal(g.Events, []string{"release"}) {
		t.Fatalf("get admin hook: %v %+v", err, g)
	}
	whWant(t, s.API("GET", "admin/hooks", carol.Token, nil), http.StatusForbidden, "", "normal user lists admin hooks")
	whWant(t, s.API("POST", "admin/hooks", carol.Token, whBody(target)), http.StatusForbidden, "", "normal user creates admin hook")
	whWant(t, s.API("GET", fmt.Sprintf("admin/hooks/%d", ah.ID), alice.Token, nil), http.StatusForbidden, "", "normal user reads admin hook")
	if _, err := s.Admin.DeleteAdminHook(ah.ID); err != nil {
		t.Fatalf("delete admin hook: %v", err)
	}
	whWant(t, s.API("GET", fmt.Sprintf("admin/hooks/%d", ah.ID), s.AdminTok, nil), http.StatusNotFound, "", "deleted admin hook")
}

// whListHooks lists the hooks at api/v1/<path>.
func whListHooks(t *testing.T, s *Server, tok, path string) []whHook {
	t.Helper()
	r := s.API("GET", path, tok, nil)
	mustStatus(t, r, http.StatusOK, "list hooks at "+path)
	var list []whHook
	r.Decode(t, &list)
	return list
}

// TestWebhookAllowedHostList: with the default list (external), a hook to a
// loopback address is refused when it is created, with the reason.
func TestWebhookAllowedHostList(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	for _, u := range []string{"http://127.0.0.1:8080/hook", "http://[::1]/hook", "http://10.1.2.3/hook"} {
		r := s.API("POST", "repos/alice/proj/hooks", alice.Token, whBody(u, "push"))
		whWant(t, r, http.StatusUnprocessableEntity, "ALLOWED_HOST_LIST", "hook to "+u)
	}
	whWant(t, s.API("POST", "repos/alice/proj/hooks", alice.Token, whBody("http://93.184.216.34/hook", "push")), http.StatusCreated, "", "hook to a public address")
	if n := len(whListHooks(t, s, alice.Token, "repos/alice/proj/hooks")); n != 1 {
		t.Fatalf("hooks = %d, want 1", n)
	}
}

// TestWebhookPushDelivery pushes over git HTTP and checks what a signed JSON
// hook and a form hook receive: Gitea's headers, signatures and payload.
func TestWebhookPushDelivery(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	rc := newWhReceiver(t)
	fc := newWhReceiver(t)
	c := s.Client(alice.Token)
	if _, _, err := c.CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": rc.URL, "content_type": "json", "secret": "s3cret"}, Events: []string{"push"}, Active: true}); err != nil {
		t.Fatal(err)
	}
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", map[string]any{"type": "gitea", "active": true, "events": []string{"push"},
		"config": map[string]string{"url": fc.URL, "content_type": "form", "secret": "f0rm"}})

	k := newRelKit(t, s)
	dir, ok := k.clone(alice, "alice/proj")
	if !ok {
		t.Fatal("clone failed")
	}
	before := k.mustGit(dir, "rev-parse", "HEAD")
	if out, err := k.commitPush(dir, "hello.txt"); err != nil {
		t.Fatalf("push: %v %s", err, out)
	}
	after := k.mustGit(dir, "rev-parse", "HEAD")

	d := rc.waitFor(whIs("push", "push", ""), "push delivery")
	if d.Method != "POST" || d.Path != "/hook" {
		t.Fatalf("request %s %s", d.Method, d.Path)
	}
	id := d.delivery()
	if !whUUID.MatchString(id) {
		t.Fatalf("X-Gitea-Delivery = %q, want a UUID", id)
	}
	sig := whHMAC256("s3cret", d.Body)
	wantHeaders := map[string]string{
		"Content-Type":        "application/json",
		"X-Gitea-Event":       "push",
		"X-Gitea-Event-Type":  "push",
		"X-Gitea-Signature":   sig,
		"X-Gogs-Delivery":     id,
		"X-Gogs-Event":        "push",
		"X-Gogs-Event-Type":   "push",
		"X-Gogs-Signature":    sig,
		"X-GitHub-Delivery":   id,
		"X-GitHub-Event":      "push",
		"X-GitHub-Event-Type": "push",
		"X-Hub-Signature-256": "sha256=" + sig,
		"X-Hub-Signature":     "sha1=" + whHMAC1("s3cret", d.Body),
	}
	for k, v := range wantHeaders {
		got := d.Header.Get(k)
		if k == "Content-Type" {
			got, _, _ = strings.Cut(got, ";")
		}
		if got != v {
			t.Errorf("header %s = %q, want %q", k, d.Header.Get(k), v)
		}
	}
	p := d.doc()
	if p == nil {
		t.Fatalf("payload is not JSON: %s", d.Body)
	}
	checks := map[string]string{
		"ref":                  "refs/heads/main",
		"before":               before,
		"after":                after,
		"commits.0.id":         after,
		"commits.0.message":    "add hello.txt\n",
		"commits.0.added.0":    "hello.txt",
		"total_commits":        "1",
		"head_commit.id":       after,
		"repository.full_name": "alice/proj",
		"pusher.login":         "alice",
		"pusher.username":      "alice",
		"sender.login":         "alice",
	}
	for path, want := range checks {
		if got := whStr(p, path); got != want {
			t.Errorf("payload %s = %q, want %q", path, got, want)
		}
	}
	if n := len(whGet(p, "commits").([]any)); n != 1 {
		t.Errorf("payload has %d commits, want 1", n)
	}
	if cu := whStr(p, "compare_url"); !strings.Contains(cu, before+"..."+after) {
		t.Errorf("compare_url = %q", cu)
	}

	// The form hook: payload=<JSON>, signed over the JSON as Gitea does.
	f := fc.waitFor(whIs("push", "push", ""), "form push delivery")
	if ct := f.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		t.Fatalf("form Content-Type = %q", ct)
	}
	if !strings.HasPrefix(string(f.Body), "payload=") {
		t.Fatalf("form body = %.80q", f.Body)
	}
	if f.str("after") != after || f.str("ref") != "refs/heads/main" {
		t.Fatalf("form payload after=%q ref=%q", f.str("after"), f.str("ref"))
	}
	if got, want := f.Header.Get("X-Hub-Signature-256"), "sha256="+whHMAC256("f0rm", f.payload()); got != want {
		t.Fatalf("form X-Hub-Signature-256 = %q, want %q (HMAC of the JSON payload)", got, want)
	}
	if f.delivery() == id {
		t.Fatalf("two hooks share the delivery id %s", id)
	}
	// One push, one delivery each.
	rc.atMost(1, time.Second, "deliveries of one push")
}

// TestWebhookDeliveriesAndRedeliver reads the deliveries extension after a
// delivery and redelivers it.
func TestWebhookDeliveriesAndRedeliver(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	addCollaborator(t, s, alice, "proj", "bob", "write")
	rc := newWhReceiver(t)
	rc.respond = func(int, whRequest) (int, string) { return http.StatusOK, "thanks!" }
	body := whBody(rc.URL, "issues")
	body["authorization_header"] = "Bearer sesame"
	h := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", body)
	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Hello"}), http.StatusCreated, "create issue")
	d := rc.waitFor(whIs("issues", "issues", "opened"), "issue opened")
	if got := d.Header.Get("Authorization"); got != "Bearer sesame" {
		t.Fatalf("receiver Authorization = %q, want the hook's authorization_header", got)
	}
	hooks := "repos/alice/proj/hooks"
	rec := whWaitDelivery(t, s, alice.Token, hooks, h.ID, d.delivery(), 1)
	if !rec.Succeeded || rec.Event != "issues" || rec.EventType != "issues" || rec.Attempts != 1 {
		t.Fatalf("delivery record = %+v", rec)
	}
	if rec.Request == nil || rec.Request.Body != string(d.Body) || rec.Request.URL != rc.URL {
		t.Fatalf("recorded request = %+v", rec.Request)
	}
	if v, ok := whHeader(rec.Request.Headers, "Authorization"); !ok || v != "******" {
		t.Fatalf("recorded Authorization = %q (present %v), want masked as ******; headers %s", v, ok, whHeaderKeys(rec.Request.Headers))
	}
	if v, _ := whHeader(rec.Request.Headers, "X-Gitea-Delivery"); v != d.delivery() {
		t.Fatalf("recorded X-Gitea-Delivery = %q, want %q", v, d.delivery())
	}
	if rec.Response.Status != 200 || rec.Response.Body != "thanks!" {
		t.Fatalf("recorded response = %+v", rec.Response)
	}
	one := s.API("GET", fmt.Sprintf("%s/%d/deliveries/%d", hooks, h.ID, rec.ID), alice.Token, nil)
	mustStatus(t, one, http.StatusOK, "get delivery")
	var single whDelivery
	one.Decode(t, &single)
	if single.UUID != d.delivery() || single.Response == nil || single.Response.Body != "thanks!" {
		t.Fatalf("single delivery = %s", one.Body)
	}
	whWant(t, s.API("GET", fmt.Sprintf("%s/%d/deliveries/999999", hooks, h.ID), alice.Token, nil), http.StatusNotFound, "", "missing delivery")
	whWant(t, s.API("GET", fmt.Sprintf("%s/%d/deliveries", hooks, h.ID), bob.Token, nil), http.StatusForbidden, "", "writer lists deliveries")

	// Redelivery: same body, new id.
	r := s.API("POST", fmt.Sprintf("%s/%d/deliveries/%d/redeliver", hooks, h.ID, rec.ID), alice.Token, nil)
	mustStatus(t, r, http.StatusAccepted, "redeliver")
	var re whDelivery
	r.Decode(t, &re)
	if re.UUID == "" || re.UUID == d.delivery() || re.ID == rec.ID {
		t.Fatalf("redelivery = %s", r.Body)
	}
	again := rc.waitFor(func(x whRequest) bool { return x.delivery() == re.UUID }, "redelivery")
	if string(again.Body) != string(d.Body) || again.event() != "issues" || again.eventType() != "issues" {
		t.Fatalf("redelivered body or headers differ: %s %s", again, again.Body)
	}
	if again.Header.Get("X-Hub-Signature-256") != d.Header.Get("X-Hub-Signature-256") {
		t.Fatalf("redelivery signature differs")
	}
	whWaitDelivery(t, s, alice.Token, hooks, h.ID, re.UUID, 1)
	if list := whDeliveries(t, s, alice.Token, hooks, h.ID); len(list) != 2 || list[0].UUID != re.UUID {
		t.Fatalf("deliveries after redelivery: %+v", list)
	}
	if tc := s.API("GET", fmt.Sprintf("%s/%d/deliveries", hooks, h.ID), alice.Token, nil).Header.Get("X-Total-Count"); tc != "2" {
		t.Fatalf("deliveries X-Total-Count = %q, want 2", tc)
	}
	// A delivery is reachable only through its own hook.
	other := whCreate(t, s, alice.Token, hooks, whBody(rc.URL, "push"))
	whWant(t, s.API("GET", fmt.Sprintf("%s/%d/deliveries/%d", hooks, other.ID, rec.ID), alice.Token, nil), http.StatusNotFound, "", "delivery through another hook")
	whWant(t, s.API("POST", fmt.Sprintf("%s/%d/deliveries/%d/redeliver", hooks, other.ID, rec.ID), alice.Token, nil), http.StatusNotFound, "", "redeliver through another hook")
	whWant(t, s.API("POST", fmt.Sprintf("%s/%d/deliveries/999999/redeliver", hooks, h.ID), alice.Token, nil), http.StatusNotFound, "", "redeliver missing")
}

// TestWebhookTestEndpoint: POST .../hooks/{id}/tests sends a push of the
// default branch's head to the hook, whatever it selects.
func TestWebhookTestEndpoint(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	rc := newWhReceiver(t)
	h := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(rc.URL, "issues"))
	head := prBranchSHA(t, s, alice.Token, "alice/proj", "main")
	r := s.API("POST", fmt.Sprintf("repos/alice/proj/hooks/%d/tests", h.ID), alice.Token, nil)
	mustStatus(t, r, http.StatusNoContent, "test hook")
	d := rc.waitFor(whIs("push", "push", ""), "test delivery")
	if d.str("ref") != "refs/heads/main" || d.str("after") != head || d.str("head_commit.id") != head ||
		d.str("commits.0.id") != head || d.str("repository.full_name") != "alice/proj" {
		t.Fatalf("test payload ref=%q after=%q head=%q: %s", d.str("ref"), d.str("after"), d.str("head_commit.id"), d.Body)
	}
	// As Gitea's TestHook: the pusher and sender are who asked for the test,
	// and the compare URL spans the commit to itself.
	if d.str("pusher.login") != "alice" || d.str("sender.login") != "alice" {
		t.Errorf("test payload pusher=%q sender=%q, want the caller alice", d.str("pusher.login"), d.str("sender.login"))
	}
	if cu := d.str("compare_url"); !strings.HasSuffix(cu, "/alice/proj/compare/"+head+"..."+head) {
		t.Errorf("test payload compare_url = %q, want .../alice/proj/compare/%s...%s", cu, head, head)
	}
	whWant(t, s.API("POST", "repos/alice/proj/hooks/999999/tests", alice.Token, nil), http.StatusNotFound, "", "test missing hook")
}

// TestWebhookRetries: a receiver failing twice gets the same delivery a
// third time, and the record says three attempts.
func TestWebhookRetries(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	rc := newWhReceiver(t)
	rc.respond = func(n int, _ whRequest) (int, string) {
		if n <= 2 {
			return http.StatusInternalServerError, "boom"
		}
		return http.StatusOK, "fine"
	}
	h := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(rc.URL, "issues"))
	start := time.Now()
	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Retry me"}), http.StatusCreated, "create issue")
	got := rc.waitN(whIs("issues", "issues", "opened"), 3, 15*time.Second, "three attempts")
	for _, g := range got[1:] {
		if g.delivery() != got[0].delivery() || string(g.Body) != string(got[0].Body) {
			t.Fatalf("retry differs: %s vs %s", g.delivery(), got[0].delivery())
		}
	}
	if gap := got[1].At.Sub(got[0].At); gap < 900*time.Millisecond {
		t.Fatalf("first retry after %v, want the 1s back-off", gap)
	}
	t.Logf("three attempts in %v", got[2].At.Sub(start))
	rec := whWaitDelivery(t, s, alice.Token, "repos/alice/proj/hooks", h.ID, got[0].delivery(), 3)
	if !rec.Succeeded || rec.Attempts != 3 || rec.Response.Status != 200 || rec.Response.Body != "fine" {
		t.Fatalf("delivery record = %+v %+v", rec, rec.Response)
	}
	rc.atMost(3, 1500*time.Millisecond, "attempts of one delivery")
}

// TestWebhookSlowReceiverIsolated: a receiver that hangs does not delay the
// deliveries of another hook of the same repository.
func TestWebhookSlowReceiverIsolated(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	slow := newWhReceiver(t)
	slow.blocking()
	fast := newWhReceiver(t)
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(slow.URL, "issues"))
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", whBody(fast.URL, "issues"))
	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "one"}), http.StatusCreated, "issue one")
	slow.waitFor(whIs("issues", "issues", "opened"), "slow receiver gets the first issue")
	fast.waitFor(whAnd(whIs("issues", "issues", "opened"), "issue.title", "one"), "fast receiver gets the first issue")
	for i, title := range []string{"two", "three"} {
		start := time.Now()
		mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": title}), http.StatusCreated, "issue "+title)
		fast.waitN(whAnd(whIs("issues", "issues", "opened"), "issue.title", title), 1, 2*time.Second, "fast receiver while the slow one hangs")
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("issue %d took %v to reach the healthy hook", i+2, took)
		}
		if slow.inFlight() == 0 {
			t.Fatalf("the slow receiver is not blocked any more; the test proves nothing")
		}
	}
}

// TestWebhookDisabled: [security] DISABLE_WEBHOOKS makes every hook route
// answer 403 with Gitea's message.
func TestWebhookDisabled(t *testing.T) {
	s := whStart(t, "CAIRN_SECURITY_DISABLE_WEBHOOKS=true")
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	newOrgKit(t, s).createOrg(alice, "acme", "public")
	const msg = "webhooks disabled by administrator"
	body := whBody("http://127.0.0.1:9/hook", "push")
	for _, c := range []struct{ method, path, tok string }{
		{"GET", "repos/alice/proj/hooks", alice.Token},
		{"POST", "repos/alice/proj/hooks", alice.Token},
		{"GET", "repos/alice/proj/hooks/1", alice.Token},
		{"PATCH", "repos/alice/proj/hooks/1", alice.Token},
		{"DELETE", "repos/alice/proj/hooks/1", alice.Token},
		{"POST", "repos/alice/proj/hooks/1/tests", alice.Token},
		{"GET", "repos/alice/proj/hooks/1/deliveries", alice.Token},
		{"GET", "orgs/acme/hooks", alice.Token},
		{"POST", "orgs/acme/hooks", alice.Token},
		{"GET", "user/hooks", alice.Token},
		{"POST", "user/hooks", alice.Token},
		{"GET", "admin/hooks", s.AdminTok},
		{"POST", "admin/hooks", s.AdminTok},
	} {
		var b any
		if c.method == "POST" || c.method == "PATCH" {
			b = body
		}
		whWant(t, s.API(c.method, c.path, c.tok, b), http.StatusForbidden, msg, c.method+" "+c.path)
	}
	if _, resp, err := s.Client(alice.Token).CreateRepoHook("alice", "proj", gitea.CreateHookOption{Type: gitea.HookTypeGitea,
		Config: map[string]string{"url": "http://127.0.0.1:9/hook", "content_type": "json"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("SDK create with webhooks disabled: %v %v", err, resp)
	}
}

// TestWebhookChatFormats: slack and discord hooks get their service's
// message, not Gitea's payload.
func TestWebhookChatFormats(t *testing.T) {
	s := whStart(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	sl := newWhReceiver(t)
	dc := newWhReceiver(t)
	whWant(t, s.API("POST", "repos/alice/proj/hooks", alice.Token, map[string]any{"type": "slack", "active": true,
		"config": map[string]string{"url": sl.URL, "content_type": "json"}}), http.StatusUnprocessableEntity, "", "slack hook without a channel")
	sh := whCreate(t, s, alice.Token, "repos/alice/proj/hooks", map[string]any{"type": "slack", "active": true, "events": []string{"push", "issues"},
		"config": map[string]string{"url": sl.URL, "content_type": "json", "channel": "#dev", "username": "cairn-bot"}})
	if sh.Type != "slack" || sh.Config["channel"] != "#dev" {
		t.Fatalf("slack hook = %+v", sh)
	}
	whCreate(t, s, alice.Token, "repos/alice/proj/hooks", map[string]any{"type": "discord", "active": true, "events": []string{"push", "issues"},
		"config": map[string]string{"url": dc.URL, "content_type": "json", "username": "cairn-bot"}})

	prCommit(t, s, alice.Token, "alice/proj", "main", "", map[string]string{"chat.txt": "hi"})
	mustStatus(t, s.API("POST", "repos/alice/proj/issues", alice.Token, map[string]any{"title": "Chatty issue"}), http.StatusCreated, "issue")

	isJSON := func(r whRequest) bool { return r.doc() != nil }
	for _, got := range sl.waitN(isJSON, 2, 10*time.Second, "slack messages") {
		if ct := got.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("slack Content-Type = %q", ct)
		}
		d := got.doc()
		if whStr(d, "channel") != "#dev" || whStr(d, "username") != "cairn-bot" {
			t.Errorf("slack message channel=%q username=%q: %s", whStr(d, "channel"), whStr(d, "username"), got.Body)
		}
		if whStr(d, "text") == "" && whGet(d, "attachments.0") == nil {
			t.Errorf("slack message has neither text nor attachments: %s", got.Body)
		}
		if whGet(d, "repository") != nil || whGet(d, "ref") != nil {
			t.Errorf("slack got Gitea's payload: %s", got.Body)
		}
		// Gitea 1.23 sends its default headers with every hook type.
		if ev := got.event(); (ev != "push" && ev != "issues") || got.eventType() != ev || !whUUID.MatchString(got.delivery()) {
			t.Errorf("slack delivery headers: X-Gitea-Event %q X-Gitea-Event-Type %q X-Gitea-Delivery %q", ev, got.eventType(), got.delivery())
		}
	}
	if all := string(sl.all(nil)[0].Body) + string(sl.all(nil)[1].Body); !strings.Contains(all, "Chatty issue") || !strings.Contains(all, "alice/proj") {
		t.Errorf("slack messages do not mention the issue and the repository: %s", all)
	}
	for _, got := range dc.waitN(isJSON, 2, 10*time.Second, "discord messages") {
		d := got.doc()
		embeds, _ := whGet(d, "embeds").([]any)
		if len(embeds) == 0 || whStr(d, "username") != "cairn-bot" {
			t.Errorf("discord message without embeds or username: %s", got.Body)
		}
		if ev := got.event(); (ev != "push" && ev != "issues") || got.eventType() != ev {
			t.Errorf("discord delivery headers: X-Gitea-Event %q X-Gitea-Event-Type %q", ev, got.eventType())
		}
	}
}

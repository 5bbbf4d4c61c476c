package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/queue"
)

// harness is a webhook service on a test database with its queue running.
type harness struct {
	db *db.DB
	s  *Service
	q  *queue.Queue
}

func newHarness(t testing.TB, o Options, qo queue.Options) *harness {
	t.Helper()
	h := newIdleHarness(t, o, qo)
	h.run(t)
	return h
}

// newIdleHarness is newHarness without running the queue (see run).
func newIdleHarness(t testing.TB, o Options, qo queue.Options) *harness {
	t.Helper()
	d := dbtest.Open(t)
	if qo.Backoff == nil {
		qo.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
	}
	if qo.Poll == 0 {
		qo.Poll = 50 * time.Millisecond
	}
	q := queue.New(d, qo)
	client, err := NewClient(ClientOptions{AllowedHostList: "loopback", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	box, _ := NewSecretBox([]byte("test instance secret"))
	return &harness{db: d, s: NewService(d, q, client, box, o), q: q}
}

// run runs the queue until the test ends.
func (h *harness) run(t testing.TB) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.q.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func (h *harness) hook(t testing.TB, url string, events ...string) *Hook {
	t.Helper()
	ev, err := ParseEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	hk := &Hook{RepoID: 1, OwnerID: 2, Type: "gitea", URL: url, ContentType: ContentJSON, Events: ev, Active: true, Secret: "s"}
	if err := h.s.Create(context.Background(), hk); err != nil {
		t.Fatal(err)
	}
	return hk
}

// receiver counts deliveries and answers with status().
type receiver struct {
	srv    *httptest.Server
	n      atomic.Int64
	mu     sync.Mutex
	bodies []string
}

func newReceiver(t testing.TB, status func(n int64) int) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		n := r.n.Add(1)
		r.mu.Lock()
		r.bodies = append(r.bodies, string(b))
		r.mu.Unlock()
		w.WriteHeader(status(n))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func ok(int64) int { return http.StatusOK }

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func fire(t testing.TB, h *harness, e EventType, branch string, payload any) {
	t.Helper()
	err := h.s.Fire(context.Background(), Event{Type: e, RepoID: 1, OwnerID: 2, Branch: branch,
		Payload: func(context.Context) (any, error) { return payload, nil }})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFireDeliversToWantingHooksOnly(t *testing.T) {
	h := newHarness(t, Options{}, queue.Options{})
	pushes, issues := newReceiver(t, ok), newReceiver(t, ok)
	h.hook(t, pushes.srv.URL, "push")
	h.hook(t, issues.srv.URL, "issues")
	other := &Hook{RepoID: 99, Type: "gitea", URL: issues.srv.URL, ContentType: ContentJSON, Events: Events{EventPush: true}, Active: true}
	if err := h.s.Create(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	built := 0
	err := h.s.Fire(context.Background(), Event{Type: EventIssueLabel, RepoID: 1, OwnerID: 2,
		Payload: func(context.Context) (any, error) { built++; return map[string]string{"action": "label_updated"}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	fire(t, h, EventPush, "main", map[string]string{"ref": "refs/heads/main"})
	waitUntil(t, "both deliveries", func() bool { return pushes.n.Load() == 1 && issues.n.Load() == 1 })
	time.Sleep(200 * time.Millisecond)
	if pushes.n.Load() != 1 || issues.n.Load() != 1 || built != 1 {
		t.Fatalf("deliveries: push %d, issues %d; payload built %d times", pushes.n.Load(), issues.n.Load(), built)
	}
	// No hook wants it: the payload is not even built.
	err = h.s.Fire(context.Background(), Event{Type: EventRelease, RepoID: 1, OwnerID: 2,
		Payload: func(context.Context) (any, error) { t.Error("payload built for nobody"); return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFireRollsBackWithTheChange(t *testing.T) {
	h := newHarness(t, Options{}, queue.Options{})
	r := newReceiver(t, ok)
	h.hook(t, r.srv.URL, "push")
	_ = h.db.WithTx(context.Background(), func(ctx context.Context) error {
		if err := h.s.Fire(ctx, Event{Type: EventPush, RepoID: 1, OwnerID: 2,
			Payload: func(context.Context) (any, error) { return "x", nil }}); err != nil {
			t.Fatal(err)
		}
		return context.Canceled // the change fails
	})
	time.Sleep(300 * time.Millisecond)
	if r.n.Load() != 0 {
		t.Fatalf("%d deliveries of a rolled-back change", r.n.Load())
	}
	n, _ := h.db.Count(context.Background(), "SELECT COUNT(*) FROM hook_task")
	if n != 0 {
		t.Fatalf("%d delivery records of a rolled-back change", n)
	}
}

func TestRetryRecordsAndHealth(t *testing.T) {
	h := newHarness(t, Options{}, queue.Options{MaxAttempts: 5})
	r := newReceiver(t, func(n int64) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	hk := h.hook(t, r.srv.URL, "push")
	fire(t, h, EventPush, "main", map[string]int{"n": 1})
	waitUntil(t, "three attempts", func() bool { return r.n.Load() == 3 })
	waitUntil(t, "the record of the success", func() bool {
		list, _, _ := h.s.Deliveries(context.Background(), hk.ID, 10, 0)
		return len(list) == 1 && list[0].Succeeded
	})
	list, _, _ := h.s.Deliveries(context.Background(), hk.ID, 10, 0)
	d := list[0]
	if d.Attempts != 3 || d.Response == nil || d.Response.Status != 200 || d.Request == nil || d.Request.Headers["X-Gitea-Delivery"] != d.UUID {
		t.Fatalf("delivery record: %+v req %+v resp %+v", d, d.Request, d.Response)
	}
	got, _ := h.s.Get(context.Background(), Scope{RepoID: 1}, hk.ID)
	if got.LastStatus != StatusSucceed || !got.FailingSince.IsZero() {
		t.Fatalf("hook health after success: %d %v", got.LastStatus, got.FailingSince)
	}
	// Redelivery: the same body under a new delivery id.
	again, err := h.s.Redeliver(context.Background(), hk, d.ID)
	if err != nil || again.UUID == d.UUID || again.Payload != d.Payload {
		t.Fatalf("redeliver: %+v %v", again, err)
	}
	waitUntil(t, "the redelivery", func() bool { return r.n.Load() == 4 })
}

func TestFailingHookIsTurnedOff(t *testing.T) {
	h := newHarness(t, Options{DisableAfter: time.Nanosecond}, queue.Options{MaxAttempts: 1})
	r := newReceiver(t, func(int64) int { return http.StatusBadGateway })
	hk := h.hook(t, r.srv.URL, "push")
	fire(t, h, EventPush, "main", 1)
	waitUntil(t, "the first failure", func() bool {
		got, _ := h.s.Get(context.Background(), Scope{RepoID: 1}, hk.ID)
		return got.LastStatus == StatusFail && got.Active
	})
	fire(t, h, EventPush, "main", 2)
	waitUntil(t, "the hook turned off", func() bool {
		got, _ := h.s.Get(context.Background(), Scope{RepoID: 1}, hk.ID)
		return !got.Active && got.DisabledReason != ""
	})
	fire(t, h, EventPush, "main", 3)
	time.Sleep(200 * time.Millisecond)
	if r.n.Load() != 2 {
		t.Fatalf("%d deliveries to a turned-off hook", r.n.Load())
	}
}

func TestPruneKeepsRecentDeliveries(t *testing.T) {
	h := newHarness(t, Options{KeepDeliveries: 5}, queue.Options{})
	r := newReceiver(t, ok)
	hk := h.hook(t, r.srv.URL, "push")
	for i := 0; i < 40; i++ {
		fire(t, h, EventPush, "main", i)
	}
	waitUntil(t, "40 deliveries", func() bool { return r.n.Load() == 40 })
	time.Sleep(100 * time.Millisecond)
	_, total, _ := h.s.Deliveries(context.Background(), hk.ID, 100, 0)
	if total > 5+16 {
		t.Fatalf("%d deliveries kept, want about 5", total)
	}
}

func TestSecretsAreStoredEncrypted(t *testing.T) {
	h := newHarness(t, Options{}, queue.Options{})
	hk := &Hook{RepoID: 1, Type: "gitea", URL: "http://127.0.0.1:1/x", ContentType: ContentJSON, Events: Events{EventPush: true},
		Secret: "plain-secret", AuthHeader: "Bearer plain-token"}
	if err := h.s.Create(context.Background(), hk); err != nil {
		t.Fatal(err)
	}
	var secret, auth string
	if err := h.db.QueryRow(context.Background(), "SELECT secret_enc, auth_header_enc FROM webhook WHERE id = ?", hk.ID).Scan(&secret, &auth); err != nil {
		t.Fatal(err)
	}
	if secret == "" || secret == "plain-secret" || auth == "" || auth == "Bearer plain-token" {
		t.Fatalf("stored in clear: %q %q", secret, auth)
	}
	got, err := h.s.Get(context.Background(), Scope{RepoID: 1}, hk.ID)
	if err != nil || got.Secret != "plain-secret" || got.AuthHeader != "Bearer plain-token" {
		t.Fatalf("read back: %+v %v", got, err)
	}
}

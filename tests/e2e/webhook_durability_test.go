package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWebhookDeliveriesSurviveKill makes 100 changes (new issues) while the
// receiver is down, kills the server with SIGKILL in the middle of them,
// restarts it and brings the receiver up: every issue that exists gets its
// event, and no event arrives for an issue that does not (a change whose
// transaction did not commit).
func TestWebhookDeliveriesSurviveKill(t *testing.T) {
	var up atomic.Bool
	var mu sync.Mutex
	delivered := map[int64]int{} // issue number -> deliveries
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !up.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		var p struct {
			Action string `json:"action"`
			Number int64  `json:"number"`
		}
		if err := json.Unmarshal(body, &p); err != nil || p.Action != "opened" {
			http.Error(w, "unexpected payload", http.StatusBadRequest)
			return
		}
		mu.Lock()
		delivered[p.Number]++
		mu.Unlock()
	}))
	defer recv.Close()

	s := StartServer(t, WithEnv("CAIRN_WEBHOOK_ALLOWED_HOST_LIST=loopback", "CAIRN_WEBHOOK_RETRY_BACKOFF=1s",
		"CAIRN_WEBHOOK_DELIVERY_ATTEMPTS=20", "CAIRN_WEBHOOK_DELIVER_TIMEOUT=2s"))
	u := s.CreateUser("kim")
	createRepo(t, s, u, "durable", false)
	resp := s.API("POST", "repos/kim/durable/hooks", u.Token, map[string]any{
		"type": "gitea", "active": true, "events": []string{"issues"},
		"config": map[string]string{"url": recv.URL, "content_type": "json"},
	})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create hook: %d %s", resp.Status, resp.Body)
	}

	// Phase 1: four writers create issues; the server is killed once 60
	// have been answered, while requests are still in flight.
	const total = 100
	var answered atomic.Int64
	var wg sync.WaitGroup
	killed := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			client := &http.Client{Timeout: 5 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-killed:
					return
				default:
				}
				body, _ := json.Marshal(map[string]string{"title": fmt.Sprintf("change %d-%d", w, i)})
				req, _ := http.NewRequest("POST", s.URL+"api/v1/repos/kim/durable/issues", bytes.NewReader(body))
				req.Header.Set("Authorization", "token "+u.Token)
				req.Header.Set("Content-Type", "application/json")
				r, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				r.Body.Close()
				if r.StatusCode == http.StatusCreated {
					answered.Add(1)
				}
			}
		}(w)
	}
	deadline := time.Now().Add(60 * time.Second)
	for answered.Load() < 60 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	s.Kill()
	close(killed)
	wg.Wait()
	if answered.Load() < 60 {
		t.Fatalf("only %d issues were created before the deadline", answered.Load())
	}

	// Phase 2: restart, bring the receiver up and complete the 100 changes.
	up.Store(true)
	s.Restart()
	existing := issueNumbers(t, s, u.Token)
	if int64(len(existing)) < answered.Load() {
		t.Fatalf("%d issues exist after the restart, %d were answered 201", len(existing), answered.Load())
	}
	for i := len(existing); i < total; i++ {
		if r := s.API("POST", "repos/kim/durable/issues", u.Token, map[string]string{"title": fmt.Sprintf("after %d", i)}); r.Status != http.StatusCreated {
			t.Fatalf("create issue after restart: %d %s", r.Status, r.Body)
		}
	}
	want := issueNumbers(t, s, u.Token)
	if len(want) < total {
		t.Fatalf("%d issues, want at least %d", len(want), total)
	}

	// Every existing issue is delivered, and nothing else.
	deadline = time.Now().Add(90 * time.Second)
	for {
		mu.Lock()
		got := len(delivered)
		mu.Unlock()
		if got >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var missing, extra []int64
	wantSet := map[int64]bool{}
	for _, n := range want {
		wantSet[n] = true
		if delivered[n] == 0 {
			missing = append(missing, n)
		}
	}
	for n := range delivered {
		if !wantSet[n] {
			extra = append(extra, n)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
	if len(missing) > 0 || len(extra) > 0 {
		var hooks []struct {
			ID int64 `json:"id"`
		}
		s.API("GET", "repos/kim/durable/hooks", u.Token, nil).Decode(t, &hooks)
		for _, h := range hooks {
			r := s.API("GET", fmt.Sprintf("repos/kim/durable/hooks/%d/deliveries?limit=50&page=3", h.ID), u.Token, nil)
			t.Logf("oldest deliveries of hook %d: %.3000s", h.ID, r.Body)
		}
		t.Fatalf("%d issues, %d delivered; missing %v; delivered for issues that do not exist: %v",
			len(want), len(delivered), missing, extra)
	}
}

// issueNumbers lists the numbers of every issue of kim/durable.
func issueNumbers(t *testing.T, s *Server, tok string) []int64 {
	t.Helper()
	var out []int64
	for page := 1; ; page++ {
		r := s.API("GET", fmt.Sprintf("repos/kim/durable/issues?state=all&type=issues&limit=50&page=%d", page), tok, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("list issues: %d %s", r.Status, r.Body)
		}
		var list []struct {
			Number int64 `json:"number"`
		}
		r.Decode(t, &list)
		for _, is := range list {
			out = append(out, is.Number)
		}
		if len(list) < 50 {
			return out
		}
	}
}

// TestWebhookTurnedOffAfterFailures: with [webhook] DISABLE_AFTER, a hook
// whose deliveries keep failing is turned off and says why; turning it on
// again clears the reason.
func TestWebhookTurnedOffAfterFailures(t *testing.T) {
	var hits atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer recv.Close()
	s := StartServer(t, WithEnv("CAIRN_WEBHOOK_ALLOWED_HOST_LIST=loopback", "CAIRN_WEBHOOK_RETRY_BACKOFF=1s",
		"CAIRN_WEBHOOK_DELIVERY_ATTEMPTS=5", "CAIRN_WEBHOOK_DISABLE_AFTER=1s"))
	u := s.CreateUser("kim")
	createRepo(t, s, u, "flaky", false)
	var hook struct {
		ID             int64  `json:"id"`
		Active         bool   `json:"active"`
		DisabledReason string `json:"disabled_reason"`
	}
	s.API("POST", "repos/kim/flaky/hooks", u.Token, map[string]any{
		"type": "gitea", "active": true, "events": []string{"issues"},
		"config": map[string]string{"url": recv.URL, "content_type": "json"},
	}).Decode(t, &hook)
	if r := s.API("POST", "repos/kim/flaky/issues", u.Token, map[string]string{"title": "one"}); r.Status != http.StatusCreated {
		t.Fatalf("create issue: %d %s", r.Status, r.Body)
	}
	path := fmt.Sprintf("repos/kim/flaky/hooks/%d", hook.ID)
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.API("GET", path, u.Token, nil).Decode(t, &hook)
		if !hook.Active || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if hook.Active || !strings.Contains(hook.DisabledReason, "failed") {
		t.Fatalf("after %d failed deliveries: active %v, reason %q", hits.Load(), hook.Active, hook.DisabledReason)
	}
	n := hits.Load()
	time.Sleep(2500 * time.Millisecond)
	if hits.Load() != n {
		t.Fatalf("a turned-off hook is still delivered to: %d attempts, then %d", n, hits.Load())
	}
	hook.DisabledReason = ""
	s.API("PATCH", path, u.Token, map[string]any{"active": true, "events": []string{"issues"}}).Decode(t, &hook)
	if !hook.Active || hook.DisabledReason != "" {
		t.Fatalf("turned on again: active %v, reason %q", hook.Active, hook.DisabledReason)
	}
}

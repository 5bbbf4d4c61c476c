package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// step is one password check: it passes and fails or succeeds, or is refused.
type step struct {
	advance time.Duration
	login   string
	client  string
	result  string // "fail", "ok" or "refused"
	retry   int    // Retry-After of a refusal
}

func TestThrottleSteps(t *testing.T) {
	const a1, a2 = "192.0.2.1:40000", "192.0.2.2:40000"
	cases := []struct {
		name  string
		opts  ThrottleOptions
		steps []step
	}{
		{"account limit holds from every address, then the window ends", ThrottleOptions{PerAccount: 3, Window: time.Minute}, []step{
			{0, "alice", a1, "fail", 0},
			{0, "alice", a2, "fail", 0},
			{10 * time.Second, "alice", a1, "fail", 0},
			{0, "alice", a1, "refused", 50},
			{0, "ALICE", a2, "refused", 50},
			{0, "bob", a1, "ok", 0},
			{49 * time.Second, "alice", a2, "refused", 1},
			{time.Second, "alice", a1, "ok", 0},
		}},
		{"a success resets nothing", ThrottleOptions{PerAccount: 3, PerAddress: 3, Window: time.Minute}, []step{
			{0, "alice", a1, "fail", 0},
			{0, "alice", a1, "fail", 0},
			{0, "alice", a1, "ok", 0},
			{0, "mallory", a2, "ok", 0},
			{0, "alice", a2, "fail", 0},
			{0, "alice", a2, "refused", 60},
			{0, "carol", a1, "fail", 0},
			{0, "dave", a1, "refused", 60},
		}},
		{"address limit spans logins; other addresses go on", ThrottleOptions{PerAccount: 10, PerAddress: 3, Window: 15 * time.Minute}, []step{
			{0, "u1", a1, "fail", 0},
			{0, "u2", a1, "fail", 0},
			{time.Minute, "u3", a1, "fail", 0},
			{30 * time.Second, "u4", a1, "refused", 810},
			{0, "u1", a2, "fail", 0},
			{0, "u4", a2, "ok", 0},
		}},
		{"an IPv6 /64 is one address; IPv4-mapped is IPv4", ThrottleOptions{PerAddress: 2, Window: time.Minute}, []step{
			{0, "x", "[2001:db8:1:2::1]:1", "fail", 0},
			{0, "y", "[2001:db8:1:2:ffff::9]:2", "fail", 0},
			{0, "z", "[2001:db8:1:2::77]:3", "refused", 60},
			{0, "z", "[2001:db8:1:3::1]:3", "ok", 0},
			{0, "x", "[::ffff:198.51.100.7]:1", "fail", 0},
			{0, "y", "198.51.100.7:9", "fail", 0},
			{0, "z", "198.51.100.7:10", "refused", 60},
		}},
		{"the window starts at the first failure", ThrottleOptions{PerAccount: 2, Window: time.Minute}, []step{
			{0, "alice", a1, "ok", 0},
			{50 * time.Second, "alice", a1, "fail", 0},
			{50 * time.Second, "alice", a1, "fail", 0},
			{0, "alice", a1, "refused", 10},
			{10 * time.Second, "alice", a1, "ok", 0},
		}},
		{"long logins share their first bytes", ThrottleOptions{PerAccount: 1, Window: time.Minute}, []step{
			{0, strings.Repeat("a", 300) + "x", a1, "fail", 0},
			{0, strings.Repeat("a", 300) + "y", a1, "refused", 60},
		}},
		{"limit 0 is off", ThrottleOptions{PerAccount: 0, PerAddress: 0, Window: time.Minute}, []step{
			{0, "alice", a1, "fail", 0}, {0, "alice", a1, "fail", 0}, {0, "alice", a1, "ok", 0},
		}},
		{"window 0 is off", ThrottleOptions{PerAccount: 1, PerAddress: 1, Window: 0}, []step{
			{0, "alice", a1, "fail", 0}, {0, "alice", a1, "fail", 0}, {0, "alice", a1, "ok", 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			tc.opts.Now = c.Now
			th := NewThrottle(tc.opts)
			for i, s := range tc.steps {
				c.Advance(s.advance)
				done, err := th.Begin(context.Background(), s.login, s.client)
				if s.result == "refused" {
					var e *errs.Error
					if !errors.As(err, &e) || e.Kind != errs.KindTooManyRequests || e.RetryAfter != s.retry {
						t.Fatalf("step %d (%s from %s): got %v (%+v), want 429 retry after %d", i, s.login, s.client, err, e, s.retry)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d (%s from %s): refused: %v", i, s.login, s.client, err)
				}
				done(s.result == "fail")
			}
		})
	}
}

func TestThrottleBoundedAndPruned(t *testing.T) {
	c := newClock()
	th := NewThrottle(ThrottleOptions{PerAccount: 1, PerAddress: 100, Window: time.Minute, MaxKeys: 2, Now: c.Now})
	fail := func(login string) {
		t.Helper()
		done, err := th.Begin(context.Background(), login, "192.0.2.1:1")
		if err != nil {
			t.Fatalf("%s: %v", login, err)
		}
		done(true)
	}
	fail("a")
	c.Advance(time.Second)
	fail("b")
	fail("c") // evicts a, the oldest
	if n := len(th.accounts.keys); n != 2 || th.accounts.order.Len() != 2 {
		t.Fatalf("tracked %d accounts (%d in order), want 2", n, th.accounts.order.Len())
	}
	if _, err := th.Begin(context.Background(), "c", "192.0.2.1:1"); !errs.Is(err, errs.KindTooManyRequests) {
		t.Fatalf("c: %v, want 429", err)
	}
	fail("a")
	c.Advance(time.Minute)
	done, err := th.Begin(context.Background(), "z", "192.0.2.9:1")
	if err != nil {
		t.Fatal(err)
	}
	done(false)
	if n, m := len(th.accounts.keys), len(th.addresses.keys); n != 0 || m != 0 {
		t.Fatalf("after the window: %d accounts, %d addresses tracked, want none", n, m)
	}
}

// begin runs Begin in a goroutine and reports its outcome.
func begin(ctx context.Context, th *Throttle, login string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		done, err := th.Begin(ctx, login, "192.0.2.1:1")
		if err == nil {
			done(false)
		}
		ch <- err
	}()
	return ch
}

func TestThrottleRunningChecksCount(t *testing.T) {
	c := newClock()
	th := NewThrottle(ThrottleOptions{PerAccount: 2, Window: time.Minute, Now: c.Now})
	ctx := context.Background()
	d1, err1 := th.Begin(ctx, "alice", "192.0.2.1:1")
	d2, err2 := th.Begin(ctx, "alice", "192.0.2.2:1")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	third := begin(ctx, th, "alice")
	select {
	case err := <-third:
		t.Fatalf("a third check ran with two running at limit 2: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	d1(true)
	select {
	case err := <-third:
		t.Fatalf("a third check ran with one failure and one running: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	d1(true) // a second call of done is ignored
	d2(true)
	if err := <-third; !errs.Is(err, errs.KindTooManyRequests) {
		t.Fatalf("third after two failures: %v, want 429", err)
	}

	// Checks that succeed only wait for each other.
	c.Advance(time.Minute)
	d1, _ = th.Begin(ctx, "bob", "192.0.2.1:1")
	d2, _ = th.Begin(ctx, "bob", "192.0.2.1:1")
	third = begin(ctx, th, "bob")
	d1(false)
	if err := <-third; err != nil {
		t.Fatalf("third after a success: %v", err)
	}
	d2(false)

	// A waiting check gives up with its context.
	d1, _ = th.Begin(ctx, "carol", "192.0.2.1:1")
	d2, _ = th.Begin(ctx, "carol", "192.0.2.1:1")
	cctx, cancel := context.WithCancel(ctx)
	third = begin(cctx, th, "carol")
	cancel()
	if err := <-third; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled wait: %v", err)
	}
	d1(false)
	d2(false)
}

func TestThrottleConcurrentGuesses(t *testing.T) {
	c := newClock()
	th := NewThrottle(ThrottleOptions{PerAccount: 5, PerAddress: 50, Window: time.Minute, Now: c.Now})
	var mu sync.Mutex
	verified := 0
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done, err := th.Begin(context.Background(), "alice", "192.0.2.1:1")
			if err != nil {
				return
			}
			mu.Lock()
			verified++
			mu.Unlock()
			time.Sleep(time.Millisecond) // the password check
			done(true)
		}()
	}
	wg.Wait()
	if verified != 5 {
		t.Fatalf("%d passwords verified for 200 concurrent guesses, want 5", verified)
	}
}

func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"192.0.2.1:1234", "192.0.2.1"},
		{"192.0.2.1", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:1", "192.0.2.1"},
		{"[2001:db8:a:b:c:d:e:f]:443", "2001:db8:a:b::/64"},
		{"[fe80::1%eth0]:22", "fe80::/64"},
		{"@", "@"},
		{strings.Repeat("x", 100), strings.Repeat("x", 64)},
	} {
		if got := addressKey(tc.in); got != tc.want {
			t.Errorf("addressKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

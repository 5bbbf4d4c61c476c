package auth

import (
	"container/list"
	"context"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// DefaultThrottleKeys bounds how many accounts, and separately how many
// client addresses, a Throttle tracks at once.
const DefaultThrottleKeys = 16384

// maxAccountKey bounds the bytes of a login kept as a key: longer logins
// match no account, and a huge basic-auth header must not grow memory.
const maxAccountKey = 256

// ThrottleOptions configures a Throttle. A limit of 0 turns that limit off; a
// Window of 0 turns the throttle off.
type ThrottleOptions struct {
	// PerAccount is how many failed password checks a login may have in a window.
	PerAccount int
	// PerAddress is how many failed password checks a client address (an
	// IPv4 address or an IPv6 /64) may have in a window.
	PerAddress int
	// Window is how long failures are remembered, from a key's first failure.
	Window time.Duration
	// MaxKeys bounds the tracked keys per kind (DefaultThrottleKeys when 0).
	MaxKeys int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Throttle limits failed password checks per account and per client address,
// in memory. Only failures count, and nothing resets a counter before its
// window ends: a successful check from one address must not unlock the
// account for the others, nor the address for other accounts. A check that
// would exceed a limit (failures plus checks still running) waits for the
// running ones; one over a limit is refused with a 429 before the password
// is verified. It is safe for concurrent use; user.Service calls it.
type Throttle struct {
	mu        sync.Mutex
	now       func() time.Time
	window    time.Duration
	accounts  table
	addresses table
}

// NewThrottle returns a Throttle.
func NewThrottle(o ThrottleOptions) *Throttle {
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultThrottleKeys
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Throttle{
		now:       o.Now,
		window:    o.Window,
		accounts:  newTable(o.PerAccount, o.MaxKeys),
		addresses: newTable(o.PerAddress, o.MaxKeys),
	}
}

// Begin asks to check a password for login from client, the caller's network
// address (http.Request.RemoteAddr). It returns a 429 error while the login or
// the address is over its limit; otherwise the check may go on, and done must
// be called once with whether the password was wrong.
func (t *Throttle) Begin(ctx context.Context, login, client string) (done func(failed bool), err error) {
	if t.window <= 0 || (t.accounts.limit <= 0 && t.addresses.limit <= 0) {
		return func(bool) {}, nil
	}
	acct, addr := accountKey(login), addressKey(client)
	t.mu.Lock()
	for {
		now := t.now()
		t.accounts.prune(now, t.window)
		t.addresses.prune(now, t.window)
		a, b := t.accounts.get(acct), t.addresses.get(addr)
		if wait := max(t.accounts.retryAfter(a, now, t.window), t.addresses.retryAfter(b, now, t.window)); wait > 0 {
			t.mu.Unlock()
			return nil, errs.TooManyRequests(wait, "too many failed sign-in attempts: try again in %d seconds, or use an access token", wait)
		}
		busy := t.accounts.busy(a)
		if busy == nil {
			busy = t.addresses.busy(b)
		}
		if busy == nil {
			a, b = t.accounts.reserve(acct, now), t.addresses.reserve(addr, now)
			t.mu.Unlock()
			var once sync.Once
			return func(failed bool) {
				once.Do(func() {
					t.mu.Lock()
					defer t.mu.Unlock()
					now := t.now()
					t.accounts.release(a, failed, now)
					t.addresses.release(b, failed, now)
				})
			}, nil
		}
		wake := busy.wake
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		t.mu.Lock()
	}
}

// table counts the failures of one kind of key.
type table struct {
	limit int
	max   int
	keys  map[string]*slot
	order *list.List // of *slot, by window start, oldest first
}

// slot is one key's window: its failures and the checks still running.
type slot struct {
	key     string
	start   time.Time
	fails   int
	pending int
	elem    *list.Element
	wake    chan struct{} // closed when pending or the slot changes
}

func newTable(limit, maxKeys int) table {
	return table{limit: limit, max: maxKeys, keys: map[string]*slot{}, order: list.New()}
}

func (tb *table) get(key string) *slot {
	if tb.limit <= 0 {
		return nil
	}
	return tb.keys[key]
}

// prune drops the slots whose window has ended.
func (tb *table) prune(now time.Time, window time.Duration) {
	for e := tb.order.Front(); e != nil; e = tb.order.Front() {
		s := e.Value.(*slot)
		if now.Before(s.start.Add(window)) {
			return
		}
		tb.remove(s)
	}
}

// retryAfter returns the seconds until s's window ends when s is over the
// limit, else 0.
func (tb *table) retryAfter(s *slot, now time.Time, window time.Duration) int {
	if s == nil || s.fails < tb.limit {
		return 0
	}
	return max(1, int((s.start.Add(window).Sub(now)+time.Second-1)/time.Second))
}

// busy returns s when its running checks could take it over the limit.
func (tb *table) busy(s *slot) *slot {
	if s != nil && s.fails+s.pending >= tb.limit {
		return s
	}
	return nil
}

// reserve counts a running check for key, evicting the oldest slot when full.
func (tb *table) reserve(key string, now time.Time) *slot {
	if tb.limit <= 0 {
		return nil
	}
	s := tb.keys[key]
	if s == nil {
		if len(tb.keys) >= tb.max {
			tb.remove(tb.order.Front().Value.(*slot))
		}
		s = &slot{key: key, start: now, wake: make(chan struct{})}
		s.elem = tb.order.PushBack(s)
		tb.keys[key] = s
	}
	s.pending++
	return s
}

// release ends a running check. A slot removed meanwhile (window ended,
// evicted) no longer counts.
func (tb *table) release(s *slot, failed bool, now time.Time) {
	if s == nil {
		return
	}
	s.pending--
	if tb.keys[s.key] == s {
		if failed {
			if s.fails == 0 {
				// The window starts at the first failure.
				s.start = now
				tb.order.MoveToBack(s.elem)
			}
			s.fails++
		}
		if s.fails == 0 && s.pending == 0 {
			tb.remove(s)
		}
	}
	s.signal()
}

func (tb *table) remove(s *slot) {
	delete(tb.keys, s.key)
	tb.order.Remove(s.elem)
	s.signal()
}

// signal wakes the checks waiting on s.
func (s *slot) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// accountKey is a login as the account lookup treats it: case-insensitive.
func accountKey(login string) string {
	if len(login) > maxAccountKey {
		login = login[:maxAccountKey]
	}
	return strings.ToLower(login)
}

// addressKey is the throttled unit of a client address: an IPv4 address, or
// the /64 prefix of an IPv6 address (one host often holds a whole /64).
func addressKey(remote string) string {
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		a = ap.Addr()
	} else if a, err = netip.ParseAddr(remote); err != nil {
		if len(remote) > 64 {
			remote = remote[:64]
		}
		return remote
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

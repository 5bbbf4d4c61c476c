package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/queue"
)

// benchQueue are the queue settings of a server with [webhook]'s defaults.
var benchQueue = queue.Options{Workers: 8, GroupLimit: 2, Poll: time.Second}

// BenchmarkDeliveries measures sustained deliveries per second to a
// receiver on loopback: b.N events recorded (in transactions of 100), then
// delivered by the queue, over 1 and 10 hooks.
func BenchmarkDeliveries(b *testing.B) {
	for _, hooks := range []int{1, 10} {
		b.Run(fmt.Sprintf("hooks=%d", hooks), func(b *testing.B) {
			h := newHarness(b, Options{}, benchQueue)
			var got atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
			defer srv.Close()
			for i := 0; i < hooks; i++ {
				h.hook(b, srv.URL, "push")
			}
			want := int64(b.N * hooks)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i += 100 {
				err := h.db.WithTx(context.Background(), func(ctx context.Context) error {
					for j := i; j < min(i+100, b.N); j++ {
						if err := h.s.Fire(ctx, Event{Type: EventPush, RepoID: 1, OwnerID: 2,
							Payload: func(context.Context) (any, error) { return map[string]int{"n": j}, nil }}); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			for got.Load() < want {
				time.Sleep(time.Millisecond)
			}
			b.ReportMetric(float64(want)/time.Since(start).Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkCommitToDelivery measures the time from the commit of a change
// to the start of its delivery when the queue is not backed up: one event
// every 5 ms, each in its own transaction.
func BenchmarkCommitToDelivery(b *testing.B) {
	h := newHarness(b, Options{}, benchQueue)
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		arrived[r.Header.Get("X-Gitea-Delivery")] = now
		mu.Unlock()
	}))
	defer srv.Close()
	hk := h.hook(b, srv.URL, "push")
	committed := map[int64]time.Time{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := h.s.Fire(context.Background(), Event{Type: EventPush, RepoID: 1, OwnerID: 2,
			Payload: func(context.Context) (any, error) { return i, nil }}); err != nil {
			b.Fatal(err)
		}
		committed[int64(i)] = time.Now()
		time.Sleep(5 * time.Millisecond)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(arrived)
		mu.Unlock()
		if n >= b.N || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	list, _, err := h.s.Deliveries(context.Background(), hk.ID, b.N+10, 0)
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	mu.Lock()
	for _, d := range list {
		if at, ok := arrived[d.UUID]; ok {
			lat = append(lat, at.Sub(d.Created))
		}
	}
	mu.Unlock()
	if len(lat) == 0 {
		b.Fatal("nothing arrived")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkDrainBacklog queues 100,000 deliveries (CAIRN_BENCH_BACKLOG) while nothing delivers
// (an outage; b.N is ignored: run with -benchtime=1x), then drains them and
// reports how far the process's resident memory moved while draining.
func BenchmarkDrainBacklog(b *testing.B) {
	backlog := 100_000
	if n, err := strconv.Atoi(os.Getenv("CAIRN_BENCH_BACKLOG")); err == nil && n > 0 {
		backlog = n // a shorter run
	}
	h := newIdleHarness(b, Options{}, benchQueue)
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	defer srv.Close()
	hk := h.hook(b, srv.URL, "push")
	body := []byte(`{"ref":"refs/heads/main","commits":[]}`)
	for i := 0; i < backlog; i += 1000 {
		if err := h.db.WithTx(context.Background(), func(ctx context.Context) error {
			for j := 0; j < 1000; j++ {
				if _, err := h.s.Enqueue(ctx, hk, EventPush, body); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	low, high := rss(), rss()
	start := time.Now()
	h.run(b) // the receiver is back: the backlog drains
	for got.Load() < int64(backlog) {
		time.Sleep(100 * time.Millisecond)
		m := rss()
		low, high = min(low, m), max(high, m)
	}
	b.ReportMetric(float64(backlog)/time.Since(start).Seconds(), "deliveries/s")
	b.ReportMetric(float64(high-low)/(1<<20), "rss-range-MB")
}

// rss reads the process's resident set size in bytes (Linux).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			n, _ := strconv.ParseInt(f[0], 10, 64)
			return n << 10
		}
	}
	return 0
}

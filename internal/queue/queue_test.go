package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/dbtest"
)

// testDB opens a migrated database (see dbtest.Open).
func testDB(t testing.TB) *db.DB { return dbtest.Open(t) }

// runQueue starts q until the test ends.
func runQueue(t testing.TB, q *Queue) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(t testing.TB, d *db.DB, where string, args ...any) int64 {
	t.Helper()
	n, err := d.Count(context.Background(), "SELECT COUNT(*) FROM queue_job WHERE "+where, args...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOutbox: a job exists exactly when the transaction that wrote it
// commits, and runs once.
func TestOutbox(t *testing.T) {
	d := testDB(t)
	q := New(d, Options{Poll: 50 * time.Millisecond})
	var got sync.Map
	var runs atomic.Int64
	q.Handle("note", func(_ context.Context, j *Job) error {
		runs.Add(1)
		got.Store(string(j.Payload), true)
		return nil
	})
	ctx := context.Background()
	rollback := errors.New("roll back")
	err := d.WithTx(ctx, func(ctx context.Context) error {
		if err := q.Enqueue(ctx, "note", []byte("lost"), EnqueueOptions{}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if err := d.WithTx(ctx, func(ctx context.Context) error {
		return q.Enqueue(ctx, "note", []byte("kept"), EnqueueOptions{})
	}); err != nil {
		t.Fatal(err)
	}
	runQueue(t, q)
	waitFor(t, "the committed job", func() bool { _, ok := got.Load("kept"); return ok })
	waitFor(t, "the done job to go", func() bool { return count(t, d, "1 = 1") == 0 })
	if _, ok := got.Load("lost"); ok || runs.Load() != 1 {
		t.Fatalf("runs = %d, rolled-back job ran: %v", runs.Load(), ok)
	}
}

// TestRetryPermanentDedup: failures are retried with back-off up to the
// limit; a permanent error stops at once; a key keeps one pending job.
func TestRetryPermanentDedup(t *testing.T) {
	d := testDB(t)
	q := New(d, Options{Poll: 10 * time.Millisecond, MaxAttempts: 3, Backoff: func(int) time.Duration { return 20 * time.Millisecond }})
	var flaky, doomed, broken atomic.Int64
	q.Handle("flaky", func(_ context.Context, j *Job) error {
		if flaky.Add(1) < 3 {
			return errors.New("not yet")
		}
		if j.Attempts != 3 {
			return Permanent(fmt.Errorf("attempt %d", j.Attempts))
		}
		return nil
	})
	q.Handle("doomed", func(context.Context, *Job) error { doomed.Add(1); return errors.New("always") })
	q.Handle("broken", func(context.Context, *Job) error { broken.Add(1); return Permanent(errors.New("cannot")) })
	ctx := context.Background()
	for _, kind := range []string{"flaky", "doomed", "broken"} {
		if err := q.Enqueue(ctx, kind, nil, EnqueueOptions{Key: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Enqueue(ctx, "flaky", nil, EnqueueOptions{Key: "k"}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "kind = ?", "flaky"); n != 1 {
		t.Fatalf("pending flaky jobs with one key = %d", n)
	}
	runQueue(t, q)
	waitFor(t, "all outcomes", func() bool { return count(t, d, "status = ?", statusPending) == 0 })
	if flaky.Load() != 3 || doomed.Load() != 3 || broken.Load() != 1 {
		t.Fatalf("attempts: flaky %d doomed %d broken %d", flaky.Load(), doomed.Load(), broken.Load())
	}
	failed, err := q.Failed(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, j := range failed {
		kinds = append(kinds, j.Kind+":"+j.LastError)
	}
	if len(failed) != 2 || !strings.Contains(strings.Join(kinds, ","), "doomed:always") || !strings.Contains(strings.Join(kinds, ","), "broken:cannot") {
		t.Fatalf("failed jobs = %v", kinds)
	}
	counts, err := q.Counts(ctx)
	if err != nil || counts["doomed"]["failed"] != 1 || counts["broken"]["failed"] != 1 || counts["doomed"]["pending"] != 0 || len(counts["flaky"]) != 0 {
		t.Fatalf("counts = %v, %v", counts, err)
	}
	// A failed job frees its key.
	if err := q.Enqueue(ctx, "broken", nil, EnqueueOptions{Key: "k"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new job", func() bool { return broken.Load() == 2 })
}

// TestGroupsDoNotHoldEachOtherUp: a group whose jobs hang runs one at a
// time while another group's jobs all finish.
func TestGroupsDoNotHoldEachOtherUp(t *testing.T) {
	d := testDB(t)
	q := New(d, Options{Poll: 10 * time.Millisecond, Workers: 4})
	release := make(chan struct{})
	var slowRunning, slowMax, fast atomic.Int64
	q.Handle("deliver", func(ctx context.Context, j *Job) error {
		if j.Group == "dead" {
			n := slowRunning.Add(1)
			defer slowRunning.Add(-1)
			for {
				m := slowMax.Load()
				if n <= m || slowMax.CompareAndSwap(m, n) {
					break
				}
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		}
		fast.Add(1)
		return nil
	})
	ctx := context.Background()
	for i := range 3 {
		if err := q.Enqueue(ctx, "deliver", []byte(fmt.Sprint(i)), EnqueueOptions{Group: "dead"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		if err := q.Enqueue(ctx, "deliver", []byte(fmt.Sprint(i)), EnqueueOptions{Group: "healthy"}); err != nil {
			t.Fatal(err)
		}
	}
	runQueue(t, q)
	waitFor(t, "the healthy group", func() bool { return fast.Load() == 20 })
	if slowMax.Load() != 1 {
		t.Fatalf("jobs of the hanging group at once = %d", slowMax.Load())
	}
	close(release)
	waitFor(t, "the hanging group", func() bool { return count(t, d, "1 = 1") == 0 })
}

// TestLeaseTakeover: a job claimed by a process that died runs again once
// its lease has run out.
func TestLeaseTakeover(t *testing.T) {
	d := testDB(t)
	q := New(d, Options{Poll: 10 * time.Millisecond})
	var ran atomic.Int64
	q.Handle("work", func(context.Context, *Job) error { ran.Add(1); return nil })
	ctx := context.Background()
	if err := q.Enqueue(ctx, "work", nil, EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(300 * time.Millisecond).UnixMilli()
	if _, err := d.Exec(ctx, "UPDATE queue_job SET lease_owner = ?, lease_until_ms = ?, attempts = 1", "dead-process", until); err != nil {
		t.Fatal(err)
	}
	runQueue(t, q)
	time.Sleep(100 * time.Millisecond)
	if ran.Load() != 0 {
		t.Fatal("a leased job was taken before its lease ran out")
	}
	waitFor(t, "the takeover", func() bool { return ran.Load() == 1 })
	waitFor(t, "the job to go", func() bool { return count(t, d, "1 = 1") == 0 })
}

// BenchmarkThroughput enqueues b.N jobs one transaction each and waits
// until all ran.
func BenchmarkThroughput(b *testing.B) {
	d := testDB(b)
	q := New(d, Options{Workers: 8})
	var done atomic.Int64
	q.Handle("noop", func(context.Context, *Job) error { done.Add(1); return nil })
	runQueue(b, q)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := q.Enqueue(ctx, "noop", []byte("x"), EnqueueOptions{Group: fmt.Sprint(i % 16)}); err != nil {
			b.Fatal(err)
		}
	}
	for done.Load() < int64(b.N) {
		time.Sleep(time.Millisecond)
	}
}

// TestOutcomeBatch: outcomes recorded together survive one of them failing
// to record: the others are recorded on their own, and the failed one is
// taken again once its lease runs out.
func TestOutcomeBatch(t *testing.T) {
	d := testDB(t)
	q := New(d, Options{Workers: 8, Poll: 20 * time.Millisecond, Lease: 300 * time.Millisecond})
	var runs sync.Map
	release := make(chan struct{})
	q.Handle("note", func(_ context.Context, j *Job) error {
		n, _ := runs.LoadOrStore(string(j.Payload), new(atomic.Int64))
		first := n.(*atomic.Int64).Add(1) == 1
		<-release // all finish together, so their outcomes batch
		if string(j.Payload) == "bad" && first {
			j.WithOutcome(func(context.Context) error { return errors.New("cannot record") })
		}
		return nil
	})
	ctx := context.Background()
	for i := range 6 {
		if err := q.Enqueue(ctx, "note", []byte(fmt.Sprint(i)), EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Enqueue(ctx, "note", []byte("bad"), EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	runQueue(t, q)
	waitFor(t, "all seven to start", func() bool {
		n := 0
		runs.Range(func(any, any) bool { n++; return true })
		return n == 7
	})
	close(release)
	waitFor(t, "the good ones to be recorded", func() bool { return count(t, d, "payload <> 'bad'") == 0 })
	waitFor(t, "the bad one to be taken again and recorded", func() bool { return count(t, d, "1 = 1") == 0 })
	for i := range 6 {
		if n, _ := runs.Load(fmt.Sprint(i)); n.(*atomic.Int64).Load() != 1 {
			t.Fatalf("job %d ran %d times", i, n.(*atomic.Int64).Load())
		}
	}
	if n, _ := runs.Load("bad"); n.(*atomic.Int64).Load() != 2 {
		t.Fatalf("the job whose outcome failed ran %d times, want 2", n.(*atomic.Int64).Load())
	}
}

// TestLeasePerKind: a kind with a lease of its own is reserved, and its
// handler given time, for that lease; other kinds keep Options.Lease.
func TestLeasePerKind(t *testing.T) {
	d := testDB(t)
	q := New(d, Options{Poll: 10 * time.Millisecond, Lease: 2 * time.Second})
	q.SetLease("slow", time.Hour)
	type seen struct {
		deadline   time.Time
		leaseUntil time.Time
	}
	got := make(chan seen, 2)
	handler := func(ctx context.Context, j *Job) error {
		dl, _ := ctx.Deadline()
		var until int64
		if err := d.QueryRow(ctx, "SELECT lease_until_ms FROM queue_job WHERE id = ?", j.ID).Scan(&until); err != nil {
			return err
		}
		got <- seen{dl, time.UnixMilli(until)}
		return nil
	}
	q.Handle("slow", handler)
	q.Handle("fast", handler)
	runQueue(t, q)
	for kind, lease := range map[string]time.Duration{"slow": time.Hour, "fast": 2 * time.Second} {
		start := time.Now()
		if err := q.Enqueue(context.Background(), kind, nil, EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
		var s seen
		select {
		case s = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("the %s job did not run", kind)
		}
		// Both are about lease from the claim: between start and now.
		for what, at := range map[string]time.Time{"handler deadline": s.deadline, "lease": s.leaseUntil} {
			if at.Before(start.Add(lease-time.Second)) || at.After(time.Now().Add(lease)) {
				t.Errorf("%s: %s in %v, want about %v", kind, what, time.Until(at), lease)
			}
		}
	}
}

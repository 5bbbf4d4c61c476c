// Package queue is Cairn's durable job queue. A job is a row written in the
// transaction of the change that causes it (an outbox): a rolled-back
// change leaves no job, a committed one cannot be lost by a crash. Workers
// claim due jobs with a lease, so several processes may share one database
// and a job whose worker died is taken again once its lease runs out. A
// failed attempt is retried with exponential back-off up to its attempt
// limit. Jobs of one group (a webhook, say) run at most GroupLimit at a time,
// so one slow receiver cannot hold up the others.
package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// Job is one unit of work.
type Job struct {
	ID          int64
	Kind        string
	Key         string // deduplication key while pending ("" for none)
	Group       string // concurrency group ("" for none)
	Payload     []byte
	Attempts    int // attempts started, this one included
	MaxAttempts int
	Created     time.Time
	LastError   string

	// withOutcome are written in the transaction that records the outcome.
	withOutcome []func(ctx context.Context) error
}

// WithOutcome has f write in the transaction that records the outcome of
// this attempt (done, retry or failed), so the handler's own record of it
// commits together with the queue's, in one commit. A handler calls it
// before returning; an error from f leaves the job to be taken again once
// its lease runs out.
func (j *Job) WithOutcome(f func(ctx context.Context) error) {
	j.withOutcome = append(j.withOutcome, f)
}

// Handler does a job. An error schedules another attempt (unless it is
// Permanent or the attempts are used up); a panic counts as an error.
type Handler func(ctx context.Context, j *Job) error

// permanent marks an error that no retry can fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so the job fails at once, without retries.
func Permanent(err error) error { return permanent{err} }

// Job states.
const (
	statusPending = 0
	statusFailed  = 2
)

// Options tune the workers.
type Options struct {
	// Workers run jobs concurrently (default 4).
	Workers int
	// GroupLimit is how many jobs of one group may run at once (default 1).
	GroupLimit int
	// MaxAttempts is the default attempt limit of a job (default 5).
	MaxAttempts int
	// Lease is how long a claimed job is reserved before another worker
	// may take it (default 5 minutes); a handler must finish within it.
	Lease time.Duration
	// Poll is how often workers look for due jobs when nothing woke them
	// (default 1 s): retries, jobs of other processes.
	Poll time.Duration
	// Backoff gives the wait before attempt n+1 after n failed attempts
	// (default 10 s doubling, at most an hour).
	Backoff func(failed int) time.Duration
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.GroupLimit <= 0 {
		o.GroupLimit = 1
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.Lease <= 0 {
		o.Lease = 5 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Backoff == nil {
		o.Backoff = func(failed int) time.Duration {
			d := 10 * time.Second << min(failed-1, 12)
			return min(d, time.Hour)
		}
	}
	return o
}

// Queue stores jobs and runs them.
type Queue struct {
	db       *db.DB
	opts     Options
	handlers map[string]Handler
	// leases are the kinds' own leases (Options.Lease otherwise).
	leases map[string]time.Duration
	owner  string
	wake   chan struct{}
	now    func() time.Time

	mu      sync.Mutex
	running map[string]int // jobs of each group running in this process
	busy    int
}

// New returns a queue over d.
func New(d *db.DB, opts Options) *Queue {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Queue{db: d, opts: opts.withDefaults(), handlers: map[string]Handler{}, leases: map[string]time.Duration{}, owner: hex.EncodeToString(b),
		wake: make(chan struct{}, 1), now: time.Now, running: map[string]int{}}
}

// Handle registers the handler of a kind; call it only while wiring.
func (q *Queue) Handle(kind string, h Handler) { q.handlers[kind] = h }

// SetLease gives the jobs of kind a lease of their own instead of
// Options.Lease: a handler that may take longer than the others (a mail
// attempt against a slow server) gets the time it needs without delaying
// the takeover of every other kind's jobs after a crash. Call it only while
// wiring.
func (q *Queue) SetLease(kind string, lease time.Duration) { q.leases[kind] = lease }

// leaseOf is how long a claimed job of kind is reserved, and its handler's
// time limit.
func (q *Queue) leaseOf(kind string) time.Duration {
	if d, ok := q.leases[kind]; ok {
		return d
	}
	return q.opts.Lease
}

// EnqueueOptions describe a new job.
type EnqueueOptions struct {
	// Key deduplicates: while a job of the kind with this key is pending,
	// enqueueing another is a no-op.
	Key string
	// Group bounds concurrency (see Options.GroupLimit).
	Group string
	// Delay postpones the first attempt.
	Delay time.Duration
	// MaxAttempts overrides Options.MaxAttempts.
	MaxAttempts int
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// Enqueue records a job in the transaction ctx carries (or on its own):
// it exists exactly when that transaction commits, and the workers are
// woken once it has.
func (q *Queue) Enqueue(ctx context.Context, kind string, payload []byte, o EnqueueOptions) error {
	if kind == "" {
		return errors.New("queue: a job needs a kind")
	}
	attempts := o.MaxAttempts
	if attempts <= 0 {
		attempts = q.opts.MaxAttempts
	}
	var key any
	if o.Key != "" {
		key = o.Key
	}
	now := q.now()
	err := q.db.WithTx(ctx, func(ctx context.Context) error {
		if o.Key != "" {
			found, err := q.db.Exists(ctx, "SELECT 1 FROM queue_job WHERE kind = ? AND pending_key = ?", kind, o.Key)
			if err != nil || found {
				return err
			}
		}
		_, err := q.db.Insert(ctx, `INSERT INTO queue_job (kind, pending_key, group_key, payload, max_attempts, run_after_ms,
			created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			kind, key, o.Group, string(payload), attempts, ms(now.Add(o.Delay)), ms(now), ms(now))
		if err != nil {
			return err
		}
		db.AfterCommit(ctx, q.signal)
		return nil
	})
	if db.IsUniqueViolation(err) {
		return nil // the same job is already pending
	}
	return err
}

// signal wakes the workers.
func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run claims and runs due jobs until ctx ends; jobs left from an earlier
// run (or another process that died) are taken once their lease ran out.
// On the way out it waits for running jobs to finish.
func (q *Queue) Run(ctx context.Context) {
	jobs := make(chan *Job)
	outcomes := make(chan outcome, q.opts.Workers)
	var wg sync.WaitGroup
	// Running jobs are not cut short by the stop: they finish, or their
	// lease lets a later run take them again.
	runCtx := context.WithoutCancel(ctx)
	for range q.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				outcomes <- outcome{j, q.call(runCtx, j)}
			}
		}()
	}
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		q.recordOutcomes(runCtx, outcomes)
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for ctx.Err() == nil {
		free := q.free()
		var claimed []*Job
		if free > 0 {
			var err error
			claimed, err = q.claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				slog.Error("queue: claim jobs", "err", err)
			}
		}
		for _, j := range claimed {
			jobs <- j
		}
		if len(claimed) > 0 && len(claimed) == free {
			continue // there may be more
		}
		timer.Reset(q.opts.Poll)
		select {
		case <-ctx.Done():
		case <-q.wake:
		case <-timer.C:
		}
	}
	close(jobs)
	wg.Wait()
	close(outcomes)
	<-recorded
}

// outcome is the result of one attempt, waiting to be recorded.
type outcome struct {
	job *Job
	err error
}

// maxOutcomeBatch bounds how many outcomes one transaction records.
const maxOutcomeBatch = 64

// recordOutcomes records attempts' outcomes as they come, those that finish
// together in one transaction: under load a commit then carries many jobs
// instead of one each. A batch that fails is recorded job by job, so one
// bad outcome cannot hold back the others.
func (q *Queue) recordOutcomes(ctx context.Context, outcomes <-chan outcome) {
	batch := make([]outcome, 0, maxOutcomeBatch)
	for o := range outcomes {
		batch = append(batch[:0], o)
	drain:
		for len(batch) < maxOutcomeBatch {
			select {
			case o, ok := <-outcomes:
				if !ok {
					break drain
				}
				batch = append(batch, o)
			default:
				break drain
			}
		}
		if err := q.record(ctx, batch...); err == nil || len(batch) == 1 {
			q.logRecordError(batch[0], err)
		} else {
			for _, o := range batch {
				q.logRecordError(o, q.record(ctx, o))
			}
		}
		for _, o := range batch {
			q.done(o.job)
		}
	}
}

func (q *Queue) logRecordError(o outcome, err error) {
	if err != nil {
		slog.Error("queue: record the outcome of a job", "job", o.job.ID, "kind", o.job.Kind, "err", err)
	}
}

// free is how many more jobs this process may take now.
func (q *Queue) free() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.opts.Workers - q.busy
}

// claim leases up to n due jobs, respecting the group limit.
func (q *Queue) claim(ctx context.Context, n int) ([]*Job, error) {
	var out []*Job
	err := q.db.WithTx(ctx, func(ctx context.Context) error {
		now := ms(q.now())
		lock := ""
		if q.db.Dialect != db.SQLite {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		if q.db.Dialect == db.Postgres {
			// A backlog grows faster than statistics follow: planned on a
			// table last analyzed when empty, the due query would gather
			// and sort every due row instead of reading the first few in
			// index order. The claim itself need not wait for the disk
			// (see asyncCommit).
			if _, err := q.db.Exec(ctx, "SELECT set_config('enable_bitmapscan', 'off', true), set_config('synchronous_commit', 'off', true)"); err != nil {
				return err
			}
		}
		// Groups already at their limit (in any process) are skipped.
		rows, err := q.db.Query(ctx, `SELECT group_key, COUNT(*) FROM queue_job WHERE status = ? AND lease_until_ms >= ?
			AND group_key <> '' GROUP BY group_key`, statusPending, now)
		if err != nil {
			return err
		}
		inFlight := map[string]int{}
		for rows.Next() {
			var g string
			var c int
			if err := rows.Scan(&g, &c); err != nil {
				rows.Close()
				return err
			}
			inFlight[g] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// Read more than n: some may belong to busy groups.
		rows, err = q.db.Query(ctx, `SELECT id, kind, COALESCE(pending_key, ''), group_key, COALESCE(payload, ''), attempts,
			max_attempts, created_ms, COALESCE(last_error, '') FROM queue_job
			WHERE status = ? AND run_after_ms <= ? AND lease_until_ms < ? ORDER BY run_after_ms, id`+db.LimitOffset(n*4, 0)+lock,
			statusPending, now, now)
		if err != nil {
			return err
		}
		ids := map[time.Duration][]int64{} // by lease
		for rows.Next() {
			j := &Job{}
			var payload string
			var created int64
			if err := rows.Scan(&j.ID, &j.Kind, &j.Key, &j.Group, &payload, &j.Attempts, &j.MaxAttempts, &created, &j.LastError); err != nil {
				rows.Close()
				return err
			}
			if len(out) == n || (j.Group != "" && inFlight[j.Group] >= q.opts.GroupLimit) {
				continue
			}
			if j.Group != "" {
				inFlight[j.Group]++
			}
			j.Payload, j.Created = []byte(payload), time.UnixMilli(created)
			j.Attempts++
			out = append(out, j)
			lease := q.leaseOf(j.Kind)
			ids[lease] = append(ids[lease], j.ID)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for lease, list := range ids {
			if _, err := q.db.Exec(ctx, "UPDATE queue_job SET lease_owner = ?, lease_until_ms = ?, attempts = attempts + 1, updated_ms = ? WHERE id IN "+
				db.In(len(list)), append([]any{q.owner, now + lease.Milliseconds(), now}, db.Int64Args(list)...)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	q.busy += len(out)
	for _, j := range out {
		if j.Group != "" {
			q.running[j.Group]++
		}
	}
	q.mu.Unlock()
	return out, nil
}

// done frees the slot of a job whose outcome is recorded.
func (q *Queue) done(j *Job) {
	q.mu.Lock()
	q.busy--
	if j.Group != "" {
		if q.running[j.Group]--; q.running[j.Group] <= 0 {
			delete(q.running, j.Group)
		}
	}
	q.mu.Unlock()
	q.signal() // a slot and maybe a group are free again
}

// call runs the handler of j, turning a panic into an error.
func (q *Queue) call(ctx context.Context, j *Job) (err error) {
	h, ok := q.handlers[j.Kind]
	if !ok {
		return Permanent(fmt.Errorf("no handler for jobs of kind %q", j.Kind))
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, q.leaseOf(j.Kind))
	defer cancel()
	return h(ctx, j)
}

// record deletes done jobs, schedules the next attempt of failed ones, or
// marks them failed for good, in one transaction. Only the lease holder
// may, so a job taken over after its lease ran out is not recorded twice.
func (q *Queue) record(ctx context.Context, outcomes ...outcome) error {
	return q.db.WithTx(ctx, func(ctx context.Context) error {
		if q.db.Dialect == db.Postgres {
			if err := asyncCommit(ctx, q.db); err != nil {
				return err
			}
		}
		var doneIDs []int64
		for _, o := range outcomes {
			for _, f := range o.job.withOutcome {
				if err := f(ctx); err != nil {
					return err
				}
			}
			if o.err == nil {
				doneIDs = append(doneIDs, o.job.ID)
			} else if err := q.recordFailure(ctx, o.job, o.err); err != nil {
				return err
			}
		}
		if len(doneIDs) == 0 {
			return nil
		}
		_, err := q.db.Exec(ctx, "DELETE FROM queue_job WHERE lease_owner = ? AND id IN "+db.In(len(doneIDs)),
			append([]any{q.owner}, db.Int64Args(doneIDs)...)...)
		return err
	})
}

// asyncCommit lets PostgreSQL acknowledge the commit of the queue's own
// bookkeeping (claims, outcomes) before its WAL reaches the disk: a crash
// can then lose at most the last fraction of a second of it, which only
// makes a job run again (at least once). Jobs themselves are enqueued in
// their change's transaction with the usual durable commit.
func asyncCommit(ctx context.Context, d *db.DB) error {
	_, err := d.Exec(ctx, "SELECT set_config('synchronous_commit', 'off', true)")
	return err
}

// recordFailure schedules the next attempt of j, or marks it failed for good.
func (q *Queue) recordFailure(ctx context.Context, j *Job, jobErr error) error {
	now := q.now()
	msg := jobErr.Error()
	if len(msg) > 4000 {
		msg = msg[:4000]
	}
	var perm permanent
	if errors.As(jobErr, &perm) || j.Attempts >= j.MaxAttempts {
		slog.Warn("queue: job failed for good", "job", j.ID, "kind", j.Kind, "attempts", j.Attempts, "err", msg)
		_, err := q.db.Exec(ctx, `UPDATE queue_job SET status = ?, pending_key = NULL, lease_until_ms = 0, last_error = ?, updated_ms = ?
			WHERE id = ? AND lease_owner = ?`, statusFailed, msg, ms(now), j.ID, q.owner)
		return err
	}
	next := now.Add(q.opts.Backoff(j.Attempts))
	_, err := q.db.Exec(ctx, `UPDATE queue_job SET run_after_ms = ?, lease_until_ms = 0, last_error = ?, updated_ms = ?
		WHERE id = ? AND lease_owner = ?`, ms(next), msg, ms(now), j.ID, q.owner)
	return err
}

// Counts counts the jobs of each kind by state: "pending" (waiting or
// running) and "failed" (given up), for metrics.
func (q *Queue) Counts(ctx context.Context) (map[string]map[string]int64, error) {
	rows, err := q.db.Query(ctx, "SELECT kind, status, COUNT(*) FROM queue_job GROUP BY kind, status")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]int64{}
	for rows.Next() {
		var kind string
		var status int
		var n int64
		if err := rows.Scan(&kind, &status, &n); err != nil {
			return nil, err
		}
		if out[kind] == nil {
			out[kind] = map[string]int64{"pending": 0, "failed": 0}
		}
		state := "pending"
		if status == statusFailed {
			state = "failed"
		}
		out[kind][state] += n
	}
	return out, rows.Err()
}

// Depth counts the pending jobs of each kind (metrics).
func (q *Queue) Depth(ctx context.Context) (map[string]int64, error) {
	rows, err := q.db.Query(ctx, "SELECT kind, COUNT(*) FROM queue_job WHERE status = ? GROUP BY kind", statusPending)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// Failed lists jobs that failed for good, newest first (for operators).
func (q *Queue) Failed(ctx context.Context, limit int) ([]*Job, error) {
	rows, err := q.db.Query(ctx, `SELECT id, kind, group_key, COALESCE(payload, ''), attempts, max_attempts, created_ms,
		COALESCE(last_error, '') FROM queue_job WHERE status = ? ORDER BY id DESC`+db.LimitOffset(limit, 0), statusFailed)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j := &Job{}
		var payload string
		var created int64
		if err := rows.Scan(&j.ID, &j.Kind, &j.Group, &payload, &j.Attempts, &j.MaxAttempts, &created, &j.LastError); err != nil {
			return nil, err
		}
		j.Payload, j.Created = []byte(payload), time.UnixMilli(created)
		out = append(out, j)
	}
	return out, rows.Err()
}

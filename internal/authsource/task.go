package authsource

import (
	"context"
	"sync"
	"time"
)

// SyncTaskName is the task's name in [cron.sync_external_users] and the
// admin API's /admin/cron.
const SyncTaskName = "sync_external_users"

// SyncTask is the synchronisation of the sources' users as this process's
// cron task: it runs on its schedule (when enabled), can be started at once
// (POST /admin/cron/sync_external_users), never runs twice at a time, and
// remembers its runs for GET /admin/cron.
type SyncTask struct {
	s              *Service
	spec           string
	next           Schedule
	enabled        bool
	runAtStart     bool
	updateExisting bool

	mu        sync.Mutex
	ctx       context.Context // the server's, once Run started
	running   bool
	prev      time.Time
	nextAt    time.Time
	execTimes int64
}

// TaskStatus is what /admin/cron shows of a task.
type TaskStatus struct {
	Name      string
	Schedule  string
	Next      time.Time
	Prev      time.Time
	ExecTimes int64
}

// NewSyncTask returns the task for the schedule spec (see ParseSchedule).
func (s *Service) NewSyncTask(spec string, enabled, runAtStart, updateExisting bool) (*SyncTask, error) {
	next, err := ParseSchedule(spec)
	if err != nil {
		return nil, err
	}
	return &SyncTask{s: s, spec: spec, next: next, enabled: enabled, runAtStart: runAtStart, updateExisting: updateExisting}, nil
}

// Run runs the task on its schedule (and once at start with RUN_AT_START)
// until ctx ends; a disabled task only waits, so it can still be started
// from the admin API.
func (t *SyncTask) Run(ctx context.Context) {
	t.mu.Lock()
	t.ctx = ctx
	t.mu.Unlock()
	if !t.enabled {
		<-ctx.Done()
		return
	}
	if t.runAtStart {
		t.runOnce(ctx)
	}
	for {
		at := t.next(time.Now())
		t.mu.Lock()
		t.nextAt = at
		t.mu.Unlock()
		timer := time.NewTimer(time.Until(at))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		t.runOnce(ctx)
	}
}

// Start runs the task now in the background; false when it is running already.
func (t *SyncTask) Start() bool {
	t.mu.Lock()
	ctx := t.ctx
	running := t.running
	t.mu.Unlock()
	if running {
		return false
	}
	if ctx == nil {
		ctx = context.Background()
	}
	go t.runOnce(ctx)
	return true
}

// runOnce synchronises every source unless a run is going on.
func (t *SyncTask) runOnce(ctx context.Context) {
	t.mu.Lock()
	if t.running {
		t.mu.Unlock()
		return
	}
	t.running = true
	t.prev = time.Now()
	t.execTimes++
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.running = false
		t.mu.Unlock()
	}()
	_ = t.s.SyncAll(ctx, t.updateExisting) // failures are logged per source
}

// Status reports the task for /admin/cron.
func (t *SyncTask) Status() TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := TaskStatus{Name: SyncTaskName, Schedule: t.spec, Prev: t.prev, ExecTimes: t.execTimes}
	if t.enabled {
		st.Next = t.nextAt
	}
	return st
}

package webhook

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/queue"
	"github.com/cairn-forge/cairn/internal/webhook/format"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// jobKind is the queue kind of a delivery; its payload is the hook_task id.
const jobKind = "webhook.deliver"

// Options tune the service.
type Options struct {
	// Disabled ([security] DISABLE_WEBHOOKS) stops every event and delivery.
	Disabled bool
	// KeepDeliveries is how many finished deliveries each hook keeps
	// (default 50); older ones are pruned.
	KeepDeliveries int
	// DisableAfter turns a hook off once its deliveries have failed
	// without a success for this long (0: never).
	DisableAfter time.Duration
}

// Service stores hooks, records events as deliveries in the transaction of
// their change, and delivers them from the durable queue.
type Service struct {
	db     *db.DB
	q      *queue.Queue
	client *Client
	box    *SecretBox
	opts   Options
	now    func() time.Time
	// tester builds the payload of a hook test (SetPushTester).
	tester PushTester
}

// NewService returns the webhook service and registers its deliveries with q.
func NewService(d *db.DB, q *queue.Queue, client *Client, box *SecretBox, o Options) *Service {
	if o.KeepDeliveries <= 0 {
		o.KeepDeliveries = 50
	}
	s := &Service{db: d, q: q, client: client, box: box, opts: o, now: time.Now}
	q.Handle(jobKind, s.deliverJob)
	return s
}

// Disabled reports whether webhooks are turned off for the instance.
func (s *Service) Disabled() bool { return s.opts.Disabled }

// ValidateURL says why a URL cannot be a hook's (scheme, allow list).
func (s *Service) ValidateURL(u string) error { return s.client.ValidateURL(u) }

// Event is one change announced to hooks.
type Event struct {
	Type EventType
	// RepoID and OwnerID locate the hooks: the repository's, its owner's
	// and the system hooks.
	RepoID  int64
	OwnerID int64
	// Branch is checked against branch filters (push, create, delete of a
	// branch); "" lets every filter through.
	Branch string
	// Payload builds the Gitea payload; it runs only when a hook wants the
	// event (inside the change's transaction with Fire, before it with
	// Prepare).
	Payload func(ctx context.Context) (any, error)
}

// Fire records a delivery of e for each hook that wants it. Call it inside
// the transaction of the change: the deliveries exist exactly when the
// change commits, and the queue delivers them after.
func (s *Service) Fire(ctx context.Context, e Event) error {
	record, err := s.Prepare(ctx, e)
	if err != nil {
		return err
	}
	return record(ctx)
}

// Prepare finds the hooks that want e and builds its payload, and returns
// the function that records their deliveries: a change whose payload needs
// slow work (reading git) prepares before its transaction and records
// inside it, so the transaction holds no lock while git runs.
func (s *Service) Prepare(ctx context.Context, e Event) (func(ctx context.Context) error, error) {
	none := func(context.Context) error { return nil }
	if s.opts.Disabled {
		return none, nil
	}
	all, err := s.query(ctx, "SELECT "+hookColumns+` FROM webhook WHERE is_active = ?
		AND (repo_id = ? OR (repo_id = 0 AND (owner_id = ? OR (owner_id = 0 AND is_system = ?))))`,
		true, e.RepoID, e.OwnerID, true)
	if err != nil {
		return nil, err
	}
	var wanting []*Hook
	for _, h := range all {
		if h.wants(e.Type, e.Branch) {
			wanting = append(wanting, h)
		}
	}
	if len(wanting) == 0 {
		return none, nil
	}
	p, err := e.Payload(ctx)
	if err != nil {
		return nil, fmt.Errorf("webhook payload of %s: %w", e.Type, err)
	}
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		for _, h := range wanting {
			if _, err := s.Enqueue(ctx, h, e.Type, body); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// Enqueue records one delivery of body to h (in ctx's transaction if any)
// and returns its id. Tests and redeliveries use it directly.
func (s *Service) Enqueue(ctx context.Context, h *Hook, t EventType, body []byte) (int64, error) {
	var id int64
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		var err error
		id, err = s.db.Insert(ctx, "INSERT INTO hook_task (hook_id, uuid, event_type, payload, created_ms) VALUES (?, ?, ?, ?, ?)",
			h.ID, uuid.NewString(), string(t), string(body), s.now().UnixMilli())
		if err != nil {
			return err
		}
		return s.q.Enqueue(ctx, jobKind, []byte(itoa(id)), queue.EnqueueOptions{Group: "hook:" + itoa(h.ID)})
	})
	return id, err
}

// deliverJob sends one recorded delivery. A failure returns an error so the
// queue tries again later, with back-off, up to its attempt limit; a hook
// that was deleted or turned off in the meantime drops it.
func (s *Service) deliverJob(ctx context.Context, j *queue.Job) error {
	if s.opts.Disabled {
		return nil
	}
	taskID, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return queue.Permanent(err)
	}
	var uuid, event, payload string
	h, err := s.scanHook(s.db.QueryRow(ctx, "SELECT t.uuid, t.event_type, t.payload, "+hookColumnsOf("w")+
		" FROM hook_task t JOIN webhook w ON w.id = t.hook_id WHERE t.id = ?", taskID), &uuid, &event, &payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // pruned, or its hook deleted
	}
	if err != nil {
		return err
	}
	if !h.Active {
		return nil
	}
	t := EventType(event)
	req := DeliveryRequest{URL: h.URL, Method: h.HTTPMethod, ContentType: h.ContentType.String(), Body: []byte(payload),
		Secret: h.Secret, AuthorizationHeader: h.AuthHeader, Event: t.Header(), EventType: string(t), DeliveryID: uuid,
		SignGitea: h.Type == "gitea" || h.Type == "gogs"}
	if !req.SignGitea {
		msg, err := format.Render(h.Type, string(t), []byte(payload), []byte(h.Meta), h.URL)
		if err != nil {
			return queue.Permanent(s.recordSkip(ctx, taskID, "the payload could not be formatted: "+err.Error()))
		}
		if msg == nil {
			return s.recordSkip(ctx, taskID, "the "+h.Type+" format sends nothing for "+string(t))
		}
		req.Body, req.ContentType = msg.Body, "json"
		if msg.Method != "" {
			req.Method = msg.Method
		}
		if msg.URL != "" {
			req.URL = msg.URL
		}
		req.ExtraHeaders = msg.Headers
	}
	res := s.client.Deliver(ctx, req)
	final := res.Err == nil || j.Attempts >= j.MaxAttempts
	// Recorded with the job's outcome, in one commit.
	j.WithOutcome(func(ctx context.Context) error {
		if err := s.record(ctx, h, taskID, req, res, final); err != nil {
			slog.Error("webhook: could not record a delivery", "hook", h.ID, "delivery", uuid, "err", err)
			return err
		}
		return nil
	})
	if res.Err != nil {
		return fmt.Errorf("delivery to hook %d: %w", h.ID, res.Err)
	}
	return nil
}

// HookRequest and HookResponse are the recorded request and response of a
// delivery (Gitea's shapes).
type HookRequest struct {
	URL        string            `json:"url"`
	HTTPMethod string            `json:"http_method"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
}

// HookResponse is the receiver's answer, its body capped.
type HookResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Error   string            `json:"error,omitempty"`
}

// record stores the outcome of an attempt and the hook's health; a hook
// failing for longer than DisableAfter is turned off with the reason.
func (s *Service) record(ctx context.Context, h *Hook, taskID int64, req DeliveryRequest, res DeliveryResult, final bool) error {
	rq, _ := json.Marshal(HookRequest{URL: req.URL, HTTPMethod: req.Method, Headers: res.RequestHeaders, Body: res.RequestBody})
	rs := HookResponse{Status: res.Status, Headers: res.ResponseHeaders, Body: res.ResponseBody}
	if res.Err != nil {
		rs.Error = res.Err.Error()
	}
	rsb, _ := json.Marshal(rs)
	now := s.now()
	ok := res.Err == nil
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, `UPDATE hook_task SET is_delivered = ?, is_succeed = ?, is_final = ?, attempts = attempts + 1,
			request = ?, response = ?, duration_ms = ?, delivered_ms = ? WHERE id = ?`,
			true, ok, final, string(rq), string(rsb), res.Duration.Milliseconds(), now.UnixMilli(), taskID); err != nil {
			return err
		}
		if ok {
			if h.LastStatus == StatusSucceed && h.FailingSince.IsZero() {
				return nil
			}
			_, err := s.db.Exec(ctx, "UPDATE webhook SET last_status = ?, failing_since_ms = 0 WHERE id = ?", StatusSucceed, h.ID)
			return err
		}
		since := h.FailingSince
		if since.IsZero() {
			since = now
		}
		active, reason := true, ""
		if s.opts.DisableAfter > 0 && now.Sub(since) >= s.opts.DisableAfter {
			active = false
			reason = fmt.Sprintf("turned off: deliveries failed without a success since %s (last: %s)",
				since.UTC().Format(time.RFC3339), rs.Error)
			slog.Warn("webhook turned off after failing deliveries", "hook", h.ID, "failing_since", since)
		}
		_, err := s.db.Exec(ctx, "UPDATE webhook SET last_status = ?, failing_since_ms = ?, is_active = ?, disabled_reason = ? WHERE id = ?",
			StatusFail, since.UnixMilli(), active, reason, h.ID)
		return err
	})
	if err == nil && taskID%16 == 0 {
		err = s.prune(ctx, h.ID)
	}
	return err
}

// recordSkip marks a delivery the hook's format does not send.
func (s *Service) recordSkip(ctx context.Context, taskID int64, why string) error {
	rs, _ := json.Marshal(HookResponse{Error: why})
	_, err := s.db.Exec(ctx, "UPDATE hook_task SET is_delivered = ?, is_succeed = ?, is_final = ?, response = ?, delivered_ms = ? WHERE id = ?",
		true, false, true, string(rs), s.now().UnixMilli(), taskID)
	return err
}

// prune keeps the last KeepDeliveries finished deliveries of a hook; those
// still waiting for an attempt or a retry stay whatever their age.
func (s *Service) prune(ctx context.Context, hookID int64) error {
	var cutoff int64
	err := s.db.QueryRow(ctx, "SELECT id FROM hook_task WHERE hook_id = ? AND is_final = ? ORDER BY id DESC"+
		db.LimitOffset(1, s.opts.KeepDeliveries), hookID, true).Scan(&cutoff)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = s.db.Exec(ctx, "DELETE FROM hook_task WHERE hook_id = ? AND is_final = ? AND id <= ?", hookID, true, cutoff)
	return err
}

package webhook

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Delivery is one recorded delivery of a hook: pending until attempted,
// then the last attempt's request and response.
type Delivery struct {
	ID        int64
	HookID    int64
	UUID      string
	EventType EventType
	Payload   string
	Delivered bool
	Succeeded bool
	Attempts  int
	Request   *HookRequest  // nil while pending
	Response  *HookResponse // nil while pending
	Duration  time.Duration
	Created   time.Time
	// DeliveredAt is the time of the last attempt (zero while pending).
	DeliveredAt time.Time
}

const deliveryColumns = "id, hook_id, uuid, event_type, payload, is_delivered, is_succeed, attempts, request, response, duration_ms, created_ms, delivered_ms"

func scanDelivery(sc scanner) (*Delivery, error) {
	var d Delivery
	var event string
	var req, res sql.NullString
	var dur, created, delivered int64
	if err := sc.Scan(&d.ID, &d.HookID, &d.UUID, &event, &d.Payload, &d.Delivered, &d.Succeeded, &d.Attempts, &req, &res,
		&dur, &created, &delivered); err != nil {
		return nil, err
	}
	d.EventType = EventType(event)
	d.Duration = time.Duration(dur) * time.Millisecond
	d.Created = time.UnixMilli(created)
	if delivered != 0 {
		d.DeliveredAt = time.UnixMilli(delivered)
	}
	if req.String != "" {
		d.Request = &HookRequest{}
		_ = json.Unmarshal([]byte(req.String), d.Request)
	}
	if res.String != "" {
		d.Response = &HookResponse{}
		_ = json.Unmarshal([]byte(res.String), d.Response)
	}
	return &d, nil
}

// Deliveries returns a page of the hook's deliveries, newest first, and
// their total.
func (s *Service) Deliveries(ctx context.Context, hookID int64, limit, offset int) ([]*Delivery, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM hook_task WHERE hook_id = ?", hookID)
	if err != nil || total == 0 {
		return nil, total, err
	}
	rows, err := s.db.Query(ctx, "SELECT "+deliveryColumns+" FROM hook_task WHERE hook_id = ? ORDER BY id DESC"+limitOffset(limit, offset), hookID)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, rows.Err()
}

// GetDelivery returns delivery id of the hook.
func (s *Service) GetDelivery(ctx context.Context, hookID, id int64) (*Delivery, error) {
	d, err := scanDelivery(s.db.QueryRow(ctx, "SELECT "+deliveryColumns+" FROM hook_task WHERE hook_id = ? AND id = ?", hookID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("delivery not found")
	}
	return d, err
}

// Redeliver queues a new delivery of the same payload (with a new
// delivery id) and returns it.
func (s *Service) Redeliver(ctx context.Context, h *Hook, id int64) (*Delivery, error) {
	d, err := s.GetDelivery(ctx, h.ID, id)
	if err != nil {
		return nil, err
	}
	newID, err := s.Enqueue(ctx, h, d.EventType, []byte(d.Payload))
	if err != nil {
		return nil, err
	}
	return s.GetDelivery(ctx, h.ID, newID)
}

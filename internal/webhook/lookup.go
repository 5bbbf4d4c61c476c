package webhook

import (
	"context"
	"database/sql"
	"errors"

	"github.com/cairn-forge/cairn/internal/errs"
)

// SelectableEvents lists the events a hook can select, in the API's order.
func SelectableEvents() []EventType { return append([]EventType(nil), selectable...) }

// GetDeliveryByUUID returns the delivery of the hook with that delivery id
// (the X-Gitea-Delivery header).
func (s *Service) GetDeliveryByUUID(ctx context.Context, hookID int64, uuid string) (*Delivery, error) {
	d, err := scanDelivery(s.db.QueryRow(ctx, "SELECT "+deliveryColumns+" FROM hook_task WHERE hook_id = ? AND uuid = ?", hookID, uuid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("delivery not found")
	}
	return d, err
}

// Types lists the hook types Cairn delivers to.
func Types() []string { return append([]string(nil), hookTypes...) }

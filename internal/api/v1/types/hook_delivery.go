package types

import "time"

// HookDelivery is one recorded delivery of a webhook: Cairn's extension
// (GET .../hooks/{id}/deliveries), named like GitHub's. Request and
// Response are the last attempt's; the authorization header is masked and
// the response body capped.
type HookDelivery struct {
	ID          int64                 `json:"id"`
	UUID        string                `json:"uuid"`
	Event       string                `json:"event"`
	EventType   string                `json:"event_type"`
	Delivered   bool                  `json:"delivered"`
	Succeeded   bool                  `json:"succeeded"`
	Attempts    int                   `json:"attempts"`
	DurationMS  int64                 `json:"duration_ms"`
	Created     time.Time             `json:"created_at"`
	DeliveredAt *time.Time            `json:"delivered_at"`
	Request     *HookDeliveryRequest  `json:"request"`
	Response    *HookDeliveryResponse `json:"response"`
}

// HookDeliveryRequest is the request a delivery sent.
type HookDeliveryRequest struct {
	URL        string            `json:"url"`
	HTTPMethod string            `json:"http_method"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
}

// HookDeliveryResponse is the receiver's answer (Status 0 and Error set
// when there was none).
type HookDeliveryResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Error   string            `json:"error,omitempty"`
}

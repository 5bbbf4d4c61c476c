package types

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWireTypesNotification(t *testing.T) {
	checkWireTypes(t, []wireType{
		{NotificationThread{}, true, nil}, {NotificationSubject{}, true, nil}, {NotificationCount{}, true, nil},
		{TimelineComment{}, true, nil},
	})
}

// TestNotificationNullables checks that absent relations are sent as null,
// as Gitea sends them, not left out.
func TestNotificationNullables(t *testing.T) {
	b, err := json.Marshal(TimelineComment{Type: "comment"})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"label":null`, `"milestone":null`, `"ref_issue":null`, `"tracked_time":null`, `"assignee":null`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("%s missing from %s", key, b)
		}
	}
}

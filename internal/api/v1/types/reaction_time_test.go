package types

import "testing"

// TestWireTypesReactionTime checks the reaction, attachment, tracked time,
// stopwatch and dependency types against Gitea's description.
func TestWireTypesReactionTime(t *testing.T) {
	checkWireTypes(t, []wireType{
		{Reaction{}, true, nil}, {EditReactionOption{}, false, nil},
		{TrackedTime{}, true, nil}, {AddTimeOption{}, false, nil}, {StopWatch{}, true, nil},
		{IssueMeta{}, false, nil}, {EditAttachmentOptions{}, false, nil},
	})
}

package webhook

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// PushTester builds the payload of a hook test: a push of the head commit
// of ref (the default branch when empty) of repository repoID, by sender.
type PushTester func(ctx context.Context, repoID int64, sender *user.User, ref string) ([]byte, error)

// SetPushTester sets the builder of test payloads (the API's converters);
// call it only while wiring.
func (s *Service) SetPushTester(t PushTester) { s.tester = t }

// TestPush queues a synthetic push to repository hook h, whatever events
// it selects (the API's hook test and the settings page's button).
func (s *Service) TestPush(ctx context.Context, h *Hook, sender *user.User, ref string) error {
	if h.RepoID == 0 || s.tester == nil {
		return errs.Invalid("only a repository's hooks can be tested")
	}
	payload, err := s.tester(ctx, h.RepoID, sender, ref)
	if err != nil {
		return err
	}
	_, err = s.Enqueue(ctx, h, EventPush, payload)
	return err
}

package pull

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
)

func TestReviewCheck(t *testing.T) {
	strict := ReviewRules{RequiredApprovals: 2, BlockOnRejectedReviews: true, BlockOnOfficialReviewRequests: true}
	cases := []struct {
		name    string
		rules   ReviewRules
		state   reviewState
		force   bool
		admin   bool
		refused string // "" when the merge may go on
	}{
		{"no rules", ReviewRules{}, reviewState{}, false, false, ""},
		{"approvals missing", strict, reviewState{Approvals: 1}, false, false, "Does not have enough approvals"},
		{"enough approvals", strict, reviewState{Approvals: 2}, false, false, ""},
		{"more than enough", strict, reviewState{Approvals: 3}, false, false, ""},
		{"changes requested", strict, reviewState{Approvals: 2, Rejected: true}, false, false, "There are requested changes"},
		{"rejection ignored", ReviewRules{RequiredApprovals: 1}, reviewState{Approvals: 1, Rejected: true}, false, false, ""},
		{"official request open", strict, reviewState{Approvals: 2, OfficialRequests: true}, false, false, "There are official review requests"},
		{"approvals checked first", strict, reviewState{Rejected: true, OfficialRequests: true}, false, false, "Does not have enough approvals"},
		{"admin forces", strict, reviewState{Rejected: true}, true, true, ""},
		{"force needs an admin", strict, reviewState{}, true, false, "Does not have enough approvals"},
		{"admin without force", strict, reviewState{}, false, true, "Does not have enough approvals"},
		{"only rejections block", ReviewRules{BlockOnRejectedReviews: true}, reviewState{Rejected: true}, false, false, "There are requested changes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := false
			rules := func(_ context.Context, r *repo.Repository, branch string) (ReviewRules, error) {
				if r.ID != 7 || branch != "main" {
					t.Errorf("rules asked for %d/%s", r.ID, branch)
				}
				return c.rules, nil
			}
			state := func(_ context.Context, p *PullRequest, rr ReviewRules) (reviewState, error) {
				asked = true
				return c.state, nil
			}
			mc := &MergeContext{Repo: &repo.Repository{ID: 7}, Pull: &PullRequest{ID: 1, BaseBranch: "main"},
				Opts: MergeOptions{Style: StyleMerge, Force: c.force}, IsAdmin: c.admin}
			err := reviewCheck(rules, state)(context.Background(), mc)
			if c.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Status != http.StatusMethodNotAllowed || e.Message != c.refused {
				t.Fatalf("err = %#v, want 405 %q", err, c.refused)
			}
			if !asked {
				t.Fatal("the reviews were not counted")
			}
		})
	}
}

func TestReviewCheckRulesError(t *testing.T) {
	boom := errors.New("boom")
	check := reviewCheck(func(context.Context, *repo.Repository, string) (ReviewRules, error) { return ReviewRules{}, boom },
		func(context.Context, *PullRequest, ReviewRules) (reviewState, error) { return reviewState{}, nil })
	if err := check(context.Background(), &MergeContext{Repo: &repo.Repository{}, Pull: &PullRequest{}}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

// TestReviewState counts reviews in a database as the rules ask: official,
// undismissed approvals (fresh ones only when stale approvals are ignored),
// the whitelist of users and teams, requests for changes and official
// requests.
func TestReviewState(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	s := &Service{db: d}
	const issueID = 5
	add := func(typ ReviewType, reviewer int64, official, stale, dismissed bool) {
		if _, err := d.Exec(ctx, `INSERT INTO review (type, reviewer_id, issue_id, official, stale, dismissed, created_unix, updated_unix)
			VALUES (?, ?, ?, ?, ?, ?, 1, 1)`, typ, reviewer, issueID, official, stale, dismissed); err != nil {
			t.Fatal(err)
		}
	}
	add(ReviewApprove, 1, true, false, false)  // counts
	add(ReviewApprove, 2, true, true, false)   // stale
	add(ReviewApprove, 3, false, false, false) // not official
	add(ReviewApprove, 4, true, false, true)   // dismissed
	add(ReviewApprove, 6, true, false, false)  // counts; member of team 9
	add(ReviewReject, 7, true, false, true)    // dismissed rejection
	add(ReviewRequest, 8, false, false, false) // unofficial request
	add(ReviewApprove, 99, true, false, false) // another pull request's
	if _, err := d.Exec(ctx, "UPDATE review SET issue_id = 6 WHERE reviewer_id = 99"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(ctx, "INSERT INTO team_user (org_id, team_id, uid) VALUES (1, 9, 6)"); err != nil {
		t.Fatal(err)
	}
	p := &PullRequest{IssueID: issueID}
	all := ReviewRules{RequiredApprovals: 1, BlockOnRejectedReviews: true, BlockOnOfficialReviewRequests: true}
	check := func(rr ReviewRules, want reviewState) {
		t.Helper()
		got, err := s.reviewState(ctx, p, rr)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("rules %+v: state = %+v, want %+v", rr, got, want)
		}
	}
	check(all, reviewState{Approvals: 3})
	fresh := all
	fresh.IgnoreStaleApprovals = true
	check(fresh, reviewState{Approvals: 2})
	listed := all
	listed.EnableApprovalsWhitelist, listed.ApprovalsWhitelistUserIDs = true, []int64{2}
	check(listed, reviewState{Approvals: 1})
	listed.ApprovalsWhitelistTeamIDs = []int64{9}
	check(listed, reviewState{Approvals: 2})
	nobody := all
	nobody.EnableApprovalsWhitelist = true
	check(nobody, reviewState{})

	add(ReviewReject, 3, true, false, false)
	add(ReviewRequest, 4, true, false, false)
	check(all, reviewState{Approvals: 3, Rejected: true, OfficialRequests: true})
	check(nobody, reviewState{OfficialRequests: true})
}

package format

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
)

// The payloads the tests render: one per event, as Cairn's API sends them.

var (
	fxTime  = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	fxOwner = &types.User{ID: 1, UserName: "alice", FullName: "Alice A", AvatarURL: "https://forge.test/avatars/1",
		HTMLURL: "https://forge.test/alice"}
	fxBob = &types.User{ID: 2, UserName: "bob", FullName: "Bob B", AvatarURL: "https://forge.test/avatars/2",
		HTMLURL: "https://forge.test/bob"}
	fxRepo = &types.Repository{ID: 7, Name: "tools", FullName: "alice/tools", Owner: fxOwner,
		HTMLURL: "https://forge.test/alice/tools"}
	fxFork = &types.Repository{ID: 8, Name: "tools", FullName: "bob/tools", Owner: fxBob,
		HTMLURL: "https://forge.test/bob/tools"}
	fxMilestone = &types.Milestone{ID: 4, Title: "v1.0", State: "open", Created: fxTime}
)

func fxCommit(id, msg string) *types.PayloadCommit {
	who := &types.PayloadUser{Name: "Alice A", Email: "alice@forge.test", UserName: "alice"}
	return &types.PayloadCommit{ID: id, Message: msg, URL: "https://forge.test/alice/tools/commit/" + id,
		Author: who, Committer: who, Timestamp: fxTime, Added: []string{}, Removed: []string{}, Modified: []string{"main.go"}}
}

func fxIssue() *types.Issue {
	return &types.Issue{ID: 30, Index: 3, Title: "Crash on <empty> input", Body: "Steps:\n1. run & see",
		HTMLURL: "https://forge.test/alice/tools/issues/3", URL: "https://forge.test/api/v1/repos/alice/tools/issues/3",
		Poster: fxBob, Assignees: []*types.User{fxBob}, Assignee: fxBob, Milestone: fxMilestone, State: "open"}
}

func fxPull() *types.PullRequest {
	return &types.PullRequest{ID: 50, Index: 5, Title: "Add the frobnicator", Body: "It frobs.",
		HTMLURL: "https://forge.test/alice/tools/pulls/5", URL: "https://forge.test/api/v1/repos/alice/tools/pulls/5",
		Poster: fxBob, Assignees: []*types.User{fxOwner}, Milestone: fxMilestone, State: "open"}
}

func fxComment(pull bool) *types.Comment {
	c := &types.Comment{ID: 90, Body: "Looks good to me", Poster: fxOwner,
		HTMLURL:  "https://forge.test/alice/tools/issues/3#issuecomment-90",
		IssueURL: "https://forge.test/alice/tools/issues/3"}
	if pull {
		c.HTMLURL = "https://forge.test/alice/tools/pulls/5#issuecomment-90"
		c.IssueURL, c.PRURL = "", "https://forge.test/alice/tools/pulls/5"
	}
	return c
}

func pullPayload(action types.HookIssueAction, mut func(*types.PullRequestPayload)) any {
	p := &types.PullRequestPayload{Action: action, Index: 5, PullRequest: fxPull(), Repository: fxRepo, Sender: fxOwner}
	if mut != nil {
		mut(p)
	}
	return p
}

func issuePayload(action types.HookIssueAction) any {
	return &types.IssuePayload{Action: action, Index: 3, Issue: fxIssue(), Repository: fxRepo, Sender: fxOwner}
}

// allEvents are the events of Render's contract, with a payload each.
func allEvents() map[string]any {
	c1 := fxCommit("0123456789abcdef0123456789abcdef01234567", "Fix the <parser>\n\nLonger text.")
	c2 := fxCommit("89abcdef0123456789abcdef0123456789abcdef", "Add tests & docs")
	pull := fxPull()
	pull.HasMerged = true
	pull.State = "closed"
	return map[string]any{
		"push": &types.PushPayload{Ref: "refs/heads/main", Before: "1111111111111111111111111111111111111111",
			After: c1.ID, CompareURL: "https://forge.test/alice/tools/compare/1111111111...0123456789",
			Commits: []*types.PayloadCommit{c1, c2}, TotalCommits: 2, HeadCommit: c1, Repo: fxRepo, Pusher: fxOwner, Sender: fxOwner},
		"create": &types.CreatePayload{Sha: c1.ID, Ref: "feature/x", RefType: "branch", Repo: fxRepo, Sender: fxOwner},
		"delete": &types.DeletePayload{Ref: "v0.9", RefType: "tag", PusherType: "user", Repo: fxRepo, Sender: fxOwner},
		"fork":   &types.ForkPayload{Forkee: fxRepo, Repo: fxFork, Sender: fxBob},

		"issues":          issuePayload(types.HookIssueOpened),
		"issue_assign":    issuePayload(types.HookIssueAssigned),
		"issue_label":     issuePayload(types.HookIssueLabelUpdated),
		"issue_milestone": issuePayload(types.HookIssueMilestoned),
		"issue_comment": &types.IssueCommentPayload{Action: types.HookIssueCommentCreated, Issue: fxIssue(),
			Comment: fxComment(false), Repository: fxRepo, Sender: fxOwner},

		"pull_request": &types.PullRequestPayload{Action: types.HookIssueClosed, Index: 5, PullRequest: pull,
			Repository: fxRepo, Sender: fxOwner},
		"pull_request_assign":    pullPayload(types.HookIssueAssigned, nil),
		"pull_request_label":     pullPayload(types.HookIssueLabelCleared, nil),
		"pull_request_milestone": pullPayload(types.HookIssueDemilestoned, nil),
		"pull_request_comment": &types.IssueCommentPayload{Action: types.HookIssueCommentEdited, Issue: &types.Issue{ID: 50, Index: 5,
			Title: "Add the frobnicator", HTMLURL: "https://forge.test/alice/tools/pulls/5", Poster: fxBob},
			Comment: fxComment(true), Changes: &types.ChangesPayload{Body: &types.ChangesFromPayload{From: "LGTM"}},
			Repository: fxRepo, Sender: fxOwner, IsPull: true},
		"pull_request_review_approved": pullPayload(types.HookIssueReviewed, func(p *types.PullRequestPayload) {
			p.Review = &types.ReviewPayload{Type: "pull_request_review_approved", Content: "Ship it"}
		}),
		"pull_request_review_rejected": pullPayload(types.HookIssueReviewed, func(p *types.PullRequestPayload) {
			p.Review = &types.ReviewPayload{Type: "pull_request_review_rejected", Content: "Needs tests"}
		}),
		"pull_request_review_comment": pullPayload(types.HookIssueReviewed, func(p *types.PullRequestPayload) {
			p.Review = &types.ReviewPayload{Type: "pull_request_review_comment", Content: "A question"}
		}),
		"pull_request_sync": pullPayload(types.HookIssueSynchronized, func(p *types.PullRequestPayload) { p.CommitID = c1.ID }),
		"pull_request_review_request": pullPayload(types.HookIssueReviewRequested, func(p *types.PullRequestPayload) {
			p.RequestedReviewer = fxBob
		}),

		"repository": &types.RepositoryPayload{Action: types.HookRepoCreated, Repository: fxRepo, Sender: fxOwner},
		"release": &types.ReleasePayload{Action: types.HookReleasePublished, Release: &types.Release{ID: 11, TagName: "v1.0.0",
			Title: "First", Note: "Notes *here*", HTMLURL: "https://forge.test/alice/tools/releases/tag/v1.0.0",
			Publisher: fxOwner, CreatedAt: fxTime, PublishedAt: fxTime}, Repository: fxRepo, Sender: fxOwner},
		"wiki": map[string]any{"action": "edited", "repository": fxRepo, "sender": fxOwner, "page": "Home", "comment": "typo"},
		"status": &types.CommitStatusPayload{Commit: c1, Context: "ci/build", CreatedAt: fxTime, Description: "Build passed",
			ID: 12, Repo: fxRepo, Sender: fxOwner, SHA: c1.ID, State: "success", TargetURL: "https://ci.test/build/12", UpdatedAt: fxTime},
		"package": map[string]any{"action": "created", "repository": nil, "sender": fxOwner, "organization": fxOwner,
			"package": map[string]any{"id": 3, "type": "generic", "name": "tool", "version": "1.0.0",
				"html_url": "https://forge.test/alice/-/packages/generic/tool/1.0.0"}},
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testMeta are settings for each type.
var testMeta = map[string]map[string]string{
	"slack":     {"channel": "#dev", "username": "forge", "icon_url": "https://forge.test/icon.png", "color": ""},
	"discord":   {"username": "forge", "icon_url": "https://forge.test/icon.png"},
	"telegram":  {"chat_id": "-100123", "thread_id": "7"},
	"matrix":    {"room_id": "!room:matrix.test", "message_type": "2"},
	"packagist": {"username": "alice", "api_token": "tok", "package_url": "https://packagist.org/packages/alice/tools"},
}

// testURL is the hook URL of each type in the tests.
var testURL = map[string]string{
	"slack":      "https://hooks.slack.test/services/T/B/X",
	"discord":    "https://discord.test/api/webhooks/1/abc",
	"msteams":    "https://teams.test/webhook/1",
	"telegram":   "https://api.telegram.org/botTOKEN/sendMessage",
	"matrix":     "https://matrix.test/_matrix/client/r0/rooms/%21room%3Amatrix.test/send/m.room.message",
	"dingtalk":   "https://oapi.dingtalk.test/robot/send?access_token=x",
	"feishu":     "https://open.feishu.test/open-apis/bot/v2/hook/x",
	"wechatwork": "https://qyapi.weixin.test/cgi-bin/webhook/send?key=x",
	"packagist":  "https://packagist.org/api/update-package",
}

func metaFor(t *testing.T, hookType string) []byte {
	t.Helper()
	m, err := ValidateMeta(hookType, testMeta[hookType])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

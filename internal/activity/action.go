// Package activity records what happens in repositories — pushes, issues,
// pull requests, reviews, releases — as actions, and reads them back as
// the feeds of a user, an organization, a team, a repository or a
// signed-in user's dashboard, and as a user's contribution heatmap.
//
// One row is stored per event, written in the transaction of the change it
// records; who may read it is decided when a feed is read: the repository
// must be readable by the viewer (and the unit the action belongs to), and
// actors who hide their activity or whom the viewer may not see are left
// out of other people's views.
package activity

import (
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// OpType is what an action records; the numbers are Gitea's ActionType.
type OpType int

// The action types.
const (
	OpCreateRepo                OpType = 1
	OpRenameRepo                OpType = 2
	OpStarRepo                  OpType = 3
	OpWatchRepo                 OpType = 4
	OpCommitRepo                OpType = 5
	OpCreateIssue               OpType = 6
	OpCreatePullRequest         OpType = 7
	OpTransferRepo              OpType = 8
	OpPushTag                   OpType = 9
	OpCommentIssue              OpType = 10
	OpMergePullRequest          OpType = 11
	OpCloseIssue                OpType = 12
	OpReopenIssue               OpType = 13
	OpClosePullRequest          OpType = 14
	OpReopenPullRequest         OpType = 15
	OpDeleteTag                 OpType = 16
	OpDeleteBranch              OpType = 17
	OpMirrorSyncPush            OpType = 18
	OpMirrorSyncCreate          OpType = 19
	OpMirrorSyncDelete          OpType = 20
	OpApprovePullRequest        OpType = 21
	OpRejectPullRequest         OpType = 22
	OpCommentPull               OpType = 23
	OpPublishRelease            OpType = 24
	OpPullReviewDismissed       OpType = 25
	OpPullRequestReadyForReview OpType = 26
	OpAutoMergePullRequest      OpType = 27
)

var opNames = map[OpType]string{
	OpCreateRepo: "create_repo", OpRenameRepo: "rename_repo", OpStarRepo: "star_repo", OpWatchRepo: "watch_repo",
	OpCommitRepo: "commit_repo", OpCreateIssue: "create_issue", OpCreatePullRequest: "create_pull_request",
	OpTransferRepo: "transfer_repo", OpPushTag: "push_tag", OpCommentIssue: "comment_issue",
	OpMergePullRequest: "merge_pull_request", OpCloseIssue: "close_issue", OpReopenIssue: "reopen_issue",
	OpClosePullRequest: "close_pull_request", OpReopenPullRequest: "reopen_pull_request", OpDeleteTag: "delete_tag",
	OpDeleteBranch: "delete_branch", OpMirrorSyncPush: "mirror_sync_push", OpMirrorSyncCreate: "mirror_sync_create",
	OpMirrorSyncDelete: "mirror_sync_delete", OpApprovePullRequest: "approve_pull_request",
	OpRejectPullRequest: "reject_pull_request", OpCommentPull: "comment_pull", OpPublishRelease: "publish_release",
	OpPullReviewDismissed: "pull_review_dismissed", OpPullRequestReadyForReview: "pull_request_ready_for_review",
	OpAutoMergePullRequest: "auto_merge_pull_request",
}

// String is the op_type name of the API ("commit_repo", ...).
func (t OpType) String() string {
	if n, ok := opNames[t]; ok {
		return n
	}
	return "action-" + strconv.Itoa(int(t))
}

// unit is the repository unit a viewer must be able to read to see an
// action of this type ("" when seeing the repository is enough).
func (t OpType) unit() string {
	switch t {
	case OpCommitRepo, OpPushTag, OpDeleteTag, OpDeleteBranch, OpMirrorSyncPush, OpMirrorSyncCreate, OpMirrorSyncDelete:
		return repo.UnitCode
	case OpCreateIssue, OpCommentIssue, OpCloseIssue, OpReopenIssue:
		return repo.UnitIssues
	case OpCreatePullRequest, OpCommentPull, OpMergePullRequest, OpClosePullRequest, OpReopenPullRequest,
		OpApprovePullRequest, OpRejectPullRequest, OpPullReviewDismissed, OpPullRequestReadyForReview, OpAutoMergePullRequest:
		return repo.UnitPulls
	case OpPublishRelease:
		return repo.UnitReleases
	}
	return ""
}

// IsIssueAction reports whether the action concerns an issue or a pull
// request, whose number starts its content ("12|...").
func (t OpType) IsIssueAction() bool {
	return t.unit() == repo.UnitIssues || t.unit() == repo.UnitPulls
}

// Action is one recorded event.
type Action struct {
	ID     int64
	OpType OpType
	// UserID is whose feed the action was read from (Gitea's receiver):
	// the requested user or organization, the dashboard's owner, or for a
	// repository's feed the actor.
	UserID    int64
	ActUserID int64
	RepoID    int64
	// OwnerID and IsPrivate are the repository's owner and privacy when
	// the action happened.
	OwnerID   int64
	IsPrivate bool
	// CommentID is the comment the action concerns, 0 for none.
	CommentID int64
	// RefName is the full reference of pushes and releases (refs/heads/x,
	// refs/tags/v1).
	RefName string
	// Content is Gitea's: "index|title" or "index|comment excerpt" for
	// issues and pull requests, the push summary (PushCommits as JSON) for
	// pushed commits and tags, the release title, the old name of a
	// renamed repository.
	Content   string
	IsDeleted bool
	Created   time.Time

	// Loaded with a feed: the actor (the ghost user when deleted), the
	// repository (OwnerName set), the comment and the issue or pull
	// request the action concerns (nil when there is none or it is gone).
	ActUser *user.User
	Repo    *repo.Repository
	Comment *issue.Comment
	Issue   *issue.Issue
}

// IssueIndex is the number of the issue or pull request the action
// concerns, 0 for none.
func (a *Action) IssueIndex() int64 {
	if !a.OpType.IsIssueAction() {
		return 0
	}
	head, _, _ := strings.Cut(a.Content, "|")
	n, err := strconv.ParseInt(head, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// PushCommit is one commit of a push summary, in Gitea's stored form.
type PushCommit struct {
	Sha1           string
	Message        string
	AuthorEmail    string
	AuthorName     string
	CommitterEmail string
	CommitterName  string
	Timestamp      time.Time
}

// PushCommits is the content of a push action: the newest commits (at most
// FeedCommits, newest first), the new head, the comparison path of the
// push ("owner/repo/compare/old...new") and the number of commits pushed.
type PushCommits struct {
	Commits    []*PushCommit
	HeadCommit *PushCommit
	CompareURL string
	Len        int
}

// FeedCommits is the most commits a push summary lists (Gitea's
// [ui] FEED_MAX_COMMIT_NUM default).
const FeedCommits = 5

// newRefCommits bounds the commits counted for a new branch (Gitea lists
// at most ten there).
const newRefCommits = 10

// HeatmapEntry is the number of actions in one 15-minute interval starting
// at Timestamp (Unix seconds).
type HeatmapEntry struct {
	Timestamp     int64
	Contributions int64
}

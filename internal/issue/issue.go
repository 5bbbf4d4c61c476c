// Package issue owns issues and what hangs off them: comments and timeline
// events, labels, milestones, assignees, reactions, tracked time,
// dependencies and subscriptions. Pull requests are issues with IsPull set and
// share the numbering and all of this machinery.
package issue

import "time"

// Issue is an issue or the issue half of a pull request.
type Issue struct {
	ID               int64
	RepoID           int64
	Index            int64
	PosterID         int64
	OriginalAuthor   string
	OriginalAuthorID int64
	Title            string
	Content          string
	MilestoneID      int64
	Priority         int
	IsClosed         bool
	IsPull           bool
	IsLocked         bool
	NumComments      int
	Ref              string
	PinOrder         int
	Deadline         time.Time // zero when none
	Created          time.Time
	Updated          time.Time
	Closed           time.Time // zero when open
}

// State is "open" or "closed", as the API shows it.
func (i *Issue) State() string {
	if i.IsClosed {
		return "closed"
	}
	return "open"
}

// CommentType is the kind of a timeline entry; the values and names follow Gitea's.
type CommentType int

// Timeline entry kinds.
const (
	CommentPlain            CommentType = 0
	CommentReopen           CommentType = 1
	CommentClose            CommentType = 2
	CommentIssueRef         CommentType = 3
	CommentCommitRef        CommentType = 4
	CommentCommentRef       CommentType = 5
	CommentPullRef          CommentType = 6
	CommentLabel            CommentType = 7
	CommentMilestone        CommentType = 8
	CommentAssignees        CommentType = 9
	CommentChangeTitle      CommentType = 10
	CommentDeleteBranch     CommentType = 11
	CommentStartTracking    CommentType = 12
	CommentStopTracking     CommentType = 13
	CommentAddTimeManual    CommentType = 14
	CommentCancelTracking   CommentType = 15
	CommentAddedDeadline    CommentType = 16
	CommentModifiedDeadline CommentType = 17
	CommentRemovedDeadline  CommentType = 18
	CommentAddDependency    CommentType = 19
	CommentRemoveDependency CommentType = 20
	CommentCode             CommentType = 21
	CommentReview           CommentType = 22
	CommentLock             CommentType = 23
	CommentUnlock           CommentType = 24
	CommentChangeTarget     CommentType = 25
	CommentDeleteTimeManual CommentType = 26
	CommentReviewRequest    CommentType = 27
	CommentMergePull        CommentType = 28
	CommentPullPush         CommentType = 29
	CommentProject          CommentType = 30
	CommentProjectBoard     CommentType = 31
	CommentDismissReview    CommentType = 32
	CommentChangeIssueRef   CommentType = 33
	CommentPin              CommentType = 36
	CommentUnpin            CommentType = 37
)

var commentTypeNames = map[CommentType]string{
	CommentPlain: "comment", CommentReopen: "reopen", CommentClose: "close", CommentIssueRef: "issue_ref",
	CommentCommitRef: "commit_ref", CommentCommentRef: "comment_ref", CommentPullRef: "pull_ref", CommentLabel: "label",
	CommentMilestone: "milestone", CommentAssignees: "assignees", CommentChangeTitle: "change_title",
	CommentDeleteBranch: "delete_branch", CommentStartTracking: "start_tracking", CommentStopTracking: "stop_tracking",
	CommentAddTimeManual: "add_time_manual", CommentCancelTracking: "cancel_tracking", CommentAddedDeadline: "added_deadline",
	CommentModifiedDeadline: "modified_deadline", CommentRemovedDeadline: "removed_deadline",
	CommentAddDependency: "add_dependency", CommentRemoveDependency: "remove_dependency", CommentCode: "code",
	CommentReview: "review", CommentLock: "lock", CommentUnlock: "unlock", CommentChangeTarget: "change_target_branch",
	CommentDeleteTimeManual: "delete_time_manual", CommentReviewRequest: "review_request", CommentMergePull: "merge_pull",
	CommentPullPush: "pull_push", CommentProject: "project", CommentProjectBoard: "project_board",
	CommentDismissReview: "dismiss_review", CommentChangeIssueRef: "change_issue_ref", CommentPin: "pin", CommentUnpin: "unpin",
}

func (t CommentType) String() string {
	if s, ok := commentTypeNames[t]; ok {
		return s
	}
	return "unknown"
}

// Comment is one timeline entry: a plain comment or an event.
type Comment struct {
	ID               int64
	Type             CommentType
	PosterID         int64
	OriginalAuthor   string
	OriginalAuthorID int64
	IssueID          int64
	LabelID          int64
	OldMilestoneID   int64
	MilestoneID      int64
	AssigneeID       int64
	// AssigneeTeamID is the team of a review request entry.
	AssigneeTeamID   int64
	RemovedAssignee  bool
	OldTitle         string
	NewTitle         string
	OldRef           string
	NewRef           string
	DependentIssueID int64
	RefRepoID        int64
	RefIssueID       int64
	RefCommentID     int64
	RefAction        int
	RefIsPull        bool
	CommitSHA        string
	TimeID           int64
	Content          string
	Created          time.Time
	Updated          time.Time
	// Review fields: the review a line comment (CommentCode) or review
	// entry belongs to, the file and line it is on (negative: the old side),
	// the diff hunk it was made on, whether the line changed since
	// (Invalidated) and who resolved the conversation.
	ReviewID      int64
	TreePath      string
	Line          int64
	Patch         string
	Invalidated   bool
	ResolveDoerID int64
}

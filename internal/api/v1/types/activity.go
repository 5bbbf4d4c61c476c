package types

// Activity is Gitea's Activity: one entry of an activity feed.
type Activity struct {
	ID int64 `json:"id"`
	// UserID is whose feed the entry was read from (Gitea's receiver).
	UserID    int64       `json:"user_id"`
	OpType    string      `json:"op_type"`
	ActUserID int64       `json:"act_user_id"`
	ActUser   *User       `json:"act_user"`
	RepoID    int64       `json:"repo_id"`
	Repo      *Repository `json:"repo"`
	CommentID int64       `json:"comment_id"`
	Comment   *Comment    `json:"comment"`
	RefName   string      `json:"ref_name"`
	IsPrivate bool        `json:"is_private"`
	Content   string      `json:"content"`
	Created   Time        `json:"created"`
}

// UserHeatmapData is Gitea's UserHeatmapData: the number of contributions
// in the 15 minutes starting at Timestamp (Unix seconds).
type UserHeatmapData struct {
	Timestamp     int64 `json:"timestamp"`
	Contributions int64 `json:"contributions"`
}

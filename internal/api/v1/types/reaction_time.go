package types

import "time"

// Reaction is Gitea's Reaction: one user's reaction to an issue or comment.
type Reaction struct {
	User     *User     `json:"user"`
	Reaction string    `json:"content"`
	Created  time.Time `json:"created_at"`
}

// EditReactionOption is the body of POST and DELETE .../reactions.
type EditReactionOption struct {
	Reaction string `json:"content"`
}

// TrackedTime is Gitea's TrackedTime: time spent on an issue, in seconds.
type TrackedTime struct {
	ID       int64     `json:"id"`
	Created  time.Time `json:"created"`
	Time     int64     `json:"time"`
	UserID   int64     `json:"user_id"`
	UserName string    `json:"user_name"`
	IssueID  int64     `json:"issue_id"`
	Issue    *Issue    `json:"issue"`
}

// AddTimeOption is the body of POST .../issues/{index}/times.
type AddTimeOption struct {
	// Time is in seconds.
	Time int64 `json:"time"`
	// Created defaults to now.
	Created time.Time `json:"created"`
	// User is whose time it is; only administrators may name someone else.
	User string `json:"user_name"`
}

// StopWatch is Gitea's StopWatch: a running timer of the caller.
type StopWatch struct {
	Created       time.Time `json:"created"`
	Seconds       int64     `json:"seconds"`
	Duration      string    `json:"duration"`
	IssueIndex    int64     `json:"issue_index"`
	IssueTitle    string    `json:"issue_title"`
	RepoOwnerName string    `json:"repo_owner_name"`
	RepoName      string    `json:"repo_name"`
}

// IssueMeta names an issue of any repository: the body of the dependency routes.
type IssueMeta struct {
	Index int64  `json:"index"`
	Owner string `json:"owner"`
	Name  string `json:"repo"`
}

// EditAttachmentOptions is the body of PATCH .../assets/{attachment_id}.
type EditAttachmentOptions struct {
	Name string `json:"name"`
}

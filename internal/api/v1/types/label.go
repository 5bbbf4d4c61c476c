package types

import (
	"encoding/json"
	"time"
)

// CreateLabelOption is the body of POST /repos/{owner}/{repo}/labels and
// POST /orgs/{org}/labels. Color is six hex digits with an optional '#'.
type CreateLabelOption struct {
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	Exclusive   bool   `json:"exclusive"`
	IsArchived  bool   `json:"is_archived"`
}

// EditLabelOption is the body of PATCH .../labels/{id}; absent keys leave
// the label as it is.
type EditLabelOption struct {
	Name        *string `json:"name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
	Exclusive   *bool   `json:"exclusive"`
	IsArchived  *bool   `json:"is_archived"`
}

// IssueLabelsOption is the body of POST and PUT .../issues/{index}/labels:
// label ids (numbers) or label names (strings), not both.
type IssueLabelsOption struct {
	Labels []json.RawMessage `json:"labels"`
}

// CreateMilestoneOption is the body of POST /repos/{owner}/{repo}/milestones.
type CreateMilestoneOption struct {
	Title       string     `json:"title"`
	Description string     `json:"description" binding:"Text"`
	Deadline    *time.Time `json:"due_on"`
	State       string     `json:"state"`
}

// EditMilestoneOption is the body of PATCH .../milestones/{id}; absent keys
// (and an empty title) leave the milestone as it is.
type EditMilestoneOption struct {
	Title       *string    `json:"title"`
	Description *string    `json:"description" binding:"Text"`
	Deadline    *time.Time `json:"due_on"`
	State       *string    `json:"state"`
}

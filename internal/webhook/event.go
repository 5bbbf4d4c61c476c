package webhook

import (
	"slices"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// EventType names an event a hook can select (Gitea's HookEventType).
type EventType string

// The events of Gitea 1.23 that Cairn sends.
const (
	EventCreate                    EventType = "create"
	EventDelete                    EventType = "delete"
	EventFork                      EventType = "fork"
	EventPush                      EventType = "push"
	EventIssues                    EventType = "issues"
	EventIssueAssign               EventType = "issue_assign"
	EventIssueLabel                EventType = "issue_label"
	EventIssueMilestone            EventType = "issue_milestone"
	EventIssueComment              EventType = "issue_comment"
	EventPullRequest               EventType = "pull_request"
	EventPullRequestAssign         EventType = "pull_request_assign"
	EventPullRequestLabel          EventType = "pull_request_label"
	EventPullRequestMilestone      EventType = "pull_request_milestone"
	EventPullRequestComment        EventType = "pull_request_comment"
	EventPullRequestReview         EventType = "pull_request_review"
	EventPullRequestReviewApproved EventType = "pull_request_review_approved"
	EventPullRequestReviewRejected EventType = "pull_request_review_rejected"
	EventPullRequestReviewComment  EventType = "pull_request_review_comment"
	EventPullRequestSync           EventType = "pull_request_sync"
	EventPullRequestReviewRequest  EventType = "pull_request_review_request"
	EventWiki                      EventType = "wiki"
	EventRepository                EventType = "repository"
	EventRelease                   EventType = "release"
	EventPackage                   EventType = "package"
	EventStatus                    EventType = "status"
)

// selectable are the events a hook can select, in the order the API lists
// them. wiki and package are Gitea's: accepted and kept, though Cairn has
// neither wikis nor packages that could fire them yet.
var selectable = []EventType{
	EventCreate, EventDelete, EventFork, EventPush,
	EventIssues, EventIssueAssign, EventIssueLabel, EventIssueMilestone, EventIssueComment,
	EventPullRequest, EventPullRequestAssign, EventPullRequestLabel, EventPullRequestMilestone,
	EventPullRequestComment, EventPullRequestReview, EventPullRequestSync, EventPullRequestReviewRequest,
	EventWiki, EventRepository, EventRelease, EventPackage, EventStatus,
}

// issueSubEvents and pullSubEvents are what selecting "issues" or
// "pull_request" implies, as in Gitea ("issues_only" and
// "pull_request_only" select the coarse event alone).
var (
	issueSubEvents = []EventType{EventIssues, EventIssueAssign, EventIssueLabel, EventIssueMilestone, EventIssueComment}
	pullSubEvents  = []EventType{EventPullRequest, EventPullRequestAssign, EventPullRequestLabel, EventPullRequestMilestone,
		EventPullRequestComment, EventPullRequestReview, EventPullRequestSync, EventPullRequestReviewRequest}
)

// Events is the set of events a hook selected.
type Events map[EventType]bool

// ParseEvents reads the events list of CreateHookOption or EditHookOption:
// empty means push only; "issues" and "pull_request" imply their sub-events.
// An unknown name is an error naming it.
func ParseEvents(list []string) (Events, error) {
	ev := Events{}
	if len(list) == 0 {
		ev[EventPush] = true
		return ev, nil
	}
	for _, name := range list {
		name = strings.ToLower(strings.TrimSpace(name))
		switch name {
		case "issues":
			for _, e := range issueSubEvents {
				ev[e] = true
			}
		case "issues_only":
			ev[EventIssues] = true
		case "pull_request":
			for _, e := range pullSubEvents {
				ev[e] = true
			}
		case "pull_request_only":
			ev[EventPullRequest] = true
		default:
			e := EventType(name)
			if !slices.Contains(selectable, e) {
				return nil, errs.InvalidField("events", "Unknown hook event: %q", name)
			}
			ev[e] = true
		}
	}
	return ev, nil
}

// List returns the selected events in a stable order.
func (ev Events) List() []string {
	out := make([]string, 0, len(ev))
	for _, e := range selectable {
		if ev[e] {
			out = append(out, string(e))
		}
	}
	return out
}

// encode is the stored form: the names joined by commas.
func (ev Events) encode() string { return strings.Join(ev.List(), ",") }

func decodeEvents(s string) Events {
	ev := Events{}
	for _, name := range strings.Split(s, ",") {
		if name != "" {
			ev[EventType(name)] = true
		}
	}
	return ev
}

// Has reports whether the set selects e; the three review outcomes are
// selected together by pull_request_review.
func (ev Events) Has(e EventType) bool {
	switch e {
	case EventPullRequestReviewApproved, EventPullRequestReviewRejected, EventPullRequestReviewComment:
		e = EventPullRequestReview
	}
	return ev[e]
}

// Header is the X-Gitea-Event value of an event type (Gitea's
// HookEventType.Event): sub-events are announced under their family.
func (e EventType) Header() string {
	switch e {
	case EventIssues, EventIssueAssign, EventIssueLabel, EventIssueMilestone:
		return "issues"
	case EventPullRequest, EventPullRequestAssign, EventPullRequestLabel, EventPullRequestMilestone,
		EventPullRequestSync, EventPullRequestReviewRequest:
		return "pull_request"
	case EventIssueComment, EventPullRequestComment:
		return "issue_comment"
	case EventPullRequestReviewApproved:
		return "pull_request_approved"
	case EventPullRequestReviewRejected:
		return "pull_request_rejected"
	case EventPullRequestReviewComment:
		return "pull_request_comment"
	}
	return string(e)
}

// filtersBranch reports whether a hook's branch_filter applies to e: push
// and branch create/delete, as in Gitea.
func (e EventType) filtersBranch() bool {
	return e == EventPush || e == EventCreate || e == EventDelete
}

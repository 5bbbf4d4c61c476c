package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// webhooksOn reports whether webhooks are available on this instance
// ([security] DISABLE_WEBHOOKS turns them off).
func (h *Handler) webhooksOn() bool { return h.Webhooks != nil && !h.Webhooks.Disabled() }

// hookEventChoice is one event a hook may select.
type hookEventChoice struct {
	Name, Title string
	Checked     bool
}

// hookEventTitles say what each selectable event announces.
var hookEventTitles = map[webhook.EventType]string{
	webhook.EventCreate: "Branch or tag created", webhook.EventDelete: "Branch or tag deleted",
	webhook.EventFork: "Repository forked", webhook.EventPush: "Git push",
	webhook.EventIssues: "Issue opened, edited, closed or reopened", webhook.EventIssueAssign: "Issue assigned",
	webhook.EventIssueLabel: "Issue labels changed", webhook.EventIssueMilestone: "Issue milestone changed",
	webhook.EventIssueComment: "Issue comment", webhook.EventPullRequest: "Pull request opened, edited, closed or reopened",
	webhook.EventPullRequestAssign: "Pull request assigned", webhook.EventPullRequestLabel: "Pull request labels changed",
	webhook.EventPullRequestMilestone: "Pull request milestone changed", webhook.EventPullRequestComment: "Pull request comment",
	webhook.EventPullRequestReview: "Pull request reviewed", webhook.EventPullRequestSync: "Pull request synchronized",
	webhook.EventPullRequestReviewRequest: "Review requested", webhook.EventWiki: "Wiki page changed",
	webhook.EventRepository: "Repository created or deleted", webhook.EventRelease: "Release published, updated or deleted",
	webhook.EventPackage: "Package published or deleted", webhook.EventStatus: "Commit status",
}

// hooksPage is the data of /{owner}/{repo}/settings/hooks.
type hooksPage struct {
	settingsPage
	Hooks []*webhook.Hook
}

// hookFormPage is the data of a hook's form: a new hook (ID 0) or one
// hook with its recent deliveries.
type hookFormPage struct {
	settingsPage
	Hook *webhook.Hook
	// Events is push_only, send_everything or choose_events.
	Events     string
	Choices    []hookEventChoice
	Methods    []string
	Action     string
	Deliveries []*webhook.Delivery
	Total      int64
}

const hookDeliveriesShown = 20

// loadHookSettings is loadRepoSettings for the webhook pages: not found
// when webhooks are off.
func (h *Handler) loadHookSettings(r *http.Request) (*repoCtx, error) {
	if !h.webhooksOn() {
		return nil, errs.NotFound("webhooks are disabled")
	}
	return h.loadRepoSettings(r)
}

// hookOf loads hook v (an id) of rc's repository.
func (h *Handler) hookOf(r *http.Request, rc *repoCtx, v string) (*webhook.Hook, error) {
	id, err := formID(v)
	if err != nil {
		return nil, err
	}
	return h.Webhooks.Get(r.Context(), webhook.Scope{RepoID: rc.Repo.ID}, id)
}

// repoHooks serves GET /{owner}/{repo}/settings/hooks.
func (h *Handler) repoHooks(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	list, _, err := h.Webhooks.List(r.Context(), webhook.Scope{RepoID: rc.Repo.ID}, 0, 0)
	if err != nil {
		return err
	}
	return h.renderRepo(w, r, http.StatusOK, "repo_settings_hooks", "Webhooks", rc,
		hooksPage{settingsPage: h.newSettingsPage(rc, "hooks"), Hooks: list})
}

// newHookForm serves GET .../settings/hooks/gitea/new.
func (h *Handler) newHookForm(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	hk := &webhook.Hook{Type: "gitea", HTTPMethod: "POST", ContentType: webhook.ContentJSON, Active: true,
		Events: webhook.Events{webhook.EventPush: true}}
	return h.renderHookForm(w, r, rc, hk, http.StatusOK, "")
}

// hookView serves GET .../settings/hooks/{id}: the hook's form and its
// recent deliveries.
func (h *Handler) hookView(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	hk, err := h.hookOf(r, rc, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	return h.renderHookForm(w, r, rc, hk, http.StatusOK, "")
}

func (h *Handler) renderHookForm(w http.ResponseWriter, r *http.Request, rc *repoCtx, hk *webhook.Hook, status int, msg string) error {
	p := hookFormPage{settingsPage: h.newSettingsPage(rc, "hooks"), Hook: hk, Events: "choose_events", Methods: []string{"POST", "GET", "PUT"},
		Action: rc.Link + "/settings/hooks/gitea/new"}
	p.Error = msg
	all := webhook.SelectableEvents()
	everything := true
	for _, e := range all {
		on := hk.Events[e]
		everything = everything && on
		p.Choices = append(p.Choices, hookEventChoice{Name: string(e), Title: hookEventTitles[e], Checked: on})
	}
	switch {
	case everything:
		p.Events = "send_everything"
	case len(hk.Events) == 1 && hk.Events[webhook.EventPush]:
		p.Events = "push_only"
	}
	if hk.ID != 0 {
		p.Action = rc.Link + "/settings/hooks/" + escapeSegments(hk.Type) + "/" + strconv.FormatInt(hk.ID, 10)
		var err error
		if p.Deliveries, p.Total, err = h.Webhooks.Deliveries(r.Context(), hk.ID, hookDeliveriesShown, 0); err != nil {
			return err
		}
	}
	title := "New webhook"
	if hk.ID != 0 {
		title = "Webhook"
	}
	return h.renderRepo(w, r, status, "repo_settings_hook_edit", title, rc, p)
}

// applyHookForm sets the form's fields on hk. A blank secret keeps the
// stored one unless clear_secret is ticked.
func applyHookForm(r *http.Request, hk *webhook.Hook) error {
	hk.URL = strings.TrimSpace(r.PostFormValue("payload_url"))
	hk.HTTPMethod = r.PostFormValue("http_method")
	ct, ok := webhook.ParseContentType(r.PostFormValue("content_type"))
	if !ok {
		return errs.InvalidField("content_type", "The content type must be json or form.")
	}
	hk.ContentType = ct
	if s := r.PostFormValue("secret"); s != "" || formChecked(r, "clear_secret") {
		hk.Secret = s
	}
	hk.BranchFilter = strings.TrimSpace(r.PostFormValue("branch_filter"))
	hk.Active = formChecked(r, "active")
	var names []string
	switch r.PostFormValue("events") {
	case "send_everything":
		for _, e := range webhook.SelectableEvents() {
			names = append(names, string(e))
		}
	case "choose_events":
		for _, n := range r.PostForm["event"] {
			// Each sub-event has its own box: "issues" and "pull_request"
			// select the coarse event alone.
			switch n {
			case string(webhook.EventIssues):
				n = "issues_only"
			case string(webhook.EventPullRequest):
				n = "pull_request_only"
			}
			names = append(names, n)
		}
		if len(names) == 0 {
			return errs.InvalidField("events", "Choose at least one event.")
		}
	default: // push_only
		names = []string{string(webhook.EventPush)}
	}
	events, err := webhook.ParseEvents(names)
	if err != nil {
		return err
	}
	hk.Events = events
	return nil
}

// createHook serves POST .../settings/hooks/gitea/new.
func (h *Handler) createHook(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	hk := &webhook.Hook{RepoID: rc.Repo.ID, Type: "gitea"}
	if done, err := h.saveHookForm(w, r, rc, hk, h.Webhooks.Create); done || err != nil {
		return err
	}
	h.flash(w, "success", "The webhook has been added.")
	http.Redirect(w, r, rc.Link+"/settings/hooks/"+strconv.FormatInt(hk.ID, 10), http.StatusSeeOther)
	return nil
}

// saveHookForm applies the posted form to hk and saves it; a refusal shows
// the form again with its message (done is then true).
func (h *Handler) saveHookForm(w http.ResponseWriter, r *http.Request, rc *repoCtx, hk *webhook.Hook,
	save func(context.Context, *webhook.Hook) error) (done bool, err error) {
	err = applyHookForm(r, hk)
	if err == nil {
		err = save(r.Context(), hk)
	}
	if err != nil && userError(err) && !errs.IsNotFound(err) {
		return true, h.renderHookForm(w, r, rc, hk, http.StatusUnprocessableEntity, errMessage(err, "The webhook was refused."))
	}
	return false, err
}

// editHook serves POST .../settings/hooks/{type}/{id} for hooks of type t.
func (h *Handler) editHook(t string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, err := h.loadHookSettings(r)
		if err != nil {
			return err
		}
		hk, err := h.hookOf(r, rc, chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		if hk.Type != t {
			return errs.NotFound("no such webhook")
		}
		if done, err := h.saveHookForm(w, r, rc, hk, h.Webhooks.Update); done || err != nil {
			return err
		}
		return h.settingsDone(w, r, rc, "/hooks/"+strconv.FormatInt(hk.ID, 10), "The webhook has been updated.")
	}
}

// deleteHook serves POST .../settings/hooks/delete (id).
func (h *Handler) deleteHook(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	id, err := formID(r.PostFormValue("id"))
	if err != nil {
		return err
	}
	if err := h.Webhooks.Delete(r.Context(), webhook.Scope{RepoID: rc.Repo.ID}, id); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "/hooks", "The webhook has been deleted.")
}

// testHook serves POST .../settings/hooks/{id}/test: a push of the default
// branch's head commit is delivered, whatever events the hook selects.
func (h *Handler) testHook(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	hk, err := h.hookOf(r, rc, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	back := rc.Link + "/settings/hooks/" + strconv.FormatInt(hk.ID, 10)
	if err := h.Webhooks.TestPush(r.Context(), hk, doer(r), ""); err != nil {
		if !userError(err) {
			return err
		}
		h.flash(w, "error", "The test could not be sent: "+errMessage(err, "the repository has no commit to send."))
	} else {
		h.flash(w, "success", "A test delivery has been queued: it shows below once sent.")
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// redeliverHook serves POST .../settings/hooks/{id}/replay/{uuid}: the
// delivery's payload is sent again as a new delivery.
func (h *Handler) redeliverHook(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadHookSettings(r)
	if err != nil {
		return err
	}
	hk, err := h.hookOf(r, rc, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	d, err := h.Webhooks.GetDeliveryByUUID(r.Context(), hk.ID, chi.URLParam(r, "uuid"))
	if err != nil {
		return err
	}
	if _, err := h.Webhooks.Redeliver(r.Context(), hk, d.ID); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "/hooks/"+strconv.FormatInt(hk.ID, 10), "The delivery has been queued again.")
}

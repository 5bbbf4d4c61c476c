package v1

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/webhook"
	"github.com/cairn-forge/cairn/internal/webhook/format"
)

// hookOwner is whose hooks a route manages: a repository's (repo set), a
// user's or organization's, or the instance's (admin).
type hookOwner struct {
	scope webhook.Scope
	repo  *repoContext
	admin bool
}

// hookRoutes registers the hook routes of one owner kind at prefix; owner
// resolves and authorizes the owner of the request (its error answers).
func (a *API) hookRoutes(r chi.Router, prefix string, owner func(*http.Request) (*hookOwner, error)) {
	h := &hookHandlers{a: a, owner: owner}
	r.Get(prefix+"/hooks", a.handle(h.list))
	r.Post(prefix+"/hooks", a.handle(h.create))
	r.Get(prefix+"/hooks/{id}", a.handle(h.get))
	r.Patch(prefix+"/hooks/{id}", a.handle(h.edit))
	r.Delete(prefix+"/hooks/{id}", a.handle(h.delete))
	// Cairn's extension, named like GitHub's: recent deliveries.
	r.Get(prefix+"/hooks/{id}/deliveries", a.handle(h.listDeliveries))
	r.Get(prefix+"/hooks/{id}/deliveries/{delivery}", a.handle(h.getDelivery))
	r.Post(prefix+"/hooks/{id}/deliveries/{delivery}/redeliver", a.handle(h.redeliver))
}

type hookHandlers struct {
	a     *API
	owner func(*http.Request) (*hookOwner, error)
}

// errWebhooksDisabled is Gitea's answer when [security] DISABLE_WEBHOOKS is set.
func errWebhooksDisabled() error {
	return statusError(http.StatusForbidden, "webhooks disabled by administrator")
}

// resolve finds the owner, refusing when webhooks are off.
func (h *hookHandlers) resolve(r *http.Request) (*hookOwner, error) {
	if h.a.Webhooks == nil || h.a.Webhooks.Disabled() {
		return nil, errWebhooksDisabled()
	}
	return h.owner(r)
}

// repoHookOwner is the owner of /repos/{owner}/{repo}/hooks (repository
// administrators; the route checks it).
func repoHookOwner(r *http.Request) (*hookOwner, error) {
	rc := currentRepo(r)
	return &hookOwner{scope: webhook.Scope{RepoID: rc.Repo.ID}, repo: rc}, nil
}

// orgHookOwner is the owner of /orgs/{org}/hooks: its owners only.
func (a *API) orgHookOwner(r *http.Request) (*hookOwner, error) {
	o, err := a.Orgs.GetByName(r.Context(), chi.URLParam(r, "org"))
	if err != nil {
		return nil, err
	}
	role, err := a.Access.RoleInOrg(r.Context(), doer(r), o)
	if err != nil {
		return nil, err
	}
	if !role.Owner {
		if visible, err := a.Access.CanSeeOwner(r.Context(), doer(r), o); err != nil || !visible {
			if err == nil {
				err = errs.NotFound("organization does not exist")
			}
			return nil, err
		}
		return nil, statusError(http.StatusForbidden, "Must be an organization owner")
	}
	return &hookOwner{scope: webhook.Scope{OwnerID: o.ID}}, nil
}

// userHookOwner is the owner of /user/hooks: the signed-in user.
func userHookOwner(r *http.Request) (*hookOwner, error) {
	return &hookOwner{scope: webhook.Scope{OwnerID: doer(r).ID}}, nil
}

// adminHookOwner is the owner of /admin/hooks: system and default hooks.
func adminHookOwner(*http.Request) (*hookOwner, error) {
	return &hookOwner{admin: true}, nil
}

// toHook renders a hook as Gitea 1.23 does: config carries url and
// content_type (and a Slack hook's settings); the secret never leaves.
func toHook(h *webhook.Hook) *types.Hook {
	cfg := map[string]string{"url": h.URL, "content_type": h.ContentType.String()}
	for k, v := range format.MetaConfig(h.Type, []byte(h.Meta)) {
		cfg[k] = v
	}
	return &types.Hook{ID: h.ID, Type: h.Type, BranchFilter: h.BranchFilter, Config: cfg, Events: h.Events.List(),
		AuthorizationHeader: h.AuthHeader, Active: h.Active, Updated: h.Updated, Created: h.Created,
		DisabledReason: h.DisabledReason}
}

func (h *hookHandlers) list(w http.ResponseWriter, r *http.Request) error {
	o, err := h.resolve(r)
	if err != nil {
		return err
	}
	pg := h.a.paging(r)
	list, total, err := h.a.Webhooks.List(r.Context(), o.scope, pg.Limit, pg.Offset())
	if err != nil {
		return err
	}
	out := make([]*types.Hook, 0, len(list))
	for _, hk := range list {
		out = append(out, toHook(hk))
	}
	h.a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// hookByID loads the {id} hook of the owner (404 outside it).
func (h *hookHandlers) hookByID(r *http.Request) (*hookOwner, *webhook.Hook, error) {
	o, err := h.resolve(r)
	if err != nil {
		return nil, nil, err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return nil, nil, webhook.ErrNotFound
	}
	hk, err := h.a.Webhooks.Get(r.Context(), o.scope, id)
	return o, hk, err
}

func (h *hookHandlers) get(w http.ResponseWriter, r *http.Request) error {
	_, hk, err := h.hookByID(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toHook(hk))
	return nil
}

// createHookBody is CreateHookOption with the admin routes' extension
// is_system_webhook (Gitea's field of the same name).
type createHookBody struct {
	types.CreateHookOption
	IsSystemWebhook bool `json:"is_system_webhook"`
}

// editHookBody is EditHookOption with is_system_webhook for admin hooks.
type editHookBody struct {
	types.EditHookOption
	IsSystemWebhook *bool `json:"is_system_webhook"`
}

// applyConfig sets what config carries: url, content_type, http_method,
// secret, and the type's own settings.
func applyConfig(hk *webhook.Hook, cfg map[string]string, creating bool) error {
	if creating {
		for _, name := range []string{"url", "content_type"} {
			if _, ok := cfg[name]; !ok {
				return errs.InvalidField("config", "Missing config option: %s", name)
			}
		}
	}
	if u, ok := cfg["url"]; ok {
		hk.URL = strings.TrimSpace(u)
	}
	if ct, ok := cfg["content_type"]; ok {
		c, valid := webhook.ParseContentType(ct)
		if !valid {
			return errs.InvalidField("config", "Invalid content type")
		}
		hk.ContentType = c
	}
	if m, ok := cfg["http_method"]; ok {
		hk.HTTPMethod = m
	}
	if s, ok := cfg["secret"]; ok {
		hk.Secret = s
	}
	if format.Supported(hk.Type) && (creating || format.HasMetaKeys(hk.Type, cfg)) {
		meta, err := format.ValidateMeta(hk.Type, cfg)
		var me *format.MetaError
		if errors.As(err, &me) && me.Status != 0 {
			return errs.Invalid("%s", me.Message).WithStatus(me.Status)
		}
		if err != nil {
			return errs.InvalidField("config", "%s", err.Error())
		}
		hk.Meta = string(meta)
	}
	return nil
}

func (h *hookHandlers) create(w http.ResponseWriter, r *http.Request) error {
	o, err := h.resolve(r)
	if err != nil {
		return err
	}
	var body createHookBody
	if err := decode(r, &body); err != nil {
		return err
	}
	typ := strings.TrimSpace(body.Type)
	if !webhook.ValidType(typ) {
		return errs.InvalidField("type", "Invalid hook type: %s", body.Type)
	}
	events, err := webhook.ParseEvents(body.Events)
	if err != nil {
		return err
	}
	hk := &webhook.Hook{RepoID: o.scope.RepoID, OwnerID: o.scope.OwnerID, IsSystem: o.admin && body.IsSystemWebhook,
		Type: typ, Events: events, BranchFilter: body.BranchFilter, Active: body.Active,
		AuthHeader: body.AuthorizationHeader}
	if err := applyConfig(hk, body.Config, true); err != nil {
		return err
	}
	if err := h.a.Webhooks.Create(r.Context(), hk); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toHook(hk))
	return nil
}

func (h *hookHandlers) edit(w http.ResponseWriter, r *http.Request) error {
	o, hk, err := h.hookByID(r)
	if err != nil {
		return err
	}
	var body editHookBody
	if err := decode(r, &body); err != nil {
		return err
	}
	if body.Config != nil {
		if err := applyConfig(hk, body.Config, false); err != nil {
			return err
		}
	}
	// As in Gitea, the events, branch filter and authorization header are
	// replaced by what the edit carries (no events means push only).
	if hk.Events, err = webhook.ParseEvents(body.Events); err != nil {
		return err
	}
	hk.BranchFilter, hk.AuthHeader = body.BranchFilter, body.AuthorizationHeader
	if body.Active != nil {
		hk.Active = *body.Active
	}
	if o.admin && body.IsSystemWebhook != nil {
		hk.IsSystem = *body.IsSystemWebhook
	}
	if err := h.a.Webhooks.Update(r.Context(), hk); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toHook(hk))
	return nil
}

func (h *hookHandlers) delete(w http.ResponseWriter, r *http.Request) error {
	o, err := h.resolve(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return webhook.ErrNotFound
	}
	if err := h.a.Webhooks.Delete(r.Context(), o.scope, id); err != nil {
		return err
	}
	empty(w, http.StatusNoContent)
	return nil
}

// toDelivery renders a recorded delivery (Cairn's extension type).
func toDelivery(d *webhook.Delivery) *types.HookDelivery {
	out := &types.HookDelivery{ID: d.ID, UUID: d.UUID, Event: d.EventType.Header(), EventType: string(d.EventType),
		Delivered: d.Delivered, Succeeded: d.Succeeded, Attempts: d.Attempts, DurationMS: d.Duration.Milliseconds(),
		Created: d.Created}
	if !d.DeliveredAt.IsZero() {
		t := d.DeliveredAt
		out.DeliveredAt = &t
	}
	if d.Request != nil {
		out.Request = &types.HookDeliveryRequest{URL: d.Request.URL, HTTPMethod: d.Request.HTTPMethod,
			Headers: d.Request.Headers, Body: d.Request.Body}
	}
	if d.Response != nil {
		out.Response = &types.HookDeliveryResponse{Status: d.Response.Status, Headers: d.Response.Headers,
			Body: d.Response.Body, Error: d.Response.Error}
	}
	return out
}

func (h *hookHandlers) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	_, hk, err := h.hookByID(r)
	if err != nil {
		return err
	}
	pg := h.a.paging(r)
	if r.URL.Query().Get("limit") == "" && r.URL.Query().Get("page_size") == "" && h.a.Config.Webhook.PagingNum > 0 {
		pg.Limit = min(h.a.Config.Webhook.PagingNum, h.a.Config.API.MaxResponseItems)
	}
	list, total, err := h.a.Webhooks.Deliveries(r.Context(), hk.ID, pg.Limit, pg.Offset())
	if err != nil {
		return err
	}
	out := make([]*types.HookDelivery, 0, len(list))
	for _, d := range list {
		out = append(out, toDelivery(d))
	}
	h.a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *hookHandlers) getDelivery(w http.ResponseWriter, r *http.Request) error {
	_, hk, err := h.hookByID(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "delivery"), 10, 64)
	if err != nil {
		return errs.NotFound("delivery not found")
	}
	d, err := h.a.Webhooks.GetDelivery(r.Context(), hk.ID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toDelivery(d))
	return nil
}

func (h *hookHandlers) redeliver(w http.ResponseWriter, r *http.Request) error {
	_, hk, err := h.hookByID(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "delivery"), 10, 64)
	if err != nil {
		return errs.NotFound("delivery not found")
	}
	d, err := h.a.Webhooks.Redeliver(r.Context(), hk, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, toDelivery(d))
	return nil
}

// testHook serves POST /repos/{owner}/{repo}/hooks/{id}/tests (?ref=): a
// synthetic push of the ref's head commit (the default branch by default)
// is delivered to the hook, whatever events it selects; 204.
func (a *API) testHook(w http.ResponseWriter, r *http.Request) error {
	h := &hookHandlers{a: a, owner: repoHookOwner}
	_, hk, err := h.hookByID(r)
	if err != nil {
		return err
	}
	if err := a.Webhooks.TestPush(r.Context(), hk, doer(r), r.URL.Query().Get("ref")); err != nil {
		return err
	}
	empty(w, http.StatusNoContent)
	return nil
}

package e2e

import "fmt"

// wmHookURL is where the matrix's hooks point: a public host name, allowed
// by the default ALLOWED_HOST_LIST (external); nothing needs to answer.
const wmHookURL = "http://ci.example.com/hook"

// newHook creates a push hook at base ("repos/o/r" or "orgs/acme") with
// tok and returns its id.
func (k *wmKit) newHook(base, tok string) int64 {
	k.t.Helper()
	var h struct {
		ID int64 `json:"id"`
	}
	k.must(k.do("POST", base+"/hooks", tok, map[string]any{"type": "gitea", "active": true,
		"config": map[string]string{"url": wmHookURL, "content_type": "json"}}), 201, "hook at "+base).Decode(k.t, &h)
	return h.ID
}

// hookCases are the write routes of webhooks: repository hooks need
// repository administrators (Gitea's reqToken, reqAdmin), organization
// hooks its owners (reqOrgOwnership).
func (k *wmKit) hookCases(repos []string) []wmCase {
	hooks := map[string]int64{}
	deliveries := map[string]int64{}
	fresh := func(full string) { hooks[full] = k.newHook("repos/"+full, k.ownerTok(full)) }
	hookPath := func(full string) string { return fmt.Sprintf("repos/%s/hooks/%d", full, hooks[full]) }
	withDelivery := func(full string) {
		fresh(full)
		k.must(k.do("POST", hookPath(full)+"/tests", k.ownerTok(full), nil), 204, "test delivery of "+full)
		var list []struct {
			ID int64 `json:"id"`
		}
		k.must(k.do("GET", hookPath(full)+"/deliveries", k.ownerTok(full), nil), 200, "deliveries of "+full).Decode(k.t, &list)
		if len(list) == 0 {
			k.t.Fatalf("setup: no delivery recorded for %s", full)
		}
		deliveries[full] = list[0].ID
	}
	state := func(full string) string {
		r := k.do("GET", hookPath(full), k.ownerTok(full), nil)
		return fmt.Sprintf("%d %s", r.Status, r.Body)
	}
	count := func(full string) string {
		return k.do("GET", "repos/"+full+"/hooks?limit=1", k.ownerTok(full), nil).Header.Get("X-Total-Count")
	}
	deliveryCount := func(full string) string {
		return k.do("GET", hookPath(full)+"/deliveries?limit=1", k.ownerTok(full), nil).Header.Get("X-Total-Count")
	}
	orgHook := int64(0)
	orgTok := k.ownerTok("acme/x")
	orgPath := func(string) string { return fmt.Sprintf("orgs/acme/hooks/%d", orgHook) }
	orgState := func(string) string {
		r := k.do("GET", orgPath(""), orgTok, nil)
		return fmt.Sprintf("%d %s", r.Status, r.Body)
	}
	return []wmCase{
		{
			route: "POST /repos/{o}/{r}/hooks", method: "POST", targets: repos,
			path: func(full string) string { return "repos/" + full + "/hooks" },
			body: func(string) any {
				return map[string]any{"type": "gitea", "config": map[string]string{"url": wmHookURL, "content_type": "json"}}
			},
			state: count, want: wmRepoAdmin(201),
		},
		{
			route: "PATCH /repos/{o}/{r}/hooks/{id}", method: "PATCH", targets: repos, path: hookPath, prep: fresh, state: state,
			body: func(string) any { return map[string]any{"events": []string{"issues"}, "active": false} },
			want: wmRepoAdmin(200),
		},
		{
			route: "DELETE /repos/{o}/{r}/hooks/{id}", method: "DELETE", targets: repos, path: hookPath, prep: fresh, state: state,
			want: wmRepoAdmin(204),
		},
		{
			route: "POST /repos/{o}/{r}/hooks/{id}/tests", method: "POST", targets: repos,
			path: func(full string) string { return hookPath(full) + "/tests" }, prep: fresh, state: deliveryCount,
			want: wmRepoAdmin(204),
		},
		{
			route: "POST /repos/{o}/{r}/hooks/{id}/deliveries/{delivery}/redeliver", method: "POST", targets: repos,
			path: func(full string) string {
				return fmt.Sprintf("%s/deliveries/%d/redeliver", hookPath(full), deliveries[full])
			},
			prep: withDelivery, state: deliveryCount, want: wmRepoAdmin(202),
		},
		{
			route: "POST /orgs/{org}/hooks", method: "POST", targets: []string{"acme"}, who: wmOrgCallers,
			path: func(string) string { return "orgs/acme/hooks" },
			body: func(string) any {
				return map[string]any{"type": "gitea", "config": map[string]string{"url": wmHookURL, "content_type": "json"}}
			},
			state: func(string) string {
				return k.do("GET", "orgs/acme/hooks?limit=1", orgTok, nil).Header.Get("X-Total-Count")
			},
			want: wmWith(wmOrgOwner(), map[string][]int{"owner": {201}, "site admin": {201}}),
		},
		{
			route: "PATCH /orgs/{org}/hooks/{id}", method: "PATCH", targets: []string{"acme"}, who: wmOrgCallers,
			path: orgPath, prep: func(string) { orgHook = k.newHook("orgs/acme", orgTok) }, state: orgState,
			body: func(string) any { return map[string]any{"events": []string{"create"}} },
			want: wmWith(wmOrgOwner(), map[string][]int{"owner": {200}, "site admin": {200}}),
		},
		{
			route: "DELETE /orgs/{org}/hooks/{id}", method: "DELETE", targets: []string{"acme"}, who: wmOrgCallers,
			path: orgPath, prep: func(string) { orgHook = k.newHook("orgs/acme", orgTok) }, state: orgState,
			want: wmOrgOwner(),
		},
	}
}

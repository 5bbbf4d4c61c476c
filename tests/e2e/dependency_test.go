package e2e

import (
	"fmt"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// depNumbers lists the issue numbers (as "repo#n") of a dependency list answer.
func depNumbers(t *testing.T, resp *Response) string {
	t.Helper()
	var list []struct {
		Number     int64 `json:"number"`
		Repository struct {
			Name string `json:"name"`
		} `json:"repository"`
	}
	resp.Decode(t, &list)
	var out []string
	for _, is := range list {
		out = append(out, fmt.Sprintf("%s#%d", is.Repository.Name, is.Number))
	}
	return strings.Join(out, ",")
}

func (k *actKit) deps(repo string, index int64, side, tok string) string {
	k.t.Helper()
	return depNumbers(k.t, k.must(k.do("GET", fmt.Sprintf("api/v1/repos/acme/%s/issues/%d/%s", repo, index, side), tok, nil), 200, "list "+side))
}

func (k *actKit) meta(repo string, index int64) map[string]any {
	return map[string]any{"owner": "acme", "repo": repo, "index": index}
}

func (k *actKit) setState(repo string, index int64, state string, want int) *Response {
	k.t.Helper()
	return k.must(k.do("PATCH", fmt.Sprintf("api/v1/repos/acme/%s/issues/%d", repo, index), k.writer.Token, map[string]any{"state": state}), want, "set state "+state)
}

func TestDependencyLifecycle(t *testing.T) {
	k := newActKit(t)
	s := k.s
	two := k.issue(k.owner, "pub", "blocker")
	three := k.issue(k.owner, "pub", "another blocker")

	// #1 depends on #2, through the SDK (which sends only the index: the
	// current repository is meant): 201 with #1.
	wc := s.Client(k.writer.Token)
	is, resp, err := wc.CreateIssueDependency("acme", "pub", 1, gitea.IssueMeta{Index: two})
	if err != nil || resp.StatusCode != 201 || is.Index != 1 {
		t.Fatalf("create dependency: %v %v %+v", err, resp, is)
	}
	deps, _, err := s.Client("").ListIssueDependencies("acme", "pub", 1, gitea.ListIssueDependenciesOptions{})
	if err != nil || len(deps) != 1 || deps[0].Index != two {
		t.Fatalf("dependencies of #1: %v %+v", err, deps)
	}
	if got := k.deps("pub", two, "blocks", ""); got != "pub#1" {
		t.Fatalf("#2 blocks %s", got)
	}
	// #3 blocks #1, through /blocks: 201 with #3.
	var blocking struct {
		Number int64 `json:"number"`
	}
	k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/blocks", three), k.writer.Token, k.meta("pub", 1)), 201, "create blocking").Decode(t, &blocking)
	if blocking.Number != three {
		t.Fatalf("blocks answered #%d", blocking.Number)
	}
	if got := k.deps("pub", 1, "dependencies", ""); got != fmt.Sprintf("pub#%d,pub#%d", three, two) {
		t.Fatalf("dependencies of #1 = %s", got)
	}

	// An issue with open dependencies cannot be closed (412, Gitea's message).
	k.wantError(k.do("PATCH", "api/v1/repos/acme/pub/issues/1", k.writer.Token, map[string]any{"state": "closed"}), 412,
		"cannot close this issue because it still has open dependencies", "close a blocked issue")
	var cur gitea.Issue
	k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1", "", nil), 200, "get").Decode(t, &cur)
	if cur.State != gitea.StateOpen {
		t.Fatalf("blocked issue is %s", cur.State)
	}
	k.setState("pub", two, "closed", 201)
	k.wantError(k.do("PATCH", "api/v1/repos/acme/pub/issues/1", k.writer.Token, map[string]any{"state": "closed"}), 412, "open dependencies", "one blocker left")
	k.setState("pub", three, "closed", 201)
	k.setState("pub", 1, "closed", 201)
	k.setState("pub", 1, "open", 201)

	// Removing answers 201 with the issue; removing again is 404.
	if _, r, err := wc.RemoveIssueDependency("acme", "pub", 1, gitea.IssueMeta{Index: two}); err != nil || r.StatusCode != 201 {
		t.Fatalf("remove dependency: %v %v", err, r)
	}
	k.must(k.do("DELETE", "api/v1/repos/acme/pub/issues/1/dependencies", k.writer.Token, k.meta("pub", two)), 404, "remove twice")
	k.must(k.do("DELETE", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/blocks", three), k.writer.Token, k.meta("pub", 1)), 201, "remove blocking")
	if got := k.deps("pub", 1, "dependencies", ""); got != "" {
		t.Fatalf("dependencies left: %s", got)
	}

	// Across repositories: visible only to those who can read the other one.
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/dependencies", k.writer.Token, k.meta("priv", 1)), 201, "depend on a private issue")
	if got := k.deps("pub", 1, "dependencies", k.reader.Token); got != "priv#1" {
		t.Fatalf("reader sees %q", got)
	}
	anon := k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1/dependencies", "", nil), 200, "anonymous list")
	if got := depNumbers(t, anon); got != "" || anon.Header.Get("X-Total-Count") != "0" {
		t.Fatalf("private dependency leaked to anonymous callers: %q (total %s)", got, anon.Header.Get("X-Total-Count"))
	}
	if got := k.deps("priv", 1, "blocks", k.writer.Token); got != "pub#1" {
		t.Fatalf("private issue blocks %q", got)
	}
	k.wantError(k.do("PATCH", "api/v1/repos/acme/pub/issues/1", k.writer.Token, map[string]any{"state": "closed"}), 412, "open dependencies", "blocked across repositories")

	types := strings.Join(k.timelineTypes("pub", 1), ",")
	for _, want := range []string{"add_dependency", "remove_dependency"} {
		if !strings.Contains(types, want) {
			t.Errorf("timeline of #1 lacks %s: %s", want, types)
		}
	}
	if types := strings.Join(k.timelineTypes("pub", two), ","); !strings.Contains(types, "add_dependency") || !strings.Contains(types, "remove_dependency") {
		t.Errorf("timeline of the blocker lacks the events: %s", types)
	}
}

func TestDependencyBadInput(t *testing.T) {
	k := newActKit(t)
	two := k.issue(k.owner, "pub", "two")
	three := k.issue(k.owner, "pub", "three")
	hiddenOwner := k.s.CreateUser("hermit")
	k.must(k.do("POST", "api/v1/user/repos", hiddenOwner.Token, map[string]any{"name": "cave", "private": true}), 201, "private repo")
	k.must(k.do("POST", "api/v1/repos/hermit/cave/issues", hiddenOwner.Token, map[string]any{"title": "hidden"}), 201, "hidden issue")

	dep := func(index int64, body any) *Response {
		return k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/dependencies", index), k.writer.Token, body)
	}
	k.must(dep(1, k.meta("pub", two)), 201, "1 on 2")
	k.must(dep(two, k.meta("pub", three)), 201, "2 on 3")

	k.wantError(dep(two, k.meta("pub", 1)), 422, "circular dependency", "2 on 1 (direct cycle)")
	k.wantError(dep(three, k.meta("pub", 1)), 422, "circular dependency", "3 on 1 (cycle through 2)")
	k.wantError(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/blocks", 1), k.writer.Token, k.meta("pub", three)), 422,
		"circular dependency", "1 blocks 3 (cycle)")
	k.wantError(dep(1, k.meta("pub", 1)), 422, "cannot depend on itself", "self")
	k.wantError(dep(1, k.meta("pub", two)), 422, "already exist", "duplicate")
	k.wantError(dep(1, k.meta("pub", 999)), 404, "issue does not exist", "unknown issue")
	k.wantError(dep(999, k.meta("pub", two)), 404, "issue does not exist", "unknown path issue")
	k.wantError(dep(1, map[string]any{"owner": "acme", "repo": "nope", "index": 1}), 404, "repository does not exist", "unknown repository")
	k.wantError(dep(1, map[string]any{"owner": "hermit", "repo": "cave", "index": 1}), 404, "repository does not exist", "invisible repository")
	k.wantError(dep(1, map[string]any{"owner": "acme", "repo": "pub", "index": "two"}), 422, "Index", "index as text")
	k.must(dep(1, nil), 422, "no body")

	if got := k.deps("pub", 1, "dependencies", k.writer.Token); got != fmt.Sprintf("pub#%d", two) {
		t.Errorf("dependencies of #1 changed: %s", got)
	}
	if got := k.deps("pub", two, "dependencies", k.writer.Token); got != fmt.Sprintf("pub#%d", three) {
		t.Errorf("dependencies of #2 changed: %s", got)
	}
	if got := k.deps("pub", three, "dependencies", k.writer.Token); got != "" {
		t.Errorf("dependencies of #3 changed: %s", got)
	}
	// Readers cannot add dependencies to issues they cannot write (404, as Gitea).
	k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/dependencies", three), k.reader.Token, k.meta("pub", 1)), 404, "reader")
}

func TestDependencyDisabled(t *testing.T) {
	k := newActKit(t)
	two := k.issue(k.owner, "pub", "two")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/dependencies", k.writer.Token, k.meta("pub", two)), 201, "seed")
	k.must(k.do("PATCH", "api/v1/repos/acme/pub", k.owner.Token, map[string]any{"internal_tracker": map[string]any{
		"enable_time_tracker": true, "allow_only_contributors_to_track_time": true, "enable_issue_dependencies": false}}), 200, "disable dependencies")
	k.must(k.do("GET", "api/v1/repos/acme/pub/issues/1/dependencies", k.writer.Token, nil), 404, "list with dependencies disabled")
	k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/dependencies", two), k.writer.Token, k.meta("pub", 1)), 404, "create with dependencies disabled")
	// Closing is no longer blocked.
	k.setState("pub", 1, "closed", 201)
	// Another repository with dependencies enabled may still depend on this one.
	k.must(k.do("POST", "api/v1/repos/acme/priv/issues/1/dependencies", k.writer.Token, k.meta("pub", two)), 201, "depend on an issue of that repository")
}

func TestDependencyQueryCount(t *testing.T) {
	k := newActKit(t)
	add := func(repo string) {
		idx := k.issue(k.owner, repo, "blocker in "+repo)
		k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/dependencies", k.writer.Token, k.meta(repo, idx)), 201, "add")
	}
	add("pub")
	count := func(side string, index int64) string {
		return k.do("GET", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/%s", index, side), k.writer.Token, nil).Header.Get("X-Cairn-Query-Count")
	}
	small := count("dependencies", 1)
	for i := 0; i < 3; i++ {
		add("pub")
		add("priv")
	}
	if large := count("dependencies", 1); small == "" || small != large {
		t.Fatalf("query count grows with the list: %s vs %s", small, large)
	}
}

func TestDependencyPermissions(t *testing.T) {
	k := newActKit(t)
	read := map[string][2]int{"signed out": {200, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200}, "site admin": {200, 200}}
	k.runMatrix([]matrixCase{
		{"GET", "api/v1/repos/acme/%s/issues/1/dependencies", nil, read},
		{"GET", "api/v1/repos/acme/%s/issues/1/blocks", nil, read},
	})
	// Changes: writers of the target only; others get 404 (as Gitea), signed-out callers 401 where they can see it.
	change := map[string][2]int{"signed out": {401, 404}, "stranger": {404, 404}, "restricted": {404, 404}, "reader": {404, 404}, "writer": {201, 201}, "site admin": {201, 201}}
	for i, repo := range []string{"pub", "priv"} {
		for _, who := range k.callers() {
			blocker := k.issue(k.owner, repo, "blocker for "+who.name)
			for _, c := range []struct{ method, side string }{{"POST", "dependencies"}, {"DELETE", "dependencies"}, {"POST", "blocks"}, {"DELETE", "blocks"}} {
				path := fmt.Sprintf("api/v1/repos/acme/%s/issues/1/%s", repo, c.side)
				body := k.meta(repo, blocker)
				if c.side == "blocks" {
					path = fmt.Sprintf("api/v1/repos/acme/%s/issues/%d/blocks", repo, blocker)
					body = k.meta(repo, 1)
				}
				if r := k.do(c.method, path, who.tok, body); r.Status != change[who.name][i] {
					t.Errorf("%s %s as %s: %d, want %d (%s)", c.method, path, who.name, r.Status, change[who.name][i], r.Body)
				}
			}
		}
	}
}

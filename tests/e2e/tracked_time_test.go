package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

type trackedTimeJSON struct {
	ID       int64     `json:"id"`
	Created  time.Time `json:"created"`
	Time     int64     `json:"time"`
	UserID   int64     `json:"user_id"`
	UserName string    `json:"user_name"`
	IssueID  int64     `json:"issue_id"`
	Issue    *struct {
		Number int64 `json:"number"`
		Title  string
	} `json:"issue"`
}

func (k *actKit) times(path, tok string) []trackedTimeJSON {
	k.t.Helper()
	var list []trackedTimeJSON
	k.must(k.do("GET", path, tok, nil), 200, "list times "+path).Decode(k.t, &list)
	return list
}

func timeSummary(list []trackedTimeJSON) string {
	var parts []string
	for _, t := range list {
		parts = append(parts, fmt.Sprintf("%s:%d", t.UserName, t.Time))
	}
	return strings.Join(parts, ",")
}

// timelineTypes returns the event types of an issue's timeline.
func (k *actKit) timelineTypes(repo string, index int64) []string {
	k.t.Helper()
	var list []struct {
		Type string `json:"type"`
	}
	k.must(k.do("GET", fmt.Sprintf("api/v1/repos/acme/%s/issues/%d/timeline?limit=50", repo, index), k.owner.Token, nil), 200, "timeline").Decode(k.t, &list)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, x.Type)
	}
	return out
}

func TestTrackedTimeLifecycle(t *testing.T) {
	k := newActKit(t)
	s := k.s
	base := "api/v1/repos/acme/pub/issues/1/times"

	// Through the SDK: writers add time (200 with the time, as Gitea answers).
	wc := s.Client(k.writer.Token)
	tt, resp, err := wc.AddTime("acme", "pub", 1, gitea.AddTimeOption{Time: 3600})
	if err != nil || resp.StatusCode != 200 || tt.Time != 3600 || tt.UserName != "writer" || tt.Issue == nil || tt.Issue.Index != 1 {
		t.Fatalf("add time: %v %v %+v", err, resp, tt)
	}
	past := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	k.must(k.do("POST", base, k.writer.Token, map[string]any{"time": 600, "created": past.Format(time.RFC3339)}), 200, "add time in the past")
	// The issue's poster may track time without write access; other readers may not.
	k.must(k.do("POST", base, k.owner.Token, map[string]any{"time": 60}), 200, "owner adds time")
	readerIssue := k.issue(k.reader, "pub", "reader's own")
	k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/times", readerIssue), k.reader.Token, map[string]any{"time": 30}), 200, "poster adds time")
	k.must(k.do("POST", base, k.reader.Token, map[string]any{"time": 30}), 403, "reader adds time to someone else's issue")
	// A site administrator may record time for someone else.
	var forWriter trackedTimeJSON
	k.must(k.do("POST", base, k.admin.Token, map[string]any{"time": 5, "user_name": "writer"}), 200, "admin adds for writer").Decode(t, &forWriter)
	if forWriter.UserName != "writer" {
		t.Fatalf("admin's time recorded for %q", forWriter.UserName)
	}
	// A non-administrator naming someone else still records their own time.
	var own trackedTimeJSON
	k.must(k.do("POST", base, k.writer.Token, map[string]any{"time": 7, "user_name": "owner"}), 200, "writer names owner").Decode(t, &own)
	if own.UserName != "writer" {
		t.Fatalf("writer recorded time for %q", own.UserName)
	}

	// Listing: writers see everyone's times, others only their own.
	if got := timeSummary(k.times(base, k.writer.Token)); got != "writer:600,writer:3600,owner:60,writer:5,writer:7" {
		t.Fatalf("issue times = %s", got)
	}
	if got := timeSummary(k.times(base+"?user=owner", k.writer.Token)); got != "owner:60" {
		t.Fatalf("issue times of owner = %s", got)
	}
	if got := timeSummary(k.times("api/v1/repos/acme/pub/times", k.reader.Token)); got != "reader:30" {
		t.Fatalf("reader sees %s", got)
	}
	k.wantError(k.do("GET", "api/v1/repos/acme/pub/times?user=writer", k.reader.Token, nil), 403, "not allowed", "reader asks for writer's times")
	// The repository's lists sit under the repository token scope (as in
	// Gitea), an issue's list under the issue scope.
	repoScope := k.s.CreateToken("reader", k.reader.Password, "repo-scope", "read:repository")
	issueScope := k.s.CreateToken("reader", k.reader.Password, "issue-scope", "read:issue")
	k.must(k.do("GET", "api/v1/repos/acme/pub/times", repoScope, nil), 200, "read:repository lists the repository's times")
	k.must(k.do("GET", "api/v1/repos/acme/pub/times/reader", repoScope, nil), 200, "read:repository lists a user's times")
	k.wantError(k.do("GET", "api/v1/repos/acme/pub/times", issueScope, nil), 403, "read:repository", "read:issue lists the repository's times")
	k.must(k.do("GET", base, issueScope, nil), 200, "read:issue lists an issue's times")
	k.wantError(k.do("GET", base, repoScope, nil), 403, "read:issue", "read:repository lists an issue's times")
	repoTimes, _, err := wc.ListRepoTrackedTimes("acme", "pub", gitea.ListTrackedTimesOptions{})
	if err != nil || len(repoTimes) != 6 {
		t.Fatalf("repo times: %v %d", err, len(repoTimes))
	}
	// since/before filter on the creation time.
	mid := time.Now().Add(-24 * time.Hour)
	if got := timeSummary(k.times("api/v1/repos/acme/pub/times?before="+url.QueryEscape(mid.Format(time.RFC3339)), k.writer.Token)); got != "writer:600" {
		t.Fatalf("before filter = %s", got)
	}
	if got := k.times("api/v1/repos/acme/pub/times?since="+url.QueryEscape(mid.Format(time.RFC3339)), k.writer.Token); len(got) != 5 {
		t.Fatalf("since filter = %s", timeSummary(got))
	}
	paged := k.do("GET", "api/v1/repos/acme/pub/times?page=2&limit=2", k.writer.Token, nil)
	var page []trackedTimeJSON
	paged.Decode(t, &page)
	if len(page) != 2 || paged.Header.Get("X-Total-Count") != "6" || !strings.Contains(paged.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("page 2: %d items, total %s, link %q", len(page), paged.Header.Get("X-Total-Count"), paged.Header.Get("Link"))
	}
	// /user/times: the caller's own, everywhere.
	mine, _, err := wc.ListMyTrackedTimes(gitea.ListTrackedTimesOptions{})
	if err != nil || len(mine) != 4 {
		t.Fatalf("my times: %v %d", err, len(mine))
	}
	k.must(k.do("POST", "api/v1/repos/acme/priv/issues/1/times", k.writer.Token, map[string]any{"time": 1}), 200, "time in the private repository")
	if got := k.times("api/v1/user/times", k.writer.Token); len(got) != 5 {
		t.Fatalf("my times with the private one = %d", len(got))
	}
	if got := k.times("api/v1/user/times?before="+url.QueryEscape(mid.Format(time.RFC3339)), k.writer.Token); timeSummary(got) != "writer:600" {
		t.Fatalf("my times before = %s", timeSummary(got))
	}
	if got := k.times("api/v1/repos/acme/pub/times/writer", k.writer.Token); len(got) != 4 {
		t.Fatalf("deprecated per-user list = %d", len(got))
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/times/writer", k.reader.Token, nil), 403, "reader lists writer's times")

	// Deleting one: its owner or a site administrator.
	k.must(k.do("DELETE", fmt.Sprintf("%s/%d", base, tt.ID), k.owner.Token, nil), 403, "someone else's time")
	if r, err := wc.DeleteTime("acme", "pub", 1, tt.ID); err != nil || r.StatusCode != 204 {
		t.Fatalf("delete time: %v %v", err, r)
	}
	k.must(k.do("DELETE", fmt.Sprintf("%s/%d", base, tt.ID), k.writer.Token, nil), 404, "already deleted")
	k.must(k.do("DELETE", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/times/%d", readerIssue, forWriter.ID), k.admin.Token, nil), 404, "time of another issue")
	k.must(k.do("DELETE", fmt.Sprintf("%s/%d", base, forWriter.ID), k.admin.Token, nil), 204, "admin deletes writer's time")
	// Reset: the caller's times on the issue; 404 when there are none.
	if r, err := wc.ResetIssueTime("acme", "pub", 1); err != nil || r.StatusCode != 204 {
		t.Fatalf("reset: %v %v", err, r)
	}
	k.must(k.do("DELETE", base, k.writer.Token, nil), 404, "reset without times")
	if got := timeSummary(k.times(base, k.writer.Token)); got != "owner:60" {
		t.Fatalf("after reset = %s", got)
	}

	types := strings.Join(k.timelineTypes("pub", 1), ",")
	for _, want := range []string{"add_time_manual", "delete_time_manual"} {
		if !strings.Contains(types, want) {
			t.Errorf("timeline lacks %s: %s", want, types)
		}
	}
}

func TestStopwatch(t *testing.T) {
	k := newActKit(t)
	s := k.s
	two := k.issue(k.owner, "pub", "second")
	wc := s.Client(k.writer.Token)
	if r, err := wc.StartIssueStopWatch("acme", "pub", 1); err != nil || r.StatusCode != 201 {
		t.Fatalf("start: %v %v", err, r)
	}
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/start", k.writer.Token, nil), 409, "already exists", "start twice")
	sws, _, err := wc.ListMyStopwatches(gitea.ListStopwatchesOptions{})
	if err != nil || len(sws) != 1 || sws[0].IssueIndex != 1 || sws[0].RepoOwnerName != "acme" || sws[0].RepoName != "pub" ||
		sws[0].IssueTitle != "first issue of pub" || sws[0].Duration == "" {
		t.Fatalf("stopwatches: %v %+v", err, sws)
	}
	time.Sleep(1100 * time.Millisecond)
	if r, err := wc.StopIssueStopWatch("acme", "pub", 1); err != nil || r.StatusCode != 201 {
		t.Fatalf("stop: %v %v", err, r)
	}
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/stop", k.writer.Token, nil), 409, "non-existent", "stop twice")
	times := k.times("api/v1/repos/acme/pub/issues/1/times", k.writer.Token)
	if len(times) != 1 || times[0].Time < 1 || times[0].UserName != "writer" {
		t.Fatalf("stopped stopwatch recorded %s", timeSummary(times))
	}
	// Cancel records nothing.
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/start", k.writer.Token, nil), 201, "start again")
	if r, err := wc.DeleteIssueStopwatch("acme", "pub", 1); err != nil || r.StatusCode != 204 {
		t.Fatalf("cancel: %v %v", err, r)
	}
	k.wantError(k.do("DELETE", "api/v1/repos/acme/pub/issues/1/stopwatch/delete", k.writer.Token, nil), 409, "non-existent", "cancel twice")
	if n := len(k.times("api/v1/repos/acme/pub/issues/1/times", k.writer.Token)); n != 1 {
		t.Fatalf("cancel recorded time: %d times", n)
	}
	// Starting on another issue stops the running one.
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/start", k.writer.Token, nil), 201, "start on #1")
	k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/stopwatch/start", two), k.writer.Token, nil), 201, "start on #2")
	var running []struct {
		IssueIndex int64 `json:"issue_index"`
	}
	k.must(k.do("GET", "api/v1/user/stopwatches", k.writer.Token, nil), 200, "stopwatches").Decode(t, &running)
	if len(running) != 1 || running[0].IssueIndex != two {
		t.Fatalf("running = %+v", running)
	}
	if n := len(k.times("api/v1/repos/acme/pub/issues/1/times", k.writer.Token)); n != 2 {
		t.Fatalf("the stopwatch of #1 was not turned into time: %d times", n)
	}
	// Only writers use stopwatches.
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/start", k.reader.Token, nil), 403, "reader starts")
	k.must(k.do("GET", "api/v1/user/stopwatches", "", nil), 401, "signed out")

	types := strings.Join(k.timelineTypes("pub", 1), ",")
	for _, want := range []string{"start_tracking", "stop_tracking", "cancel_tracking"} {
		if !strings.Contains(types, want) {
			t.Errorf("timeline lacks %s: %s", want, types)
		}
	}
}

func TestTrackedTimeBadInput(t *testing.T) {
	k := newActKit(t)
	base := "api/v1/repos/acme/pub/issues/1/times"
	k.must(k.do("POST", base, k.writer.Token, map[string]any{"time": 60}), 200, "seed")
	for _, c := range []struct {
		name string
		body any
		msg  string
	}{
		{"no time", map[string]any{}, "Time"},
		{"zero", map[string]any{"time": 0}, "Time"},
		{"time as text", map[string]any{"time": "1h"}, "Time"},
		{"fractional", map[string]any{"time": 1.5}, "Time"},
		{"created not a date", map[string]any{"time": 60, "created": "yesterday"}, "Created"},
		{"created as number", map[string]any{"time": 60, "created": 12345}, "Created"},
		{"absurd", map[string]any{"time": int64(1) << 50}, "Time"},
	} {
		k.wantError(k.do("POST", base, k.writer.Token, c.body), 422, c.msg, c.name)
	}
	for _, q := range []string{"since=yesterday", "before=2024-13-01", "since=1700000000"} {
		k.wantError(k.do("GET", base+"?"+q, k.writer.Token, nil), 422, "RFC 3339", "issue times "+q)
		k.wantError(k.do("GET", "api/v1/repos/acme/pub/times?"+q, k.writer.Token, nil), 422, "RFC 3339", "repo times "+q)
		k.wantError(k.do("GET", "api/v1/user/times?"+q, k.writer.Token, nil), 422, "RFC 3339", "my times "+q)
	}
	k.must(k.do("GET", base+"?user=nobody", k.writer.Token, nil), 404, "unknown user filter")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/77/times", k.writer.Token, map[string]any{"time": 60}), 404, "unknown issue")
	k.must(k.do("DELETE", base+"/9999", k.writer.Token, nil), 404, "unknown time")
	k.must(k.do("POST", base, k.admin.Token, map[string]any{"time": 60, "user_name": "nobody"}), 422, "admin names an unknown user")
	if got := timeSummary(k.times(base, k.writer.Token)); got != "writer:60" {
		t.Fatalf("refused requests changed the times: %s", got)
	}
	if n := len(k.times("api/v1/repos/acme/pub/times", k.admin.Token)); n != 1 {
		t.Fatalf("%d times after refusals", n)
	}
}

func TestTrackedTimeDisabled(t *testing.T) {
	k := newActKit(t)
	// Per repository.
	k.must(k.do("PATCH", "api/v1/repos/acme/pub", k.owner.Token, map[string]any{"internal_tracker": map[string]any{
		"enable_time_tracker": false, "allow_only_contributors_to_track_time": true, "enable_issue_dependencies": true}}), 200, "disable the tracker")
	k.wantError(k.do("GET", "api/v1/repos/acme/pub/issues/1/times", k.writer.Token, nil), 404, "Timetracker is disabled", "issue times")
	k.wantError(k.do("GET", "api/v1/repos/acme/pub/times", k.writer.Token, nil), 400, "time tracking disabled", "repo times")
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/times", k.writer.Token, map[string]any{"time": 5}), 400, "time tracking disabled", "add")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/start", k.writer.Token, nil), 403, "stopwatch")
	// Anyone may track when the repository does not restrict it to contributors.
	k.must(k.do("PATCH", "api/v1/repos/acme/pub", k.owner.Token, map[string]any{"internal_tracker": map[string]any{
		"enable_time_tracker": true, "allow_only_contributors_to_track_time": false, "enable_issue_dependencies": true}}), 200, "open the tracker")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/times", k.reader.Token, map[string]any{"time": 5}), 200, "reader tracks")

	// Site-wide.
	off := newActKit(t, WithEnv("CAIRN_SERVICE_ENABLE_TIMETRACKING=false"))
	off.must(off.do("GET", "api/v1/repos/acme/pub/issues/1/times", off.writer.Token, nil), 404, "issue times, tracking off")
	off.must(off.do("POST", "api/v1/repos/acme/pub/issues/1/times", off.writer.Token, map[string]any{"time": 5}), 400, "add, tracking off")
}

func TestTrackedTimeQueryCount(t *testing.T) {
	k := newActKit(t)
	add := func(u *User, repo string, index int64) {
		k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/%s/issues/%d/times", repo, index), u.Token, map[string]any{"time": 60}), 200, "add")
	}
	add(k.writer, "pub", 1)
	paths := []string{"api/v1/repos/acme/pub/times", "api/v1/repos/acme/pub/issues/1/times", "api/v1/user/times", "api/v1/user/stopwatches"}
	count := func() []string {
		var out []string
		for _, p := range paths {
			out = append(out, k.do("GET", p, k.writer.Token, nil).Header.Get("X-Cairn-Query-Count"))
		}
		return out
	}
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/stopwatch/start", k.writer.Token, nil), 201, "start")
	small := count()
	for i := 0; i < 4; i++ {
		idx := k.issue(k.owner, "pub", fmt.Sprintf("more %d", i))
		add(k.writer, "pub", idx)
		add(k.owner, "pub", idx)
	}
	add(k.writer, "priv", 1)
	k.must(k.do("POST", "api/v1/repos/acme/priv/issues/1/stopwatch/start", k.writer.Token, nil), 201, "start on another")
	large := count()
	for i := range paths {
		if small[i] == "" || small[i] != large[i] {
			t.Errorf("%s: query count grows with the list: %s vs %s", paths[i], small[i], large[i])
		}
	}
}

func TestTrackedTimePermissions(t *testing.T) {
	k := newActKit(t)
	for _, repo := range []string{"pub", "priv"} {
		k.must(k.do("POST", "api/v1/repos/acme/"+repo+"/issues/1/times", k.owner.Token, map[string]any{"time": 60}), 200, "seed")
	}
	list := map[string][2]int{"signed out": {401, 404}, "stranger": {200, 404}, "restricted": {404, 404}, "reader": {200, 200}, "writer": {200, 200}, "site admin": {200, 200}}
	add := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {200, 200}, "site admin": {200, 200}}
	start := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {201, 201}, "site admin": {201, 201}}
	stop := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {201, 201}, "site admin": {201, 201}}
	cancel := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {204, 204}, "site admin": {204, 204}}
	reset := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {204, 204}, "site admin": {204, 204}}
	k.runMatrix([]matrixCase{
		{"GET", "api/v1/repos/acme/%s/issues/1/times", nil, list},
		{"GET", "api/v1/repos/acme/%s/times", nil, list},
		{"POST", "api/v1/repos/acme/%s/issues/1/times", func() any { return map[string]any{"time": 10} }, add},
		{"DELETE", "api/v1/repos/acme/%s/issues/1/times", nil, reset},
	})
	// Stopwatches: start then stop (or cancel) on each repository in turn,
	// since starting one stops the caller's others.
	for _, who := range k.callers() {
		for i, repo := range []string{"pub", "priv"} {
			for _, end := range []struct {
				method, path string
				want         map[string][2]int
			}{{"POST", "stop", stop}, {"DELETE", "delete", cancel}} {
				p := "api/v1/repos/acme/" + repo + "/issues/1/stopwatch/"
				if r := k.do("POST", p+"start", who.tok, nil); r.Status != start[who.name][i] {
					t.Errorf("start on %s as %s: %d, want %d (%s)", repo, who.name, r.Status, start[who.name][i], r.Body)
				}
				if r := k.do(end.method, p+end.path, who.tok, nil); r.Status != end.want[who.name][i] {
					t.Errorf("%s on %s as %s: %d, want %d (%s)", end.path, repo, who.name, r.Status, end.want[who.name][i], r.Body)
				}
			}
		}
	}
	// Deleting one time: its owner or a site administrator (owner's seeded times here).
	var seeded [2]trackedTimeJSON
	for i, repo := range []string{"pub", "priv"} {
		k.must(k.do("POST", "api/v1/repos/acme/"+repo+"/issues/1/times", k.owner.Token, map[string]any{"time": 60}), 200, "seed").Decode(t, &seeded[i])
	}
	delOne := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {403, 403}, "site admin": {204, 204}}
	perUser := map[string][2]int{"signed out": {401, 404}, "stranger": {403, 404}, "restricted": {404, 404}, "reader": {403, 403}, "writer": {403, 403}, "site admin": {200, 200}}
	for _, who := range k.callers() {
		for i, repo := range []string{"pub", "priv"} {
			p := fmt.Sprintf("api/v1/repos/acme/%s/issues/1/times/%d", repo, seeded[i].ID)
			if r := k.do("DELETE", p, who.tok, nil); r.Status != delOne[who.name][i] {
				t.Errorf("DELETE %s as %s: %d, want %d (%s)", p, who.name, r.Status, delOne[who.name][i], r.Body)
			}
			p = "api/v1/repos/acme/" + repo + "/times/owner"
			if r := k.do("GET", p, who.tok, nil); r.Status != perUser[who.name][i] {
				t.Errorf("GET %s as %s: %d, want %d (%s)", p, who.name, r.Status, perUser[who.name][i], r.Body)
			}
		}
	}
	k.must(k.do("GET", "api/v1/user/times", "", nil), 401, "my times signed out")
	// Every caller sees only their own stopwatches and times.
	for _, who := range []*User{k.reader, k.writer, k.admin} {
		var mine []trackedTimeJSON
		k.must(k.do("GET", "api/v1/user/times", who.Token, nil), 200, "my times").Decode(t, &mine)
		for _, x := range mine {
			if x.UserName != who.Name {
				t.Errorf("%s sees %s's time", who.Name, x.UserName)
			}
		}
	}
	// A stranger's own times on a repository that turned private are not listed.
	k.must(k.do("PATCH", "api/v1/repos/acme/pub", k.owner.Token, map[string]any{"internal_tracker": map[string]any{
		"enable_time_tracker": true, "allow_only_contributors_to_track_time": false, "enable_issue_dependencies": true}}), 200, "open the tracker")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/times", k.stranger.Token, map[string]any{"time": 10}), 200, "stranger tracks")
	if n := len(k.times("api/v1/user/times", k.stranger.Token)); n != 1 {
		t.Fatalf("stranger's times = %d", n)
	}
	k.must(k.do("PATCH", "api/v1/repos/acme/pub", k.owner.Token, map[string]any{"private": true}), 200, "make private")
	if got := k.times("api/v1/user/times", k.stranger.Token); len(got) != 0 {
		t.Fatalf("times of an unreadable repository listed: %s", timeSummary(got))
	}
}

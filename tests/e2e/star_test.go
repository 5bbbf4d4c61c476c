package e2e

import (
	"strconv"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestStarsAndCounts(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	k.repo(alice, "pub", false, false)
	k.repo(alice, "priv", true, false)

	cb := s.Client(bob.Token)
	if ok, _, err := cb.IsRepoStarring("alice", "pub"); err != nil || ok {
		t.Fatalf("starring before: %v %v", ok, err)
	}
	for i := 0; i < 2; i++ { // starring twice counts once
		if _, err := cb.StarRepo("alice", "pub"); err != nil {
			t.Fatal(err)
		}
	}
	k.want(k.do("PUT", "user/starred/alice/pub", carol.Token, nil), 204, "", "carol stars")
	k.want(k.do("GET", "user/starred/alice/pub", carol.Token, nil), 204, "", "carol checks")
	k.want(k.do("GET", "user/starred/alice/pub", alice.Token, nil), 404, "", "alice checks")
	k.want(k.do("PUT", "user/starred/alice/priv", bob.Token, nil), 404, "", "star invisible repo")
	k.want(k.do("PUT", "user/starred/alice/pub", "", nil), 401, "", "signed-out star")
	k.want(k.do("PUT", "user/starred/alice/nope", bob.Token, nil), 404, "", "star missing repo")

	_, r := k.get(alice.Token, "alice/pub")
	if r.Stars != 2 {
		t.Fatalf("num_stars = %d, want 2", r.Stars)
	}
	var u struct {
		Stars int `json:"starred_repos_count"`
	}
	k.do("GET", "users/bob", bob.Token, nil).Decode(t, &u)
	if u.Stars != 1 {
		t.Fatalf("bob's starred_repos_count = %d", u.Stars)
	}
	resp := k.do("GET", "repos/alice/pub/stargazers", "", nil)
	k.want(resp, 200, "", "stargazers")
	two := resp.Header.Get("X-Cairn-Query-Count")
	if one := k.do("GET", "repos/alice/pub/stargazers?limit=1", "", nil).Header.Get("X-Cairn-Query-Count"); one == "" || one != two {
		t.Fatalf("stargazers queries: %s for one, %s for two", one, two)
	}
	if got := k.names(resp); len(got) != 2 || got[0] != "bob" || got[1] != "carol" || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("stargazers %v", got)
	}
	mine, _, err := cb.GetMyStarredRepos()
	if err != nil || len(mine) != 1 || mine[0].FullName != "alice/pub" {
		t.Fatalf("my starred: %v %v", mine, err)
	}
	resp = k.do("GET", "users/bob/starred", carol.Token, nil)
	k.want(resp, 200, "", "bob's stars seen by carol")
	if got := k.fullNames(resp); len(got) != 1 {
		t.Fatalf("bob's stars: %v", got)
	}
	k.want(k.do("GET", "users/bob/starred", "", nil), 401, "", "signed-out list of stars")

	// A private repository starred by its collaborator stays out of others' lists.
	k.want(k.do("PUT", "repos/alice/priv/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "add bob")
	k.want(k.do("PUT", "user/starred/alice/priv", bob.Token, nil), 204, "", "bob stars priv")
	if got := k.fullNames(k.do("GET", "users/bob/starred", carol.Token, nil)); len(got) != 1 || got[0] != "alice/pub" {
		t.Fatalf("carol sees bob's stars %v", got)
	}
	if got := k.fullNames(k.do("GET", "users/bob/starred", bob.Token, nil)); len(got) != 2 {
		t.Fatalf("bob sees his stars %v", got)
	}

	if _, err := cb.UnStarRepo("alice", "pub"); err != nil {
		t.Fatal(err)
	}
	k.want(k.do("DELETE", "user/starred/alice/pub", bob.Token, nil), 204, "", "unstar twice")
	_, r = k.get(alice.Token, "alice/pub")
	k.do("GET", "users/bob", bob.Token, nil).Decode(t, &u)
	if r.Stars != 1 || u.Stars != 1 {
		t.Fatalf("after unstar: repo %d, bob %d", r.Stars, u.Stars)
	}
	// Deleting a starred repository lowers its stargazers' counts.
	k.want(k.do("DELETE", "repos/alice/priv", alice.Token, nil), 204, "", "delete priv")
	k.do("GET", "users/bob", bob.Token, nil).Decode(t, &u)
	if u.Stars != 0 {
		t.Fatalf("bob's stars after delete: %d", u.Stars)
	}
}

func TestStarsDisabled(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_DISABLE_STARS=true"))
	k := newRelKit(t, s)
	alice := s.CreateUser("alice")
	k.repo(alice, "pub", false, false)
	for _, c := range [][2]string{{"PUT", "user/starred/alice/pub"}, {"GET", "user/starred"}, {"GET", "users/alice/starred"}, {"GET", "repos/alice/pub/stargazers"}} {
		k.want(k.do(c[0], c[1], alice.Token, nil), 403, "", c[0]+" "+c[1])
	}
}

func TestWatches(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	k.repo(alice, "pub", false, false)
	k.repo(alice, "priv", true, false)

	cb := s.Client(bob.Token)
	if ok, _, err := cb.CheckRepoWatch("alice", "pub"); err != nil || ok {
		t.Fatalf("watching before: %v %v", ok, err)
	}
	resp := k.do("PUT", "repos/alice/pub/subscription", bob.Token, nil)
	k.want(resp, 200, "", "watch")
	var wi struct {
		Subscribed    bool   `json:"subscribed"`
		Ignored       bool   `json:"ignored"`
		URL           string `json:"url"`
		RepositoryURL string `json:"repository_url"`
		CreatedAt     string `json:"created_at"`
	}
	resp.Decode(t, &wi)
	if !wi.Subscribed || wi.Ignored || wi.URL != s.URL+"api/v1/repos/alice/pub/subscription" || wi.RepositoryURL != s.URL+"api/v1/repos/alice/pub" || wi.CreatedAt == "" {
		t.Fatalf("WatchInfo %+v", wi)
	}
	k.want(k.do("PUT", "repos/alice/pub/subscription", bob.Token, nil), 200, "", "watch twice")
	if _, err := s.Client(carol.Token).WatchRepo("alice", "pub"); err != nil {
		t.Fatal(err)
	}
	k.want(k.do("GET", "repos/alice/pub/subscription", bob.Token, nil), 200, "", "check watch")
	// The creator watches a new repository automatically; after unwatching, the check answers 404.
	k.want(k.do("GET", "repos/alice/pub/subscription", alice.Token, nil), 200, "", "creator watches")
	k.want(k.do("DELETE", "repos/alice/pub/subscription", alice.Token, nil), 204, "", "creator unwatches")
	k.want(k.do("GET", "repos/alice/pub/subscription", alice.Token, nil), 404, "", "not watching")
	k.want(k.do("GET", "repos/alice/pub/subscription", "", nil), 401, "", "signed-out check")
	k.want(k.do("PUT", "repos/alice/priv/subscription", bob.Token, nil), 404, "", "watch invisible repo")

	_, r := k.get(alice.Token, "alice/pub")
	if r.Watchers != 2 {
		t.Fatalf("watchers_count = %d", r.Watchers)
	}
	resp = k.do("GET", "repos/alice/pub/subscribers", "", nil)
	if got := k.names(resp); len(got) != 2 || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("subscribers %v", got)
	}
	mine, _, err := cb.GetMyWatchedRepos()
	if err != nil || len(mine) != 1 || mine[0].FullName != "alice/pub" {
		t.Fatalf("my subscriptions %v %v", mine, err)
	}
	theirs, _, err := s.Client(carol.Token).GetWatchedRepos("bob")
	if err != nil || len(theirs) != 1 {
		t.Fatalf("bob's subscriptions %v %v", theirs, err)
	}

	// A collaborator watching a private repository stops when removed.
	k.want(k.do("PUT", "repos/alice/priv/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "add bob")
	k.want(k.do("PUT", "repos/alice/priv/subscription", bob.Token, nil), 200, "", "bob watches priv")
	if got := k.fullNames(k.do("GET", "users/bob/subscriptions", carol.Token, nil)); len(got) != 1 {
		t.Fatalf("carol sees bob's private subscription: %v", got)
	}
	k.want(k.do("DELETE", "repos/alice/priv/collaborators/bob", alice.Token, nil), 204, "", "remove bob")
	_, r = k.get(alice.Token, "alice/priv")
	if r.Watchers != 1 {
		t.Fatalf("priv watchers after removal: %d (only the creator should remain)", r.Watchers)
	}

	if _, err := cb.UnWatchRepo("alice", "pub"); err != nil {
		t.Fatal(err)
	}
	k.want(k.do("DELETE", "repos/alice/pub/subscription", bob.Token, nil), 204, "", "unwatch twice")
	_, r = k.get(alice.Token, "alice/pub")
	if r.Watchers != 1 {
		t.Fatalf("watchers after unwatch = %d", r.Watchers)
	}
}

func TestTopics(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.repo(alice, "pub", false, false)
	k.repo(alice, "priv", true, false)
	ca := s.Client(alice.Token)

	if _, err := ca.SetRepoTopics("alice", "pub", []string{"Go", "git", "forge", "go"}); err != nil {
		t.Fatal(err)
	}
	topics, _, err := s.Client("").ListRepoTopics("alice", "pub", gitea.ListRepoTopicsOptions{})
	if err != nil || len(topics) != 3 || topics[0] != "forge" || topics[1] != "git" || topics[2] != "go" {
		t.Fatalf("topics %v %v", topics, err)
	}
	_, r := k.get("", "alice/pub")
	if len(r.Topics) != 3 {
		t.Fatalf("repository topics %v", r.Topics)
	}

	// Invalid names: 422 with the offending topics.
	resp := k.do("PUT", "repos/alice/pub/topics", alice.Token, map[string]any{"topics": []string{"ok", "-bad", "sp ace", "x" + string(make([]byte, 0)) + "0123456789012345678901234567890123456"}})
	k.want(resp, 422, "Topic names are invalid", "invalid topics")
	var bad struct {
		Message       string   `json:"message"`
		InvalidTopics []string `json:"invalidTopics"`
	}
	resp.Decode(t, &bad)
	if len(bad.InvalidTopics) != 3 || bad.InvalidTopics[0] != "-bad" {
		t.Fatalf("invalidTopics %v", bad.InvalidTopics)
	}
	many := []string{}
	for i := 0; i < 26; i++ {
		many = append(many, "t"+strconv.Itoa(i))
	}
	k.want(k.do("PUT", "repos/alice/pub/topics", alice.Token, map[string]any{"topics": many}), 422, "Exceeding maximum", "too many topics")
	resp = k.do("PUT", "repos/alice/pub/topics/Bad_Topic", alice.Token, nil)
	k.want(resp, 422, "Topic name is invalid", "invalid single topic")

	// One at a time.
	k.want(k.do("PUT", "repos/alice/pub/topics/Cairn", alice.Token, nil), 204, "", "add topic")
	k.want(k.do("PUT", "repos/alice/pub/topics/cairn", alice.Token, nil), 204, "", "add topic again")
	k.want(k.do("DELETE", "repos/alice/pub/topics/git", alice.Token, nil), 204, "", "delete topic")
	k.want(k.do("DELETE", "repos/alice/pub/topics/git", alice.Token, nil), 404, "", "delete missing topic")
	resp = k.do("GET", "repos/alice/pub/topics?limit=2", "", nil)
	var tn struct{ Topics []string }
	resp.Decode(t, &tn)
	if resp.Header.Get("X-Total-Count") != "3" || len(tn.Topics) != 2 || tn.Topics[0] != "cairn" {
		t.Fatalf("topics page: %v %s", tn.Topics, resp.Header.Get("X-Total-Count"))
	}

	// Only repository admins change topics.
	k.want(k.do("PUT", "repos/alice/pub/topics/mine", bob.Token, nil), 403, "", "stranger adds topic")
	k.want(k.do("PUT", "repos/alice/pub/topics", bob.Token, map[string]any{"topics": []string{"x"}}), 403, "", "stranger sets topics")
	k.want(k.do("PUT", "repos/alice/pub/topics/mine", "", nil), 401, "", "signed-out adds topic")

	// Search counts only repositories the caller may see.
	k.want(k.do("PUT", "repos/alice/priv/topics", alice.Token, map[string]any{"topics": []string{"go", "hidden-topic"}}), 204, "", "private topics")
	var found struct {
		Topics []struct {
			Name  string `json:"topic_name"`
			Count int    `json:"repo_count"`
		} `json:"topics"`
	}
	k.do("GET", "topics/search?q=go", bob.Token, nil).Decode(t, &found)
	if len(found.Topics) != 1 || found.Topics[0].Name != "go" || found.Topics[0].Count != 1 {
		t.Fatalf("bob's topic search %+v", found)
	}
	k.do("GET", "topics/search?q=go", alice.Token, nil).Decode(t, &found)
	if len(found.Topics) != 1 || found.Topics[0].Count != 2 {
		t.Fatalf("alice's topic search %+v", found)
	}
	k.do("GET", "topics/search?q=hidden", bob.Token, nil).Decode(t, &found)
	if len(found.Topics) != 0 {
		t.Fatalf("private topic leaked: %+v", found)
	}
}

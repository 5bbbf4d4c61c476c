package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// dkKey is a deploy key as the API returns it.
type dkKey struct {
	ID          int64      `json:"id"`
	KeyID       int64      `json:"key_id"`
	Key         string     `json:"key"`
	URL         string     `json:"url"`
	Title       string     `json:"title"`
	Fingerprint string     `json:"fingerprint"`
	Created     time.Time  `json:"created_at"`
	ReadOnly    bool       `json:"read_only"`
	Repository  *dkRepoRef `json:"repository"`
}

type dkRepoRef struct {
	FullName string `json:"full_name"`
}

// dkCreate adds a deploy key and expects want; on 201 it returns the key.
func dkCreate(t *testing.T, s *Server, tok, repo string, body map[string]any, want int, msg string) *dkKey {
	t.Helper()
	resp := s.Do("POST", "api/v1/repos/"+repo+"/keys", Token(tok), JSON(body))
	if resp.Status != want {
		t.Fatalf("create deploy key on %s %v: %d, want %d: %s", repo, body["title"], resp.Status, want, resp.Body)
	}
	if msg != "" && !strings.Contains(string(resp.Body), msg) {
		t.Fatalf("create deploy key on %s: body %s does not contain %q", repo, resp.Body, msg)
	}
	if want != 201 {
		return nil
	}
	var k dkKey
	resp.Decode(t, &k)
	return &k
}

// dkList lists deploy keys with a query string and returns them and the response.
func dkList(t *testing.T, s *Server, tok, repo, query string) ([]dkKey, *Response) {
	t.Helper()
	resp := s.Do("GET", "api/v1/repos/"+repo+"/keys"+query, Token(tok))
	if resp.Status != 200 {
		t.Fatalf("list deploy keys of %s%s: %d %s", repo, query, resp.Status, resp.Body)
	}
	var list []dkKey
	resp.Decode(t, &list)
	return list, resp
}

// TestDeployKeysAPI covers /repos/{owner}/{repo}/keys: Gitea's JSON, the
// 422 rules, filters and paging, who may manage keys, and deletion.
func TestDeployKeysAPI(t *testing.T) {
	s := StartServer(t)
	k := &sshKit{t: t, s: s, home: t.TempDir()}
	alice := s.CreateUser("alice")
	k.createRepo(alice.Token, "", "app", true)
	k.createRepo(alice.Token, "", "other", true)
	_, roPub := k.keygen("ro")
	_, rwPub := k.keygen("rw")
	_, userPub := k.keygen("user")
	k.addUserKey(alice, "laptop", userPub)

	ro := dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "ci-ro", "key": roPub + "  ", "read_only": true}, 201, "")
	fields := strings.Fields(roPub)
	if ro.ID == 0 || ro.KeyID == 0 || ro.Title != "ci-ro" || !ro.ReadOnly || ro.Key != fields[0]+" "+fields[1] ||
		!strings.HasPrefix(ro.Fingerprint, "SHA256:") || ro.Created.IsZero() || ro.Repository != nil ||
		ro.URL != fmt.Sprintf("%sapi/v1/repos/alice/app/keys/%d", s.URL, ro.ID) {
		t.Fatalf("created key: %+v", ro)
	}
	rw := dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "ci-rw", "key": rwPub}, 201, "")
	if rw.ReadOnly {
		t.Fatal("read_only must default to false (a read-write key), as in Gitea")
	}

	// Gitea's 422s.
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "again", "key": roPub}, 422, "This key has already been added to this repository")
	_, otherPub := k.keygen("other")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "ci-ro", "key": otherPub}, 422, "A key with the same name already exists")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "mine", "key": userPub}, 422, "Key content has been used as non-deploy key")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "bad", "key": "ssh-ed25519 AAAAnotakey"}, 422, "Invalid key content")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "two", "key": roPub + "\n" + rwPub}, 422, "")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"key": otherPub}, 422, "Title")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "nokey"}, 422, "Key")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": strings.Repeat("t", 51), "key": otherPub}, 422, "")
	resp := s.Do("POST", "api/v1/repos/alice/app/keys", Token(alice.Token), RawBody(`{"title": 1}`))
	if resp.Status != 422 {
		t.Fatalf("wrong JSON type: %d %s", resp.Status, resp.Body)
	}

	// The same key may serve several repositories; key_id names the content.
	shared := dkCreate(t, s, alice.Token, "alice/other", map[string]any{"title": "ci-ro", "key": roPub, "read_only": true}, 201, "")
	if shared.KeyID != ro.KeyID || shared.ID == ro.ID || shared.Fingerprint != ro.Fingerprint {
		t.Fatalf("shared key: %+v, first: %+v", shared, ro)
	}

	// Lists: owner sees the repository, filters, paging, fixed query count.
	list, resp := dkList(t, s, alice.Token, "alice/app", "")
	if len(list) != 2 || list[0].ID != ro.ID || list[1].ID != rw.ID || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("list: %+v (total %s)", list, resp.Header.Get("X-Total-Count"))
	}
	for _, key := range list {
		if key.Repository == nil || key.Repository.FullName != "alice/app" || key.Key == "" {
			t.Fatalf("the owner's list lacks the repository or key: %+v", key)
		}
	}
	if !list[0].ReadOnly || list[1].ReadOnly {
		t.Fatalf("read_only in list: %+v", list)
	}
	page2, resp2 := dkList(t, s, alice.Token, "alice/app", "?limit=1&page=2")
	if len(page2) != 1 || page2[0].ID != rw.ID || resp2.Header.Get("X-Total-Count") != "2" || !strings.Contains(resp2.Header.Get("Link"), `rel="first"`) {
		t.Fatalf("page 2: %+v %v", page2, resp2.Header)
	}
	if q1, q2 := resp.Header.Get("X-Cairn-Query-Count"), resp2.Header.Get("X-Cairn-Query-Count"); q1 == "" || q1 != q2 {
		t.Fatalf("query count depends on the page size: %s vs %s", q1, q2)
	}
	byFP, _ := dkList(t, s, alice.Token, "alice/app", "?fingerprint="+strings.ReplaceAll(rw.Fingerprint, "+", "%2B"))
	if len(byFP) != 1 || byFP[0].ID != rw.ID {
		t.Fatalf("fingerprint filter: %+v", byFP)
	}
	byKeyID, _ := dkList(t, s, alice.Token, "alice/other", fmt.Sprintf("?key_id=%d", ro.KeyID))
	if len(byKeyID) != 1 || byKeyID[0].ID != shared.ID {
		t.Fatalf("key_id filter: %+v", byKeyID)
	}
	if none, _ := dkList(t, s, alice.Token, "alice/other", fmt.Sprintf("?key_id=%d", rw.KeyID)); len(none) != 0 {
		t.Fatalf("key_id of a key the repository does not have: %+v", none)
	}

	// Get one; keys of another repository are not found here.
	resp = s.Do("GET", fmt.Sprintf("api/v1/repos/alice/app/keys/%d", rw.ID), Token(alice.Token))
	var one dkKey
	resp.Decode(t, &one)
	if resp.Status != 200 || one.ID != rw.ID || one.Repository == nil || one.Fingerprint != rw.Fingerprint {
		t.Fatalf("get key: %d %s", resp.Status, resp.Body)
	}
	for _, path := range []string{fmt.Sprintf("alice/app/keys/%d", shared.ID), "alice/app/keys/99999", "alice/app/keys/abc"} {
		if resp := s.Do("GET", "api/v1/repos/"+path, Token(alice.Token)); resp.Status != 404 {
			t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
		}
	}

	// The Go SDK reads the same JSON.
	sdk := s.Client(alice.Token)
	sdkList, _, err := sdk.ListDeployKeys("alice", "app", gitea.ListDeployKeysOptions{})
	if err != nil || len(sdkList) != 2 || sdkList[1].ID != rw.ID || sdkList[1].Repository == nil || sdkList[1].Created.IsZero() {
		t.Fatalf("SDK list: %v %+v", err, sdkList)
	}
	made, _, err := sdk.CreateDeployKey("alice", "app", gitea.CreateKeyOption{Title: "sdk", Key: otherPub, ReadOnly: true})
	if err != nil || !made.ReadOnly || made.Title != "sdk" {
		t.Fatalf("SDK create: %v %+v", err, made)
	}
	if _, err := sdk.DeleteDeployKey("alice", "app", made.ID); err != nil {
		t.Fatalf("SDK delete: %v", err)
	}

	// Who may manage keys: repository administrators only.
	ok := newOrgKit(t, s)
	ok.createOrg(alice, "acme", "public")
	k.createRepo(alice.Token, "", "pub", false)
	k.createRepo(alice.Token, "acme", "svc", false)
	admins := ok.createTeam(alice, "acme", map[string]any{"name": "admins", "permission": "admin", "units": []string{"repo.code"}, "includes_all_repositories": true})
	readers := ok.createTeam(alice, "acme", map[string]any{"name": "readers", "permission": "read", "units": []string{"repo.code"}, "includes_all_repositories": true})
	eve, bob, carol := s.CreateUser("eve"), s.CreateUser("bob"), s.CreateUser("carol")
	ok.addToTeam(alice, admins.ID, "eve")
	ok.addToTeam(alice, readers.ID, "bob")
	_, evePub := k.keygen("eve")
	byAdmin := dkCreate(t, s, eve.Token, "acme/svc", map[string]any{"title": "deploy", "key": evePub, "read_only": true}, 201, "")
	if list, _ := dkList(t, s, eve.Token, "acme/svc", ""); len(list) != 1 || list[0].Repository != nil {
		t.Fatalf("a team admin (not the owner) must not get the repository in the list: %+v", list)
	}
	if list, _ := dkList(t, s, s.AdminTok, "acme/svc", ""); len(list) != 1 || list[0].Repository == nil {
		t.Fatalf("a site admin gets the repository in the list: %+v", list)
	}
	checks := []struct {
		who, method, path string
		tok               string
		want              int
	}{
		{"reader", "GET", "acme/svc/keys", bob.Token, 403},
		{"reader", "POST", "acme/svc/keys", bob.Token, 403},
		{"reader", "DELETE", fmt.Sprintf("acme/svc/keys/%d", byAdmin.ID), bob.Token, 403},
		{"stranger", "GET", "acme/svc/keys", carol.Token, 403},
		{"stranger", "GET", "alice/pub/keys", carol.Token, 403},
		{"stranger", "GET", "alice/app/keys", carol.Token, 404},
		{"stranger", "GET", fmt.Sprintf("alice/app/keys/%d", ro.ID), carol.Token, 404},
		{"stranger", "DELETE", fmt.Sprintf("alice/app/keys/%d", ro.ID), carol.Token, 404},
		{"signed out", "GET", "alice/app/keys", "", 404},
		{"signed out", "GET", "alice/pub/keys", "", 401},
		{"signed out", "POST", "alice/pub/keys", "", 401},
	}
	for _, c := range checks {
		opts := []RequestOption{Token(c.tok)}
		if c.method == "POST" {
			opts = append(opts, JSON(map[string]any{"title": "x", "key": otherPub}))
		}
		if resp := s.Do(c.method, "api/v1/repos/"+c.path, opts...); resp.Status != c.want {
			t.Fatalf("%s %s %s: %d, want %d: %s", c.who, c.method, c.path, resp.Status, c.want, resp.Body)
		}
	}
	// A read-only token cannot add keys.
	roTok := s.CreateToken("alice", alice.Password, "read-only", "read:repository")
	if resp := s.Do("POST", "api/v1/repos/alice/app/keys", Token(roTok), JSON(map[string]any{"title": "x", "key": otherPub})); resp.Status != 403 {
		t.Fatalf("read:repository token created a key: %d %s", resp.Status, resp.Body)
	}

	// Deletion.
	path := fmt.Sprintf("api/v1/repos/alice/app/keys/%d", ro.ID)
	if resp := s.Do("DELETE", path, Token(alice.Token)); resp.Status != 204 {
		t.Fatalf("delete: %d %s", resp.Status, resp.Body)
	}
	for _, p := range []string{path, fmt.Sprintf("api/v1/repos/alice/app/keys/%d", shared.ID)} {
		if resp := s.Do("DELETE", p, Token(alice.Token)); resp.Status != 404 {
			t.Fatalf("delete a key the repository does not have (%s): %d %s", p, resp.Status, resp.Body)
		}
	}
	if list, _ := dkList(t, s, alice.Token, "alice/other", ""); len(list) != 1 || list[0].ID != shared.ID {
		t.Fatalf("deleting the key from one repository touched another: %+v", list)
	}
	// Deleting a repository deletes its keys: the content is free again.
	if resp := s.Do("DELETE", "api/v1/repos/alice/other", Token(alice.Token)); resp.Status != 204 {
		t.Fatalf("delete repo: %d %s", resp.Status, resp.Body)
	}
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "ci-ro-again", "key": roPub}, 201, "")
}

// TestDeployKeysSSH: read-only keys clone but do not push, read-write keys
// push, and a deploy key reaches only its own repositories.
func TestDeployKeysSSH(t *testing.T) {
	s := StartServer(t, WithSSH())
	k := newSSHKit(t, s)
	alice, aliceKey := k.userWithKey("alice")
	for _, name := range []string{"app", "lib", "site"} {
		k.createRepo(alice.Token, "", name, true)
	}
	work := k.newWorkTree("main.go", "package main\n")
	for _, name := range []string{"app", "lib", "site"} {
		k.mustGit(aliceKey, work, "push", "-q", k.url("alice/"+name), "main")
	}
	roKey, roPub := k.keygen("ro")
	rwKey, rwPub := k.keygen("rw")
	dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "ro", "key": roPub, "read_only": true}, 201, "")
	dkCreate(t, s, alice.Token, "alice/lib", map[string]any{"title": "ro", "key": roPub, "read_only": true}, 201, "")
	rw := dkCreate(t, s, alice.Token, "alice/app", map[string]any{"title": "rw", "key": rwPub, "read_only": false}, 201, "")

	// Read-only: clones every repository it belongs to, pushes nowhere.
	if got := k.cloneAndRead(roKey, "alice/app", "main.go"); got != "package main\n" {
		t.Fatalf("read-only clone = %q", got)
	}
	if got := k.cloneAndRead(roKey, "alice/lib", "main.go"); got != "package main\n" {
		t.Fatalf("read-only clone of the second repository = %q", got)
	}
	k.commit(work, "main.go", "package main // v2\n")
	k.failGit(roKey, work, "This deploy key is read-only", "push", k.url("alice/app"), "main")
	k.failGit(roKey, "", "Repository not found or you do not have access.", "ls-remote", k.url("alice/site"))

	// Read-write: pushes to its repository only.
	k.mustGit(rwKey, work, "push", "-q", k.url("alice/app"), "main")
	if got := k.cloneAndRead(aliceKey, "alice/app", "main.go"); got != "package main // v2\n" {
		t.Fatalf("after the deploy key push main.go = %q", got)
	}
	for _, repo := range []string{"alice/lib", "alice/site", "alice/nope"} {
		k.failGit(rwKey, work, "Repository not found or you do not have access.", "push", k.url(repo), "main")
		k.failGit(rwKey, "", "Repository not found or you do not have access.", "ls-remote", k.url(repo))
	}
	// The push was recorded like any other.
	var info struct {
		Empty bool `json:"empty"`
	}
	s.Do("GET", "api/v1/repos/alice/app", Token(alice.Token)).Decode(t, &info)
	if info.Empty {
		t.Fatal("the repository is still empty after pushes")
	}
	// A deploy key has no account: no shell greeting by name, no other commands.
	stdout, stderr, code := k.ssh(rwKey, []string{"-T"}, "")
	if code != 1 || !strings.Contains(stdout+stderr, "deploy key") || !strings.Contains(stdout+stderr, "Cairn does not provide shell access.") {
		t.Fatalf("shell with a deploy key: exit %d, %s %s", code, stdout, stderr)
	}

	// Archived repositories refuse deploy key pushes too.
	if resp := s.Do("PATCH", "api/v1/repos/alice/app", Token(alice.Token), JSON(map[string]any{"archived": true})); resp.Status != 200 {
		t.Fatalf("archive: %d %s", resp.Status, resp.Body)
	}
	k.commit(work, "main.go", "package main // v3\n")
	k.failGit(rwKey, work, "The repository is archived and read-only.", "push", k.url("alice/app"), "main")
	if resp := s.Do("PATCH", "api/v1/repos/alice/app", Token(alice.Token), JSON(map[string]any{"archived": false})); resp.Status != 200 {
		t.Fatalf("unarchive: %d %s", resp.Status, resp.Body)
	}

	// A deleted deploy key no longer opens anything.
	if resp := s.Do("DELETE", fmt.Sprintf("api/v1/repos/alice/app/keys/%d", rw.ID), Token(alice.Token)); resp.Status != 204 {
		t.Fatalf("delete: %d %s", resp.Status, resp.Body)
	}
	k.failGit(rwKey, "", "is not registered", "ls-remote", k.url("alice/app"))
}

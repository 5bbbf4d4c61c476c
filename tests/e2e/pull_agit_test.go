package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// agitPull is what the AGit tests read of a pull request: from the pull
// request API when it answers, else from the issue API.
type agitPull struct {
	Title, Body, Poster string
	HeadBranch, HeadSHA string
	BaseBranch          string
	viaPullAPI          bool
}

// agitGetPull loads pull request n of full as tok sees it; ok is false when
// it does not exist.
func agitGetPull(t *testing.T, s *Server, tok, full string, n int) (agitPull, bool) {
	t.Helper()
	var out agitPull
	resp := s.API("GET", "repos/"+full+"/pulls/"+strconv.Itoa(n), tok, nil)
	if resp.Status == 200 {
		var p struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
			Body   string `json:"body"`
			User   struct {
				Login string `json:"login"`
			} `json:"user"`
			Head struct {
				Name string `json:"label"`
				Ref  string `json:"ref"`
				Sha  string `json:"sha"`
			} `json:"head"`
			Base struct {
				Ref string `json:"ref"`
			} `json:"base"`
		}
		if err := json.Unmarshal(resp.Body, &p); err == nil && p.Number == n {
			return agitPull{Title: p.Title, Body: p.Body, Poster: p.User.Login, HeadBranch: p.Head.Name,
				HeadSHA: p.Head.Sha, BaseBranch: p.Base.Ref, viaPullAPI: true}, true
		}
	}
	resp = s.API("GET", "repos/"+full+"/issues/"+strconv.Itoa(n), tok, nil)
	if resp.Status == 404 {
		return out, false
	}
	var is struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		User  struct {
			Login string `json:"login"`
		} `json:"user"`
		PullRequest *struct{} `json:"pull_request"`
	}
	resp.Decode(t, &is)
	if resp.Status != 200 || is.PullRequest == nil {
		t.Fatalf("issue %d of %s: %d, pull_request %v: %s", n, full, resp.Status, is.PullRequest, resp.Body)
	}
	return agitPull{Title: is.Title, Body: is.Body, Poster: is.User.Login}, true
}

// agitRef is the commit refs/pull/n/head points at in the server's
// repository directory ("" when it does not exist).
func agitRef(k *rtKit, id int64, n int) string {
	k.t.Helper()
	want := "refs/pull/" + strconv.Itoa(n) + "/head "
	for _, line := range strings.Split(k.serverRefs(id), "\n") {
		if sha, ok := strings.CutPrefix(line, want); ok {
			return sha
		}
	}
	return ""
}

// agitNoForRefs fails when refs/for/ exists anywhere: advertised or stored.
func agitNoForRefs(k *rtKit, id int64, lsRemote string) {
	k.t.Helper()
	if strings.Contains(lsRemote, "refs/for/") || strings.Contains(k.serverRefs(id), "refs/for/") {
		k.t.Fatalf("refs/for/ was stored:\n%s\n%s", lsRemote, k.serverRefs(id))
	}
}

// agitCheckPull waits for pull request n to exist and checks it.
func agitCheckPull(t *testing.T, s *Server, tok, full string, n int, want agitPull) agitPull {
	t.Helper()
	var got agitPull
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ok bool
		got, ok = agitGetPull(t, s, tok, full, n)
		if ok && (!got.viaPullAPI || want.HeadSHA == "" || got.HeadSHA == want.HeadSHA) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pull request %d of %s: exists %v, %+v, want %+v", n, full, ok, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("pull request %d checked through the %s API", n, map[bool]string{true: "pull request", false: "issue"}[got.viaPullAPI])
	if got.Title != want.Title || got.Body != want.Body || got.Poster != want.Poster {
		t.Fatalf("pull request %d of %s = %+v, want %+v", n, full, got, want)
	}
	if got.viaPullAPI && (got.BaseBranch != want.BaseBranch || (want.HeadBranch != "" && got.HeadBranch != want.HeadBranch)) {
		t.Fatalf("pull request %d of %s branches = %+v, want %+v", n, full, got, want)
	}
	return got
}

// agitEventually waits up to ten seconds for ok.
func agitEventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
	}
}

// TestAGitHTTP: pushing to refs/for/<base>/<topic> over HTTP opens a pull
// request (also with -o topic/title/description), a second push updates it
// (force-push only with the option), readers may open one but not push a
// branch, strangers and anonymous users cannot, and refs/for/ is never
// stored.
func TestAGitHTTP(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "agit", "private": true, "auto_init": true})
	k.want(k.api("PUT", "repos/alice/agit/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "bob reads")
	const full = "alice/agit"

	dir := k.mustClone(alice.Name, alice.Password, full)
	first := k.commit(dir, map[string]string{"a.txt": "a\n"}, "Add a\n\nThe letter a.")

	t.Run("open with refs/for/main/topic", func(t *testing.T) {
		out := k.mustGit(dir, "push", "origin", "HEAD:refs/for/main/topic1")
		if !strings.Contains(out, "Visit the existing pull request:") || !strings.Contains(out, s.URL+full+"/pulls/1") {
			t.Fatalf("push output lacks the pull request address:\n%s", out)
		}
		agitCheckPull(t, s, alice.Token, full, 1, agitPull{Title: "Add a", Body: "The letter a.", Poster: "alice",
			HeadBranch: "alice/topic1", HeadSHA: first, BaseBranch: "main"})
		if got := agitRef(k, r.ID, 1); got != first {
			t.Fatalf("refs/pull/1/head = %q, want %s", got, first)
		}
		agitNoForRefs(k, r.ID, k.mustGit(dir, "ls-remote", "origin"))
		// main did not move.
		if ls := k.mustGit(dir, "ls-remote", "origin", "refs/heads/main"); strings.HasPrefix(ls, first) {
			t.Fatalf("main moved: %s", ls)
		}
	})

	t.Run("open with -o topic, title and description", func(t *testing.T) {
		sha := k.commit(dir, map[string]string{"b.txt": "b\n"}, "Add b")
		out := k.mustGit(dir, "push", "-o", "topic=feature", "-o", "title=Custom title", "-o", "description=Custom body",
			"origin", "HEAD:refs/for/main")
		if !strings.Contains(out, s.URL+full+"/pulls/2") {
			t.Fatalf("push output lacks the pull request address:\n%s", out)
		}
		agitCheckPull(t, s, alice.Token, full, 2, agitPull{Title: "Custom title", Body: "Custom body", Poster: "alice",
			HeadBranch: "alice/feature", HeadSHA: sha, BaseBranch: "main"})
		if got := agitRef(k, r.ID, 2); got != sha {
			t.Fatalf("refs/pull/2/head = %q, want %s", got, sha)
		}
		// Without a topic, refused.
		out, err := k.git(dir, nil, "push", "origin", "HEAD:refs/for/main")
		if err == nil || !strings.Contains(out, "topic-branch is not set") {
			t.Fatalf("push without a topic: %v\n%s", err, out)
		}
		// A base branch that does not exist: refused.
		out, err = k.git(dir, nil, "push", "origin", "HEAD:refs/for/nobranch/x")
		if err == nil || !strings.Contains(out, "Unexpected ref") {
			t.Fatalf("push to a missing base: %v\n%s", err, out)
		}
		if _, ok := agitGetPull(t, s, alice.Token, full, 3); ok {
			t.Fatal("a refused push opened a pull request")
		}
	})

	t.Run("update, same commit, force-push", func(t *testing.T) {
		k.mustGit(dir, "checkout", "-q", "-b", "t1", first)
		second := k.commit(dir, map[string]string{"a.txt": "a2\n"}, "More a")
		out := k.mustGit(dir, "push", "origin", "HEAD:refs/for/main/topic1")
		if !strings.Contains(out, s.URL+full+"/pulls/1") {
			t.Fatalf("update output lacks the pull request address:\n%s", out)
		}
		if got := agitRef(k, r.ID, 1); got != second {
			t.Fatalf("after the update refs/pull/1/head = %q, want %s", got, second)
		}
		agitCheckPull(t, s, alice.Token, full, 1, agitPull{Title: "Add a", Body: "The letter a.", Poster: "alice",
			HeadBranch: "alice/topic1", HeadSHA: second, BaseBranch: "main"})
		if _, ok := agitGetPull(t, s, alice.Token, full, 3); ok {
			t.Fatal("the update opened another pull request")
		}
		// The same commit again.
		out, err := k.git(dir, nil, "push", "origin", "HEAD:refs/for/main/topic1")
		if err == nil || !strings.Contains(out, "new commit is same with old commit") {
			t.Fatalf("same commit: %v\n%s", err, out)
		}
		// A rewritten commit needs force-push.
		k.mustGit(dir, "commit", "-q", "--amend", "-m", "More a, rewritten")
		amended := k.mustGit(dir, "rev-parse", "HEAD")
		out, err = k.git(dir, nil, "push", "origin", "HEAD:refs/for/main/topic1")
		if err == nil || !strings.Contains(out, "request `force-push` push option") {
			t.Fatalf("non-fast-forward update: %v\n%s", err, out)
		}
		if got := agitRef(k, r.ID, 1); got != second {
			t.Fatalf("a refused update moved refs/pull/1/head to %q", got)
		}
		out, err = k.git(dir, nil, "push", "-o", "force-push=true", "origin", "HEAD:refs/for/main/topic1")
		if err != nil || !strings.Contains(out, "forced update") {
			t.Fatalf("forced update: %v\n%s", err, out)
		}
		if got := agitRef(k, r.ID, 1); got != amended {
			t.Fatalf("after the forced update refs/pull/1/head = %q, want %s", got, amended)
		}
		// Both updates are on the timeline, the second as a force push.
		var pushes []timelineEntry
		for _, c := range timelineOf(t, s, alice, full, 1, "") {
			if c.Type == "pull_push" {
				pushes = append(pushes, c)
			}
		}
		if len(pushes) != 2 || strings.Contains(pushes[0].Body, `"is_force_push":true`) ||
			!strings.Contains(pushes[1].Body, `"is_force_push":true`) {
			t.Fatalf("pull_push timeline entries: %+v", pushes)
		}
		// The background check finds it mergeable against main.
		agitEventually(t, "pull request 1 mergeable", func() bool {
			resp := s.API("GET", "repos/"+full+"/pulls/1", alice.Token, nil)
			var p struct {
				Mergeable bool `json:"mergeable"`
				Head      struct {
					Sha string `json:"sha"`
				} `json:"head"`
			}
			return resp.Status == 200 && json.Unmarshal(resp.Body, &p) == nil && p.Mergeable && p.Head.Sha == amended
		})
		agitNoForRefs(k, r.ID, k.mustGit(dir, "ls-remote", "origin"))
	})

	t.Run("a reader opens one but pushes no branch", func(t *testing.T) {
		bdir := k.mustClone(bob.Name, bob.Password, full)
		sha := k.commit(bdir, map[string]string{"bob.txt": "bob\n"}, "Bob's idea")
		before := k.serverRefs(r.ID)
		for _, refs := range [][]string{{"HEAD:main"}, {"HEAD:refs/heads/bob"}, {"HEAD:refs/tags/v1"},
			{"HEAD:refs/for/main/mixed", "HEAD:refs/heads/bob2"}} {
			out, err := k.git(bdir, nil, append([]string{"push", "origin"}, refs...)...)
			if err == nil || !strings.Contains(out, "You do not have permission to push to this repository.") {
				t.Fatalf("reader push %v: %v\n%s", refs, err, out)
			}
		}
		if after := k.serverRefs(r.ID); after != before {
			t.Fatalf("refused reader pushes changed refs:\n%s\n%s", before, after)
		}
		out := k.mustGit(bdir, "push", "origin", "HEAD:refs/for/main/idea")
		if !strings.Contains(out, s.URL+full+"/pulls/3") {
			t.Fatalf("reader's push output lacks the pull request address:\n%s", out)
		}
		agitCheckPull(t, s, alice.Token, full, 3, agitPull{Title: "Bob's idea", Body: "Bob's idea", Poster: "bob",
			HeadBranch: "bob/idea", HeadSHA: sha, BaseBranch: "main"})
		if got := agitRef(k, r.ID, 3); got != sha {
			t.Fatalf("refs/pull/3/head = %q, want %s", got, sha)
		}
		// Bob's topic is his own: alice pushing the same topic opens another.
		k.mustGit(dir, "push", "origin", "HEAD:refs/for/main/idea")
		agitCheckPull(t, s, alice.Token, full, 4, agitPull{Title: "More a, rewritten", Body: "More a, rewritten", Poster: "alice",
			HeadBranch: "alice/idea", BaseBranch: "main"})
	})

	t.Run("strangers and anonymous users cannot", func(t *testing.T) {
		work := k.workTree(map[string]string{"x.txt": "x\n"})
		out, err := k.git(work, nil, "push", k.url(carol.Name, carol.Password, full), "HEAD:refs/for/main/x")
		if err == nil || !strings.Contains(out, "Repository not found") {
			t.Fatalf("stranger push: %v\n%s", err, out)
		}
		out, err = k.git(work, nil, "push", k.url("", "", full), "HEAD:refs/for/main/x")
		if err == nil || !strings.Contains(out, "could not read Username") {
			t.Fatalf("anonymous push: %v\n%s", err, out)
		}
		// A public repository: anonymous users still have to sign in.
		k.create(alice.Token, "user/repos", map[string]any{"name": "open", "auto_init": true})
		out, err = k.git(work, nil, "push", k.url("", "", "alice/open"), "HEAD:refs/for/main/x")
		if err == nil || !strings.Contains(out, "could not read Username") {
			t.Fatalf("anonymous push to a public repository: %v\n%s", err, out)
		}
		// A read-only token cannot push to refs/for/ either.
		ro := s.CreateToken(bob.Name, bob.Password, "ro", "read:repository")
		bdir := k.mustClone(bob.Name, bob.Password, full)
		k.commit(bdir, map[string]string{"ro.txt": "ro\n"}, "read-only token")
		out, err = k.git(bdir, nil, "push", k.url(bob.Name, ro, full), "HEAD:refs/for/main/ro")
		if err == nil {
			t.Fatalf("push with a read-only token:\n%s", out)
		}
		if _, ok := agitGetPull(t, s, alice.Token, full, 5); ok {
			t.Fatal("a refused push opened a pull request")
		}
	})
}

// TestAGitSSH: the same over SSH: open, update, a reader opens one but
// cannot push a branch, a stranger does not see a private repository.
func TestAGitSSH(t *testing.T) {
	s := StartServer(t, WithSSH())
	k := newSSHKit(t, s)
	rk := newRTKit(t, s)
	alice, aliceKey := k.userWithKey("alice")
	_, bobKey := k.userWithKey("bob")
	_, carolKey := k.userWithKey("carol")
	r := rk.create(alice.Token, "user/repos", map[string]any{"name": "agit", "private": true, "auto_init": true})
	rk.want(rk.api("PUT", "repos/alice/agit/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "bob reads")
	const full = "alice/agit"

	dir := t.TempDir()
	k.mustGit(aliceKey, dir, "clone", "-q", k.url(full), ".")
	k.commit(dir, "a.txt", "a\n")
	first := strings.TrimSpace(k.mustGit(aliceKey, dir, "rev-parse", "HEAD"))
	out := k.mustGit(aliceKey, dir, "push", k.url(full), "HEAD:refs/for/main/topic")
	if !strings.Contains(out, "Visit the existing pull request:") || !strings.Contains(out, s.URL+full+"/pulls/1") {
		t.Fatalf("push output lacks the pull request address:\n%s", out)
	}
	agitCheckPull(t, s, alice.Token, full, 1, agitPull{Title: "change a.txt", Body: "change a.txt", Poster: "alice",
		HeadBranch: "alice/topic", HeadSHA: first, BaseBranch: "main"})
	if got := agitRef(rk, r.ID, 1); got != first {
		t.Fatalf("refs/pull/1/head = %q, want %s", got, first)
	}
	// Update with -o topic on refs/for/main.
	k.commit(dir, "a.txt", "a2\n")
	second := strings.TrimSpace(k.mustGit(aliceKey, dir, "rev-parse", "HEAD"))
	k.mustGit(aliceKey, dir, "push", "-o", "topic=topic", k.url(full), "HEAD:refs/for/main")
	if got := agitRef(rk, r.ID, 1); got != second {
		t.Fatalf("after the update refs/pull/1/head = %q, want %s", got, second)
	}
	if _, ok := agitGetPull(t, s, alice.Token, full, 2); ok {
		t.Fatal("the update opened another pull request")
	}
	// Force-push needs the option.
	k.mustGit(aliceKey, dir, "commit", "-q", "--amend", "-m", "rewritten")
	k.failGit(aliceKey, dir, "request `force-push` push option", "push", k.url(full), "HEAD:refs/for/main/topic")
	k.mustGit(aliceKey, dir, "push", "-o", "force-push", k.url(full), "HEAD:refs/for/main/topic")
	if got := agitRef(rk, r.ID, 1); got == second || got == "" {
		t.Fatalf("the forced update left refs/pull/1/head at %q", got)
	}

	// A reader: refs/for/ yes, branches no.
	bdir := t.TempDir()
	k.mustGit(bobKey, bdir, "clone", "-q", k.url(full), ".")
	k.commit(bdir, "bob.txt", "bob\n")
	before := rk.serverRefs(r.ID)
	k.failGit(bobKey, bdir, "You do not have permission to push to this repository.", "push", k.url(full), "HEAD:main")
	k.failGit(bobKey, bdir, "You do not have permission to push to this repository.", "push", k.url(full), "HEAD:refs/heads/bob")
	if after := rk.serverRefs(r.ID); after != before {
		t.Fatalf("refused reader pushes changed refs:\n%s\n%s", before, after)
	}
	out = k.mustGit(bobKey, bdir, "push", k.url(full), "HEAD:refs/for/main/idea")
	if !strings.Contains(out, s.URL+full+"/pulls/2") {
		t.Fatalf("reader's push output lacks the pull request address:\n%s", out)
	}
	agitCheckPull(t, s, alice.Token, full, 2, agitPull{Title: "change bob.txt", Body: "change bob.txt", Poster: "bob",
		HeadBranch: "bob/idea", BaseBranch: "main"})

	// A stranger does not see the private repository.
	k.failGit(carolKey, bdir, "Repository not found or you do not have access.", "push", k.url(full), "HEAD:refs/for/main/x")
	if ls := k.mustGit(aliceKey, dir, "ls-remote", k.url(full)); strings.Contains(ls, "refs/for/") {
		t.Fatalf("refs/for/ advertised:\n%s", ls)
	}
	agitNoForRefs(rk, r.ID, "")
}

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestForkSurvivesOriginal(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	k.repo(alice, "proj", false, true)
	dir, ok := k.clone(alice, "alice/proj")
	if !ok {
		t.Fatal("clone original")
	}
	if out, err := k.commitPush(dir, "more.txt"); err != nil {
		t.Fatalf("push to original: %v %s", err, out)
	}
	k.mustGit(dir, "tag", "v1")
	k.mustGit(dir, "push", "-q", "origin", "v1")
	head := k.mustGit(dir, "rev-parse", "HEAD")

	fork, resp, err := s.Client(bob.Token).CreateFork("alice", "proj", gitea.CreateForkOption{})
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("fork: %v %v", resp, err)
	}
	if !fork.Fork || fork.Parent == nil || fork.Parent.FullName != "alice/proj" || fork.FullName != "bob/proj" || fork.Empty || fork.DefaultBranch != "main" {
		t.Fatalf("fork JSON: %+v parent %+v", fork, fork.Parent)
	}
	_, orig := k.get(alice.Token, "alice/proj")
	if orig.Forks != 1 {
		t.Fatalf("num_forks = %d", orig.Forks)
	}
	k.want(k.do("POST", "repos/alice/proj/forks", bob.Token, map[string]any{"name": "again"}), 409, "already forked", "second fork")
	k.want(k.do("POST", "repos/alice/proj/forks", bob.Token, map[string]any{"name": "bad/name"}), 422, "", "bad fork name")
	k.want(k.do("POST", "repos/alice/proj/forks", "", nil), 401, "", "signed-out fork")

	// Into an organization: members who may create repositories only.
	k.want(k.do("POST", "orgs", carol.Token, map[string]any{"username": "acme"}), 201, "", "create org")
	k.want(k.do("POST", "repos/alice/proj/forks", bob.Token, map[string]any{"organization": "acme"}), 403, "", "fork into foreign org")
	k.want(k.do("POST", "repos/alice/proj/forks", bob.Token, map[string]any{"organization": "nosuchorg"}), 422, "", "fork into missing org")
	resp2 := k.do("POST", "repos/alice/proj/forks", carol.Token, map[string]any{"organization": "acme", "name": "acme-proj"})
	k.want(resp2, 202, "", "fork into own org")
	resp2 = k.do("GET", "repos/alice/proj/forks", "", nil)
	k.want(resp2, 200, "", "list forks")
	if got := k.fullNames(resp2); len(got) != 2 || resp2.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("forks %v", got)
	}
	if st, _ := k.get("", "acme/acme-proj"); st != 200 {
		t.Fatalf("org fork: %d", st)
	}

	// A private original gives a private fork; strangers cannot fork it.
	k.repo(alice, "hidden", true, true)
	k.want(k.do("POST", "repos/alice/hidden/forks", bob.Token, nil), 404, "", "fork invisible repo")
	k.want(k.do("PUT", "repos/alice/hidden/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "add bob")
	resp2 = k.do("POST", "repos/alice/hidden/forks", bob.Token, nil)
	k.want(resp2, 202, "", "collaborator forks private repo")
	var pf gitea.Repository
	resp2.Decode(t, &pf)
	if !pf.Private {
		t.Fatal("fork of a private repository is public")
	}
	if st, _ := k.get(carol.Token, "bob/hidden"); st != 404 {
		t.Fatalf("stranger sees private fork: %d", st)
	}

	// The original goes; the fork keeps its history and tags.
	k.want(k.do("DELETE", "repos/alice/proj", alice.Token, nil), 204, "", "delete original")
	st, f := k.get(bob.Token, "bob/proj")
	if st != 200 || f.Parent != nil {
		t.Fatalf("fork after deletion: %d parent %+v", st, f.Parent)
	}
	fdir, ok := k.clone(bob, "bob/proj")
	if !ok {
		t.Fatal("cannot clone the fork after the original was deleted")
	}
	if got := k.mustGit(fdir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("fork HEAD %s, want %s", got, head)
	}
	if got := k.mustGit(fdir, "rev-parse", "v1"); got != head {
		t.Fatalf("fork tag v1 %s", got)
	}
	if _, err := os.Stat(filepath.Join(fdir, "more.txt")); err != nil {
		t.Fatal("fork lost a file")
	}
	k.mustGit(fdir, "fsck", "--no-progress")
	if out, err := k.commitPush(fdir, "fork-only.txt"); err != nil {
		t.Fatalf("push to fork: %v %s", err, out)
	}
}

func TestForkNameConflictAndEmpty(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	k.repo(alice, "pub", false, false)
	k.repo(bob, "pub", false, false)
	k.want(k.do("POST", "repos/alice/pub/forks", bob.Token, nil), 409, "", "fork onto an existing name")
	resp := k.do("POST", "repos/alice/pub/forks", bob.Token, map[string]any{"name": "pub2"})
	k.want(resp, 202, "", "fork of an empty repository")
	var f gitea.Repository
	resp.Decode(t, &f)
	if !f.Empty || !f.Fork {
		t.Fatalf("empty fork %+v", f)
	}
}

func TestForcePrivateForkMigrateGenerate(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_FORCE_PRIVATE=true", "CAIRN_SECURITY_IMPORT_LOCAL_PATHS=true"))
	k := newRelKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.repo(alice, "pub", false, true)
	k.want(k.do("PATCH", "repos/alice/pub", s.AdminTok, map[string]any{"private": false, "template": true}), 200, "", "admin makes it public")
	for _, c := range []struct {
		what, method, path string
		body               map[string]any
		status             int
	}{
		{"fork", "POST", "repos/alice/pub/forks", nil, 202},
		{"generate", "POST", "repos/alice/pub/generate", map[string]any{"owner": "bob", "name": "gen", "git_content": true}, 201},
	} {
		resp := k.do(c.method, c.path, bob.Token, c.body)
		k.want(resp, c.status, "", c.what)
		var r gitea.Repository
		resp.Decode(t, &r)
		if !r.Private {
			t.Fatalf("FORCE_PRIVATE %s is public", c.what)
		}
	}
	src, _ := relSourceRepo(k)
	resp := k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "mig", "private": false})
	k.want(resp, 201, "", "migrate")
	var r gitea.Repository
	resp.Decode(t, &r)
	if !r.Private {
		t.Fatal("FORCE_PRIVATE migration is public")
	}
}

func TestGenerateFromTemplate(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.repo(alice, "tmpl", false, true)
	dir, _ := k.clone(alice, "alice/tmpl")
	if out, err := k.commitPush(dir, "extra.txt"); err != nil {
		t.Fatalf("push: %v %s", err, out)
	}
	k.want(k.do("PUT", "repos/alice/tmpl/topics", alice.Token, map[string]any{"topics": []string{"starter"}}), 204, "", "topics")

	body := map[string]any{"owner": "bob", "name": "fromtmpl", "git_content": true, "topics": true, "private": true}
	k.want(k.do("POST", "repos/alice/tmpl/generate", bob.Token, body), 422, "not a template", "not a template yet")
	k.want(k.do("PATCH", "repos/alice/tmpl", alice.Token, map[string]any{"template": true}), 200, "", "make template")
	k.want(k.do("POST", "repos/alice/tmpl/generate", bob.Token, map[string]any{"owner": "bob", "name": "x"}), 422, "at least one template item", "no items")
	k.want(k.do("POST", "repos/alice/tmpl/generate", bob.Token, map[string]any{"owner": "alice", "name": "x", "git_content": true}), 403, "", "for another user")
	k.want(k.do("POST", "repos/alice/tmpl/generate", "", body), 401, "", "signed out")

	r, resp, err := s.Client(bob.Token).CreateRepoFromTemplate("alice", "tmpl", gitea.CreateRepoFromTemplateOption{
		Owner: "bob", Name: "fromtmpl", GitContent: true, Topics: true, Private: true,
	})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("generate: %v %v", resp, err)
	}
	if !r.Private || r.Empty || r.Template || len(r.Topics) != 1 || r.Topics[0] != "starter" {
		t.Fatalf("generated %+v", r)
	}
	k.want(k.do("POST", "repos/alice/tmpl/generate", bob.Token, body), 409, "", "duplicate name")
	gdir, ok := k.clone(bob, "bob/fromtmpl")
	if !ok {
		t.Fatal("clone generated repository")
	}
	if n := k.mustGit(gdir, "rev-list", "--count", "HEAD"); n != "1" {
		t.Fatalf("generated history has %s commits, want one fresh commit", n)
	}
	if _, err := os.Stat(filepath.Join(gdir, "extra.txt")); err != nil {
		t.Fatal("template file missing")
	}
	if k.mustGit(gdir, "rev-parse", "HEAD^{tree}") != k.mustGit(dir, "rev-parse", "HEAD^{tree}") {
		t.Fatal("generated tree differs from the template's")
	}
	k.mustGit(gdir, "fsck", "--no-progress")
	// The new repository stands alone: deleting the template does not hurt it.
	k.want(k.do("DELETE", "repos/alice/tmpl", alice.Token, nil), 204, "", "delete template")
	if _, ok := k.clone(bob, "bob/fromtmpl"); !ok {
		t.Fatal("generated repository depends on the template")
	}
}

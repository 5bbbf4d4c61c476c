package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// protectGit runs git in dir and returns its output and whether it failed.
func protectGit(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	out, err := clhGit(dir, args...)
	return out, err != nil
}

// protectClone clones alice/proj as u into a new directory.
func protectClone(t *testing.T, s *Server, u *User, owner, name string) string {
	t.Helper()
	dir := t.TempDir()
	contentsGit(t, dir, "clone", "-q", contentsCloneURL(s, u, owner, name), "w")
	return filepath.Join(dir, "w")
}

// protectCommit writes files in the clone and commits them.
func protectCommit(t *testing.T, dir, msg string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	contentsGit(t, dir, "add", "-A")
	contentsGit(t, dir, "commit", "-q", "-m", msg)
}

// wantRefused fails unless a push failed printing msg as a "remote:" line.
func wantRefused(t *testing.T, out string, failed bool, msg, what string) {
	t.Helper()
	if !failed {
		t.Fatalf("%s: push accepted:\n%s", what, out)
	}
	if !strings.Contains(out, "remote: "+msg) {
		t.Fatalf("%s: output lacks %q:\n%s", what, "remote: "+msg, out)
	}
}

func TestProtectBranchRulesAPI(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	addCollaborator(t, s, alice, "proj", "bob", "write")
	base := "repos/alice/proj/branch_protections"

	mustStatus(t, s.API("POST", base, bob.Token, map[string]any{"rule_name": "main"}), http.StatusForbidden, "writer creates a rule")
	mustStatus(t, s.API("POST", base, alice.Token, map[string]any{}), http.StatusBadRequest, "no name")
	for what, body := range map[string]map[string]any{
		"unknown user":       {"rule_name": "x", "push_whitelist_usernames": []string{"nobody"}},
		"bad glob":           {"rule_name": "rel/[a-"},
		"negative approvals": {"rule_name": "x", "required_approvals": -1},
		"bad file pattern":   {"rule_name": "x", "protected_file_patterns": "[a"},
	} {
		mustStatus(t, s.API("POST", base, alice.Token, body), http.StatusUnprocessableEntity, what)
	}
	r := s.API("POST", base, alice.Token, map[string]any{"branch_name": "main", "enable_push": true, "enable_push_whitelist": true,
		"push_whitelist_usernames": []string{"bob"}, "required_approvals": 2, "enable_status_check": true,
		"status_check_contexts": []string{"ci/*"}, "protected_file_patterns": "*.lock"})
	mustStatus(t, r, http.StatusCreated, "create")
	var got map[string]any
	r.Decode(t, &got)
	if got["rule_name"] != "main" || got["branch_name"] != "main" || got["required_approvals"].(float64) != 2 ||
		fmt.Sprint(got["push_whitelist_usernames"]) != "[bob]" || fmt.Sprint(got["status_check_contexts"]) != "[ci/*]" ||
		got["enable_push_whitelist"] != true || got["created_at"] == "" {
		t.Fatalf("created = %v", got)
	}
	mustStatus(t, s.API("POST", base, alice.Token, map[string]any{"rule_name": "main"}), http.StatusForbidden, "existing name")
	mustStatus(t, s.API("POST", base, alice.Token, map[string]any{"rule_name": "release/*"}), http.StatusCreated, "glob rule")
	// Only the fields given change.
	r = s.API("PATCH", base+"/main", alice.Token, map[string]any{"required_approvals": 1, "push_whitelist_usernames": []string{}})
	mustStatus(t, r, http.StatusOK, "edit")
	r.Decode(t, &got)
	if got["required_approvals"].(float64) != 1 || fmt.Sprint(got["push_whitelist_usernames"]) != "[]" ||
		got["enable_status_check"] != true || got["protected_file_patterns"] != "*.lock" {
		t.Fatalf("edited = %v", got)
	}
	mustStatus(t, s.API("PATCH", base+"/nope", alice.Token, map[string]any{}), http.StatusNotFound, "edit missing")
	var list []map[string]any
	s.API("GET", base, alice.Token, nil).Decode(t, &list)
	if len(list) != 2 || list[0]["rule_name"] != "main" {
		t.Fatalf("list = %v", list)
	}
	// Priorities: ids of no rule are ignored; the glob rule (created second) first.
	mustStatus(t, s.API("POST", base+"/priority", alice.Token, map[string]any{"ids": []int64{999, 2, 1}}), http.StatusNoContent, "priorities")
	s.API("GET", base, alice.Token, nil).Decode(t, &list)
	if len(list) != 2 || list[0]["rule_name"] != "release/*" || list[0]["priority"].(float64) != 2 || list[1]["priority"].(float64) != 3 {
		t.Fatalf("list by priority = %v", list)
	}
	// Rule names with slashes are reachable.
	mustStatus(t, s.API("POST", base+"/priority", alice.Token, map[string]any{"ids": []int64{}}), http.StatusNoContent, "priorities")
	mustStatus(t, s.API("GET", base+"/release/*", alice.Token, nil), http.StatusOK, "rule name with a slash")
	mustStatus(t, s.API("GET", base+"/release%2F*", alice.Token, nil), http.StatusOK, "rule name with an escaped slash")
	var branch map[string]any
	s.API("GET", "repos/alice/proj/branches/main", alice.Token, nil).Decode(t, &branch)
	if branch["protected"] != true || branch["effective_branch_protection_name"] != "main" || branch["required_approvals"].(float64) != 1 ||
		branch["enable_status_check"] != true || fmt.Sprint(branch["status_check_contexts"]) != "[ci/*]" {
		t.Fatalf("branch = %v", branch)
	}
	mustStatus(t, s.API("GET", base+"/main", alice.Token, nil), http.StatusOK, "get")
	// A deleted account leaves the lists.
	s.CreateUser("eve")
	mustStatus(t, s.API("PATCH", base+"/main", alice.Token, map[string]any{"merge_whitelist_usernames": []string{"eve", "bob"}}),
		http.StatusOK, "eve in the merge allowlist")
	mustStatus(t, s.Do("DELETE", "api/v1/admin/users/eve", Token(s.AdminTok)), http.StatusNoContent, "delete eve")
	s.API("GET", base+"/main", alice.Token, nil).Decode(t, &got)
	if fmt.Sprint(got["merge_whitelist_usernames"]) != "[bob]" {
		t.Fatalf("merge allowlist after deleting eve = %v", got["merge_whitelist_usernames"])
	}
	mustStatus(t, s.API("DELETE", base+"/main", alice.Token, nil), http.StatusNoContent, "delete")
	mustStatus(t, s.API("GET", base+"/main", alice.Token, nil), http.StatusNotFound, "get deleted")
	s.API("GET", "repos/alice/proj/branches/main", alice.Token, nil).Decode(t, &branch)
	if branch["protected"] != false || branch["user_can_push"] != true {
		t.Fatalf("unprotected branch = %v", branch)
	}

	// Tag protections.
	tags := "repos/alice/proj/tag_protections"
	mustStatus(t, s.API("POST", tags, alice.Token, map[string]any{"name_pattern": "/[/"}), http.StatusUnprocessableEntity, "bad regexp")
	mustStatus(t, s.API("POST", tags, alice.Token, map[string]any{"name_pattern": "v*", "whitelist_usernames": []string{"nobody"}}),
		http.StatusUnprocessableEntity, "unknown user")
	r = s.API("POST", tags, alice.Token, map[string]any{"name_pattern": "v*", "whitelist_usernames": []string{"bob"}})
	mustStatus(t, r, http.StatusCreated, "tag rule")
	var tr map[string]any
	r.Decode(t, &tr)
	id := int64(tr["id"].(float64))
	if tr["name_pattern"] != "v*" || fmt.Sprint(tr["whitelist_usernames"]) != "[bob]" {
		t.Fatalf("tag rule = %v", tr)
	}
	r = s.API("PATCH", fmt.Sprintf("%s/%d", tags, id), alice.Token, map[string]any{"name_pattern": `/^v\d+$/`})
	mustStatus(t, r, http.StatusOK, "edit tag rule")
	r.Decode(t, &tr)
	if tr["name_pattern"] != `/^v\d+$/` || fmt.Sprint(tr["whitelist_usernames"]) != "[bob]" {
		t.Fatalf("edited tag rule = %v", tr)
	}
	mustStatus(t, s.API("GET", tags, bob.Token, nil), http.StatusForbidden, "writer lists tag rules")
	mustStatus(t, s.API("DELETE", fmt.Sprintf("%s/%d", tags, id), alice.Token, nil), http.StatusNoContent, "delete tag rule")
	mustStatus(t, s.API("GET", fmt.Sprintf("%s/%d", tags, id), alice.Token, nil), http.StatusNotFound, "deleted tag rule")
}

func TestProtectPush(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	createRepo(t, s, alice, "proj", false)
	addCollaborator(t, s, alice, "proj", "bob", "write")
	addCollaborator(t, s, alice, "proj", "carol", "write")
	prCommit(t, s, alice.Token, "alice/proj", "release/1", "main", map[string]string{"r.txt": "r\n"})
	base := "repos/alice/proj/branch_protections"
	mustStatus(t, s.API("POST", base, alice.Token, map[string]any{"rule_name": "main", "enable_push": true,
		"enable_push_whitelist": true, "push_whitelist_usernames": []string{"bob"}, "protected_file_patterns": "secret/**",
		"unprotected_file_patterns": "docs/**"}), http.StatusCreated, "main rule")
	mustStatus(t, s.API("POST", base, alice.Token, map[string]any{"rule_name": "release/*", "enable_push": true}), http.StatusCreated, "release rule")

	// A writer outside the allowlist is refused, with the message printed by git.
	cw := protectClone(t, s, carol, "alice", "proj")
	protectCommit(t, cw, "carol", map[string]string{"c.txt": "carol\n"})
	out, failed := protectGit(t, cw, "push", "origin", "main")
	wantRefused(t, out, failed, "Not allowed to push to protected branch main", "carol's push")
	// ... except for changes to unprotected files only.
	contentsGit(t, cw, "reset", "-q", "--hard", "origin/main")
	protectCommit(t, cw, "docs", map[string]string{"docs/a.md": "doc\n"})
	if out, failed := protectGit(t, cw, "push", "origin", "main"); failed {
		t.Fatalf("push of unprotected files refused:\n%s", out)
	}

	// The allowlisted writer pushes.
	bw := protectClone(t, s, bob, "alice", "proj")
	protectCommit(t, bw, "bob", map[string]string{"b.txt": "bob\n"})
	if out, failed := protectGit(t, bw, "push", "origin", "main"); failed {
		t.Fatalf("bob's push refused:\n%s", out)
	}
	// Force push refused.
	protectCommit(t, bw, "bob 2", map[string]string{"b.txt": "bob 2\n"})
	contentsGit(t, bw, "push", "-q", "origin", "main")
	contentsGit(t, bw, "reset", "-q", "--hard", "HEAD~1")
	protectCommit(t, bw, "rewritten", map[string]string{"b.txt": "other\n"})
	out, failed = protectGit(t, bw, "push", "-f", "origin", "main")
	wantRefused(t, out, failed, "branch main is protected from force push", "force push")
	// A protected file refused.
	contentsGit(t, bw, "reset", "-q", "--hard", "origin/main")
	protectCommit(t, bw, "secret", map[string]string{"secret/key.txt": "k\n"})
	out, failed = protectGit(t, bw, "push", "origin", "main")
	wantRefused(t, out, failed, "branch main is protected from changing file secret/key.txt", "protected file")
	// Deletion refused, over git and through the branch API.
	out, failed = protectGit(t, bw, "push", "origin", ":release/1")
	wantRefused(t, out, failed, "branch release/1 is protected from deletion", "deletion")
	r := s.API("DELETE", "repos/alice/proj/branches/release/1", alice.Token, nil)
	wantStatus(t, r, http.StatusForbidden, "branch release/1 is protected from deletion", "branch API deletion")
	// A new branch matching a glob rule is created by a writer (pushing is enabled).
	contentsGit(t, bw, "reset", "-q", "--hard", "origin/main")
	if out, failed := protectGit(t, bw, "push", "origin", "HEAD:refs/heads/release/2"); failed {
		t.Fatalf("new release branch refused:\n%s", out)
	}

	// The contents API says the same as git, with 403.
	r = s.API("POST", "repos/alice/proj/contents/api.txt", carol.Token, map[string]any{"content": b64("x\n"), "branch": "main"})
	wantStatus(t, r, http.StatusForbidden, "Not allowed to push to protected branch main", "contents API")
	r = s.API("POST", "repos/alice/proj/contents/secret/api.txt", bob.Token, map[string]any{"content": b64("x\n"), "branch": "main"})
	wantStatus(t, r, http.StatusForbidden, "branch main is protected from changing file secret/api.txt", "contents API protected file")
	mustStatus(t, s.API("POST", "repos/alice/proj/contents/ok.txt", bob.Token, map[string]any{"content": b64("x\n"), "branch": "main"}),
		http.StatusCreated, "allowlisted contents API")

	// The branch list shows what each caller may do.
	var branches []map[string]any
	s.API("GET", "repos/alice/proj/branches", carol.Token, nil).Decode(t, &branches)
	seen := 0
	for _, b := range branches {
		switch b["name"] {
		case "main":
			seen++
			if b["protected"] != true || b["user_can_push"] != false || b["user_can_merge"] != true || b["effective_branch_protection_name"] != "main" {
				t.Fatalf("main for carol = %v", b)
			}
		case "release/1":
			seen++
			if b["protected"] != true || b["user_can_push"] != true || b["effective_branch_protection_name"] != "release/*" {
				t.Fatalf("release/1 for carol = %v", b)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("branches = %v", branches)
	}

	// Tags: only the allowlist creates, moves or deletes protected tags.
	mustStatus(t, s.API("POST", "repos/alice/proj/tag_protections", alice.Token, map[string]any{"name_pattern": "v*",
		"whitelist_usernames": []string{"bob"}}), http.StatusCreated, "tag rule")
	contentsGit(t, cw, "fetch", "-q", "origin")
	contentsGit(t, cw, "tag", "v1", "origin/main")
	out, failed = protectGit(t, cw, "push", "origin", "v1")
	wantRefused(t, out, failed, "Tag v1 is protected", "carol's tag")
	contentsGit(t, cw, "tag", "other", "origin/main")
	if out, failed := protectGit(t, cw, "push", "origin", "other"); failed {
		t.Fatalf("unprotected tag refused:\n%s", out)
	}
	contentsGit(t, bw, "tag", "v1", "origin/main")
	if out, failed := protectGit(t, bw, "push", "origin", "v1"); failed {
		t.Fatalf("bob's tag refused:\n%s", out)
	}
	out, failed = protectGit(t, cw, "push", "origin", ":refs/tags/v1")
	wantRefused(t, out, failed, "Tag v1 is protected", "carol deletes a tag")
	r = s.API("POST", "repos/alice/proj/tags", carol.Token, map[string]any{"tag_name": "v2", "target": "main"})
	wantStatus(t, r, http.StatusUnprocessableEntity, "user not allowed to create protected tag", "tag API")
	wantStatus(t, s.API("DELETE", "repos/alice/proj/tags/v1", carol.Token, nil), http.StatusUnprocessableEntity,
		"user not allowed to delete protected tag", "tag API deletion")
	wantStatus(t, s.API("POST", "repos/alice/proj/releases", carol.Token, map[string]any{"tag_name": "v3", "name": "v3"}),
		http.StatusUnprocessableEntity, "user not allowed to create protected tag", "release with a new protected tag")
	if r := s.API("GET", "repos/alice/proj/releases/tags/v3", alice.Token, nil); r.Status != http.StatusNotFound {
		t.Fatalf("a refused release was kept: %d %s", r.Status, r.Body)
	}
	mustStatus(t, s.API("DELETE", "repos/alice/proj/tags/v1", bob.Token, nil), http.StatusNoContent, "allowlisted tag deletion")

	// Rules leave with their repository.
	mustStatus(t, s.API("DELETE", "repos/alice/proj", alice.Token, nil), http.StatusNoContent, "delete repo")
	createRepo(t, s, alice, "proj", false)
	var list []any
	s.API("GET", base, alice.Token, nil).Decode(t, &list)
	if len(list) != 0 {
		t.Fatalf("rules of a new repository of the same name = %v", list)
	}
}

// TestProtectSignedCommits: an unsigned commit is refused on a branch
// requiring signed commits (the verification itself is internal/signature's),
// named in the message; other branches take it.
func TestProtectSignedCommits(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	mustStatus(t, s.API("POST", "repos/alice/proj/branch_protections", alice.Token, map[string]any{"rule_name": "main",
		"enable_push": true, "require_signed_commits": true}), http.StatusCreated, "rule")
	w := protectClone(t, s, alice, "alice", "proj")
	protectCommit(t, w, "unsigned", map[string]string{"x.txt": "x\n"})
	sha := strings.TrimSpace(contentsGit(t, w, "rev-parse", "HEAD"))
	out, failed := protectGit(t, w, "push", "origin", "main")
	wantRefused(t, out, failed, "branch main is protected from unverified commit "+sha, "unsigned push")
	if out, failed := protectGit(t, w, "push", "origin", "HEAD:refs/heads/other"); failed {
		t.Fatalf("unsigned push to an unprotected branch refused:\n%s", out)
	}
	// Without a signing key the server's own commits are unsigned too.
	r := s.API("POST", "repos/alice/proj/contents/api.txt", alice.Token, map[string]any{"content": b64("x\n"), "branch": "main"})
	wantStatus(t, r, http.StatusForbidden, "branch main is protected from unverified commit", "contents API")
}

// protectPull opens a pull request of bob's feature branch into main and
// waits until it is mergeable; it returns the head commit.
func protectPull(t *testing.T, s *Server, bob *User, branch string, n int64) string {
	t.Helper()
	prCommit(t, s, bob.Token, "alice/proj", branch, "main", map[string]string{branch + ".txt": "change\n"})
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls", bob.Token, map[string]any{"head": branch, "base": "main", "title": branch}),
		http.StatusCreated, "pull request")
	prWaitMergeable(t, s, bob.Token, "alice/proj", n, true)
	return prBranchSHA(t, s, bob.Token, "alice/proj", branch)
}

func TestProtectMerge(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	dave := s.CreateUser("dave")
	createRepo(t, s, alice, "proj", false)
	for _, u := range []string{"bob", "carol", "dave"} {
		addCollaborator(t, s, alice, "proj", u, "write")
	}
	mustStatus(t, s.API("POST", "repos/alice/proj/branch_protections", alice.Token, map[string]any{"rule_name": "main",
		"enable_push": true, "required_approvals": 1, "block_on_rejected_reviews": true, "enable_status_check": true,
		"status_check_contexts": []string{"ci/*"}, "dismiss_stale_approvals": true, "enable_merge_whitelist": true,
		"merge_whitelist_usernames": []string{"bob", "alice"}}), http.StatusCreated, "rule")
	head := protectPull(t, s, bob, "feature", 1)
	merge := "repos/alice/proj/pulls/1/merge"

	wantStatus(t, s.API("POST", merge, dave.Token, map[string]any{"Do": "merge"}), http.StatusMethodNotAllowed,
		"User not allowed to merge PR", "writer outside the merge allowlist")
	wantStatus(t, s.API("POST", merge, bob.Token, map[string]any{"Do": "merge"}), http.StatusMethodNotAllowed,
		"Not all required status checks successful", "no status")
	mustStatus(t, s.API("POST", "repos/alice/proj/statuses/"+head, alice.Token, map[string]any{"state": "failure", "context": "ci/build"}),
		http.StatusCreated, "failing status")
	wantStatus(t, s.API("POST", merge, bob.Token, map[string]any{"Do": "merge"}), http.StatusMethodNotAllowed,
		"Not all required status checks successful", "failing status")
	mustStatus(t, s.API("POST", "repos/alice/proj/statuses/"+head, alice.Token, map[string]any{"state": "success", "context": "ci/build"}),
		http.StatusCreated, "status")
	wantStatus(t, s.API("POST", merge, bob.Token, map[string]any{"Do": "merge"}), http.StatusMethodNotAllowed,
		"Does not have enough approvals", "no approval")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/1/reviews", dave.Token, map[string]any{"event": "APPROVED", "body": "ok"}),
		http.StatusOK, "approval")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/1/reviews", carol.Token, map[string]any{"event": "REQUEST_CHANGES", "body": "no"}),
		http.StatusOK, "request changes")
	wantStatus(t, s.API("POST", merge, bob.Token, map[string]any{"Do": "merge"}), http.StatusMethodNotAllowed,
		"There are requested changes", "writer's merge with a rejection")
	wantStatus(t, s.API("POST", merge, bob.Token, map[string]any{"Do": "merge", "force_merge": true}), http.StatusMethodNotAllowed,
		"There are requested changes", "writer cannot force")
	mustStatus(t, s.API("POST", merge, alice.Token, map[string]any{"Do": "merge", "force_merge": true}), http.StatusOK, "admin's forced merge")

	// Stale approvals are dismissed when the head moves.
	head2 := protectPull(t, s, bob, "feature2", 2)
	mustStatus(t, s.API("POST", "repos/alice/proj/statuses/"+head2, alice.Token, map[string]any{"state": "success", "context": "ci/x"}),
		http.StatusCreated, "status 2")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/2/reviews", dave.Token, map[string]any{"event": "APPROVED", "body": "ok"}),
		http.StatusOK, "approval 2")
	prCommit(t, s, bob.Token, "alice/proj", "feature2", "", map[string]string{"more.txt": "more\n"})
	deadline := time.Now().Add(20 * time.Second)
	for {
		var reviews []map[string]any
		s.API("GET", "repos/alice/proj/pulls/2/reviews", alice.Token, nil).Decode(t, &reviews)
		if len(reviews) == 1 && reviews[0]["dismissed"] == true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("approval of an old head not dismissed: %v", reviews)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var timeline []map[string]any
	s.API("GET", "repos/alice/proj/issues/2/timeline", alice.Token, nil).Decode(t, &timeline)
	found := false
	for _, e := range timeline {
		found = found || e["type"] == "dismiss_review"
	}
	if !found {
		t.Fatalf("no dismiss_review entry in the timeline: %v", timeline)
	}
	head2 = prBranchSHA(t, s, bob.Token, "alice/proj", "feature2")
	mustStatus(t, s.API("POST", "repos/alice/proj/statuses/"+head2, alice.Token, map[string]any{"state": "success", "context": "ci/x"}),
		http.StatusCreated, "status of the new head")
	prWaitMergeable(t, s, bob.Token, "alice/proj", 2, true)
	wantStatus(t, s.API("POST", "repos/alice/proj/pulls/2/merge", bob.Token, map[string]any{"Do": "merge"}), http.StatusMethodNotAllowed,
		"Does not have enough approvals", "dismissed approval")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/2/reviews", dave.Token, map[string]any{"event": "APPROVED", "body": "ok again"}),
		http.StatusOK, "new approval")
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/2/merge", bob.Token, map[string]any{"Do": "merge"}), http.StatusOK, "merge")

	// block_admin_merge_override: the administrator's force no longer helps.
	mustStatus(t, s.API("PATCH", "repos/alice/proj/branch_protections/main", alice.Token, map[string]any{"block_admin_merge_override": true}),
		http.StatusOK, "block override")
	head3 := protectPull(t, s, bob, "feature3", 3)
	wantStatus(t, s.API("POST", "repos/alice/proj/pulls/3/merge", alice.Token, map[string]any{"Do": "merge", "force_merge": true}),
		http.StatusMethodNotAllowed, "Not all required status checks successful", "blocked override")

	// An auto-merge waits for the rules too: a successful status is not
	// enough without the approval.
	mustStatus(t, s.API("POST", "repos/alice/proj/pulls/3/merge", bob.Token, map[string]any{"Do": "merge", "merge_when_checks_succeed": true}),
		http.StatusCreated, "schedule auto-merge")
	mustStatus(t, s.API("POST", "repos/alice/proj/statuses/"+head3, alice.Token, map[string]any{"state": "success", "context": "ci/build"}),
		http.StatusCreated, "status 3")
	time.Sleep(1500 * time.Millisecond)
	if prGet(t, s, alice.Token, "alice/proj", 3)["merged"] == true {
		t.Fatal("auto-merge merged without the required approval")
	}
}

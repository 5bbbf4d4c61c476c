package e2e

import "fmt"

// newPull opens a pull request in full from a new branch with one commit
// (as the owner) and returns its number.
func (k *wmKit) newPull(full string) int64 {
	k.t.Helper()
	branch := fmt.Sprintf("wm%d", k.next())
	k.must(k.do("POST", "repos/"+full+"/contents/"+branch+".txt", k.ownerTok(full), map[string]any{
		"content": b64(branch + "\n"), "message": "add " + branch, "branch": "main", "new_branch": branch}), 201, "branch "+branch)
	var pr struct {
		Number int64 `json:"number"`
	}
	k.must(k.do("POST", "repos/"+full+"/pulls", k.ownerTok(full), map[string]any{"head": branch, "base": "main", "title": branch}),
		201, "pull from "+branch).Decode(k.t, &pr)
	return pr.Number
}

// pullState is what a pull request route may change: title, state, merged, head.
func (k *wmKit) pullState(full string, n int64) string {
	k.t.Helper()
	var pr struct {
		Title  string `json:"title"`
		State  string `json:"state"`
		Merged bool   `json:"merged"`
		Head   struct {
			Sha string `json:"sha"`
		} `json:"head"`
	}
	k.must(k.do("GET", fmt.Sprintf("repos/%s/pulls/%d", full, n), k.ownerTok(full), nil), 200, "read pull").Decode(k.t, &pr)
	return fmt.Sprintf("%s|%s|%v|%s", pr.Title, pr.State, pr.Merged, pr.Head.Sha)
}

// pullCount is the number of pull requests of full.
func (k *wmKit) pullCount(full string) string {
	k.t.Helper()
	return k.do("GET", "repos/"+full+"/pulls?state=all&limit=1", k.ownerTok(full), nil).Header.Get("X-Total-Count")
}

// pullCases are the write routes of pull requests: opening one needs only
// read access (readers propose changes), editing needs write access to pull
// requests or being the poster, merging needs write access to the code
// (405 otherwise, as Gitea's "User not allowed to merge PR"), updating the
// head needs write access to the head branch.
func (k *wmKit) pullCases(repos []string) []wmCase {
	pulls := map[string]int64{}
	current := func(full string) int64 { return pulls[full] }
	fresh := func(full string) { pulls[full] = k.newPull(full) }
	state := func(full string) string { return k.pullState(full, current(full)) }
	readersToo := func(ok int) map[string][]int {
		return map[string][]int{
			"signed out": {401, 404}, "stranger": {ok, 404}, "restricted": {404, 404}, "reader": {ok, ok},
			"writer": {ok, ok}, "repo admin": {ok, ok}, "owner": {ok, ok}, "site admin": {ok, ok},
		}
	}
	var branch string
	return []wmCase{
		{
			route: "POST /repos/{o}/{r}/pulls", method: "POST", targets: repos,
			path: func(full string) string { return "repos/" + full + "/pulls" },
			prep: func(full string) {
				branch = fmt.Sprintf("open%d", k.next())
				k.must(k.do("POST", "repos/"+full+"/contents/"+branch+".txt", k.ownerTok(full), map[string]any{
					"content": b64(branch), "message": "add", "branch": "main", "new_branch": branch}), 201, "branch")
			},
			body:  func(string) any { return map[string]any{"head": branch, "base": "main", "title": "proposal"} },
			state: k.pullCount, want: readersToo(201),
		},
		{
			route: "PATCH /repos/{o}/{r}/pulls/{index}", method: "PATCH", targets: repos,
			path: func(full string) string { return fmt.Sprintf("repos/%s/pulls/%d", full, current(full)) },
			prep: fresh, state: state,
			body: func(string) any { return map[string]any{"title": fmt.Sprintf("renamed %d", k.next())} },
			want: wmCodeWriter(201),
		},
		{
			route: "POST /repos/{o}/{r}/pulls/{index}/merge", method: "POST", targets: repos,
			path: func(full string) string { return fmt.Sprintf("repos/%s/pulls/%d/merge", full, current(full)) },
			prep: fresh, state: state,
			body: func(string) any { return map[string]any{"Do": "merge"} },
			want: wmWith(wmCodeWriter(200), map[string][]int{"stranger": {405, 404}, "reader": {405, 405}}),
		},
		{
			route: "POST /repos/{o}/{r}/pulls/{index}/update", method: "POST", targets: repos,
			path: func(full string) string { return fmt.Sprintf("repos/%s/pulls/%d/update", full, current(full)) },
			prep: func(full string) { fresh(full); k.newCommit(full) }, state: state,
			want: wmCodeWriter(200),
		},
	}
}

package e2e

import (
	"fmt"
	"net/url"
)

// protectCases are the write routes of branch and tag protection, all for
// repository administrators (reqAdmin in Gitea). Each call works on a rule
// the owner made just before; the state is the rule list as the owner sees it.
func (k *wmKit) protectCases(repos []string) []wmCase {
	rule := map[string]string{}
	tagRule := map[string]int64{}
	freshRule := func(full string) {
		rule[full] = fmt.Sprintf("wm-%d", k.next())
		k.must(k.do("POST", "repos/"+full+"/branch_protections", k.ownerTok(full), map[string]any{"rule_name": rule[full]}), 201, "rule")
	}
	freshTag := func(full string) {
		var t struct {
			ID int64 `json:"id"`
		}
		k.must(k.do("POST", "repos/"+full+"/tag_protections", k.ownerTok(full), map[string]any{"name_pattern": fmt.Sprintf("wm%d-*", k.next())}),
			201, "tag rule").Decode(k.t, &t)
		tagRule[full] = t.ID
	}
	rules := func(full string) string {
		return string(k.must(k.do("GET", "repos/"+full+"/branch_protections", k.ownerTok(full), nil), 200, "rules").Body)
	}
	tags := func(full string) string {
		return string(k.must(k.do("GET", "repos/"+full+"/tag_protections", k.ownerTok(full), nil), 200, "tag rules").Body)
	}
	ruleURL := func(full string) string { return "repos/" + full + "/branch_protections/" + url.PathEscape(rule[full]) }
	tagURL := func(full string) string { return fmt.Sprintf("repos/%s/tag_protections/%d", full, tagRule[full]) }
	// Rule ids are not shown by the API: the priority call lists many.
	var ids []int64
	for i := int64(1); i <= 400; i++ {
		ids = append(ids, i)
	}
	return []wmCase{
		{
			route: "POST /repos/{o}/{r}/branch_protections", method: "POST", targets: repos,
			path:  func(full string) string { return "repos/" + full + "/branch_protections" },
			body:  func(string) any { return map[string]any{"rule_name": fmt.Sprintf("new-%d", k.next())} },
			state: rules, want: wmRepoAdmin(201),
		},
		{
			route: "PATCH /repos/{o}/{r}/branch_protections/{name}", method: "PATCH", targets: repos,
			path: ruleURL, prep: freshRule, state: rules,
			body: func(string) any { return map[string]any{"required_approvals": 1} },
			want: wmRepoAdmin(200),
		},
		{
			route: "DELETE /repos/{o}/{r}/branch_protections/{name}", method: "DELETE", targets: repos,
			path: ruleURL, prep: freshRule, state: rules, want: wmRepoAdmin(204),
		},
		{
			route: "POST /repos/{o}/{r}/branch_protections/priority", method: "POST", targets: repos,
			path: func(full string) string { return "repos/" + full + "/branch_protections/priority" },
			prep: freshRule, state: rules,
			body: func(string) any { return map[string]any{"ids": ids} },
			want: wmRepoAdmin(204),
		},
		{
			route: "POST /repos/{o}/{r}/tag_protections", method: "POST", targets: repos,
			path:  func(full string) string { return "repos/" + full + "/tag_protections" },
			body:  func(string) any { return map[string]any{"name_pattern": fmt.Sprintf("new%d-*", k.next())} },
			state: tags, want: wmRepoAdmin(201),
		},
		{
			route: "PATCH /repos/{o}/{r}/tag_protections/{id}", method: "PATCH", targets: repos,
			path: tagURL, prep: freshTag, state: tags,
			body: func(string) any { return map[string]any{"name_pattern": fmt.Sprintf("ed%d-*", k.next())} },
			want: wmRepoAdmin(200),
		},
		{
			route: "DELETE /repos/{o}/{r}/tag_protections/{id}", method: "DELETE", targets: repos,
			path: tagURL, prep: freshTag, state: tags, want: wmRepoAdmin(204),
		},
	}
}

package e2e

import "fmt"

// newRelease publishes a release on a new tag of full (as the owner) and
// returns its id and tag.
func (k *wmKit) newRelease(full string) (int64, string) {
	k.t.Helper()
	tag := fmt.Sprintf("rel%d", k.next())
	var rel struct {
		ID int64 `json:"id"`
	}
	k.must(k.do("POST", "repos/"+full+"/releases", k.ownerTok(full), map[string]any{"tag_name": tag, "name": tag}), 201, "release "+tag).Decode(k.t, &rel)
	return rel.ID, tag
}

// releaseCases are the write routes of releases and their assets: all need
// write access to the releases unit (Gitea's reqToken, reqRepoWriter).
func (k *wmKit) releaseCases(repos []string) []wmCase {
	type relRef struct {
		id, asset int64
		tag       string
	}
	rels := map[string]relRef{}
	fresh := func(full string) {
		id, tag := k.newRelease(full)
		rels[full] = relRef{id: id, tag: tag}
	}
	withAsset := func(full string) {
		fresh(full)
		var at struct {
			ID int64 `json:"id"`
		}
		k.must(k.s.Do("POST", fmt.Sprintf("api/v1/repos/%s/releases/%d/assets?name=a.bin", full, rels[full].id),
			Token(k.ownerTok(full)), RawBody("asset")), 201, "asset").Decode(k.t, &at)
		r := rels[full]
		r.asset = at.ID
		rels[full] = r
	}
	relPath := func(full string) string { return fmt.Sprintf("repos/%s/releases/%d", full, rels[full].id) }
	assetPath := func(full string) string { return fmt.Sprintf("%s/assets/%d", relPath(full), rels[full].asset) }
	status := func(p func(string) string) func(string) string {
		return func(full string) string {
			r := k.do("GET", p(full), k.ownerTok(full), nil)
			return fmt.Sprintf("%d %s", r.Status, r.Body)
		}
	}
	count := func(full string) string {
		return k.do("GET", "repos/"+full+"/releases?limit=1", k.ownerTok(full), nil).Header.Get("X-Total-Count")
	}
	assetCount := func(full string) string {
		return fmt.Sprint(len(k.do("GET", relPath(full)+"/assets", k.ownerTok(full), nil).Body))
	}
	return []wmCase{
		{
			route: "POST /repos/{o}/{r}/releases", method: "POST", targets: repos,
			path:  func(full string) string { return "repos/" + full + "/releases" },
			body:  func(string) any { t := fmt.Sprintf("new%d", k.next()); return map[string]any{"tag_name": t, "name": t} },
			state: count, want: wmCodeWriter(201),
		},
		{
			route: "PATCH /repos/{o}/{r}/releases/{id}", method: "PATCH", targets: repos,
			path: relPath, prep: fresh, state: status(relPath),
			body: func(string) any { return map[string]any{"name": fmt.Sprintf("renamed %d", k.next())} },
			want: wmCodeWriter(200),
		},
		{
			route: "DELETE /repos/{o}/{r}/releases/{id}", method: "DELETE", targets: repos,
			path: relPath, prep: fresh, state: status(relPath), want: wmCodeWriter(204),
		},
		{
			route: "DELETE /repos/{o}/{r}/releases/tags/{tag}", method: "DELETE", targets: repos,
			path: func(full string) string { return "repos/" + full + "/releases/tags/" + rels[full].tag },
			prep: fresh, state: status(relPath), want: wmCodeWriter(204),
		},
		{
			route: "POST /repos/{o}/{r}/releases/{id}/assets", method: "POST", targets: repos,
			path: func(full string) string { return relPath(full) + "/assets?name=up.json" },
			prep: fresh, state: assetCount,
			body: func(string) any { return map[string]any{"x": 1} },
			want: wmCodeWriter(201),
		},
		{
			route: "PATCH /repos/{o}/{r}/releases/{id}/assets/{attachment_id}", method: "PATCH", targets: repos,
			path: assetPath, prep: withAsset, state: status(assetPath),
			body: func(string) any { return map[string]any{"name": fmt.Sprintf("r%d.bin", k.next())} },
			want: wmCodeWriter(201),
		},
		{
			route: "DELETE /repos/{o}/{r}/releases/{id}/assets/{attachment_id}", method: "DELETE", targets: repos,
			path: assetPath, prep: withAsset, state: status(assetPath), want: wmCodeWriter(204),
		},
	}
}

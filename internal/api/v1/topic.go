package v1

import (
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/repo"
)

// maxTopics is the number of topics a repository may have.
const maxTopics = 25

// topicRoutes: anyone who sees the repository reads its topics; repository
// admins change them.
func (a *API) topicRoutes(r chi.Router) {
	r.Get("/topics", a.listTopics)
	r.With(a.reqRepoAdmin).Put("/topics", a.replaceTopics)
	r.With(a.reqRepoAdmin).Put("/topics/{topic}", a.addTopic)
	r.With(a.reqRepoAdmin).Delete("/topics/{topic}", a.deleteTopic)
}

func (a *API) invalidTopics(w http.ResponseWriter, msg string, invalid any) {
	writeJSON(w, http.StatusUnprocessableEntity, types.InvalidTopicsError{Message: msg, InvalidTopics: invalid})
}

// listTopics serves GET /repos/{owner}/{repo}/topics (paginated).
func (a *API) listTopics(w http.ResponseWriter, r *http.Request) {
	id := currentRepo(r).Repo.ID
	all, err := a.Repos.TopicsOf(r.Context(), []int64{id})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list := all[id]
	pg := a.paging(r)
	out := []string{}
	if off := pg.Offset(); off < len(list) {
		out = list[off:min(off+pg.Limit, len(list))]
	}
	a.setTotal(w, r, pg, int64(len(list)))
	writeJSON(w, http.StatusOK, types.TopicName{Topics: out})
}

// replaceTopics serves PUT /repos/{owner}/{repo}/topics.
func (a *API) replaceTopics(w http.ResponseWriter, r *http.Request) {
	var o types.RepoTopicOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	valid, invalid := repo.ValidateTopics(o.Topics)
	if len(valid) > maxTopics {
		a.invalidTopics(w, "Exceeding maximum number of topics per repo", nil)
		return
	}
	if len(invalid) > 0 {
		a.invalidTopics(w, "Topic names are invalid", invalid)
		return
	}
	if err := a.Repos.SetTopics(r.Context(), currentRepo(r).Repo.ID, valid); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// topicParam reads {topic}, lower-cased; ok is false (and 422 written) when
// it is not a valid topic name.
func (a *API) topicParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(chi.URLParam(r, "topic")))
	valid, _ := repo.ValidateTopics([]string{t})
	if len(valid) != 1 {
		a.invalidTopics(w, "Topic name is invalid", t)
		return "", false
	}
	return t, true
}

// addTopic serves PUT /repos/{owner}/{repo}/topics/{topic}.
func (a *API) addTopic(w http.ResponseWriter, r *http.Request) {
	t, ok := a.topicParam(w, r)
	if !ok {
		return
	}
	id := currentRepo(r).Repo.ID
	all, err := a.Repos.TopicsOf(r.Context(), []int64{id})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	have := all[id]
	exists := false
	for _, x := range have {
		exists = exists || x == t
	}
	if !exists && len(have) >= maxTopics {
		writeJSON(w, http.StatusUnprocessableEntity, types.APIError{Message: "Exceeding maximum allowed topics per repo.", URL: a.swaggerURL})
		return
	}
	if err := a.Repos.AddTopic(r.Context(), id, t); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// deleteTopic serves DELETE /repos/{owner}/{repo}/topics/{topic}: 404 when
// the repository does not have the topic.
func (a *API) deleteTopic(w http.ResponseWriter, r *http.Request) {
	t, ok := a.topicParam(w, r)
	if !ok {
		return
	}
	id := currentRepo(r).Repo.ID
	all, err := a.Repos.TopicsOf(r.Context(), []int64{id})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	found := false
	for _, x := range all[id] {
		found = found || x == t
	}
	if !found {
		a.notFound(w, r)
		return
	}
	if err := a.Repos.DeleteTopic(r.Context(), id, t); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// searchTopics serves GET /topics/search?q=: topics containing q, counted
// over the repositories the caller may see (so private repositories reveal
// nothing), most used first. Two queries.
func (a *API) searchTopics(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	cond, args := access.RepoCond(viewer(r))
	from := " FROM repo_topic t JOIN repository r ON r.id = t.repo_id JOIN users o ON o.id = r.owner_id WHERE " + cond
	if kw := strings.TrimSpace(r.URL.Query().Get("q")); kw != "" {
		from += " AND t.topic LIKE ?" + likeEscape
		args = append(args, likePattern(kw))
	}
	pg := a.paging(r)
	total, err := a.DB.Count(ctx, "SELECT COUNT(DISTINCT t.topic)"+from, args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rows, err := a.DB.Query(ctx, "SELECT t.topic, MIN(t.id), COUNT(*), MIN(t.created_unix), MAX(t.created_unix)"+from+
		" GROUP BY t.topic ORDER BY COUNT(*) DESC, t.topic"+db.LimitOffset(pg.Limit, pg.Offset()), args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer rows.Close()
	out := []*types.TopicResponse{}
	for rows.Next() {
		var t types.TopicResponse
		var created, updated int64
		if err := rows.Scan(&t.Name, &t.ID, &t.RepoCount, &created, &updated); err != nil {
			a.fail(w, r, err)
			return
		}
		t.Created, t.Updated = time.Unix(created, 0), time.Unix(updated, 0)
		out = append(out, &t)
	}
	if err := rows.Err(); err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, types.TopicListResponse{Topics: out})
}

package v1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/errs"
)

// adminListCron serves GET /admin/cron: the cron tasks of this process
// (today the synchronisation of sign-in sources' users).
func (a *API) adminListCron(w http.ResponseWriter, r *http.Request) {
	pg := a.paging(r)
	var all []types.Cron
	if a.SyncTask != nil {
		st := a.SyncTask.Status()
		all = append(all, types.Cron{Name: st.Name, Schedule: st.Schedule, Next: st.Next, Prev: st.Prev, ExecTimes: st.ExecTimes})
	}
	out := []types.Cron{}
	if off := pg.Offset(); off < len(all) {
		out = all[off:min(len(all), off+pg.Limit)]
	}
	a.setTotal(w, r, pg, int64(len(all)))
	writeJSON(w, http.StatusOK, out)
}

// adminRunCron serves POST /admin/cron/{task}: the task starts in the
// background (204), as in Gitea; an unknown task is 404.
func (a *API) adminRunCron(w http.ResponseWriter, r *http.Request) {
	if a.SyncTask == nil || chi.URLParam(r, "task") != authsource.SyncTaskName {
		a.fail(w, r, errs.NotFound("cron task %q does not exist", chi.URLParam(r, "task")))
		return
	}
	a.SyncTask.Start()
	empty(w, http.StatusNoContent)
}

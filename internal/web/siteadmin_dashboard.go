package web

import (
	"net/http"
	"runtime"
	"sort"
	"time"
)

// queueBacklog is the backlog of one kind of queued job.
type queueBacklog struct {
	Kind            string
	Pending, Failed int64
}

// adminDashboardPage is the data of /-/admin.
type adminDashboardPage struct {
	adminPage
	Version, GoVersion string
	// Uptime is how long the server has run ("" when unknown).
	Uptime     string
	Goroutines int
	// HeapAlloc, Sys and TotalAlloc are the Go runtime's memory in bytes.
	HeapAlloc, Sys, TotalAlloc int64
	NumGC                      uint32
	Users, Orgs, Repos         int64
	Issues, Pulls              int64
	Queue                      []queueBacklog
}

// adminDashboard serves GET /-/admin: the system's state.
func (h *Handler) adminDashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := adminDashboardPage{adminPage: newAdminPage("dashboard"), Version: h.Version, GoVersion: runtime.Version(),
		Goroutines: runtime.NumGoroutine()}
	if !h.Started.IsZero() {
		p.Uptime = h.Now().Sub(h.Started).Round(time.Second).String()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	p.HeapAlloc, p.Sys, p.TotalAlloc, p.NumGC = int64(m.HeapAlloc), int64(m.Sys), int64(m.TotalAlloc), m.NumGC
	err := h.DB.QueryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM users WHERE type = 0), (SELECT COUNT(*) FROM users WHERE type = 1),
		(SELECT COUNT(*) FROM repository),
		(SELECT COUNT(*) FROM issue WHERE is_pull = ?), (SELECT COUNT(*) FROM issue WHERE is_pull = ?)`, false, true).
		Scan(&p.Users, &p.Orgs, &p.Repos, &p.Issues, &p.Pulls)
	if err != nil {
		return err
	}
	if h.Queue != nil {
		counts, err := h.Queue.Counts(ctx)
		if err != nil {
			return err
		}
		for kind, c := range counts {
			p.Queue = append(p.Queue, queueBacklog{Kind: kind, Pending: c["pending"], Failed: c["failed"]})
		}
		sort.Slice(p.Queue, func(i, j int) bool { return p.Queue[i].Kind < p.Queue[j].Kind })
	}
	return h.render(w, r, http.StatusOK, "admin_dashboard", "Site administration", p)
}

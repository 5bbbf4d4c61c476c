package observe

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the Prometheus collectors of one instance, in its own
// registry. A nil *Metrics records nothing.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	gitOps      *prometheus.CounterVec
	sshSessions prometheus.Gauge
	// series caches the two series of each seriesKey, so a request costs
	// one map lookup instead of two label hashes.
	series sync.Map // seriesKey -> *requestSeries
}

type seriesKey struct{ method, route, status string }

type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// NewMetrics builds the registry: HTTP requests, git operations, SSH
// sessions, the database pools that dbStats reports (by pool name), the Go
// runtime and the process.
func NewMetrics(dbStats func() map[string]sql.DBStats) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cairn_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status class.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cairn_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests (whole transfer for git), by method, route pattern and status class.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route", "status"}),
		gitOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cairn_git_operations_total",
			Help: "Git operations served (clone, fetch, push, archive), by service and transport.",
		}, []string{"service", "transport"}),
		sshSessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cairn_ssh_sessions_active",
			Help: "Open SSH sessions.",
		}),
	}
	for _, t := range []string{"http", "ssh"} {
		for _, s := range []string{"upload-pack", "receive-pack", "upload-archive"} {
			m.gitOps.WithLabelValues(s, t)
		}
	}
	m.reg.MustRegister(m.requests, m.latency, m.gitOps, m.sshSessions,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if dbStats != nil {
		m.reg.MustRegister(newDBCollector(dbStats))
	}
	return m
}

// AddQueue reports the durable queue at each scrape: cairn_queue_jobs by
// kind and state (pending, failed), as counts reads them.
func (m *Metrics) AddQueue(counts func(ctx context.Context) (map[string]map[string]int64, error)) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&queueCollector{counts: counts, desc: prometheus.NewDesc("cairn_queue_jobs",
		"Jobs of the durable queue (webhook deliveries), by kind and state: pending (waiting, retrying or running) or failed (given up).",
		[]string{"kind", "state"}, nil)})
}

type queueCollector struct {
	counts func(ctx context.Context) (map[string]map[string]int64, error)
	desc   *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.counts(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for kind, states := range counts {
		for state, n := range states {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), kind, state)
		}
	}
}

// Registry is the registry the metrics live in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus' text format. With a non-empty
// token, requests need "Authorization: Bearer <token>" (compared in
// constant time) and get 401 otherwise.
func (m *Metrics) Handler(token string) http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "Unauthorized: /metrics needs Authorization: Bearer <[metrics] TOKEN>.", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// GitOperation counts one git operation: service is upload-pack,
// receive-pack or upload-archive, transport http or ssh.
func (m *Metrics) GitOperation(service, transport string) {
	if m == nil {
		return
	}
	m.gitOps.WithLabelValues(service, transport).Inc()
}

// SSHSession counts an SSH session as open until the returned function is called.
func (m *Metrics) SSHSession() (done func()) {
	if m == nil {
		return func() {}
	}
	m.sshSessions.Inc()
	return m.sshSessions.Dec
}

// statusClass is the status label value: 2xx, 4xx...
func statusClass(status int) string {
	switch status / 100 {
	case 1:
		return "1xx"
	case 2:
		return "2xx"
	case 3:
		return "3xx"
	case 4:
		return "4xx"
	case 5:
		return "5xx"
	}
	return "other"
}

// methodLabel keeps the method label bounded: unknown methods are "other".
func methodLabel(method string) string {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return method
	}
	return "other"
}

func (m *Metrics) observeRequest(method, route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	key := seriesKey{methodLabel(method), route, statusClass(status)}
	v, ok := m.series.Load(key)
	if !ok {
		v, _ = m.series.LoadOrStore(key, &requestSeries{
			count:   m.requests.WithLabelValues(key.method, key.route, key.status),
			latency: m.latency.WithLabelValues(key.method, key.route, key.status),
		})
	}
	s := v.(*requestSeries)
	s.count.Inc()
	s.latency.Observe(d.Seconds())
}

// dbCollector reports database/sql pool statistics under the names of
// client_golang's DBStats collector (go_sql_*), labelled db_name.
type dbCollector struct {
	stats func() map[string]sql.DBStats
	descs []dbMetric
}

type dbMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(s sql.DBStats) float64
}

func newDBCollector(stats func() map[string]sql.DBStats) *dbCollector {
	d := func(name, help string, kind prometheus.ValueType, value func(s sql.DBStats) float64) dbMetric {
		return dbMetric{desc: prometheus.NewDesc("go_sql_"+name, help, []string{"db_name"}, nil), kind: kind, value: value}
	}
	g, c := prometheus.GaugeValue, prometheus.CounterValue
	return &dbCollector{stats: stats, descs: []dbMetric{
		d("max_open_connections", "Maximum number of open connections to the database.", g, func(s sql.DBStats) float64 { return float64(s.MaxOpenConnections) }),
		d("open_connections", "The number of established connections both in use and idle.", g, func(s sql.DBStats) float64 { return float64(s.OpenConnections) }),
		d("in_use_connections", "The number of connections currently in use.", g, func(s sql.DBStats) float64 { return float64(s.InUse) }),
		d("idle_connections", "The number of idle connections.", g, func(s sql.DBStats) float64 { return float64(s.Idle) }),
		d("wait_count_total", "The total number of connections waited for.", c, func(s sql.DBStats) float64 { return float64(s.WaitCount) }),
		d("wait_duration_seconds_total", "The total time blocked waiting for a new connection.", c, func(s sql.DBStats) float64 { return s.WaitDuration.Seconds() }),
		d("max_idle_closed_total", "The total number of connections closed due to SetMaxIdleConns.", c, func(s sql.DBStats) float64 { return float64(s.MaxIdleClosed) }),
		d("max_idle_time_closed_total", "The total number of connections closed due to SetConnMaxIdleTime.", c, func(s sql.DBStats) float64 { return float64(s.MaxIdleTimeClosed) }),
		d("max_lifetime_closed_total", "The total number of connections closed due to SetConnMaxLifetime.", c, func(s sql.DBStats) float64 { return float64(s.MaxLifetimeClosed) }),
	}}
}

func (d *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range d.descs {
		ch <- m.desc
	}
}

func (d *dbCollector) Collect(ch chan<- prometheus.Metric) {
	for name, s := range d.stats() {
		for _, m := range d.descs {
			ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(s), name)
		}
	}
}

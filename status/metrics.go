package status

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sglaunch/sglaunch/health"
)

// namespace prefixes every metric of sglaunch's own.
const namespace = "sglaunch"

// probeBuckets span a refused connection (under a millisecond) to
// SGLang's 20 s health generation timing out.
var probeBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30}

// PhaseLabels are the values of the phase label, in start-up order:
// bounded, one per phase sglaunch knows.
var PhaseLabels = []string{
	PhaseStarting,
	phaseLabel(health.PhaseLoadingWeights),
	phaseLabel(health.PhaseWeightsLoaded),
	phaseLabel(health.PhaseKVCache),
	phaseLabel(health.PhaseCapturingGraphs),
	phaseLabel(health.PhaseGraphsCaptured),
	phaseLabel(health.PhasePortBound),
	phaseLabel(health.PhaseWarmupDone),
	PhaseReady, PhaseUnhealthy, PhaseStopping, PhaseExited,
}

// phaseLabel is a phase name as a label value: "capturing CUDA graphs"
// is capturing_cuda_graphs.
func phaseLabel(name string) string {
	return strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(name))
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(namespace+"_"+name, help, labels, nil)
}

// The metrics read from the state at each scrape. Every one also gets
// the labels profile and fingerprint (12 hex digits) from the registry.
var (
	descInfo = desc("plan_info",
		"The plan this sglaunch runs: always 1, the facts are labels.", "mode", "sglang_version", "interpreter")
	descPhase = desc("phase",
		"The launch's current phase: 1 for the phase it is in, 0 for every other.", "phase")
	descReady = desc("ready",
		"1 while /readyz answers 200: the readiness gate has passed and liveness holds.")
	descUp = desc("server_up",
		"1 while the server's main process runs.")
	descStart = desc("server_start_time_seconds",
		"When the server was started, in seconds since the epoch.")
	descLoad = desc("load_duration_seconds",
		"Time from start to ready of the last load of this plan (this launch's once ready, else the latest remembered).")
	descPhaseAt = desc("load_phase_at_seconds",
		"Time from start at which each start-up phase of the last load was reached.", "phase")
	descPhaseDur = desc("load_phase_duration_seconds",
		"Time each start-up phase of the last load lasted: until the next phase, the last one until ready.", "phase")
	descSinceReady = desc("since_ready_seconds",
		"Time since the server became ready (only once it is).")
	descETA = desc("startup_eta_seconds",
		"Estimated time left of the load, from the median of earlier loads of this plan (only while loading and known).")
	descFailuresInRow = desc("liveness_consecutive_failures",
		"Liveness probes failed in a row, now.")
	descLastExit = desc("last_exit_status",
		"Exit status of the server of the latest launch that ended (128+N for signal N; -1: it never ran).")
	descRestarts = desc("restarts_total",
		"Launches of this profile on this host before this one, since the count began.")
)

// metrics are the state's registry and the metrics updated as probes end.
type metrics struct {
	reg          *prometheus.Registry
	wrapped      prometheus.Registerer
	probeSeconds *prometheus.HistogramVec
	probes       *prometheus.CounterVec
	livenessFail prometheus.Counter
}

func newMetrics(s *State) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.wrapped = prometheus.WrapRegistererWith(prometheus.Labels{"profile": s.info.Profile, "fingerprint": short(s.info.Fingerprint)}, m.reg)
	m.probeSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "health_probe_duration_seconds",
		Help:    "How long each /health probe of the server took, by probe: readiness (the gate during the load) or liveness (after ready).",
		Buckets: probeBuckets,
	}, []string{"probe"})
	m.probes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "health_probes_total",
		Help: "/health probes of the server by probe and result (ok, refused, unavailable, timeout, http_error, error).",
	}, []string{"probe", "result"})
	m.livenessFail = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "liveness_failures_total",
		Help: "Failed liveness probes since ready.",
	})
	for _, kind := range []string{probeReadiness, probeLiveness} {
		m.probeSeconds.WithLabelValues(kind)
		for _, r := range health.Results {
			m.probes.WithLabelValues(kind, r)
		}
	}
	m.wrapped.MustRegister(m.probeSeconds, m.probes, m.livenessFail, collector{s})
	return m
}

func (m *metrics) probe(kind string, c health.Check) {
	m.probeSeconds.WithLabelValues(kind).Observe(c.Took.Seconds())
	m.probes.WithLabelValues(kind, c.Result()).Inc()
	if kind == probeLiveness && !c.OK() {
		m.livenessFail.Inc()
	}
}

// Registry holds the state's metrics, for /metrics and tests.
func (s *State) Registry() *prometheus.Registry { return s.metrics.reg }

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

// collector reads the state at each scrape.
type collector struct{ s *State }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInfo, descPhase, descReady, descUp, descStart, descLoad, descPhaseAt, descPhaseDur,
		descSinceReady, descETA, descFailuresInRow, descLastExit, descRestarts} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	now := timeNow()
	s.mu.Lock()
	defer s.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	in := s.info
	version := in.SGLangVersion
	if version == "" {
		version = "unknown"
	}
	gauge(descInfo, 1, in.Mode, version, in.Interpreter)

	phase, _ := s.phaseLocked(now)
	current := phaseLabel(phase)
	for _, p := range PhaseLabels {
		gauge(descPhase, b2f(p == current), p)
	}
	gauge(descReady, b2f(phase == PhaseReady))
	gauge(descUp, b2f(!s.startedAt.IsZero() && s.serverPID > 0 && s.exit == nil))
	if !s.startedAt.IsZero() {
		gauge(descStart, float64(s.startedAt.UnixNano())/1e9)
	}
	last := in.LastLoad
	if s.load != nil {
		last = s.load
		gauge(descSinceReady, now.Sub(s.load.ReadyAt).Seconds())
	}
	if last != nil {
		total := last.Duration()
		gauge(descLoad, total.Seconds())
		for i, p := range last.Phases {
			end := total
			if i+1 < len(last.Phases) {
				end = last.Phases[i+1].At
			}
			gauge(descPhaseAt, p.At.Seconds(), phaseLabel(p.Name))
			gauge(descPhaseDur, max(end-p.At, 0).Seconds(), phaseLabel(p.Name))
		}
	}
	if s.load == nil && s.exit == nil && !s.startedAt.IsZero() {
		if left, ok := s.est.Remaining(now.Sub(s.startedAt)); ok {
			gauge(descETA, left.Seconds())
		}
	}
	gauge(descFailuresInRow, float64(s.failures))
	switch {
	case s.exit != nil:
		gauge(descLastExit, float64(s.exit.Status))
	case in.Launches.LastExit != nil:
		gauge(descLastExit, float64(in.Launches.LastExit.Status))
	}
	ch <- prometheus.MustNewConstMetric(descRestarts, prometheus.CounterValue, float64(in.Launches.Restarts()))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

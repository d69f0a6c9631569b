package status

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

const (
	// proxyTimeout bounds one read of SGLang's /metrics, well inside a
	// scrape's usual 10 s timeout.
	proxyTimeout = 3 * time.Second
	// proxyMaxBytes caps it: a server with thousands of series is a few
	// MiB. A larger answer is refused whole, never passed through cut.
	proxyMaxBytes = 16 << 20
	// proxyCacheFor is how long one read serves every scrape: concurrent
	// scrapers (Prometheus pairs, a dashboard) share one read and one
	// parse instead of each re-reading the server's whole /metrics.
	proxyCacheFor = time.Second
	// proxyPrefix selects what is passed through: SGLang's own series.
	proxyPrefix = "sglang:"
)

// Why a read of the server's /metrics failed: the values of
// sglaunch_sglang_metrics_errors_total's reason label.
const (
	reasonUnavailable = "unavailable" // no answer within proxyTimeout, or an HTTP error status
	reasonTooLarge    = "too_large"   // more than proxyMaxBytes
	reasonMalformed   = "malformed"   // not the Prometheus text format
)

var proxyReasons = []string{reasonUnavailable, reasonTooLarge, reasonMalformed}

// errTooLarge refuses an answer over proxyMaxBytes.
var errTooLarge = fmt.Errorf("the server's /metrics is larger than %d MiB", proxyMaxBytes>>20)

// proxy is a prometheus.Gatherer that reads the server's /metrics at each
// scrape and passes its sglang:* families through, each series with the
// labels profile and fingerprint added (a label of the same name that
// SGLang set is replaced). It is the one call this package makes to the
// server. SGLang's names keep their colon so that existing dashboards
// work; promtool's linter reports such names, and that is the only
// thing it reports.
type proxy struct {
	client *sglangapi.Client
	labels []*dto.LabelPair
	up     prometheus.Gauge
	errs   *prometheus.CounterVec // failed reads by reason
	log    *slog.Logger
	now    func() time.Time

	// mu makes one read at a time; the last one serves for proxyCacheFor.
	mu      sync.Mutex
	fams    []*dto.MetricFamily
	fetched time.Time
	failing string // the reason the last read failed; "" when it worked
}

// Gather implements prometheus.Gatherer. A server that does not answer
// (still loading, or hung) gives no families and sglaunch_sglang_metrics_up 0,
// never an error: sglaunch's own metrics are served regardless.
func (p *proxy) Gather() ([]*dto.MetricFamily, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fetched.IsZero() || p.now().Sub(p.fetched) >= proxyCacheFor {
		fams, err := p.fetch()
		p.fams, p.fetched = fams, p.now()
		if err != nil {
			p.failed(err)
		} else {
			p.up.Set(1)
			p.failing = ""
		}
	}
	return shallowCopy(p.fams), nil
}

// shallowCopy gives each caller families of its own: the registry sorts
// a family's series in place, and the cached ones are shared.
func shallowCopy(in []*dto.MetricFamily) []*dto.MetricFamily {
	out := make([]*dto.MetricFamily, len(in))
	for i, f := range in {
		c := &dto.MetricFamily{Name: f.Name, Help: f.Help, Type: f.Type, Unit: f.Unit}
		c.Metric = append([]*dto.Metric(nil), f.Metric...)
		out[i] = c
	}
	return out
}

// failed counts a failed read by its reason and says why in the log
// when the reason is the server's answer itself (too large, malformed)
// and it was not the last read's: a server that is loading or hung is
// what liveness reports.
func (p *proxy) failed(err error) {
	p.up.Set(0)
	reason := reasonUnavailable
	switch {
	case errors.Is(err, errTooLarge):
		reason = reasonTooLarge
	case errors.As(err, new(expfmt.ParseError)):
		reason = reasonMalformed
	}
	p.errs.WithLabelValues(reason).Inc()
	if reason != reasonUnavailable && reason != p.failing {
		p.log.Warn(fmt.Sprintf("--status-proxy-metrics: %v; SGLang's series are left out of /metrics until it reads again (sglaunch_sglang_metrics_errors_total{reason=%q})", err, reason))
	}
	p.failing = reason
}

func (p *proxy) fetch() ([]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(context.Background(), proxyTimeout)
	defer cancel()
	req, err := p.client.NewRequest(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return nil, err
	}
	// The classic text format, which SGLang's prometheus_client serves.
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := sglangapi.CheckResponse(resp); err != nil {
		return nil, err
	}
	if resp.ContentLength > proxyMaxBytes {
		return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, resp.ContentLength)
	}
	// Read whole before parsing: an answer over the cap (without a
	// Content-Length) costs a buffer, not the series parsed so far, and
	// is never parsed cut.
	text, err := io.ReadAll(io.LimitReader(resp.Body, proxyMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", req.URL, err)
	}
	if len(text) > proxyMaxBytes {
		return nil, errTooLarge
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	byName, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", req.URL, err)
	}
	var out []*dto.MetricFamily
	for name, f := range byName {
		if !strings.HasPrefix(name, proxyPrefix) {
			continue
		}
		for _, m := range f.Metric {
			m.Label = p.relabel(m.Label)
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// relabel adds sglaunch's labels to one series, sorted as the registry
// wants them.
func (p *proxy) relabel(in []*dto.LabelPair) []*dto.LabelPair {
	out := make([]*dto.LabelPair, 0, len(in)+len(p.labels))
	for _, l := range in {
		if l.GetName() != "profile" && l.GetName() != "fingerprint" {
			out = append(out, l)
		}
	}
	out = append(out, p.labels...)
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out
}

// newProxy passes the sglang:* series of the server at baseURL through
// the state's metrics; log (nil: none) hears why reads fail.
func newProxy(s *State, baseURL string, log *slog.Logger) *proxy {
	up := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "sglang_metrics_up",
		Help: "1 when the last read of the server's own /metrics (--status-proxy-metrics) succeeded.",
	})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "sglang_metrics_errors_total",
		Help: "Failed reads of the server's own /metrics (--status-proxy-metrics) by reason: unavailable (no answer in 3 s, or an HTTP error), too_large (over 16 MiB, refused whole), malformed (not the text format).",
	}, []string{"reason"})
	for _, r := range proxyReasons {
		errs.WithLabelValues(r)
	}
	s.metrics.wrapped.MustRegister(up, errs)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	str := func(v string) *string { return &v }
	return &proxy{
		client: sglangapi.New(baseURL, sglangapi.Options{}),
		labels: []*dto.LabelPair{
			{Name: str("fingerprint"), Value: str(short(s.info.Fingerprint))},
			{Name: str("profile"), Value: str(s.info.Profile)},
		},
		up:   up,
		errs: errs,
		log:  log,
		now:  time.Now,
	}
}

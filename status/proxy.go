package status

import (
	"context"
	"fmt"
	"io"
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
	// proxyMaxBytes caps it: a server with thousands of series is a few MiB.
	proxyMaxBytes = 16 << 20
	// proxyCacheFor is how long one read serves every scrape: concurrent
	// scrapers (Prometheus pairs, a dashboard) share one read and one
	// parse instead of each re-reading the server's whole /metrics.
	proxyCacheFor = time.Second
	// proxyPrefix selects what is passed through: SGLang's own series.
	proxyPrefix = "sglang:"
)

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
	now    func() time.Time

	// mu makes one read at a time; the last one serves for proxyCacheFor.
	mu      sync.Mutex
	fams    []*dto.MetricFamily
	fetched time.Time
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
			p.up.Set(0)
		} else {
			p.up.Set(1)
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
	parser := expfmt.NewTextParser(model.LegacyValidation)
	byName, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, proxyMaxBytes))
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
// the state's metrics.
func newProxy(s *State, baseURL string) *proxy {
	up := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "sglang_metrics_up",
		Help: "1 when the last read of the server's own /metrics (--status-proxy-metrics) succeeded.",
	})
	s.metrics.wrapped.MustRegister(up)
	str := func(v string) *string { return &v }
	return &proxy{
		client: sglangapi.New(baseURL, sglangapi.Options{}),
		labels: []*dto.LabelPair{
			{Name: str("fingerprint"), Value: str(short(s.info.Fingerprint))},
			{Name: str("profile"), Value: str(s.info.Profile)},
		},
		up:  up,
		now: time.Now,
	}
}

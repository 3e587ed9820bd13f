package cli

import (
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/livemetrics"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// metricsOptions are --metrics-addr and --metrics-allow-remote (run,
// experiment, demo; pgbench's are its own additions, pgbenchfmt).
type metricsOptions struct {
	addr        string
	allowRemote bool
}

func addMetricsFlags(f *pflag.FlagSet, o *metricsOptions) {
	f.StringVar(&o.addr, "metrics-addr", "", "serve the live metrics for Prometheus at http://`ADDR`/metrics while running (127.0.0.1:9187; port 0: a free one); loopback only unless --metrics-allow-remote")
	f.BoolVar(&o.allowRemote, "metrics-allow-remote", false, "let --metrics-addr listen on an address beyond this machine (anyone who reaches it reads the run's metrics)")
}

// liveMetrics are a command's served metrics; a nil *liveMetrics serves
// none and its methods do nothing.
type liveMetrics struct {
	m   *livemetrics.Metrics
	srv *livemetrics.Server
}

// startLiveMetrics serves /metrics at o.addr (nil, nil without one), said
// on out with a warning when the address is not loopback. It is called
// before the target is resolved, so that a refused address costs nothing.
func startLiveMetrics(o metricsOptions, out func(string)) (*liveMetrics, error) {
	if o.addr == "" {
		return nil, nil
	}
	m := livemetrics.New()
	srv, err := livemetrics.Serve(o.addr, o.allowRemote, m.Registry())
	if err != nil {
		return nil, &exitError{code: exitBadInput, err: err}
	}
	if srv.Remote {
		out("pgtrial: warning: --metrics-allow-remote: the live metrics are served beyond this machine at " + srv.URL + "; anyone who reaches it reads the run's metrics")
	}
	out("pgtrial: live metrics at " + srv.URL)
	return &liveMetrics{m: m, srv: srv}, nil
}

// close stops serving, the last run marked done.
func (l *liveMetrics) close() {
	if l == nil {
		return
	}
	l.m.End()
	l.srv.Close()
}

// attach feeds the metrics from tc's run: Begin now (the run's id is its
// directory's name, its variant tc.Labels' "variant"), then its intervals,
// phases, collector samples and end through tc's hooks, each calling the
// hook it replaces first.
func (l *liveMetrics) attach(tc *trial.Config) {
	if l == nil {
		return
	}
	id := "pgbench"
	if tc.Dir != "" {
		id = filepath.Base(tc.Dir)
	}
	names := make([]string, len(tc.Scripts))
	for i, s := range tc.Scripts {
		names[i] = s.Name
	}
	l.m.Begin(livemetrics.Run{ID: id, Variant: tc.Labels["variant"], Scripts: names, Rate: tc.Rate, Clients: tc.Clients})
	m := l.m
	onInterval := tc.OnInterval
	tc.OnInterval = func(t *trial.Tick) {
		if onInterval != nil {
			onInterval(t)
		}
		m.Interval(t.Phase, t.Interval)
	}
	onPhase := tc.OnPhase
	tc.OnPhase = func(phase string, at time.Time) {
		if onPhase != nil {
			onPhase(phase, at)
		}
		m.Phase(phase)
	}
	beforeFinish := tc.BeforeFinish
	tc.BeforeFinish = func(run *results.Run, r *trial.Result) {
		if beforeFinish != nil {
			beforeFinish(run, r)
		}
		m.End()
	}
	onSample := tc.Collect.OnSample
	tc.Collect.OnSample = func(kind string, values map[string]float64) {
		if onSample != nil {
			onSample(kind, values)
		}
		m.Sample(kind, values)
	}
}

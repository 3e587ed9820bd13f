// Package runlist finds the run and experiment directories under a folder and
// reads from each the line of history `pgtrial runs` prints: when it ran,
// what, under which load model, its throughput and p99, and what its verdicts
// and checklist said. It reads run.json and experiment.json through their
// owners (internal/results, internal/experiment) and nothing else.
package runlist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Kinds of an Entry.
const (
	KindRun        = "run"
	KindExperiment = "experiment"
)

// Limits of a Scan: how deep below the root it looks and how many
// directories it visits, so a scan of a large tree (a home directory) ends.
const (
	DefaultDepth = 4
	MaxVisited   = 100000
)

// Entry is one run or experiment directory. Its field names are run.json's
// (and experiment.json's) where the figure is the same.
type Entry struct {
	Dir       string    `json:"dir"`  // relative to the scanned root
	Kind      string    `json:"kind"` // KindRun or KindExperiment
	StartedAt time.Time `json:"started_at,omitzero"`
	Workload  string    `json:"workload,omitempty"`
	// Model is run.json's model.kind ("open", "closed") or an experiment's
	// model ("open", "closed", "ramp", "search").
	Model   string  `json:"model,omitempty"`
	Clients int     `json:"clients,omitempty"`
	Rate    float64 `json:"rate,omitempty"` // target tx/s of the open model
	// TPS and P99 are a run's summary (committed/s over the measured
	// window; response p99 in ms), or for an experiment the median over
	// the runs of its first variant; nil when unknown (no summary yet, no
	// runs).
	TPS *float64 `json:"tps"`
	P99 *float64 `json:"p99_ms"`
	// Runs is an experiment's run count (its runs' directories are not
	// listed apart).
	Runs int `json:"runs,omitempty"`
	// Verdicts are an experiment's comparisons, each variant against the
	// first, on the comparison's primary metric.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Checks counts the checklist's items by status ("pass", "warn",
	// "fail").
	Checks      map[string]int `json:"checks,omitempty"`
	Interrupted bool           `json:"interrupted,omitempty"`
	// Error is why the directory could not be read; its other fields are
	// then what was known before the error.
	Error string `json:"error,omitempty"`
}

// Scan walks root to depth levels below it (0: DefaultDepth) and returns
// every run directory (holding run.json) and experiment directory (holding
// experiment.json) oldest first; an experiment's own runs are counted in its
// entry, not listed. A directory that cannot be read is an entry with its
// Error, not the end of the scan. Symbolic links are not followed.
func Scan(root string, depth int) ([]Entry, error) {
	if depth <= 0 {
		depth = DefaultDepth
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("runs: %s is not a directory", root)
	}
	var entries []Entry
	visited := 0
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			entries = append(entries, Entry{Dir: rel(root, path), Error: err.Error()})
			return fs.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		visited++
		if visited > MaxVisited {
			return fmt.Errorf("runs: more than %d directories under %s; point it at a smaller folder or lower --depth", MaxVisited, root)
		}
		switch {
		case exists(filepath.Join(path, results.ExperimentFile)):
			entries = append(entries, readExperiment(root, path))
			return fs.SkipDir
		case exists(filepath.Join(path, results.RunFile)):
			entries = append(entries, readRun(root, path))
			return fs.SkipDir
		}
		if path != root && strings.Count(rel(root, path), string(filepath.Separator))+1 >= depth {
			return fs.SkipDir
		}
		return nil
	})
	if walkErr != nil {
		return entries, walkErr
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.Before(b.StartedAt)
		}
		return a.Dir < b.Dir
	})
	return entries, nil
}

func readRun(root, path string) Entry {
	e := Entry{Dir: rel(root, path), Kind: KindRun}
	run, err := results.Load(path)
	if err != nil {
		e.Error = err.Error()
		return e
	}
	e.StartedAt = run.StartedAt
	e.Workload = run.Workload.Name
	e.Model = run.Model.Kind
	e.Clients = run.Model.Clients
	e.Rate = run.Model.Rate
	if s := run.Summary; s != nil {
		e.TPS = ptr(s.Total.TPS)
		if s.Total.Response.Count > 0 {
			e.P99 = ptr(s.Total.Response.P99)
		}
	}
	e.Checks = countChecks(run.Checks)
	e.Interrupted = run.Interrupted || run.Aborted
	return e
}

func readExperiment(root, path string) Entry {
	e := Entry{Dir: rel(root, path), Kind: KindExperiment}
	var rec experiment.Record
	if err := results.ReadExperiment(path, &rec); err != nil {
		e.Error = err.Error()
		return e
	}
	e.StartedAt = rec.StartedAt
	e.Workload = rec.Workload
	e.Model = rec.Model
	e.Clients = rec.Clients
	e.Rate = rec.Rate
	e.Runs = len(rec.Runs)
	e.Interrupted = rec.Interrupted
	e.Checks = countChecks(rec.Checks)
	if len(rec.Variants) > 0 {
		first := rec.Variants[0].Name
		var tps, p99 []float64
		for _, r := range rec.Runs {
			if r.Variant != first || r.Error != "" || r.Aborted {
				continue
			}
			tps = append(tps, r.TPS)
			p99 = append(p99, r.P99)
		}
		if len(tps) > 0 {
			e.TPS = ptr(median(tps))
			e.P99 = ptr(median(p99))
		}
	}
	for _, c := range rec.Comparisons {
		if c == nil {
			continue
		}
		v := Verdict{NameA: c.NameA, NameB: c.NameB, Metric: c.Primary}
		if pv := primaryVerdict(c.Metrics, c.Primary); pv != nil {
			v.Outcome, v.Direction = pv.Outcome, pv.Direction
			if pv.Ratio.OK {
				v.Ratio = &pv.Ratio
			}
		}
		e.Verdicts = append(e.Verdicts, v)
	}
	return e
}

// primaryVerdict is the verdict of the comparison's primary metric; nil when
// the comparison has none.
func primaryVerdict(ms []compare.Metric, primary string) *stats.VerdictResult {
	i := slices.IndexFunc(ms, func(m compare.Metric) bool { return m.Metric == primary })
	if i < 0 {
		return nil
	}
	return &ms[i].Verdict
}

// Verdict is one comparison of an experiment in brief: B against A on the
// primary metric, its outcome (stats.OutcomeDiffers, …; "" when the metric
// was not compared) and B/A's Hodges–Lehmann ratio with its interval.
type Verdict struct {
	NameA     string          `json:"name_a"`
	NameB     string          `json:"name_b"`
	Metric    string          `json:"metric"`
	Outcome   string          `json:"outcome,omitempty"`
	Direction string          `json:"direction,omitempty"`
	Ratio     *stats.Interval `json:"ratio,omitempty"`
}

func countChecks(cs []results.Check) map[string]int {
	if len(cs) == 0 {
		return nil
	}
	m := map[string]int{}
	for _, c := range cs {
		m[c.Status]++
	}
	return m
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ptr(v float64) *float64 { return &v }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return r
}

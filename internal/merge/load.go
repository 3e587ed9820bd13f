package merge

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// segment is one segment's run directory as read.
type segment struct {
	dir    string
	run    *results.Run
	config map[string]any // the "config" event's data (random seed, warm-up, interval, …)
	events []results.Event
	ivs    []interval // latency.hlog's intervals with their timeline rows, in time order

	offsetMs float64       // the mean of its clock readings (server − this generator)
	shift    time.Duration // added to its times: offsetMs − segment 0's
}

// interval is one interval of a segment: latency.hlog's lines of one
// (start, end) and the timeline.csv row that ends there.
type interval struct {
	start, end time.Time // ms precision, the segment's clock
	phase      string
	row        results.TimelineRow
	hists      map[string]*hdrhistogram.Histogram // by tag ("select-only/response", "total/lag", …)
}

// load reads the run directory dir of a segment, refusing what is not one
// or is not complete (unless allowPartial: interrupted or aborted).
func load(dir string, allowPartial bool) (*segment, []string, error) {
	run, err := results.Load(dir)
	if err != nil {
		return nil, nil, refuse("merge: %s: %v", dir, err)
	}
	var warnings []string
	switch {
	case run.Segment == nil:
		if run.Merge != nil {
			return nil, nil, refuse("merge: %s is a merged run (pgtrial merge), not a segment: give the segments' run directories", dir)
		}
		return nil, nil, refuse("merge: %s is not a segment run: its run.json has no \"segment\" (it was not made by run --segment i/n)", dir)
	case run.EndedAt.IsZero() || run.Summary == nil:
		return nil, nil, refuse("merge: %s never finished (its run.json has no end and no summary: the segment crashed or is still running); it cannot be merged", dir)
	case run.Interrupted || run.Aborted:
		what := "was interrupted (" + run.InterruptReason + ")"
		if !run.Interrupted {
			what = "had clients abort"
		}
		if !allowPartial {
			return nil, nil, refuse("merge: %s (segment %d of %d) %s: its schedule did not run to its end, so the merge would not be the whole load; rerun it, or give --allow-partial to merge what was measured", dir, run.Segment.Index, run.Segment.Count, what)
		}
		warnings = append(warnings, fmt.Sprintf("segment %d (%s) %s: the merged run is NOT the whole load (--allow-partial)", run.Segment.Index, dir, what))
	}
	s := &segment{dir: dir, run: run}
	if s.events, err = results.ReadEvents(dir); err != nil {
		return nil, nil, refuse("merge: %s: %v", dir, err)
	}
	for _, e := range s.events {
		if e.Kind == "config" {
			s.config = e.Data
			break
		}
	}
	if s.config == nil {
		return nil, nil, refuse("merge: %s: events.jsonl has no \"config\" event: its random seed, warm-up and interval cannot be checked against the other segments'", dir)
	}
	if err := s.readIntervals(); err != nil {
		return nil, nil, err
	}
	return s, warnings, nil
}

// readIntervals reads latency.hlog and timeline.csv into s.ivs: the hlog's
// lines grouped by their (start, end), each paired with the timeline row
// that ends at its end (both are written together, interval by interval).
func (s *segment) readIntervals() error {
	entries, err := results.ReadLatency(s.dir)
	if err != nil {
		return refuse("merge: %s: %v", s.dir, err)
	}
	rows, err := results.ReadTimeline(s.dir)
	if err != nil {
		return refuse("merge: %s: %v", s.dir, err)
	}
	for _, e := range entries {
		n := len(s.ivs)
		if n == 0 || !s.ivs[n-1].start.Equal(e.Start) || !s.ivs[n-1].end.Equal(e.End) {
			s.ivs = append(s.ivs, interval{start: e.Start, end: e.End, hists: map[string]*hdrhistogram.Histogram{}})
			n++
		}
		iv := &s.ivs[n-1]
		if h := iv.hists[e.Tag]; h != nil {
			h.Merge(e.Hist)
		} else {
			iv.hists[e.Tag] = e.Hist
		}
	}
	if len(rows) != len(s.ivs) {
		return refuse("merge: %s: timeline.csv has %d rows and latency.hlog %d intervals: the files do not belong together", s.dir, len(rows), len(s.ivs))
	}
	for i := range rows {
		// The timeline's time is the interval's end at ms precision, as the hlog's.
		if d := rows[i].Time.Sub(s.ivs[i].end); d < -time.Millisecond || d > time.Millisecond {
			return refuse("merge: %s: timeline.csv row %d ends at %s, latency.hlog's interval %d at %s: the files do not belong together",
				s.dir, i+1, rows[i].Time.Format(time.RFC3339Nano), i+1, s.ivs[i].end.Format(time.RFC3339Nano))
		}
		s.ivs[i].row, s.ivs[i].phase = rows[i], rows[i].Phase
	}
	return nil
}

// clockOffset is the mean of the segment's clock readings, ms; ok false
// without any.
func (s *segment) clockOffset() (float64, bool) {
	c := s.run.Segment.Clock
	if len(c) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, o := range c {
		sum += o.OffsetMs
	}
	return sum / float64(len(c)), true
}

// property is one thing every segment must share: its name in the refusal
// and its value.
type property struct {
	name  string
	value func(s *segment) string
}

func cfgValue(key string) func(s *segment) string {
	return func(s *segment) string {
		v, ok := s.config[key]
		if !ok {
			return "(not recorded)"
		}
		switch x := v.(type) {
		case string:
			return x
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = fmt.Sprintf("%s=%v", k, x[k])
			}
			return "{" + strings.Join(parts, " ") + "}"
		}
		return fmt.Sprint(v)
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// properties are what the segments of one load share: the workload, the
// schedule (the whole load's model, rate, clients and threads, duration,
// warm-up, interval, start), the seed and the protocol.
var properties = []property{
	{"segment count (segment.count)", func(s *segment) string { return strconv.Itoa(s.run.Segment.Count) }},
	{"workload (workload.name)", func(s *segment) string { return strconv.Quote(s.run.Workload.Name) }},
	{"scripts (workload.scripts: name@weight)", func(s *segment) string {
		parts := make([]string, len(s.run.Workload.Scripts))
		for i, sc := range s.run.Workload.Scripts {
			parts[i] = fmt.Sprintf("%s@%d", sc.Name, sc.Weight)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}},
	{"script texts (workload.scripts' sha256)", func(s *segment) string {
		parts := make([]string, len(s.run.Workload.Scripts))
		for i, sc := range s.run.Workload.Scripts {
			parts[i] = sc.SHA256
			if parts[i] == "" {
				parts[i] = "(not recorded)"
			} else if len(parts[i]) > 12 {
				parts[i] = parts[i][:12]
			}
		}
		return "[" + strings.Join(parts, " ") + "]"
	}},
	{"scale (workload.scale)", func(s *segment) string { return strconv.Itoa(s.run.Workload.Scale) }},
	{"load model (model.kind)", func(s *segment) string { return s.run.Model.Kind }},
	{"whole-load rate (segment.rate)", func(s *segment) string { return num(s.run.Segment.Rate) + " tx/s" }},
	{"whole-load clients (segment.clients)", func(s *segment) string { return strconv.Itoa(s.run.Segment.Clients) }},
	{"whole-load threads (segment.threads)", func(s *segment) string { return strconv.Itoa(s.run.Segment.Threads) }},
	{"arrivals (model.arrival)", func(s *segment) string { return s.run.Model.Arrival }},
	{"overload policy (model.overload)", func(s *segment) string { return s.run.Model.Overload }},
	{"latency limit (model.latency_limit_ms)", func(s *segment) string { return num(s.run.Model.LatencyLimitMs) + " ms" }},
	{"duration (model.duration_s)", func(s *segment) string { return num(s.run.Model.DurationS) + " s" }},
	{"start (segment.start_at)", func(s *segment) string {
		if s.run.Segment.StartAt.IsZero() {
			return "(none)"
		}
		return s.run.Segment.StartAt.UTC().Format(time.RFC3339Nano)
	}},
	{"random seed (events.jsonl config random_seed)", cfgValue("random_seed")},
	{"warm-up (config warmup_s)", cfgValue("warmup_s")},
	{"interval (config interval_s)", cfgValue("interval_s")},
	{"protocol (config protocol)", cfgValue("protocol")},
	{"max tries (config max_tries)", cfgValue("max_tries")},
	{"variables (config variables, -D)", cfgValue("variables")},
	{"continue on error (config continue_on_error)", cfgValue("continue_on_error")},
	{"per-command figures (config per_command)", cfgValue("per_command")},
	{"database (target.database)", func(s *segment) string { return strconv.Quote(s.run.Target.Database) }},
	{"server version (target.server_version)", func(s *segment) string { return strconv.Quote(s.run.Target.ServerVersion) }},
}

// check refuses segments that are not the segments of one load: a
// property that differs (naming the two directories and the field), a
// duplicate or missing index. segs are in the order given; it returns them
// in index order.
func check(segs []*segment) ([]*segment, error) {
	ref := segs[0]
	for _, s := range segs[1:] {
		for _, p := range properties {
			if a, b := p.value(ref), p.value(s); a != b {
				return nil, refuse("merge: %s and %s are not segments of one load: they differ in %s: %s vs %s", ref.dir, s.dir, p.name, a, b)
			}
		}
	}
	n := ref.run.Segment.Count
	byIndex := make([]*segment, n)
	for _, s := range segs {
		i := s.run.Segment.Index
		if i < 0 || i >= n {
			return nil, refuse("merge: %s: segment index %d is not in 0..%d", s.dir, i, n-1)
		}
		if o := byIndex[i]; o != nil {
			return nil, refuse("merge: %s and %s are both segment %d of %d (segment.index): each segment counts once", o.dir, s.dir, i, n)
		}
		byIndex[i] = s
	}
	var missing []string
	for i, s := range byIndex {
		if s == nil {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, refuse("merge: the load has %d segments (segment.count) and segment %s of them is missing: give every segment's run directory", n, strings.Join(missing, ", "))
	}
	return byIndex, nil
}

// intervalLength is the segments' interval (config interval_s), which
// check made equal.
func intervalLength(s *segment) (time.Duration, error) {
	v, ok := s.config["interval_s"].(float64)
	if !ok || !(v > 0) {
		return 0, refuse("merge: %s: its config event has no interval_s", s.dir)
	}
	return time.Duration(v * float64(time.Second)), nil
}

// tags are the latency.hlog tag prefixes of the scripts (as the writer
// makes them from the names) and of the total.
func tags(names []string) []string {
	return append(metrics.ScriptTags(names, len(names)), metrics.TagTotal)
}

func runID(dir string) string { return filepath.Base(filepath.Clean(dir)) }

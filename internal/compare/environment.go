package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Environment is what the runs' run.json recorded about the environment of
// each side (the server, its settings, the data's size, the host, pgtrial)
// and what of it differs between the sides besides the variant: a
// difference in the metrics may come from there.
type Environment struct {
	// Compared is the number of recorded items compared: each is recorded
	// in at least one run of each side (a run that did not record an item,
	// e.g. with --no-collect, is left out of that item).
	Compared int       `json:"compared"`
	Differs  []EnvDiff `json:"differs,omitempty"`
	// VariantKnown: the caller knew what the variant is (an experiment)
	// and VariantSettings, the settings the variants set, were left out;
	// `pgtrial compare` does not know, so a setting that is the change
	// under test is listed too.
	VariantKnown    bool     `json:"variant_known,omitempty"`
	VariantSettings []string `json:"variant_settings,omitempty"`
}

// EnvDiff is one recorded item whose values differ between the sides, or
// among the runs of a side.
type EnvDiff struct {
	Name string `json:"name"` // "server version", "setting shared_buffers", "table pgbench_accounts size"
	// A and B are each side's value for people: the value, "2 values: x
	// (A#1, A#3); y (A#2)" when the side's runs disagree, a size's median
	// or its range when the runs spread beyond SizeTolerance.
	A string `json:"a"`
	B string `json:"b"`
	// ValuesA and ValuesB are the runs' values in the order of the runs
	// (null: the run did not record the item).
	ValuesA []*string `json:"values_a"`
	ValuesB []*string `json:"values_b"`
}

// Sizes (data, tables, memory) change a little from run to run (tables
// grow and bloat under the workload): two sides' sizes differ only when
// their medians differ by more than SizeTolerance of the larger one and
// by more than SizeFloor bytes (a table of a few pages doubles with one
// page), and the sides' ranges over their runs do not overlap (a table
// that grows through interleaved runs, as pgbench_history, has medians a
// run's growth apart on the two sides, and overlapping ranges).
const (
	SizeTolerance = 0.10
	SizeFloor     = 1 << 20
)

// absentText is the value of a table or an extension a run recorded the
// others of but not this one, and defaultText that of a setting a run's
// collectors recorded the non-default settings of but not this one.
const (
	absentText  = "(absent)"
	defaultText = "(default)"
)

// envValue is one run's value of an item.
type envValue struct {
	text   string // an exact item's value
	bytes  int64  // a size item's value
	absent bool   // a size item (a table) absent from this run
}

// envItem is one recorded item of run.json.
type envItem struct {
	name string
	size bool // compared as a size (SizeTolerance), else exactly
	// value is the run's value; ok is false when the run did not record it.
	value func(*results.Run) (v envValue, ok bool)
}

// exact is an item compared exactly; get returns "" when the run did not
// record it.
func exact(name string, get func(*results.Run) string) envItem {
	return envItem{name: name, value: func(r *results.Run) (envValue, bool) {
		v := get(r)
		return envValue{text: v}, v != ""
	}}
}

// isPgtrialSetting reports whether a setting is pgtrial's own mark on the
// server (serverctl.MarkerSetting, "pgtrial.unrestored", is written while
// a variant's settings are applied): not part of the environment.
func isPgtrialSetting(name string) bool { return strings.HasPrefix(strings.ToLower(name), "pgtrial.") }

// runSettings are a run's recorded settings: the target's (the settings
// that shape results, read by the run) overlaid by the collectors' (the
// key settings and every non-default one, with unit).
func runSettings(r *results.Run) map[string]string {
	m := map[string]string{}
	for k, v := range r.Target.Settings {
		m[k] = v
	}
	if r.Server != nil {
		for k, v := range r.Server.Settings {
			m[k] = v
		}
	}
	return m
}

// environmentItems are the items recorded by any of runs, in the order
// they are listed: the server, its settings (by name), extensions, the
// data's sizes, the host, pgtrial and its collectors. Settings named in
// skip (lower case) and pgtrial's own are left out.
func environmentItems(runs []RunRef, skip map[string]bool) []envItem {
	items := []envItem{
		exact("server address", func(r *results.Run) string {
			t := r.Target
			if t.Host == "" && t.Port == 0 && t.Database == "" {
				return ""
			}
			return fmt.Sprintf("%s:%d/%s", t.Host, t.Port, t.Database)
		}),
		exact("server version", func(r *results.Run) string { return r.Target.ServerVersion }),
		exact("server build", func(r *results.Run) string {
			if r.Server == nil {
				return ""
			}
			return r.Server.Version
		}),
	}

	var settings, extensions, tables []string
	seen := map[string]bool{}
	for _, ref := range runs {
		r := ref.Run
		for k := range runSettings(r) {
			if !seen["s"+k] && !skip[strings.ToLower(k)] && !isPgtrialSetting(k) {
				seen["s"+k] = true
				settings = append(settings, k)
			}
		}
		if r.Server == nil {
			continue
		}
		for k := range r.Server.Extensions {
			if !seen["e"+k] {
				seen["e"+k] = true
				extensions = append(extensions, k)
			}
		}
		for _, t := range r.Server.Tables { // largest first: the first run's order
			if !seen["t"+t.Name] {
				seen["t"+t.Name] = true
				tables = append(tables, t.Name)
			}
		}
	}
	sort.Strings(settings)
	sort.Strings(extensions)

	for _, name := range settings {
		items = append(items, envItem{name: "setting " + name, value: func(r *results.Run) (envValue, bool) {
			if v, ok := runSettings(r)[name]; ok {
				return envValue{text: v}, true
			}
			if r.Server != nil && len(r.Server.Settings) > 0 {
				// The collectors record every setting not at its default.
				return envValue{text: defaultText}, true
			}
			return envValue{}, false
		}})
	}
	for _, name := range extensions {
		items = append(items, envItem{name: "extension " + name, value: func(r *results.Run) (envValue, bool) {
			if r.Server == nil || len(r.Server.Extensions) == 0 {
				return envValue{}, false
			}
			if v, ok := r.Server.Extensions[name]; ok {
				return envValue{text: v}, true
			}
			return envValue{text: absentText}, true
		}})
	}
	items = append(items, envItem{name: "database size", size: true, value: func(r *results.Run) (envValue, bool) {
		if r.Server == nil || r.Server.DatabaseBytes <= 0 {
			return envValue{}, false
		}
		return envValue{bytes: r.Server.DatabaseBytes}, true
	}})
	for _, name := range tables {
		items = append(items, envItem{name: "table " + name + " size", size: true, value: func(r *results.Run) (envValue, bool) {
			if r.Server == nil || len(r.Server.Tables) == 0 {
				return envValue{}, false
			}
			for _, t := range r.Server.Tables {
				if t.Name == name {
					return envValue{bytes: t.TotalBytes}, true
				}
			}
			return envValue{absent: true}, true
		}})
	}

	host := func(get func(*results.Host) string) func(*results.Run) string {
		return func(r *results.Run) string {
			if r.Host == nil {
				return ""
			}
			return get(r.Host)
		}
	}
	items = append(items,
		exact("host name", host(func(h *results.Host) string { return h.Hostname })),
		exact("host CPUs", host(func(h *results.Host) string {
			if h.CPUs <= 0 {
				return ""
			}
			return strconv.Itoa(h.CPUs)
		})),
		envItem{name: "host memory", size: true, value: func(r *results.Run) (envValue, bool) {
			if r.Host == nil || r.Host.MemoryBytes <= 0 {
				return envValue{}, false
			}
			return envValue{bytes: r.Host.MemoryBytes}, true
		}},
		exact("host kernel", host(func(h *results.Host) string { return h.Kernel })),
		exact("pgtrial version", func(r *results.Run) string {
			t := r.Tool
			var extra []string
			for _, s := range []string{t.Commit, t.Go} {
				if s != "" {
					extra = append(extra, s)
				}
			}
			if t.Version == "" && len(extra) == 0 {
				return ""
			}
			v := t.Version
			if len(extra) > 0 {
				v = strings.TrimSpace(v + " (" + strings.Join(extra, ", ") + ")")
			}
			return v
		}),
		exact("collectors", func(r *results.Run) string {
			if len(r.Collectors) == 0 {
				return "none"
			}
			return strings.Join(r.Collectors, ", ")
		}),
	)
	return items
}

// environment compares the recorded items of the two sides' run.json.
// An item is compared when at least one run of each side recorded it; it
// is listed when the sides' values differ (exactly, or for a size beyond
// SizeTolerance and SizeFloor) or when a side's runs disagree among
// themselves. variantSettings (the settings the variants set, when
// variantKnown) are left out.
func environment(runsA, runsB []RunRef, variantKnown bool, variantSettings []string) *Environment {
	env := &Environment{VariantKnown: variantKnown}
	skip := map[string]bool{}
	for _, s := range variantSettings {
		if !skip[strings.ToLower(s)] {
			skip[strings.ToLower(s)] = true
			env.VariantSettings = append(env.VariantSettings, s)
		}
	}
	sort.Strings(env.VariantSettings)
	for _, it := range environmentItems(append(slices.Clone(runsA), runsB...), skip) {
		a, b := envSide(it, runsA), envSide(it, runsB)
		if a.recorded == 0 || b.recorded == 0 {
			continue
		}
		env.Compared++
		if !envDiffers(it, a, b) {
			continue
		}
		env.Differs = append(env.Differs, EnvDiff{Name: it.name, A: a.text(it), B: b.text(it), ValuesA: a.values, ValuesB: b.values})
	}
	return env
}

// envSideValues is one side's values of an item.
type envSideValues struct {
	recorded int
	values   []*string // per run, null when not recorded
	// exact items: the distinct values in the order of the runs, and the
	// runs that have each.
	distinct []string
	who      map[string][]string
	// size items: the present sizes and the runs the object is absent from.
	sizes  []float64
	absent []string
}

func envSide(it envItem, runs []RunRef) envSideValues {
	s := envSideValues{values: make([]*string, len(runs)), who: map[string][]string{}}
	for i, ref := range runs {
		v, ok := it.value(ref.Run)
		if !ok {
			continue
		}
		s.recorded++
		text := v.text
		switch {
		case it.size && v.absent:
			text = absentText
			s.absent = append(s.absent, ref.Label)
		case it.size:
			text = format.Bytes(v.bytes)
			s.sizes = append(s.sizes, float64(v.bytes))
		default:
			if _, ok := s.who[text]; !ok {
				s.distinct = append(s.distinct, text)
			}
			s.who[text] = append(s.who[text], ref.Label)
		}
		s.values[i] = &text
	}
	return s
}

// envDiffers: exact items differ when the sides' sets of values differ or
// a side has more than one; sizes when the object is absent from some
// runs and not all, or their medians m_A and m_B differ by
// |m_B − m_A| > SizeTolerance · max(m_A, m_B) and > SizeFloor bytes and
// the ranges [min, max] of the sides do not overlap.
func envDiffers(it envItem, a, b envSideValues) bool {
	if !it.size {
		if len(a.distinct) > 1 || len(b.distinct) > 1 || len(a.distinct) != len(b.distinct) {
			return true
		}
		return a.distinct[0] != b.distinct[0]
	}
	aAll, bAll := len(a.sizes) == 0, len(b.sizes) == 0 // absent from every run
	switch {
	case (len(a.absent) > 0 && !aAll) || (len(b.absent) > 0 && !bAll):
		return true // absent from some runs of a side only
	case aAll || bAll:
		return aAll != bAll
	}
	ma, mb := stats.Median(a.sizes), stats.Median(b.sizes)
	d := math.Abs(mb - ma)
	apart := slices.Max(a.sizes) < slices.Min(b.sizes) || slices.Max(b.sizes) < slices.Min(a.sizes)
	return d > SizeTolerance*math.Max(ma, mb) && d > SizeFloor && apart
}

// text is the side's value for people (EnvDiff.A).
func (s envSideValues) text(it envItem) string {
	if !it.size {
		if len(s.distinct) == 1 {
			return s.distinct[0]
		}
		parts := make([]string, len(s.distinct))
		for i, v := range s.distinct {
			parts[i] = fmt.Sprintf("%s (%s)", v, strings.Join(s.who[v], ", "))
		}
		return fmt.Sprintf("%d values: %s", len(s.distinct), strings.Join(parts, "; "))
	}
	if len(s.sizes) == 0 {
		return absentText
	}
	lo, hi := slices.Min(s.sizes), slices.Max(s.sizes)
	v := format.Bytes(int64(stats.Median(s.sizes)))
	if hi > lo*(1+SizeTolerance) {
		v = format.Bytes(int64(lo)) + "–" + format.Bytes(int64(hi))
	}
	if len(s.absent) > 0 {
		v += "; absent in " + strings.Join(s.absent, ", ")
	}
	return v
}

package explain

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// alarms is the run's OS alarms: for each condition, the share of the
// measured intervals of os.csv in which it held, its threshold and the
// worst value. Every alarm is listed, those that never held with 0 %.
//
// Unlike pg_expecto (../shared/reference/pg_expecto.md §4.9):
//   - each interval's own figure is tested (os.csv, one row per interval),
//     not a 61-minute trailing median, which lags an event by half an hour
//     and flattens a short one;
//   - free memory is MemAvailable (what can be had without swapping), not
//     vmstat's "free", which Linux keeps near zero by design (page cache):
//     pg_expecto's "free RAM < 5 % 100 % of the time" is the normal state of
//     a busy machine; "free" is used only when MemAvailable is missing, and
//     the alarm says so;
//   - no ALARM/WARNING bands of 25 % and 50 % (exactly 25 % falls into ALARM
//     there): the share is reported as it is, with the threshold, which is
//     a setting (--explain alarm.wa=20%);
//   - b and r are held against the CPUs of the machine the server ran on
//     (run.json's host), and a threshold that needs them says so when they
//     are not known instead of using the client's.
func alarms(in *runInput) (*results.Alarms, []string) {
	rows, err := results.ReadOS(in.dir)
	if err != nil {
		return nil, []string{"OS alarms: missing (" + readWhy(in.run, results.EvidenceOS, results.OSFile, err) + ")"}
	}
	w := results.MeasuredWindow(in.run)
	if !w.Known() {
		return nil, []string{"OS alarms: missing (run.json has no measured phase)"}
	}
	ivl := medianGap(len(rows), func(i int) float64 { return rows[i].ElapsedS })
	var in2 []results.OSRow
	for _, r := range rows {
		if w.Holds(r.Time, secondsDur(ivl)) {
			in2 = append(in2, r)
		}
	}
	if len(in2) == 0 {
		return nil, []string{"OS alarms: missing (" + results.OSFile + " has no interval in the measured window)"}
	}
	a := &results.Alarms{Intervals: len(in2), IntervalS: ivl}
	if h := in.run.Host; h != nil {
		a.CPUs = h.CPUs
		a.MemoryKB = float64(h.MemoryBytes) / 1024
	}
	a.Items = alarmItems(in2, a.CPUs, a.MemoryKB, in.cfg)
	return a, nil
}

// alarmRule is one alarm: how to read its figure from a row and whether
// the figure breaches the threshold.
type alarmRule struct {
	name, setting, condition, unit string
	threshold                      float64
	low                            bool // the alarm holds below the threshold (free memory)
	missing                        string
	value                          func(r *results.OSRow) (v float64, of string) // NaN: not measured
}

// alarmItems evaluates every alarm over rows (the measured intervals).
func alarmItems(rows []results.OSRow, cpus int, memKB float64, cfg Config) []results.Alarm {
	perCPU := func(mult float64) (float64, string) {
		if cpus <= 0 {
			return math.NaN(), "the host's CPU count is not known (run.json has no host)"
		}
		return mult * float64(cpus), ""
	}
	bT, bMiss := perCPU(cfg.Blocked)
	rT, rMiss := perCPU(cfg.Runnable)
	var memMiss string
	if memKB <= 0 {
		memMiss = "the host's RAM is not known (run.json has no host memory)"
	}
	rules := []alarmRule{
		{name: "free memory", setting: "alarm.free", unit: "share", threshold: cfg.FreeMemory, low: true, missing: memMiss,
			condition: fmt.Sprintf("MemAvailable < %s of RAM", pct(cfg.FreeMemory)),
			value: func(r *results.OSRow) (float64, string) {
				if memKB <= 0 {
					return math.NaN(), ""
				}
				if !math.IsNaN(r.MemAvailableKB) {
					return r.MemAvailableKB / memKB, ""
				}
				return r.Free / memKB, "free (no MemAvailable)"
			}},
		{name: "iowait", setting: "alarm.wa", unit: "share", threshold: cfg.IOWait,
			condition: fmt.Sprintf("wa > %s of CPU time", pct(cfg.IOWait)),
			value:     func(r *results.OSRow) (float64, string) { return r.WA / 100, "" }},
		{name: "blocked", setting: "alarm.b", unit: "tasks", threshold: bT, missing: bMiss,
			condition: fmt.Sprintf("b > %g × CPUs (%s)", cfg.Blocked, cpuCount(cpus)),
			value:     func(r *results.OSRow) (float64, string) { return r.B, "" }},
		{name: "runnable", setting: "alarm.r", unit: "tasks", threshold: rT, missing: rMiss,
			condition: fmt.Sprintf("r > %g × CPUs (%s)", cfg.Runnable, cpuCount(cpus)),
			value:     func(r *results.OSRow) (float64, string) { return r.R, "" }},
		{name: "swap", setting: "alarm.swap", unit: "kB/s", threshold: cfg.Swap,
			condition: fmt.Sprintf("si or so > %g kB/s", cfg.Swap),
			value: func(r *results.OSRow) (float64, string) {
				switch {
				case math.IsNaN(r.SI):
					return r.SO, "so"
				case math.IsNaN(r.SO) || r.SI >= r.SO:
					return r.SI, "si"
				}
				return r.SO, "so"
			}},
		{name: "steal", setting: "alarm.steal", unit: "share", threshold: cfg.Steal,
			condition: fmt.Sprintf("st > %s of CPU time", pct(cfg.Steal)),
			value:     func(r *results.OSRow) (float64, string) { return r.ST / 100, "" }},
		{name: "disk util", setting: "alarm.util", unit: "share", threshold: cfg.DiskUtil,
			condition: fmt.Sprintf("the busiest disk's util > %s", pct(cfg.DiskUtil)),
			value: func(r *results.OSRow) (float64, string) {
				best, name := math.NaN(), ""
				for _, d := range r.Disks {
					if u := d.Util / 100; !math.IsNaN(u) && (math.IsNaN(best) || u > best) {
						best, name = u, d.Name
					}
				}
				return best, name
			}},
	}
	out := make([]results.Alarm, 0, len(rules))
	for _, rule := range rules {
		out = append(out, evalAlarm(rule, rows))
	}
	return out
}

// evalAlarm is one rule over the rows: the share of the measured rows in
// which it held and its worst value.
func evalAlarm(rule alarmRule, rows []results.OSRow) results.Alarm {
	a := results.Alarm{Name: rule.name, Setting: rule.setting, Condition: rule.condition, Unit: rule.unit,
		Threshold: rule.threshold, Missing: rule.missing, Worst: math.NaN()}
	if a.Missing != "" {
		a.Threshold, a.Worst = 0, 0 // no NaN in run.json
		return a
	}
	ofs := map[string]int{}
	for i := range rows {
		v, of := rule.value(&rows[i])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		a.Measured++
		held := v > rule.threshold
		worse := math.IsNaN(a.Worst) || v > a.Worst
		if rule.low {
			held, worse = v < rule.threshold, math.IsNaN(a.Worst) || v < a.Worst
		}
		if held {
			a.Held++
		}
		if worse {
			a.Worst, a.WorstAt = v, rows[i].ElapsedS
			if rule.name == "disk util" {
				a.WorstOf = of
			}
		}
		if of != "" && rule.name != "disk util" && rule.name != "swap" {
			ofs[of]++
		}
	}
	if a.Measured == 0 {
		a.Missing = "not measured in any interval of the window (os.csv has no value)"
		a.Worst = 0
		return a
	}
	if len(ofs) > 0 {
		a.WorstOf = "free (no MemAvailable)"
	}
	a.Share = float64(a.Held) / float64(a.Measured)
	return a
}

func pct(share float64) string { return fmt.Sprintf("%g %%", math.Round(share*1e4)/100) }

func cpuCount(n int) string {
	if n <= 0 {
		return "CPUs unknown"
	}
	return fmt.Sprintf("%d CPUs", n)
}

// medianGap is the median gap between consecutive values of elapsed(i),
// i < n (s); 1 when there are fewer than two.
func medianGap(n int, elapsed func(i int) float64) float64 {
	if n < 2 {
		return 1
	}
	gaps := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		if g := elapsed(i) - elapsed(i-1); g > 0 {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) == 0 {
		return 1
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

func secondsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

package explain

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// osRun writes an os.csv of n 1-s intervals (measured: all of them) whose
// row i is made by row(i), and returns the run for it.
func osRun(t *testing.T, n int, row func(i int, r *results.OSRow)) (string, *results.Run) {
	t.Helper()
	dir := t.TempDir()
	zero := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	w, err := results.CreateOS(dir, []string{"sda", "sdb"})
	if err != nil {
		t.Fatal(err)
	}
	// A warm-up row before the window: it must not count.
	for i := -1; i < n; i++ {
		end := zero.Add(time.Duration(i+1) * time.Second) // row i is (i, i+1] s
		r := results.OSRow{Time: end, ElapsedS: float64(i + 1), Source: "proc", R: 1, B: 0, US: 20, SY: 5, ID: 75,
			MemAvailableKB: 4 << 20, Free: 100,
			Disks: []results.DiskRow{{Name: "sda", Util: 10}, {Name: "sdb", Util: 20}}}
		if i < 0 {
			r.WA, r.B, r.R, r.SI = 90, 50, 50, 100 // every alarm, outside the window
		} else {
			row(i, &r)
		}
		if err := w.Write(r.Record()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	run := &results.Run{
		Phases: []results.Phase{{Name: results.PhaseMeasure, Start: zero, End: zero.Add(time.Duration(n) * time.Second)}},
		Host:   &results.Host{CPUs: 2, MemoryBytes: 8 << 30},
	}
	return dir, run
}

func alarmByName(t *testing.T, a *results.Alarms, name string) results.Alarm {
	t.Helper()
	for _, it := range a.Items {
		if it.Name == name {
			return it
		}
	}
	t.Fatalf("no alarm %q in %+v", name, a.Items)
	return results.Alarm{}
}

func TestAlarmsShares(t *testing.T) {
	dir, run := osRun(t, 20, func(i int, r *results.OSRow) {
		if i < 5 { // 25 % of the window: iowait 30 %, 3 blocked tasks on 2 CPUs
			r.WA, r.B = 30, 3
		}
		if i == 7 {
			r.SO = 12 // one interval of swapping out
			r.Disks[0].Util = 97
		}
		if i >= 10 {
			r.MemAvailableKB = 200 << 10 // 200 MB of 8 GB: 2.4 %
		}
	})
	a, warn := alarms(&runInput{dir: dir, run: run, cfg: Defaults()})
	if a == nil {
		t.Fatalf("no alarms: %v", warn)
	}
	if a.Intervals != 20 || a.CPUs != 2 || len(a.Items) != 7 {
		t.Fatalf("alarms: %d intervals, %d CPUs, %d items", a.Intervals, a.CPUs, len(a.Items))
	}
	check := func(name string, share, worst float64) {
		t.Helper()
		it := alarmByName(t, a, name)
		if it.Missing != "" || math.Abs(it.Share-share) > 1e-9 || math.Abs(it.Worst-worst) > 1e-6 {
			t.Errorf("%s: share %v worst %v missing %q; want %v, %v", name, it.Share, it.Worst, it.Missing, share, worst)
		}
	}
	check("iowait", 0.25, 0.30)
	check("blocked", 0.25, 3)
	check("runnable", 0, 1) // "no alarm" is listed with 0 %
	check("swap", 0.05, 12)
	check("steal", 0, 0)
	check("disk util", 0.05, 0.97)
	check("free memory", 0.5, 200.0/(8<<10))
	if u := alarmByName(t, a, "disk util"); u.WorstOf != "sda" || u.WorstAt != 8 {
		t.Errorf("disk util's worst is of %q at %v s, want sda at 8 s", u.WorstOf, u.WorstAt)
	}
	if b := alarmByName(t, a, "blocked"); b.Threshold != 2 || !strings.Contains(b.Condition, "2 CPUs") {
		t.Errorf("blocked: threshold %v, condition %q", b.Threshold, b.Condition)
	}

	// A threshold set by name moves the share.
	cfg := Defaults()
	if err := cfg.Set("alarm.wa=40%"); err != nil {
		t.Fatal(err)
	}
	a2, _ := alarms(&runInput{dir: dir, run: run, cfg: cfg})
	if it := alarmByName(t, a2, "iowait"); it.Share != 0 || !strings.Contains(it.Condition, "40 %") {
		t.Errorf("alarm.wa=40%%: share %v, condition %q", it.Share, it.Condition)
	}
}

func TestAlarmsMissing(t *testing.T) {
	// No host: b and r cannot be held against the CPUs, free memory not
	// against RAM; they say so and are not 0.
	dir, run := osRun(t, 5, func(i int, r *results.OSRow) { r.ST = math.NaN() })
	run.Host = nil
	a, _ := alarms(&runInput{dir: dir, run: run, cfg: Defaults()})
	for _, name := range []string{"blocked", "runnable", "free memory", "steal"} {
		if it := alarmByName(t, a, name); it.Missing == "" {
			t.Errorf("%s: not missing: %+v", name, it)
		}
	}
	if _, err := json.Marshal(a); err != nil {
		t.Errorf("alarms do not encode (NaN?): %v", err)
	}
	// No os.csv: nil and a warning with the collector's reason.
	run.Evidence = &results.Evidence{}
	run.Evidence.SetMissing(results.EvidenceOS, "the os collector was off (--collect)")
	a, warn := alarms(&runInput{dir: t.TempDir(), run: run, cfg: Defaults()})
	if a != nil || len(warn) != 1 || !strings.Contains(warn[0], "missing (not collected: the os collector was off") {
		t.Errorf("no os.csv: %+v, %v", a, warn)
	}
}

func TestRunFindingsSynthetic(t *testing.T) {
	dir := t.TempDir()
	run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 3, StallAt: 20 * time.Second, StallFor: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := Run(dir, run, Defaults())
	if f.Alarms == nil || f.Associations == nil || f.Pareto == nil {
		t.Fatalf("parts missing: %+v", f)
	}
	if _, err := json.Marshal(f); err != nil {
		t.Fatalf("findings do not encode: %v", err)
	}
	// The stall: every client but one waits on Lock:relation and latency
	// rises; the ranking puts a Lock wait first, as an association that
	// survives Holm.
	top := f.Associations.Waits[0]
	if top.Type != "Lock" || top.Slow.R < 0.3 || top.Holm >= 0.05 {
		t.Errorf("top association %+v; want Lock with ρ > 0.3, Holm p < 0.05", top)
	}
	// The Pareto of waits holds CPU (the most samples) and stops at 80 %.
	p := f.Pareto
	if len(p.Waits) == 0 || p.Waits[0].Name != "CPU" || p.Waits[len(p.Waits)-1].Cumulative < 0.8 {
		t.Errorf("waits' Pareto %+v", p.Waits)
	}
	if len(p.ByTime) == 0 || len(p.ByTimeIDs) != len(p.ByTime) || len(p.ByBlocks) == 0 {
		t.Errorf("statements' Pareto: %d by time (%d ids), %d by blocks", len(p.ByTime), len(p.ByTimeIDs), len(p.ByBlocks))
	}
	for i := 1; i < len(p.ByTime); i++ {
		if p.ByTime[i].Value > p.ByTime[i-1].Value || p.ByTime[i-1].Cumulative >= 0.8 {
			t.Errorf("by time not a Pareto at %d: %+v", i, p.ByTime)
		}
	}
}

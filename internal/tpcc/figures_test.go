package tpcc

import (
	"math"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

func summary(dur float64, scripts ...results.ScriptSummary) results.Summary {
	return results.Summary{Duration: dur, Scripts: scripts}
}

func TestFiguresTpmCNOPMAgree(t *testing.T) {
	s := summary(120,
		results.ScriptSummary{Name: "new-order", Committed: 2000, Response: results.Percentiles{P90: 12}},
		results.ScriptSummary{Name: "payment", Committed: 1900, Response: results.Percentiles{P90: 6000}, Failed: 3, FailedBy: map[string]int64{"serialization": 3, "deadlock": 0}, Retried: 2, Retries: 5},
		results.ScriptSummary{Name: "delivery", Committed: 170, Response: results.Percentiles{P90: 70000}},
	)
	// 1980 committed New-Orders (20 rolled back): Δ sum(d_next_o_id) = 1980.
	f := Figures(Input{Mode: ModeThroughput, Warehouses: 4, Clients: 8, Summary: s,
		NextOID: &results.WindowValue{Query: NOPMQuery, Start: 120010, End: 121990}})
	if f.TpmC != 1000 {
		t.Errorf("tpmC = %v, want 2000 / 2 min = 1000", f.TpmC)
	}
	if f.NOPM != 990 || f.NextOIDStart != 120010 || f.NextOIDEnd != 121990 {
		t.Errorf("NOPM = %v (%d → %d), want 1980 / 2 min = 990", f.NOPM, f.NextOIDStart, f.NextOIDEnd)
	}
	if math.Abs(f.Ratio-0.99) > 1e-12 || !f.Agree || f.ExpectedRatio != 0.99 {
		t.Errorf("ratio %v expected %v agree %v, want 0.99, 0.99, true", f.Ratio, f.ExpectedRatio, f.Agree)
	}
	if f.Note != NoteThroughput || f.Mode != ModeThroughput {
		t.Errorf("note %q mode %q", f.Note, f.Mode)
	}
	want := map[string]bool{"new-order": true, "payment": false, "order-status": false, "delivery": true, "stock-level": false}
	if len(f.Types) != 5 {
		t.Fatalf("%d types, want the 5 of the mix", len(f.Types))
	}
	for _, ty := range f.Types {
		if ty.Pass != want[ty.Name] {
			t.Errorf("%s: pass %v (p90 %v ms, limit %v ms), want %v", ty.Name, ty.Pass, ty.P90Ms, ty.LimitMs, want[ty.Name])
		}
	}
	p := f.Types[1]
	if p.LimitMs != 5000 || p.Failed != 3 || p.FailedBy["serialization"] != 3 || len(p.FailedBy) != 1 || p.Retries != 5 || p.Retried != 2 {
		t.Errorf("payment = %+v", p)
	}
	if d := f.Types[3]; d.LimitMs != 80000 || d.Note == "" {
		t.Errorf("delivery = %+v, want the 80 s limit and the in-line note", d)
	}
	if sl := f.Types[4]; sl.LimitMs != 20000 {
		t.Errorf("stock-level limit %v, want 20 s", sl.LimitMs)
	}
}

func TestFiguresDisagreeAndMissing(t *testing.T) {
	s := summary(60, results.ScriptSummary{Name: "new-order", Committed: 1000})
	// NOPM 880: ratio 0.88, 11 % below 0.99.
	f := Figures(Input{Mode: ModeSpec, Summary: s, NextOID: &results.WindowValue{Start: 0, End: 880}})
	if f.Agree || math.Abs(f.Ratio-0.88) > 1e-12 {
		t.Errorf("ratio %v agree %v, want 0.88 and false", f.Ratio, f.Agree)
	}
	if f.Note != NoteSpec {
		t.Errorf("note %q, want %q", f.Note, NoteSpec)
	}
	// NOPM 900: ratio 0.90, 9.1 % below: agrees.
	if f := Figures(Input{Summary: s, NextOID: &results.WindowValue{End: 900}}); !f.Agree {
		t.Errorf("ratio %v: want agreement within 10 %%", f.Ratio)
	}
	f = Figures(Input{Summary: s, NextOID: &results.WindowValue{Missing: "at the window's start: boom"}})
	if f.NOPM != 0 || f.Agree || f.NOPMMissing != "at the window's start: boom" {
		t.Errorf("missing: %+v", f)
	}
	if f := Figures(Input{Summary: s}); f.NOPMMissing == "" {
		t.Error("no window value: want NOPMMissing")
	}
}

func TestModeOf(t *testing.T) {
	for in, want := range map[string]string{"tpcc": ModeThroughput, "TPCC-spec": ModeSpec} {
		if m, ok := ModeOf(in); !ok || m != want {
			t.Errorf("ModeOf(%q) = %q %v", in, m, ok)
		}
	}
	if _, ok := ModeOf("tpcb-like"); ok {
		t.Error("tpcb-like is not tpcc")
	}
}

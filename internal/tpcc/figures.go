// Package tpcc is TPC-C-like's figures and consistency checks: tpmC from the
// run's New-Order count, NOPM from the server's district counters (as
// HammerDB), the specification's 90th-percentile response-time limits, and
// its consistency conditions 1–4 (check.go). The workload itself (schema,
// loader, scripts, mixes) is internal/workload's.
package tpcc

import (
	"math"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The modes, as run.json's tpcc.mode says them.
const (
	ModeThroughput = "throughput" // mix "tpcc": no waits, any number of clients
	ModeSpec       = "spec"       // mix "tpcc-spec": keying and think times, 10 terminals per warehouse
)

// The notes on what the figures compare with.
const (
	NoteSpec       = "not audited; comparable in kind only"
	NoteThroughput = "throughput mode: not comparable with published tpmC"
)

// NOPMQuery is the window query of NOPM (trial.Config.WindowQueries):
// sum(d_next_o_id) over all districts, as HammerDB samples it.
const NOPMQuery = "SELECT coalesce(sum(d_next_o_id), 0)::float8 FROM district"

// RollbackShare is the share of New-Orders that roll back (an unused item
// on the last line, clause 2.4.1.4): tpmC counts them, NOPM does not.
const RollbackShare = 0.01

// Agreement is how far NOPM/tpmC may lie from ExpectedRatio and still agree.
const Agreement = 0.10

// Limit is one transaction type's 90th-percentile response-time limit
// (clause 5.2.5.3).
type Limit struct {
	Name string  // the mix's script name
	Ms   float64 // the limit, ms
	Note string
}

// Limits are the specification's limits, in the mix's order.
var Limits = []Limit{
	{Name: "new-order", Ms: 5000},
	{Name: "payment", Ms: 5000},
	{Name: "order-status", Ms: 5000},
	{Name: "delivery", Ms: 80000, Note: "the spec's limit for the deferred part (5 s to queue); here executed in-line, so the whole transaction is held to 80 s"},
	{Name: "stock-level", Ms: 20000},
}

// ModeOf is the mode of a -b or builtin name ("tpcc", "tpcc-spec"); ok is
// false for another workload.
func ModeOf(name string) (mode string, ok bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "tpcc":
		return ModeThroughput, true
	case "tpcc-spec":
		return ModeSpec, true
	}
	return "", false
}

// Input is what Figures computes from.
type Input struct {
	Mode       string
	Warehouses int
	Clients    int
	Summary    results.Summary
	// NextOID is sum(d_next_o_id)'s window value (NOPMQuery); nil or
	// Missing: no NOPM.
	NextOID *results.WindowValue
}

// Figures computes the run's TPC-C-like figures (checks not included):
//
//	tpmC = committed "new-order" / (window s / 60), rolled-back ones included;
//	NOPM = (Σ d_next_o_id at the end − at the start) / (window s / 60);
//	expected NOPM/tpmC = 1 − RollbackShare; they agree within Agreement.
func Figures(in Input) *results.TPCC {
	t := &results.TPCC{
		Mode:          in.Mode,
		Warehouses:    in.Warehouses,
		Clients:       in.Clients,
		Note:          NoteThroughput,
		MeasuredS:     in.Summary.Duration,
		ExpectedRatio: 1 - RollbackShare,
	}
	if in.Mode == ModeSpec {
		t.Note = NoteSpec
	}
	minutes := in.Summary.Duration / 60
	byName := map[string]*results.ScriptSummary{}
	for i := range in.Summary.Scripts {
		byName[in.Summary.Scripts[i].Name] = &in.Summary.Scripts[i]
	}
	if s := byName["new-order"]; s != nil {
		t.NewOrders = s.Committed
	}
	if minutes > 0 {
		t.TpmC = float64(t.NewOrders) / minutes
	}
	switch {
	case in.NextOID == nil:
		t.NOPMMissing = "sum(d_next_o_id) was not sampled"
	case in.NextOID.Missing != "":
		t.NOPMMissing = in.NextOID.Missing
	case minutes <= 0:
		t.NOPMMissing = "no measured window"
	default:
		t.NextOIDStart, t.NextOIDEnd = int64(math.Round(in.NextOID.Start)), int64(math.Round(in.NextOID.End))
		t.NOPM = float64(t.NextOIDEnd-t.NextOIDStart) / minutes
		if t.TpmC > 0 {
			t.Ratio = t.NOPM / t.TpmC
			t.Agree = math.Abs(t.Ratio/t.ExpectedRatio-1) <= Agreement
		}
	}
	for _, l := range Limits {
		s := byName[l.Name]
		ty := results.TPCCType{Name: l.Name, LimitMs: l.Ms, Note: l.Note}
		if s != nil {
			ty.Committed, ty.P90Ms = s.Committed, s.Response.P90
			ty.Failed, ty.Retried, ty.Retries = s.Failed, s.Retried, s.Retries
			for k, v := range s.FailedBy {
				if v > 0 {
					if ty.FailedBy == nil {
						ty.FailedBy = map[string]int64{}
					}
					ty.FailedBy[k] = v
				}
			}
		}
		ty.Pass = ty.Committed > 0 && ty.P90Ms <= ty.LimitMs
		t.Types = append(t.Types, ty)
	}
	return t
}

// WindowValue finds query's value among a run's window values.
func WindowValue(vs []results.WindowValue, query string) *results.WindowValue {
	for i := range vs {
		if vs[i].Query == query {
			return &vs[i]
		}
	}
	return nil
}

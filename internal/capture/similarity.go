package capture

// Similarity: a run of a captured workload against the captured profile.
// The run's statements (statements.csv of its measured phase, the run's
// own top-level statements) are matched to the profile's by the script's
// tag in their text ("/* pgtrial-capture Q1 */"), else by queryid; then per
// statement:
//
//	share      = calls / the matched statements' calls (run) against the
//	             scripts' mix (ScriptShare: Weight / Σ weights, captured)
//	rows/call  = Δrows / Δcalls, run ÷ captured
//	blocks/call = Δ(shared_blks_hit + shared_blks_read) / Δcalls, run ÷ captured
//
// A share further than Thresholds.Share (absolute, 0.03 = 3 points) from
// the mix, or a ratio above Thresholds.Ratio or below its inverse, is a
// flag with what it suggests.

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// Thresholds are what the similarity flags.
type Thresholds struct {
	Share float64 `json:"share"` // |run share − captured share|, absolute (0.03)
	Ratio float64 `json:"ratio"` // run/captured per-call ratio above it or below 1/it (2)
	// WaitShare: |run share − captured share| of a wait type, absolute (0.10)
	WaitShare float64 `json:"wait_share"`
}

// DefaultThresholds: 3 points of share, a factor of 2 per call, 10 points
// of a wait type's share.
var DefaultThresholds = Thresholds{Share: 0.03, Ratio: 2, WaitShare: 0.10}

// StatementSimilarity is one scripted statement's comparison.
type StatementSimilarity struct {
	ID             string  `json:"id"`
	Query          string  `json:"query"`
	Calls          int64   `json:"calls"`           // in the run
	CapturedShare  float64 `json:"captured_share"`  // of the scripts' calls
	RunShare       float64 `json:"run_share"`       // of the scripts' calls
	CapturedRows   float64 `json:"captured_rows"`   // per call
	RunRows        float64 `json:"run_rows"`        // per call
	CapturedBlocks float64 `json:"captured_blocks"` // shared blocks per call
	RunBlocks      float64 `json:"run_blocks"`      // shared blocks per call
	CapturedMeanMs float64 `json:"captured_mean_ms"`
	RunMeanMs      float64 `json:"run_mean_ms"`
	ShareOff       bool    `json:"share_off"`
	RowsOff        bool    `json:"rows_off"`
	BlocksOff      bool    `json:"blocks_off"`
	// RowsRatio and BlocksRatio are run ÷ captured; NaN when the
	// profile's is 0 (capture compare --json writes them as null).
	RowsRatio   float64 `json:"-"`
	BlocksRatio float64 `json:"-"`
}

// Similarity is the comparison of a run with a profile.
type Similarity struct {
	Thresholds Thresholds            `json:"thresholds"`
	Phase      string                `json:"phase"` // the run's phase compared
	Statements []StatementSimilarity `json:"statements"`
	Unmatched  int64                 `json:"unmatched"` // the run's calls of statements not in the profile
	Waits      []WaitSimilarity      `json:"waits"`
	WaitsNote  string                `json:"waits_note"` // why the waits were not compared ("" when they were)
	// WaitsCaveat: the run's waits.csv is of another source than the capture's
	WaitsCaveat string   `json:"waits_caveat"`
	Similar     bool     `json:"similar"` // no flag
	Flags       []string `json:"flags"`
}

// tagRE reads a captured script's tag in a statement's text.
var tagRE = regexp.MustCompile(`/\* pgtrial-capture (Q[0-9]+) \*/`)

// Compare compares the run in runDir with the profile in dir.
func Compare(dir, runDir string, th Thresholds) (*Similarity, error) {
	p, err := LoadProfile(dir)
	if err != nil {
		return nil, err
	}
	rows, err := results.ReadStatements(runDir)
	if err != nil {
		return nil, fmt.Errorf("read the run's statements: %w (was it run with pg_stat_statements and without --no-collect?)", err)
	}
	phase := ""
	for _, r := range rows {
		if r.Phase == results.PhaseMeasure {
			phase = results.PhaseMeasure
			break
		}
	}
	byID, byQueryID := map[string]*Statement{}, map[int64]*Statement{}
	for i := range p.Statements {
		s := &p.Statements[i]
		if s.Script != "" {
			byID[s.ID], byQueryID[s.QueryID] = s, s
		}
	}
	type sum struct{ calls, rows, blocks, ms float64 }
	got := map[string]*sum{}
	sim := &Similarity{Thresholds: th, Phase: phase}
	var matched float64
	for _, r := range rows {
		if r.Phase != phase || r.Sessions != results.SessionsRun || r.Nested || r.Calls <= 0 {
			continue
		}
		var s *Statement
		if m := tagRE.FindStringSubmatch(r.Query); m != nil {
			s = byID[m[1]]
		}
		if s == nil {
			s = byQueryID[r.QueryID]
		}
		if s == nil {
			sim.Unmatched += r.Calls
			continue
		}
		g := got[s.ID]
		if g == nil {
			g = &sum{}
			got[s.ID] = g
		}
		g.calls += float64(r.Calls)
		g.rows += float64(r.Rows)
		g.blocks += float64(r.SharedBlksHit + r.SharedBlksRead)
		g.ms += r.TotalExecMs
		matched += float64(r.Calls)
	}
	if matched == 0 {
		return nil, fmt.Errorf("no statement of the run in %s is one of the profile's scripts (was it a run of %s's scripts, with pg_stat_statements?)", runDir, dir)
	}
	sim.Similar = true
	for _, s := range p.Statements {
		if s.Script == "" {
			continue
		}
		st := StatementSimilarity{ID: s.ID, Query: s.Query, CapturedShare: s.ScriptShare,
			CapturedRows: s.RowsPerCall, CapturedBlocks: s.BlocksPerCall, CapturedMeanMs: s.MeanMs,
			RowsRatio: math.NaN(), BlocksRatio: math.NaN()}
		if g := got[s.ID]; g != nil {
			st.Calls = int64(g.calls)
			st.RunShare = g.calls / matched
			st.RunRows, st.RunBlocks, st.RunMeanMs = g.rows/g.calls, g.blocks/g.calls, g.ms/g.calls
		}
		st.ShareOff = math.Abs(st.RunShare-st.CapturedShare) > th.Share
		if st.ShareOff {
			sim.Flags = append(sim.Flags, fmt.Sprintf("%s's share is %.1f %% in the run, %.1f %% in the scripts' mix: the run did not use run.sh's weights, was too short, or its scripts failed", s.ID, 100*st.RunShare, 100*st.CapturedShare))
		}
		if st.Calls > 0 {
			st.RowsRatio, st.RowsOff = ratio(st.RunRows, st.CapturedRows, th.Ratio)
			st.BlocksRatio, st.BlocksOff = ratio(st.RunBlocks, st.CapturedBlocks, th.Ratio)
		}
		if st.RowsOff {
			what := "its parameters match more rows than the captured ones did (less selective)"
			if st.RowsRatio < 1 {
				what = "its parameters are too selective (they match fewer rows than the captured ones did)"
			}
			sim.Flags = append(sim.Flags, fmt.Sprintf("rows/call of %s is %s the profile's: %s", s.ID, times(st.RowsRatio), what))
		}
		if st.BlocksOff {
			sim.Flags = append(sim.Flags, fmt.Sprintf("blocks/call of %s is %s the profile's: another plan, table size or index than the source's", s.ID, times(st.BlocksRatio)))
		}
		sim.Statements = append(sim.Statements, st)
	}
	var waitFlags []string
	sim.Waits, sim.WaitsNote, waitFlags, sim.WaitsCaveat = compareWaits(p, runDir, cmp.Or(th.WaitShare, DefaultThresholds.WaitShare))
	sim.Flags = append(sim.Flags, waitFlags...)
	sim.Similar = len(sim.Flags) == 0
	return sim, nil
}

// ratio is run ÷ captured and whether it is off by more than limit (NaN
// and not off when both are 0; +Inf and off when only captured is 0).
func ratio(run, captured, limit float64) (float64, bool) {
	if captured == 0 {
		if run == 0 {
			return math.NaN(), false
		}
		return math.Inf(1), true
	}
	r := run / captured
	return r, r > limit || r < 1/limit
}

// times writes a ratio as "10×" (two significant digits below 10).
func times(r float64) string {
	switch {
	case math.IsNaN(r):
		return "—"
	case math.IsInf(r, 1):
		return "∞×"
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	default:
		return fmt.Sprintf("%.2g×", r)
	}
}

// Summary is the similarity in one sentence: "similar: mix within 3 % per
// statement (…)" or "not similar: " and the flags.
func (s *Similarity) Summary() string {
	if !s.Similar {
		return "not similar: " + strings.Join(s.Flags, "; ")
	}
	worst, worstID := 0.0, ""
	for _, st := range s.Statements {
		if d := st.RunShare - st.CapturedShare; math.Abs(d) >= math.Abs(worst) {
			worst, worstID = d, st.ID
		}
	}
	waits := ""
	if s.WaitsNote == "" && len(s.Waits) > 0 {
		waits = fmt.Sprintf("; every wait type's share within %.0f points of the capture's", 100*cmp.Or(s.Thresholds.WaitShare, DefaultThresholds.WaitShare))
	}
	return fmt.Sprintf("similar: mix within %.0f %% per statement (largest difference %.1f points, %s); rows/call and blocks/call within %g× of the profile's%s",
		100*s.Thresholds.Share, 100*math.Abs(worst), worstID, s.Thresholds.Ratio, waits)
}

// Times writes a run ÷ captured ratio as "10×" ("—" when unknown).
func Times(r float64) string { return times(r) }

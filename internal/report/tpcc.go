package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TPCCBlocks are a TPC-C-like run's figures (run.json's tpcc): tpmC, NOPM,
// their ratio and agreement, the response-time limits per transaction type,
// and the consistency checks. None for another workload.
func TPCCBlocks(t *results.TPCC) []Block {
	if t == nil {
		return nil
	}
	head := fmt.Sprintf("TPC-C-like (%s mode", t.Mode)
	if t.Warehouses > 0 {
		head += fmt.Sprintf(", %d %s", t.Warehouses, format.Plural(t.Warehouses, "warehouse", "warehouses"))
	}
	head += fmt.Sprintf(", %d %s): %s", t.Clients, format.Plural(t.Clients, "client", "clients"), tpccNote(t.Mode, t.Note))
	lines := []string{
		fmt.Sprintf("tpmC-like %s New-Orders/min (%s completed in %s, the 1 %% rolled back included)",
			format.Rate(t.TpmC), format.Count(t.NewOrders), format.Seconds(t.MeasuredS)),
	}
	if t.NOPMMissing != "" {
		lines = append(lines, "NOPM "+format.Missing+": "+t.NOPMMissing)
	} else {
		agree := "agree"
		if !t.Agree {
			agree = "DISAGREE"
		}
		lines = append(lines,
			fmt.Sprintf("NOPM %s (Δ sum(d_next_o_id) %d → %d per minute: committed New-Orders only)",
				format.Rate(t.NOPM), t.NextOIDStart, t.NextOIDEnd),
			fmt.Sprintf("NOPM/tpmC %.3f, expected %.2f (1 %% rolled back): they %s within 10 %%", t.Ratio, t.ExpectedRatio, agree))
	}
	blocks := []Block{&Lines{Title: head, Lines: lines}}

	tab := &Table{Title: "TPC-C 90th-percentile response-time limits (clause 5.2.5.3)",
		Head: []string{"transaction", "completed", "p90 ms", "limit ms", "", "failed", "by class", "retried", "retries"}}
	var notes []string
	for _, ty := range t.Types {
		verdict := "pass"
		if !ty.Pass {
			verdict = "FAIL"
			if ty.Committed == 0 {
				verdict = "none completed"
			}
		}
		tab.Rows = append(tab.Rows, []Cell{Text(ty.Name), Text(format.Count(ty.Committed)), Text(format.Ms(ty.P90Ms)),
			Text(format.Ms(ty.LimitMs)), Text(verdict), Text(format.Count(ty.Failed)), Text(tpccFailedBy(ty.FailedBy)),
			Text(format.Count(ty.Retried)), Text(format.Count(ty.Retries))})
		if ty.Note != "" {
			notes = append(notes, ty.Name+": "+ty.Note)
		}
	}
	tab.Notes = append(notes, "p90 of the response time (from the intended start in the open model)")
	blocks = append(blocks, tab)

	chk := &Lines{Title: "TPC-C consistency conditions (clause 3.3.2)"}
	switch {
	case len(t.Checks) == 0 && t.ChecksSkipped != "":
		chk.Lines = []string{"not checked: " + t.ChecksSkipped}
	case len(t.Checks) == 0:
		chk.Lines = []string{"not checked"}
	}
	for _, c := range t.Checks {
		if c.Pass {
			chk.Lines = append(chk.Lines, fmt.Sprintf("condition %d pass: %s (%s checked)", c.Condition, c.What, format.Count(c.Checked)))
			continue
		}
		chk.Lines = append(chk.Lines, fmt.Sprintf("condition %d FAILED: %s (%s of %s violate it)", c.Condition, c.What, format.Count(c.Violations), format.Count(c.Checked)))
		for _, f := range c.Failures {
			chk.Lines = append(chk.Lines, "  "+f)
		}
		if c.Violations > int64(len(c.Failures)) {
			chk.Lines = append(chk.Lines, fmt.Sprintf("  … and %d more", c.Violations-int64(len(c.Failures))))
		}
	}
	return append(blocks, chk)
}

// tpccNote is what the figures compare with, without the mode the heading
// names already: run.json's "throughput mode: not comparable with
// published tpmC" is "not comparable with published tpmC" after
// "(throughput mode, …)".
func tpccNote(mode, note string) string {
	return strings.TrimPrefix(note, mode+" mode: ")
}

// tpccFailedBy is "serialization 3, deadlock 1", classes by name; "" for none.
func tpccFailedBy(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

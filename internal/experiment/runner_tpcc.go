package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/tpcc"
	"github.com/pgtrial/pgtrial/internal/trial"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// tpccScripts are the scripts of builtin tpcc's mix (workload.FindMix).
func tpccScripts(name string) ([]trial.Script, error) {
	m, ok := workload.FindMix(name)
	if !ok || len(m.Scripts) == 0 {
		return nil, fmt.Errorf("workload: builtin %s: this pgtrial has no such mix", name)
	}
	out := make([]trial.Script, 0, len(m.Scripts))
	for _, ms := range m.Scripts {
		p, err := script.Parse(ms.Name, ms.Script)
		if err != nil {
			return nil, fmt.Errorf("workload: builtin %s, script %s: %w", name, ms.Name, err)
		}
		out = append(out, trial.Script{Name: ms.Name, Builtin: true, Weight: ms.Weight, Parsed: p})
	}
	return out, nil
}

// tpccPreflight checks the database's TPC-C tables against the file: the
// warehouses of tpcc_meta equal workload.warehouses when given. It returns
// the warehouses and the mix's probe variables (e.g. :warehouses), which a
// workload.variables entry of the same name overrides.
func tpccPreflight(ctx context.Context, conn *pgx.Conn, s *Spec) (int, []trial.Var, error) {
	have, err := tpcc.Warehouses(ctx, conn)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: workload: builtin %s: %w", s.File, s.Workload.Builtin, err)
	}
	if want := s.Workload.Warehouses; want > 0 && want != have {
		return 0, nil, fmt.Errorf("%s: workload.warehouses is %d, and database %q has %d (tpcc_meta)\nhint: load them first: pgtrial init -w tpcc --warehouses %d",
			s.File, want, conn.Config().Database, have, want)
	}
	m, _ := workload.FindMix(s.Workload.Builtin)
	if m.Probe == "" {
		return have, nil, nil
	}
	rows, err := conn.Query(ctx, m.Probe)
	if err != nil {
		return 0, nil, fmt.Errorf("workload: builtin %s: probe: %w", s.Workload.Builtin, err)
	}
	defer rows.Close()
	var vars []trial.Var
	if rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return 0, nil, err
		}
		for i, fd := range rows.FieldDescriptions() {
			vars = append(vars, trial.Var{Name: fd.Name, Value: fmt.Sprint(vals[i])})
		}
	}
	return have, vars, rows.Err()
}

// tpccVars are the probe's variables the file's do not define.
func tpccVars(probe []trial.Var, file []trial.Var) []trial.Var {
	out := append([]trial.Var(nil), file...)
	for _, p := range probe {
		defined := false
		for _, f := range file {
			defined = defined || strings.EqualFold(f.Name, p.Name)
		}
		if !defined {
			out = append(out, p)
		}
	}
	return out
}

// addTPCC makes tc a TPC-C-like run's: NOPM's window query and, at its
// end, the figures and the consistency checks in its run.json.
func (r *runner) addTPCC(tc *trial.Config) {
	mode, warehouses, connString, clients := r.spec.Workload.TPCCMode, r.tpccWarehouses, tc.ConnString, tc.Clients
	tc.Vars = tpccVars(r.tpccProbe, tc.Vars)
	tc.WindowQueries = append(tc.WindowQueries, tpcc.NOPMQuery)
	tc.BeforeFinish = func(run *results.Run, res *trial.Result) {
		in := tpcc.Input{Mode: mode, Warehouses: warehouses, Clients: clients, Summary: res.Summary,
			NextOID: tpcc.WindowValue(res.WindowValues, tpcc.NOPMQuery)}
		skip := ""
		if res.Interrupted {
			skip = "the run was interrupted"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		run.TPCC = tpcc.Finish(ctx, connString, in, skip)
	}
}

// tpccFailed is a run's failed consistency checks as an error (the
// experiment fails); nil otherwise.
func tpccFailed(name string, t *results.TPCC) error {
	if !t.ChecksFailed() {
		return nil
	}
	var msgs []string
	for _, c := range t.Checks {
		msgs = append(msgs, c.Failures...)
	}
	return fmt.Errorf("run %s: TPC-C consistency checks failed (%d of %d conditions): %s",
		name, tpcc.Failed(t.Checks), len(t.Checks), strings.Join(msgs, "; "))
}

package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/tpcc"
	"github.com/pgtrial/pgtrial/internal/trial"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// tpccScripts are the scripts of builtin tpcc's mix (trial.LoadMix, as
// `run -b tpcc`: not Builtin, they need no pgbench tables).
func tpccScripts(name string) ([]trial.Script, error) {
	_, scripts, ok, err := trial.LoadMix(name)
	if err != nil {
		return nil, fmt.Errorf("workload: builtin %s: %w", name, err)
	}
	if !ok || len(scripts) == 0 {
		return nil, fmt.Errorf("workload: builtin %s: this pgtrial has no such mix", name)
	}
	return scripts, nil
}

// workloadName is the workload's name in experiment.json and run.json:
// builtin tpcc's mix ("tpcc", "tpcc-spec"), else trial.WorkloadName.
func (r *runner) workloadName() string {
	if r.spec.Workload.TPCCMode != "" {
		return r.spec.Workload.Builtin
	}
	return trial.WorkloadName(r.scripts)
}

// tpccLoadSeed is the seed of the rows an experiment loads: init's
// default --seed, so the tables are those of `pgtrial init -w tpcc
// --warehouses N`.
const tpccLoadSeed = 1

// tpccTables is the database's TPC-C-like tables: the names of
// workload.TPCCTables present, those of them without pgtrial's mark
// (workload.TPCCMark), and tpcc_meta's warehouses (0: no tpcc_meta, or no
// row in it: no complete load).
type tpccTables struct {
	present, unmarked []string
	warehouses        int
}

// readTPCCTables reads the TPC-C-like tables of the database.
func readTPCCTables(ctx context.Context, conn *pgx.Conn) (tpccTables, error) {
	var t tpccTables
	rows, err := conn.Query(ctx, `SELECT n, coalesce(obj_description(to_regclass(n), 'pg_class'), '')
  FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NOT NULL ORDER BY n`, workload.TPCCTables)
	if err != nil {
		return t, fmt.Errorf("look for the TPC-C tables: %w", err)
	}
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			rows.Close()
			return t, fmt.Errorf("look for the TPC-C tables: %w", err)
		}
		t.present = append(t.present, name)
		if comment != workload.TPCCMark {
			t.unmarked = append(t.unmarked, name)
		}
	}
	if err := rows.Err(); err != nil {
		return t, fmt.Errorf("look for the TPC-C tables: %w", err)
	}
	if slices.Contains(t.present, "tpcc_meta") {
		t.warehouses, err = tpcc.Warehouses(ctx, conn)
		if errors.Is(err, pgx.ErrNoRows) {
			t.warehouses, err = 0, nil // an unfinished load writes no row
		}
	}
	return t, err
}

// tpccNeedsLoad says whether an experiment asking for want warehouses
// loads the tables (as `pgtrial init -w tpcc --warehouses want`): when
// tpcc_meta does not say want and every table of those names there is
// pgtrial's (init drops only those). Tables of those names that pgtrial
// did not make are an error: init never drops what it did not create.
// want 0 (the file gives no warehouses): never; the tables must be there.
func tpccNeedsLoad(t tpccTables, want int, file, database string) (bool, error) {
	if want == 0 || t.warehouses == want && len(t.present) == len(workload.TPCCTables) {
		return false, nil
	}
	if len(t.unmarked) > 0 {
		return false, fmt.Errorf("%s: workload.warehouses is %d, and database %q has %s, which pgtrial did not create (no %q table comment): refusing to replace them; nothing was changed\nhint: drop them, use another database, or replace them with: pgtrial init -w tpcc --warehouses %d --force",
			file, want, database, strings.Join(t.unmarked, ", "), workload.TPCCMark, want)
	}
	return true, nil
}

// tpccPreflight checks the database's TPC-C tables against the file. With
// workload.warehouses given, tables at another warehouse count (or none)
// are loaded before the runs (r.tpccLoad, loadTPCC); without it tpcc_meta
// must be there. With the tables there, it reads their warehouses and the
// mix's probe variables (e.g. :warehouses), which a workload.variables
// entry of the same name overrides.
func (r *runner) tpccPreflight(ctx context.Context, conn *pgx.Conn) error {
	s := r.spec
	want := s.Workload.Warehouses
	if want == 0 {
		have, err := tpcc.Warehouses(ctx, conn)
		if err != nil {
			return fmt.Errorf("%s: workload: builtin %s: %w", s.File, s.Workload.Builtin, err)
		}
		r.tpccWarehouses = have
		return r.readTPCCProbe(ctx)
	}
	t, err := readTPCCTables(ctx, conn)
	if err != nil {
		return fmt.Errorf("%s: workload: builtin %s: %w", s.File, s.Workload.Builtin, err)
	}
	if r.tpccLoad, err = tpccNeedsLoad(t, want, s.File, conn.Config().Database); err != nil || r.tpccLoad {
		r.tpccWarehouses = want
		return err
	}
	r.tpccWarehouses = t.warehouses
	return r.readTPCCProbe(ctx)
}

// tpccLoads says whether table is one the experiment's TPC-C load makes
// (an injection's table need not be there before it).
func (r *runner) tpccLoads(table string) bool {
	return r.tpccLoad && slices.Contains(workload.TPCCTables, table)
}

// loadTPCC loads the TPC-C-like tables when the preflight found them
// missing or at another warehouse count: loader.RunTPCC, the load of
// `pgtrial init -w tpcc --warehouses N` (seed 1, DefaultJobs connections;
// it drops only tables marked as pgtrial's), then reads the probe's
// variables from the new tpcc_meta. experiment.json records the load.
func (r *runner) loadTPCC(ctx context.Context) error {
	if r.spec.Workload.TPCCMode == "" {
		return nil
	}
	r.rec.Warehouses = r.tpccWarehouses
	if !r.tpccLoad {
		return nil
	}
	pgcfg, err := pgconn.ParseConfig(r.env.ConnString)
	if err != nil {
		return err
	}
	pgsession.Own(pgcfg, pgsession.NameInit, pgsession.Unbounded) // COPY and index builds: as long as they take
	n := r.tpccWarehouses
	cmd := fmt.Sprintf("pgtrial init -w tpcc --warehouses %d --seed %d", n, tpccLoadSeed)
	r.out("pgtrial: loading the TPC-C-like tables, %d %s (%s)", n, format.Plural(n, "warehouse", "warehouses"), cmd)
	res, err := loader.RunTPCC(ctx, loader.TPCCConfig{Conn: pgcfg, Warehouses: n, Seed: tpccLoadSeed, Out: discard{}, Progress: loader.ProgressQuiet})
	if err != nil {
		return fmt.Errorf("load the TPC-C tables (%s): %w", cmd, err)
	}
	r.out("pgtrial: %s", res.Summary())
	r.tpccLoad = false
	r.rec.Loaded = &TablesLoaded{Workload: "tpcc", Warehouses: n, Seed: tpccLoadSeed, Command: cmd, DurationS: res.Total.Seconds()}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return r.readTPCCProbe(cctx)
}

// readTPCCProbe runs the mix's probe (workload.Mix.Probe) with
// trial.RunProbe, as `pgtrial run` does: the columns that
// workload.variables does not define become client variables
// (r.tpccProbe), and every column with the value the clients get is
// run.json's workload.probe (r.tpccProbeGot).
func (r *runner) readTPCCProbe(ctx context.Context) error {
	s := r.spec
	m, _ := workload.FindMix(s.Workload.Builtin)
	vars := make([]trial.Var, len(s.Workload.Variables))
	for i, x := range s.Workload.Variables {
		vars[i] = trial.Var{Name: x.Name, Value: x.Value}
	}
	var err error
	r.tpccProbe, r.tpccProbeGot, err = trial.RunProbe(ctx, r.env.ConnString, s.Workload.Builtin, m.Probe, vars)
	if err != nil {
		return fmt.Errorf("%s: workload: builtin %s: %w", s.File, s.Workload.Builtin, err)
	}
	return nil
}

// addTPCC makes tc a TPC-C-like run's: NOPM's window query and, at its
// end, the figures and the consistency checks in its run.json.
func (r *runner) addTPCC(tc *trial.Config) {
	mode, warehouses, connString, clients := r.spec.Workload.TPCCMode, r.tpccWarehouses, tc.ConnString, tc.Clients
	tc.Vars = append(tc.Vars, r.tpccProbe...)
	tc.Probe = r.tpccProbeGot
	tc.Workload = r.spec.Workload.Builtin
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

package loader

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/workload"
)

// TPCCConfig is one TPC-C-like load (pgtrial init -w tpcc).
type TPCCConfig struct {
	Conn       *pgconn.Config
	Warehouses int
	Seed       uint64 // the generators' seed, stored in tpcc_meta
	Jobs       int    // connections at once; 0: DefaultJobs
	Force      bool   // drop tables of these names that pgtrial did not create
	Out        io.Writer
	TTY        bool
	Progress   ProgressMode
}

// tpccTask is one COPY: a table of one warehouse (item: warehouse 0).
type tpccTask struct {
	table string
	w     int64
}

// RunTPCC drops the TPC-C-like tables pgtrial made, creates them, loads the
// rows with COPY on Jobs connections in parallel (tasks by warehouse and
// table), builds the keys in parallel, runs VACUUM ANALYZE and writes
// tpcc_meta.
func RunTPCC(ctx context.Context, cfg TPCCConfig) (Result, error) {
	if cfg.Warehouses < 1 || cfg.Warehouses > 100000 {
		return Result{}, fmt.Errorf("invalid --warehouses %d: use 1 to 100000", cfg.Warehouses)
	}
	jobs := cfg.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	prog := newProgress(cfg.Out, cfg.TTY, cfg.Progress)
	start := time.Now()
	main, err := connect(ctx, cfg.Conn, sessionSettings)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(main)
	var res Result
	step := func(op string, f func() error) error {
		t0 := time.Now()
		if err := f(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		res.Steps = append(res.Steps, StepTime{Op: op, Duration: time.Since(t0)})
		return nil
	}
	if err := step("drop tables", func() error {
		return dropMarked(ctx, main, cfg.Conn.Database, markedObjects{tables: workload.TPCCTables, mark: workload.TPCCMark}, cfg.Force)
	}); err != nil {
		return res, err
	}
	prog.Line("creating tables...")
	if err := step("create tables", func() error {
		sql := []string{"begin"}
		for i, c := range workload.TPCCCreateTables {
			sql = append(sql, c, fmt.Sprintf("comment on table %s is '%s'", workload.TPCCTables[i], workload.TPCCMark))
		}
		return exec(ctx, main, strings.Join(append(sql, "commit"), "; "))
	}); err != nil {
		return res, err
	}
	consts := workload.NewTPCCConstants(cfg.Seed)
	gen := workload.TPCCGen{Seed: cfg.Seed, Const: consts, Now: start}
	if err := step("client-side generate", func() error { return tpccCopy(ctx, cfg, jobs, prog, gen) }); err != nil {
		return res, err
	}
	prog.Line("creating primary keys and indexes...")
	if err := step("primary keys", func() error { return runStatements(ctx, cfg.Conn, jobs, workload.TPCCKeys) }); err != nil {
		return res, err
	}
	prog.Line("vacuuming...")
	if err := step("vacuum", func() error {
		var vs []string
		for _, t := range workload.TPCCTables[:9] {
			vs = append(vs, "vacuum analyze "+t)
		}
		return runStatements(ctx, cfg.Conn, jobs, vs)
	}); err != nil {
		return res, err
	}
	meta := fmt.Sprintf("insert into tpcc_meta values (%d, %d, %d, %d, now(), %d)",
		consts.CLast, consts.CID, consts.OLIID, cfg.Warehouses, int64(cfg.Seed))
	if err := exec(ctx, main, meta); err != nil {
		return res, err
	}
	res.Total = time.Since(start)
	return res, nil
}

// tpccCopy runs the COPY tasks on jobs connections; the biggest tasks
// (order_line, stock, customer) go first so the connections finish together.
func tpccCopy(ctx context.Context, cfg TPCCConfig, jobs int, prog *progress, gen workload.TPCCGen) error {
	tasks := []tpccTask{{"item", 0}}
	for _, table := range []string{"order_line", "stock", "customer", "history", "orders", "new_order", "district", "warehouse"} {
		for w := int64(1); w <= int64(cfg.Warehouses); w++ {
			tasks = append(tasks, tpccTask{table, w})
		}
	}
	var total int64
	for _, t := range tasks {
		total += workload.TPCCTableRows(t.table)
	}
	counter, stop := prog.Rows("tpcc tables", total)
	defer stop()
	return workers{conn: cfg.Conn, jobs: jobs}.run(ctx, len(tasks), func(ctx context.Context, c *pgconn.PgConn, i int) error {
		t := tasks[i]
		if err := tpccCopyOne(ctx, c, gen, t, counter); err != nil {
			return fmt.Errorf("%s of warehouse %d: %w", t.table, t.w, err)
		}
		return nil
	})
}

func tpccCopyOne(ctx context.Context, c *pgconn.PgConn, gen workload.TPCCGen, t tpccTask, counter *atomic.Int64) error {
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		gen.Write(bw, t.table, t.w, func(n int64) { counter.Add(n) })
		pw.CloseWithError(bw.Flush())
	}()
	sql := "copy " + t.table + " from stdin"
	_, err := c.CopyFrom(ctx, pr, sql)
	pr.Close()
	if err != nil {
		return &QueryError{SQL: sql, Err: err}
	}
	return nil
}

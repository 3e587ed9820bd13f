package loader

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/workload"
)

// YCSBConfig is `pgtrial init -w ycsb`'s load.
type YCSBConfig struct {
	Conn     *pgconn.Config
	Schema   workload.YCSB
	Force    bool // drop YCSB tables that pgtrial did not create
	Jobs     int  // COPY streams at once; 0: DefaultJobs
	Out      io.Writer
	TTY      bool
	Progress ProgressMode
}

// ycsbObjects are the relations init drops and creates.
var ycsbObjects = markedObjects{
	tables:    []string{workload.YCSBTable, workload.YCSBMeta},
	sequences: []string{workload.YCSBSeq},
	mark:      workload.YCSBComment,
}

// RunYCSB drops pgtrial's YCSB tables (refusing others' unless Force),
// creates them, loads the records on Jobs connections in parallel by COPY
// (rows generated in the client, reproducible for Schema.Seed: record n's
// fields depend on n only), then adds the primary key and runs VACUUM
// ANALYZE.
func RunYCSB(ctx context.Context, cfg YCSBConfig) (Result, error) {
	if err := cfg.Schema.Validate(); err != nil {
		return Result{}, err
	}
	jobs := cfg.Jobs
	if jobs == 0 {
		jobs = DefaultJobs
	}
	jobs = int(min(int64(jobs), cfg.Schema.Records))
	prog := newProgress(cfg.Out, cfg.TTY, cfg.Progress)
	start := time.Now()
	var res Result
	step := func(op string, f func() error) error {
		t := time.Now()
		if err := f(); err != nil {
			return err
		}
		res.Steps = append(res.Steps, StepTime{Op: op, Duration: time.Since(t)})
		return nil
	}
	main, err := connect(ctx, cfg.Conn, sessionSettings)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(main)

	if err := step("drop tables", func() error { return dropMarked(ctx, main, cfg.Conn.Database, ycsbObjects, cfg.Force) }); err != nil {
		return res, err
	}
	if err := step("create tables", func() error {
		for _, sql := range cfg.Schema.CreateSQL() {
			if err := exec(ctx, main, sql); err != nil {
				return fmt.Errorf("create YCSB tables: %w", err)
			}
		}
		return nil
	}); err != nil {
		return res, err
	}
	prog.Line("generating data (client-side, %d connections)...", jobs)
	if err := step("client-side generate", func() error { return ycsbCopy(ctx, cfg, jobs, prog) }); err != nil {
		return res, err
	}
	prog.Line("creating primary keys...")
	if err := step("primary keys", func() error {
		return exec(ctx, main, fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (ycsb_key)", workload.YCSBTable))
	}); err != nil {
		return res, err
	}
	prog.Line("vacuuming...")
	if err := step("vacuum", func() error {
		return exec(ctx, main, fmt.Sprintf("VACUUM (ANALYZE) %s, %s", workload.YCSBTable, workload.YCSBMeta))
	}); err != nil {
		return res, err
	}
	res.Total = time.Since(start)
	return res, nil
}

// ycsbCopy splits the keys 0..Records−1 into jobs contiguous ranges and
// COPYs each on a connection of its own; the first error cancels the others.
func ycsbCopy(ctx context.Context, cfg YCSBConfig, jobs int, prog *progress) error {
	n := cfg.Schema.Records
	counter, stop := prog.Rows(workload.YCSBTable, n)
	defer stop()
	return workers{conn: cfg.Conn, jobs: jobs}.run(ctx, jobs, func(ctx context.Context, c *pgconn.PgConn, j int) error {
		first, end := n*int64(j)/int64(jobs), n*int64(j+1)/int64(jobs)
		return ycsbCopyRange(ctx, c, cfg.Schema, first, end, counter)
	})
}

// ycsbCopyRange COPYs the records of keys first..end−1 on c.
func ycsbCopyRange(ctx context.Context, c *pgconn.PgConn, schema workload.YCSB, first, end int64, counter *atomic.Int64) error {
	r := &ycsbReader{schema: schema, next: first, end: end, counter: counter}
	sql := fmt.Sprintf("COPY %s FROM STDIN", workload.YCSBTable)
	if _, err := c.CopyFrom(ctx, r, sql); err != nil {
		return fmt.Errorf("COPY %s keys %d..%d: %w", workload.YCSBTable, first, end-1, err)
	}
	return nil
}

// ycsbReader generates COPY text rows straight into pgconn's buffer.
type ycsbReader struct {
	schema    workload.YCSB
	next, end int64
	counter   *atomic.Int64
}

func (r *ycsbReader) Read(p []byte) (int, error) {
	if r.next >= r.end {
		return 0, io.EOF
	}
	// A row: "user" + ≤ 20 digits + F·(1 + L) characters + newline.
	rowMax := 26 + r.schema.Fields*(1+r.schema.FieldLength)
	buf := p[:0]
	sent := int64(0)
	for r.next < r.end && (len(buf) == 0 || cap(buf)-len(buf) >= rowMax) {
		if cap(buf)-len(buf) < rowMax {
			// a row longer than the buffer: generate and truncate is not
			// possible, so send it whole from a scratch slice
			row := r.schema.AppendRow(nil, r.next)
			if len(row) > len(p) {
				return 0, fmt.Errorf("YCSB row of %d bytes exceeds the COPY buffer of %d: use a smaller --field-length", len(row), len(p))
			}
			buf = append(buf, row...)
		} else {
			buf = r.schema.AppendRow(buf, r.next)
		}
		r.next++
		sent++
	}
	r.counter.Add(sent)
	return len(buf), nil
}

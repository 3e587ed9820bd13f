package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/target"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// ycsbOptions are `init -w ycsb`'s own flags (YCSB's recordcount,
// fieldcount, fieldlength).
type ycsbOptions struct {
	records     int64
	fields      int
	fieldLength int
	seed        uint64
}

func addYCSBFlags(f *pflag.FlagSet, o *ycsbOptions) {
	f.Int64Var(&o.records, "records", 1000000, "-w ycsb: records in usertable (YCSB's recordcount)")
	f.IntVar(&o.fields, "fields", workload.YCSBDefaultFields, "-w ycsb: fields per record (YCSB's fieldcount)")
	f.IntVar(&o.fieldLength, "field-length", workload.YCSBDefaultFieldLength, "-w ycsb: characters per field (YCSB's fieldlength)")
	f.Uint64Var(&o.seed, "ycsb-seed", 0, "-w ycsb: seed of the generated fields (same seed, same rows)")
}

// runInitYCSB loads YCSB's usertable (loader.RunYCSB).
func runInitYCSB(ctx context.Context, o initOptions, stderr io.Writer) error {
	cfg := loader.YCSBConfig{
		Schema: workload.YCSB{Records: o.ycsb.records, Fields: o.ycsb.fields, FieldLength: o.ycsb.fieldLength, Seed: o.ycsb.seed},
		Force:  o.force,
		Jobs:   o.jobs,
		Out:    stderr,
		TTY:    isTerminal(stderr),
	}
	if err := cfg.Schema.Validate(); err != nil {
		return err
	}
	if o.jobs < 0 {
		return fmt.Errorf("invalid --jobs %d: it must be 0 (automatic) or more", o.jobs)
	}
	if o.quiet {
		cfg.Progress = loader.ProgressQuiet
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, o.conn.request(func(s string) { fmt.Fprintln(stderr, s) }))
	if err != nil {
		return err
	}
	if cfg.Conn, err = pgconn.ParseConfig(res.ConnString); err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(cfg.Conn, pgsession.NameInit, pgsession.Unbounded)
	done, err := loader.RunYCSB(ctx, cfg)
	if err != nil {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return pgerr.Connect(err, cfg.Conn)
		}
		return err
	}
	fmt.Fprintln(stderr, done.Summary())
	return nil
}

package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/loader"
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
	return loadOn(ctx, o, stderr, func(ctx context.Context, conn *pgconn.Config) (summarizer, error) {
		cfg.Conn = conn
		return loader.RunYCSB(ctx, cfg)
	})
}

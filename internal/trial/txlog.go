package trial

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TxLogSpec is a per-transaction log in pgbench's -l format, one file per
// thread: PREFIX.PID for thread 0, PREFIX.PID.T for thread T.
type TxLogSpec struct {
	Prefix string // "" : pgbench_log
	// Format gives the columns (-R, -L, --max-tries, --failures-detailed,
	// --continue-on-error), --aggregate-interval and --sampling-rate; nil:
	// pgbench's plain -l format.
	Format *pgbenchfmt.Options
	// Private: the logs are files of a run directory (`run --txlog`), mode
	// results.FileMode; else pgbench's (0666 less the umask).
	Private bool
}

// txLogs are a run's open per-thread logs.
type txLogs []*pgbenchfmt.TxLog

// openTxLogs opens one log per thread; each thread's sample stream (for
// --sampling-rate) is its stream of streams, as pgbench's. The error is
// pgbenchfmt's (pgbench's text); nothing stays open on an error.
func openTxLogs(spec *TxLogSpec, threads int, streams prng.Streams) (txLogs, error) {
	var logs txLogs
	pid := os.Getpid()
	for t := 0; t < threads; t++ {
		sample := streams.Threads[t].Sample
		l, err := pgbenchfmt.OpenTxLog(spec.Prefix, pid, t, spec.Format, &sample)
		if err == nil && spec.Private {
			if err = os.Chmod(l.Path(), results.FileMode); err != nil {
				err = fmt.Errorf("--txlog: %w", err)
				l.Close()
			}
		}
		if err != nil {
			logs.close()
			return nil, err
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// start gives each log the bench start (the first aggregation interval
// begins at its second).
func (ls txLogs) start(bench time.Time) {
	for _, l := range ls {
		l.SetStart(bench)
	}
}

// tx logs one transaction of client (of thread group), engine.Config.OnTx.
func (ls txLogs) tx(client, group int, txNo int64, tx *metrics.Tx, end time.Time) {
	ls[group].Log(client, txNo, tx, end)
}

// close ends every log now (the aggregation intervals ended by now are
// written) and returns their errors, in thread order.
func (ls txLogs) close() []error {
	var errs []error
	for _, l := range ls {
		if err := l.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// runTxLogSpec is `pgtrial run --txlog`'s log: DIR/txlog/pgtrial_log.PID
// (thread 0) and .PID.T, the lag column under a rate, the retries column
// when max tries is not 1, failures by class. It makes DIR/txlog.
func (c *Config) runTxLogSpec() (*TxLogSpec, error) {
	if err := results.MakeDirs("--txlog directory", filepath.Join(c.Dir, "txlog")); err != nil {
		return nil, err
	}
	return &TxLogSpec{
		Prefix:  filepath.Join(c.Dir, "txlog", "pgtrial_log"),
		Private: true,
		Format: &pgbenchfmt.Options{
			Rate:             c.Rate,
			MaxTries:         uint32(c.MaxTries),
			FailuresDetailed: true,
			LatencyLimit:     int64(c.LatencyLimit / time.Microsecond),
			ContinueOnError:  c.ContinueOnError,
		},
	}, nil
}

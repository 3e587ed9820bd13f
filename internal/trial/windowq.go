package trial

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/results"
)

// NameWindow is the application_name of the session of Config.WindowQueries.
const NameWindow = "pgtrial-window"

// windowQueries runs Config.WindowQueries on one session of the run's own
// (not a client's: the clients' path is untouched) at the measured window's
// start and at its end. Each query returns one number.
type windowQueries struct {
	queries []string
	conn    *pgx.Conn

	mu     sync.Mutex
	values []results.WindowValue
	wg     sync.WaitGroup
	begun  bool
}

// openWindowQueries connects the session; nil when there are no queries.
// A connection that fails is recorded in every value's Missing.
func openWindowQueries(ctx context.Context, connString string, queries []string) *windowQueries {
	if len(queries) == 0 {
		return nil
	}
	w := &windowQueries{queries: queries, values: make([]results.WindowValue, len(queries))}
	for i, q := range queries {
		w.values[i] = results.WindowValue{Query: q, Missing: "the measured window did not start"}
	}
	cfg, err := pgx.ParseConfig(connString)
	if err == nil {
		pgsession.Own(&cfg.Config, NameWindow, pgsession.Short)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		w.conn, err = pgx.ConnectConfig(cctx, cfg)
		cancel()
		if err != nil {
			err = pgerr.Connect(err, &cfg.Config)
		}
	}
	if err != nil {
		for i := range w.values {
			w.values[i].Missing = "window queries' session: " + err.Error()
		}
	}
	return w
}

// start runs the queries at the window's start, in the background (the
// recorder's goroutine calls it and must not wait on the server).
func (w *windowQueries) start(ctx context.Context) {
	if w == nil || w.conn == nil {
		return
	}
	w.mu.Lock()
	if w.begun {
		w.mu.Unlock()
		return
	}
	w.begun = true
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for i, q := range w.queries {
			v, err := w.query(ctx, q)
			w.mu.Lock()
			if err != nil {
				w.values[i].Missing = fmt.Sprintf("at the window's start: %v", err)
			} else {
				w.values[i].Start, w.values[i].StartAt, w.values[i].Missing = v, time.Now(), ""
			}
			w.mu.Unlock()
		}
	}()
}

// end runs the queries at the window's end (the clients have stopped),
// closes the session and returns the values.
func (w *windowQueries) end(ctx context.Context) []results.WindowValue {
	if w == nil {
		return nil
	}
	w.wg.Wait()
	if w.conn != nil {
		defer w.close()
		w.mu.Lock()
		begun := w.begun
		w.mu.Unlock()
		for i, q := range w.queries {
			if !begun || w.values[i].Missing != "" {
				continue
			}
			v, err := w.query(ctx, q)
			if err != nil {
				w.values[i].Missing = fmt.Sprintf("at the window's end: %v", err)
				continue
			}
			w.values[i].End, w.values[i].EndAt = v, time.Now()
		}
	}
	return w.values
}

func (w *windowQueries) query(ctx context.Context, q string) (float64, error) {
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var v float64
	if err := w.conn.QueryRow(qctx, q).Scan(&v); err != nil {
		return 0, fmt.Errorf("%s: %w", q, err)
	}
	return v, nil
}

// close closes the session (again: a no-op); for the ways out before end.
func (w *windowQueries) close() {
	if w == nil || w.conn == nil {
		return
	}
	w.wg.Wait()
	w.conn.Close(context.Background())
	w.conn = nil
}

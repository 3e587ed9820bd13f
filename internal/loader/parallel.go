package loader

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// workers is the loader's one runner of parallel work: up to jobs connections to conn,
// opened for the purpose, each taking the next task until none is left.
type workers struct {
	conn *pgconn.Config
	jobs int
	// done runs on each worker's connection before it closes; nil: nothing.
	done func(c *pgconn.PgConn)
}

// run runs tasks 0..n−1 on min(w.jobs, n) connections. Task i has a connection to
// itself for its whole duration; the first error (a connection's or a task's) cancels
// the rest and is returned; ctx's error if it ended before every task ran.
func (w workers) run(ctx context.Context, n int, task func(ctx context.Context, c *pgconn.PgConn, i int) error) error {
	count := min(w.jobs, n)
	if count <= 0 {
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := atomic.Int64{}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	for range count {
		wg.Go(func() {
			c, err := connect(ctx, w.conn, sessionSettings)
			if err != nil {
				fail(err)
				return
			}
			defer closeAll(c)
			if w.done != nil {
				defer w.done(c)
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := task(ctx, c, i); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr == nil {
		// cancelled between two tasks: the work is not done
		return parent.Err()
	}
	return firstErr
}

// runStatements runs stmts on up to jobs connections at once, each on one of them.
func runStatements(ctx context.Context, conn *pgconn.Config, jobs int, stmts []string) error {
	return workers{conn: conn, jobs: jobs}.run(ctx, len(stmts), func(ctx context.Context, c *pgconn.PgConn, i int) error {
		return exec(ctx, c, stmts[i])
	})
}

package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/merge"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// SegmentsDir holds, under an experiment's directory, the segments' own run
// directories of each run made as segments (load.segments): SegmentsDir/
// RUN/000, 001, …; the run's directory under RunsDir is their merge.
const SegmentsDir = "segments"

// segmentLead is how long before the segments' common start they are
// started: their clients connect in it (at the engine's connect rate).
func segmentLead(clients int) time.Duration {
	return time.Second + time.Duration(float64(clients)/engine.DefaultConnectRate*float64(time.Second))
}

// runSegments makes the run tc as n segments of its load (load.segments):
// n trial runs side by side, each segment i of n (trial.Segment: its
// threads, clients, streams and rate share), all begun at one instant
// (--start-at), then merged into tc.Dir (merge.Dirs) — the run directory
// n generators would give, made in this process. Only segment 0 has the
// hooks that watch or disturb the run (status, injections, live metrics);
// every segment collects as its run would (segment 0 the server's
// evidence, the others this machine's OS metrics).
func (r *runner) runSegments(ctx context.Context, tc *trial.Config, n int, name string) (*trial.Result, error) {
	segRoot := filepath.Join(r.env.Dir, SegmentsDir, name)
	if err := os.MkdirAll(segRoot, 0o700); err != nil {
		return nil, fmt.Errorf("segments: %w", err)
	}
	startAt := time.Now().Add(segmentLead(tc.Clients))
	cfgs := make([]*trial.Config, n)
	dirs := make([]string, n)
	for i := range n {
		seg, err := trial.NewSegment(i, n, tc.Clients, tc.Threads, tc.Rate)
		if err != nil {
			return nil, fmt.Errorf("load.segments: %w", err)
		}
		seg.StartAt = startAt
		c := *tc
		c.Segment = seg
		c.Clients, c.Threads, c.Rate = seg.SegClients, seg.SegThreads, seg.SegRate()
		c.Dir = filepath.Join(segRoot, fmt.Sprintf("%03d", i))
		c.Labels = map[string]string{"segment": fmt.Sprintf("%d/%d", i, n)}
		for k, v := range tc.Labels {
			c.Labels[k] = v
		}
		if i > 0 {
			c.OnInterval, c.OnPhase, c.AfterRun, c.OnStart = nil, nil, nil, nil
		}
		cfgs[i], dirs[i] = &c, c.Dir
	}
	if r.env.OnRun != nil {
		r.env.OnRun(cfgs[0])
	}
	res := make([]*trial.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { res[i], errs[i] = trial.Run(ctx, cfgs[i]) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("segment %d of %d: %w", i, n, err)
		}
	}
	run, err := merge.Dirs(dirs, tc.Dir)
	if err != nil {
		return nil, fmt.Errorf("merging the %d segments: %w", n, err)
	}
	out := &trial.Result{Run: run, Dir: tc.Dir, Measured: true}
	if run.Summary != nil {
		out.Summary = *run.Summary
	}
	var runErrs []error
	for i, x := range res {
		out.Measured = out.Measured && x.Measured
		out.Aborted += x.Aborted
		if x.Interrupted && !out.Interrupted {
			out.Interrupted, out.Reason = true, x.Reason
		}
		if x.Err != nil {
			runErrs = append(runErrs, fmt.Errorf("segment %d: %w", i, x.Err))
		}
	}
	out.Err = errors.Join(runErrs...)
	return out, nil
}

// segmentsOf is the number of segments a run is made as (1: one generator).
func segmentsOf(l *LoadSpec) int { return max(1, l.Segments) }

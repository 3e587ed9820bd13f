package pgbenchfmt

import (
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

func TestProgressLine(t *testing.T) {
	start := time.Unix(1796006483, 250000000)
	ok3 := []metrics.Tx{txOK(0, 1000, 100, 1), txOK(0, 2000, 200, 2), txOK(0, 4000, 300, 1)}
	mixed := append(append([]metrics.Tx{}, ok3...),
		txFailed(0, metrics.FailedSerialization, 2), txFailed(0, metrics.FailedDeadlock, 1), txFailed(0, metrics.FailedOther, 1), txSkipped(0))
	tests := []struct {
		name    string
		args    []string
		txs     []metrics.Tx
		at      time.Duration // since start
		elapsed time.Duration
		want    string
	}{
		{
			name: "plain", args: []string{"-T", "10", "-P", "1"}, txs: ok3,
			at: 1003 * time.Millisecond, elapsed: 999 * time.Millisecond,
			// tps = 1e6×3/999000 = 3.003…; stddev = 0.001 × sqrt(7e6 − 1e6×2.333…²) = 1.247
			want: "progress: 1.0 s, 3.0 tps, lat 2.333 ms stddev 1.247, 0 failed\n",
		},
		{
			name: "failures: serialization, deadlock and other", args: []string{"-T", "10", "-P", "1", "--continue-on-error"}, txs: mixed,
			at: 2049 * time.Millisecond, elapsed: time.Second,
			want: "progress: 2.0 s, 3.0 tps, lat 2.333 ms stddev 1.247, 3 failed\n",
		},
		{
			name: "rate: lag", args: []string{"-T", "10", "-P", "1", "-R", "10"}, txs: ok3,
			at: 1050 * time.Millisecond, elapsed: time.Second,
			want: "progress: 1.1 s, 3.0 tps, lat 2.333 ms stddev 1.247, 0 failed, lag 0.200 ms\n",
		},
		{
			name: "rate and limit: skipped; max tries: retries", args: []string{"-T", "10", "-P", "5", "-R", "10", "-L", "3", "--max-tries", "3"}, txs: mixed,
			at: 5 * time.Second, elapsed: 5 * time.Second,
			want: "progress: 5.0 s, 0.6 tps, lat 2.333 ms stddev 1.247, 3 failed, lag 0.200 ms, 1 skipped, 2 retried, 2 retries\n",
		},
		{
			name: "limit without rate: no skipped", args: []string{"-T", "10", "-P", "1", "-L", "3"}, txs: ok3,
			at: time.Second, elapsed: time.Second,
			want: "progress: 1.0 s, 3.0 tps, lat 2.333 ms stddev 1.247, 0 failed\n",
		},
		{
			name: "nothing finished: zeros", args: []string{"-T", "10", "-P", "1", "-R", "10", "-L", "1", "--max-tries", "0"}, txs: []metrics.Tx{txSkipped(0)},
			at: 3 * time.Second, elapsed: time.Second,
			want: "progress: 3.0 s, 0.0 tps, lat 0.000 ms stddev 0.000, 0 failed, lag 0.000 ms, 1 skipped, 0 retried, 0 retries\n",
		},
		{
			name: "timestamp", args: []string{"-T", "10", "-P", "1", "--progress-timestamp"}, txs: ok3,
			at: 1003 * time.Millisecond, elapsed: time.Second,
			want: "progress: 1796006484.253 s, 3.0 tps, lat 2.333 ms stddev 1.247, 0 failed\n",
		},
		{
			name: "one transaction: the radicand rounds below zero", args: []string{"-T", "10", "-P", "1"},
			txs: []metrics.Tx{txOK(0, 9, 0, 1)},
			at:  time.Second, elapsed: time.Second,
			// latency = 0.001×9; 81 − 1e6 × latency² = −2.8e-14
			want: "progress: 1.0 s, 1.0 tps, lat 0.009 ms stddev -nan, 0 failed\n",
		},
		{
			name: "zero interval", args: []string{"-T", "10", "-P", "1"}, txs: nil,
			at: time.Second, elapsed: 0,
			want: "progress: 1.0 s, -nan tps, lat 0.000 ms stddev 0.000, 0 failed\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := parseTestOptions(t, nil, append([]string{"-n"}, tc.args...)...)
			p := &Progress{Opts: o, Start: start}
			d := statsOf(o.LatencyLimit, tc.txs...)
			if got := p.Line(start.Add(tc.at), &d, tc.elapsed); got != tc.want {
				t.Errorf("Line:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestProgressReport checks the delta bookkeeping: each line covers what
// happened since the previous one.
func TestProgressReport(t *testing.T) {
	o := parseTestOptions(t, nil, "-n", "-T", "10", "-P", "1", "--max-tries", "2")
	start := time.Unix(1000, 0)
	p := &Progress{Opts: o, Start: start}
	var cum metrics.Stats
	add := func(txs ...metrics.Tx) {
		for i := range txs {
			cum.Add(&txs[i], 0)
		}
	}
	add(txOK(0, 1000, 0, 1), txOK(0, 3000, 0, 2))
	if got, want := p.Report(start.Add(time.Second), &cum), "progress: 1.0 s, 2.0 tps, lat 2.000 ms stddev 1.000, 0 failed, 1 retried, 1 retries\n"; got != want {
		t.Errorf("first:\n got %q\nwant %q", got, want)
	}
	add(txOK(0, 5000, 0, 1), txFailed(0, metrics.FailedDeadlock, 2))
	if got, want := p.Report(start.Add(2500*time.Millisecond), &cum), "progress: 2.5 s, 0.7 tps, lat 5.000 ms stddev 0.000, 1 failed, 1 retried, 1 retries\n"; got != want {
		t.Errorf("second:\n got %q\nwant %q", got, want)
	}
	if got, want := p.Report(start.Add(3500*time.Millisecond), &cum), "progress: 3.5 s, 0.0 tps, lat 0.000 ms stddev 0.000, 0 failed, 0 retried, 0 retries\n"; got != want {
		t.Errorf("idle:\n got %q\nwant %q", got, want)
	}
	// nil inputs do not panic
	_ = (&Progress{}).Line(start, nil, time.Second)
	_ = (&Progress{Opts: o}).Report(start, nil)
}

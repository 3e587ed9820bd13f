package collect

import (
	"context"
	"errors"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// STUB: replaced by the OS collector.

type osStats struct{}

func newOSStats(ctx context.Context, cfg *Config, warn warnFunc) (*osStats, error) {
	return nil, errors.New("not implemented")
}
func (o *osStats) period() time.Duration                         { return 0 }
func (o *osStats) sample(ctx context.Context, t time.Time) error { return nil }
func (o *osStats) close() error                                  { return nil }

func readHost(ctx context.Context, local bool, nodeExporter string) (*results.Host, error) {
	return nil, errors.New("not implemented")
}

func osEvidence(dir string, from, to time.Time, interval time.Duration, ev *results.Evidence) error {
	return errors.New("not implemented")
}

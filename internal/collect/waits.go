package collect

import (
	"context"
	"errors"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// STUB: replaced by the waits collector.

type waits struct{}

func newWaits(ctx context.Context, cfg *Config, warn warnFunc) (*waits, error) {
	return nil, errors.New("not implemented")
}
func (w *waits) period() time.Duration                         { return 0 }
func (w *waits) sample(ctx context.Context, t time.Time) error { return nil }
func (w *waits) close() error                                  { return nil }

func waitsEvidence(dir string, from, to time.Time, interval time.Duration, top int) ([]results.WaitShare, error) {
	return nil, errors.New("not implemented")
}

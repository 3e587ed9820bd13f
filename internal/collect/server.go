package collect

import (
	"context"
	"errors"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// STUB: replaced by the server collector.

type server struct{}

func newServer(ctx context.Context, cfg *Config, warn warnFunc) (*server, error) {
	return nil, errors.New("not implemented")
}
func (s *server) period() time.Duration                         { return 0 }
func (s *server) sample(ctx context.Context, t time.Time) error { return nil }
func (s *server) close() error                                  { return nil }

func serverEvidence(dir string, from, to time.Time, interval time.Duration, committed int64, ev *results.Evidence) error {
	return errors.New("not implemented")
}

package collect

import (
	"context"
	"errors"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// STUB: replaced by the statements collector.

type statements struct{}

func newStatements(ctx context.Context, cfg *Config, warn warnFunc) (*statements, error) {
	return nil, errors.New("not implemented")
}
func (s *statements) period() time.Duration                                     { return 0 }
func (s *statements) sample(ctx context.Context, t time.Time) error             { return nil }
func (s *statements) mark(ctx context.Context, phase string, t time.Time) error { return nil }
func (s *statements) finish(ctx context.Context, end time.Time) error           { return nil }
func (s *statements) close() error                                              { return nil }

func statementsEvidence(dir string, phase string, top int) ([]results.StatementCost, error) {
	return nil, errors.New("not implemented")
}

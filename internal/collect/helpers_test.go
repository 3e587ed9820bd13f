package collect

import (
	"fmt"
	"slices"
	"sync"
)

// testWarnings records what a source warns about (its warnFunc is warn),
// safely from several goroutines.
type testWarnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *testWarnings) warn(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, fmt.Sprintf(format, args...))
}

// list is a copy of the warnings so far.
func (w *testWarnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.msgs)
}

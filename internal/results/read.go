package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// ReadEvents reads events.jsonl of the run directory dir. A last line cut
// short by a crash is ignored; any other line that is not an Event is an
// error.
func ReadEvents(dir string) ([]Event, error) {
	path := filepath.Join(dir, EventsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	var events []Event
	for n, line := range bytes.Split(completeLines(data), []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return events, fmt.Errorf("read %s:%d: %w", path, n+1, err)
		}
		events = append(events, e)
	}
	return events, nil
}

// ReadLatency reads latency.hlog of the run directory dir: one entry per
// interval and tag, in file order. A last line cut short by a crash is
// ignored.
func ReadLatency(dir string) ([]metrics.LogEntry, error) {
	path := filepath.Join(dir, LatencyFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read latency log: %w", err)
	}
	entries, err := metrics.ReadLog(bytes.NewReader(completeLines(data)))
	if err != nil {
		return entries, fmt.Errorf("read %s: %w", path, err)
	}
	return entries, nil
}

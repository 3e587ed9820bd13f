package resultstest

import (
	"errors"

	"github.com/pgtrial/pgtrial/internal/results"
)

// WriteSlow writes rows as dir's slow.csv through results' writer.
func WriteSlow(dir string, rows []results.SlowRow) error {
	return writeRows(results.CreateSlow, dir, rows)
}

// WriteActivity writes rows as dir's activity.csv through results' writer.
func WriteActivity(dir string, rows []results.ActivityRow) error {
	return writeRows(results.CreateActivity, dir, rows)
}

// writeRows creates a CSV file of dir with create and writes rows into it.
func writeRows[R interface{ Record() []string }](create func(string) (*results.CSVWriter, error), dir string, rows []R) error {
	w, err := create(dir)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(r.Record()); err != nil {
			return errors.Join(err, w.Close())
		}
	}
	return w.Close()
}

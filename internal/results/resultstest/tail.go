package resultstest

import (
	"errors"

	"github.com/pgtrial/pgtrial/internal/results"
)

// WriteSlow writes rows as dir's slow.csv through results' writer.
func WriteSlow(dir string, rows []results.SlowRow) error {
	w, err := results.CreateSlow(dir)
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

// WriteActivity writes rows as dir's activity.csv through results' writer.
func WriteActivity(dir string, rows []results.ActivityRow) error {
	w, err := results.CreateActivity(dir)
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

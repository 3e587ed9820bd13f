package explain

import (
	"errors"
	"io/fs"

	"github.com/pgtrial/pgtrial/internal/results"
)

// readWhy is why a collector's file could not be read: the collector's
// reason in run.json's evidence when the file is not there (the evidence
// group: results.EvidenceOS, …), "not collected (… not in the run
// directory)" when no reason was recorded, else the read error.
func readWhy(run *results.Run, group, file string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		if reason, ok := run.Evidence.MissingReason(group); ok {
			return "not collected: " + reason
		}
		return "not collected (" + file + " is not in the run directory)"
	}
	return file + " could not be read: " + err.Error()
}

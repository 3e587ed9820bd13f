package results

// FindingsSchema is the version of the findings (Run.Findings, and the
// experiment's findings in experiment.json): what internal/explain says the
// evidence shows about why. Fields may be added within a version; renaming
// or removing one, or changing its meaning, needs a new version.
const FindingsSchema = "pgtrial.findings/v1"

// Findings are the explanations of one run, computed from its directory by
// internal/explain at the end of the run and kept in run.json; `pgtrial
// report` computes them again for a directory without them. Each part is
// nil when it was not computed (its evidence is missing: Warnings say
// why), never an empty result that would read as "nothing found".
type Findings struct {
	Schema string `json:"schema"`
	// Settings are explain's settings that differ from the defaults
	// (explain.Config: "penalty=5", "alarm.wa=20%").
	Settings []string `json:"settings,omitempty"`

	Changes      *Changes      `json:"changes,omitempty"`      // level shifts in the timeline and what happened near them (findings_changes.go)
	Tail         *Tail         `json:"tail,omitempty"`         // why the slowest transactions were slow (findings_tail.go)
	Alarms       *Alarms       `json:"alarms,omitempty"`       // OS alarms as shares of the measured time (findings_os.go)
	Associations *Associations `json:"associations,omitempty"` // waits against speed and latency across intervals (findings_os.go)
	Pareto       *Pareto       `json:"pareto,omitempty"`       // the few wait events and statements that make 80 % (findings_os.go)

	Warnings []string `json:"warnings,omitempty"` // what could not be explained and why
}

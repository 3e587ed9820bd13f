package report

import (
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/results"
)

// alarmsBlocks are a run's OS alarms (not built yet).
func alarmsBlocks(a *results.Alarms) []Block {
	_ = a
	return nil
}

// associationsBlocks are a run's associations of waits with speed and
// latency (not built yet).
func associationsBlocks(a *results.Associations) []Block {
	_ = a
	return nil
}

// paretoBlocks are a run's Pareto of wait events and statements (not
// built yet).
func paretoBlocks(p *results.Pareto) []Block {
	_ = p
	return nil
}

// levelAssociationsBlocks are an experiment's associations across levels
// (not built yet).
func levelAssociationsBlocks(a *explain.LevelAssociations) []Block {
	_ = a
	return nil
}

// runAlarmsBlocks are an experiment's OS alarms per variant and level (not
// built yet).
func runAlarmsBlocks(a []*explain.RunAlarms) []Block {
	_ = a
	return nil
}

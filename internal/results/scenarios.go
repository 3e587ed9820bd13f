package results

// Scenario is one of a run's concurrent scenarios: its own scripts and load,
// and its summary over the measured window.
type Scenario struct {
	Name string `json:"name"`
}

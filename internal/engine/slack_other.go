//go:build unix && !linux

package engine

// setTimerSlack is Linux-only.
func setTimerSlack() {}

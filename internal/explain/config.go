package explain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is explain's settings. The zero value is not valid: start from
// Defaults. Every field has a default and can be set by name (Set), from
// `--explain NAME=VALUE` of run, experiment and report.
type Config struct {
	// Penalty is the change-point penalty β in units of ln n × the noise's
	// long-run variance (stats.ChangeConfig: β = Penalty·ln n·σ²_lr).
	Penalty float64
	// Match is how far from a change (either side) an occurrence may be
	// and still be matched to it.
	Match time.Duration

	// OS alarm thresholds: an alarm's share is the share of the measured
	// intervals in which its condition held.
	FreeMemory float64 // free (MemAvailable) below this share of RAM
	IOWait     float64 // wa above this share of all CPUs' time
	Blocked    float64 // b above this multiple of the CPUs
	Runnable   float64 // r above this multiple of the CPUs
	Swap       float64 // si or so above this, kB/s
	Steal      float64 // st above this share
	DiskUtil   float64 // the busiest disk's util above this share

	// Pareto is the share of the total the Pareto lists cover.
	Pareto float64
}

// Defaults are explain's default settings.
func Defaults() Config {
	return Config{
		Penalty:    3,
		Match:      3 * time.Second,
		FreeMemory: 0.05,
		IOWait:     0.10,
		Blocked:    1,
		Runnable:   1,
		Swap:       0,
		Steal:      0.05,
		DiskUtil:   0.90,
		Pareto:     0.80,
	}
}

// setting is one name Set knows: its field, its kind and what it means.
type setting struct {
	name  string
	kind  string // "number", "share" (20% or 0.2), "duration", "kB/s"
	field func(*Config) any
	help  string
}

func settings() []setting {
	return []setting{
		{"penalty", "number", func(c *Config) any { return &c.Penalty }, "change-point penalty, × ln n × long-run variance"},
		{"match", "duration", func(c *Config) any { return &c.Match }, "how near a change an occurrence is matched to it"},
		{"alarm.free", "share", func(c *Config) any { return &c.FreeMemory }, "free memory below this share of RAM"},
		{"alarm.wa", "share", func(c *Config) any { return &c.IOWait }, "iowait above this share of CPU time"},
		{"alarm.b", "number", func(c *Config) any { return &c.Blocked }, "blocked tasks above this multiple of the CPUs"},
		{"alarm.r", "number", func(c *Config) any { return &c.Runnable }, "runnable tasks above this multiple of the CPUs"},
		{"alarm.swap", "number", func(c *Config) any { return &c.Swap }, "swap in or out above this many kB/s"},
		{"alarm.steal", "share", func(c *Config) any { return &c.Steal }, "steal above this share of CPU time"},
		{"alarm.util", "share", func(c *Config) any { return &c.DiskUtil }, "busiest disk utilisation above this share"},
		{"pareto", "share", func(c *Config) any { return &c.Pareto }, "share of the total the Pareto lists cover"},
	}
}

// Names are the settings Set knows, with what each means, for help texts.
func Names() []string {
	var out []string
	for _, s := range settings() {
		out = append(out, fmt.Sprintf("%s (%s): %s", s.name, s.kind, s.help))
	}
	return out
}

// Set sets one setting from "NAME=VALUE": a number, a share as "20%" or
// 0.2, a duration as "3s".
func (c *Config) Set(kv string) error {
	name, value, ok := strings.Cut(kv, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" {
		return fmt.Errorf("explain setting %q: want NAME=VALUE (names: %s)", kv, strings.Join(settingNames(), ", "))
	}
	i := slices.IndexFunc(settings(), func(s setting) bool { return s.name == name })
	if i < 0 {
		return fmt.Errorf("explain setting %q: unknown name %q (names: %s)", kv, name, strings.Join(settingNames(), ", "))
	}
	s := settings()[i]
	switch p := s.field(c).(type) {
	case *time.Duration:
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return fmt.Errorf("explain setting %s=%s: want a duration such as 3s", name, value)
		}
		*p = d
	case *float64:
		pct := strings.HasSuffix(value, "%")
		v, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
		if err != nil || v < 0 || v != v || v > 1e12 {
			return fmt.Errorf("explain setting %s=%s: want a number ≥ 0", name, value)
		}
		if pct {
			if s.kind != "share" {
				return fmt.Errorf("explain setting %s=%s: %s is not a share; give a number", name, value, name)
			}
			v /= 100
		}
		if s.kind == "share" && v > 1 {
			return fmt.Errorf("explain setting %s=%s: a share is at most 100%%", name, value)
		}
		if name == "penalty" && v == 0 {
			return fmt.Errorf("explain setting penalty=0: the penalty must be > 0")
		}
		*p = v
	}
	return nil
}

func settingNames() []string {
	var out []string
	for _, s := range settings() {
		out = append(out, s.name)
	}
	return out
}

// Changed are the settings of c that differ from the defaults, as
// "NAME=VALUE" (results.Findings.Settings).
func (c Config) Changed() []string {
	d := Defaults()
	var out []string
	for _, s := range settings() {
		switch p := s.field(&c).(type) {
		case *time.Duration:
			if *p != *s.field(&d).(*time.Duration) {
				out = append(out, s.name+"="+p.String())
			}
		case *float64:
			if *p != *s.field(&d).(*float64) {
				out = append(out, s.name+"="+strconv.FormatFloat(*p, 'g', -1, 64))
			}
		}
	}
	return out
}

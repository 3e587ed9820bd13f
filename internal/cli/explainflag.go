package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/explain"
)

// explainFlag is --explain NAME=VALUE, repeatable: a setting of the
// findings (explain.Config.Set) over the defaults. Its config is nil when
// the flag was not given.
type explainFlag struct {
	cfg   *explain.Config
	given []string
}

func (f *explainFlag) String() string { return strings.Join(f.given, ",") }
func (f *explainFlag) Type() string   { return "NAME=VALUE" }

// Set takes one NAME=VALUE; an unknown name is an error that lists the
// known ones (explain.Config.Set).
func (f *explainFlag) Set(s string) error {
	if f.cfg == nil {
		c := explain.Defaults()
		f.cfg = &c
	}
	if err := f.cfg.Set(s); err != nil {
		return err
	}
	f.given = append(f.given, s)
	return nil
}

// config is the settings given, nil when none were.
func (f *explainFlag) config() *explain.Config { return f.cfg }

// addExplainFlag adds --explain to fs, with what it does to the command
// (what) and the settings' names in its help.
func addExplainFlag(fs *pflag.FlagSet, f *explainFlag, what string) {
	fs.Var(f, "explain", "a setting of the findings, NAME=VALUE (a share as 20% or 0.2, a duration as 3s); repeatable; "+what+
		". Names: "+strings.Join(explain.Names(), "; "))
}

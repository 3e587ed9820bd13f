package cli

import (
	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/workload"
	"github.com/spf13/cobra"
)

// Shell completion: `pgtrial completion bash|zsh|fish|powershell` is cobra's;
// completions adds what cobra cannot know: the values of flags that take a
// name from a list, and that the arguments of the commands that read
// results are directories.

// completions registers the value completions of every command under root.
func completions(root *cobra.Command) {
	// The commands (by path) whose arguments are directories.
	dirArgs := map[string]bool{
		"pgtrial compare":         true,
		"pgtrial report":          true,
		"pgtrial runs":            true,
		"pgtrial capture compare": true,
	}
	builtins := append(workload.BuiltinNames(), mixNames()...)
	values := map[string][]string{
		"builtin": builtins,
		"collect": collect.AllKinds,
	}
	perCommand := map[string]map[string][]string{
		"pgtrial advise": {"workload": {"oltp", "web", "dw", "mixed", "desktop"}, "builtin": builtins},
		"pgtrial init":   {"workload": {"pgbench", "tpcc", "ycsb"}},
		"pgtrial check":  {"workload": {"tpcc"}},
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		for name, list := range values {
			if c.Flags().Lookup(name) != nil {
				registerValues(c, name, list)
			}
		}
		for name, list := range perCommand[path] {
			if c.Flags().Lookup(name) != nil {
				registerValues(c, name, list)
			}
		}
		if dirArgs[path] && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveFilterDirs
			}
		}
		if path == "pgtrial experiment" && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// registerValues completes flag name of c with list; a flag registered
// already (by the command itself) keeps its own.
func registerValues(c *cobra.Command, name string, list []string) {
	if _, ok := c.GetFlagCompletionFunc(name); ok {
		return
	}
	_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(list, cobra.ShellCompDirectiveNoFileComp))
}

func mixNames() []string {
	var names []string
	for _, m := range workload.Mixes() {
		names = append(names, m.Name)
	}
	return names
}

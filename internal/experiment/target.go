package experiment

import (
	"context"
	"fmt"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/serverctl"
)

// ResolveTarget turns the file's target into a connection string and a way
// to restart the server: a local cluster ("pgtrial local"; started, created
// first if needed) restarts itself; a remote server restarts with its
// restart_command, or not at all (nil).
func ResolveTarget(ctx context.Context, t Target, out func(string)) (string, serverctl.Restarter, error) {
	if t.Remote() {
		if t.RestartCommand == "" {
			return t.URL, nil, nil
		}
		return t.URL, serverctl.CommandRestarter{Command: t.RestartCommand, ConnString: t.URL}, nil
	}
	c, err := localpg.Open(localpg.Config{Name: t.Local})
	if err != nil {
		return "", nil, fmt.Errorf("the local cluster %q is not usable: %w", t.Local, err)
	}
	if !c.Running() {
		what := "starting"
		if !c.Created() {
			what = "creating and starting"
		}
		if out != nil {
			out(fmt.Sprintf("pgtrial: %s the local cluster %q (pgtrial local start)", what, c.Name()))
		}
		if _, err := c.Start(ctx); err != nil {
			return "", nil, fmt.Errorf("start the local cluster %q: %w", c.Name(), err)
		}
	}
	return c.URL(""), c, nil
}

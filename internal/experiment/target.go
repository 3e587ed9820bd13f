package experiment

import (
	"context"

	"github.com/pgtrial/pgtrial/internal/serverctl"
	"github.com/pgtrial/pgtrial/internal/target"
)

// ResolveTarget turns the experiment's target into a connection string and
// a way to restart the server, with target.Resolve: the target the file (or
// --url) gives (t.Given), else the libpq environment (PGHOST, …), else the
// local cluster t.Local ("pgtrial local"; created and started if needed).
// It says on out, first, which target and why. A local cluster restarts
// itself; a server restarts with t.RestartCommand, or not at all (nil).
// The Env it returns has ConnString, Restarter, LocalCluster and LocalName set; the
// caller fills in the rest.
func ResolveTarget(ctx context.Context, t Target, out func(string)) (Env, error) {
	req := target.Request{Out: out}
	switch {
	case t.URL != "":
		req.Given = target.Given{ConnString: t.URL, Why: t.Given}
		if req.Given.Why == "" {
			req.Given.Why = "the experiment's target.url"
		}
	case t.Given != "":
		req.Given = target.Given{Local: t.Local, Why: t.Given}
	}
	res, err := target.Resolve(ctx, req)
	if err != nil {
		return Env{}, err
	}
	env := Env{ConnString: res.ConnString}
	switch {
	case res.Local != nil:
		env.Restarter, _ = res.Local.(serverctl.Restarter)
		env.LocalCluster, env.LocalName = true, res.Local.Name()
	case t.URL != "" && t.RestartCommand != "":
		env.Restarter = serverctl.CommandRestarter{Command: t.RestartCommand, ConnString: res.ConnString}
	}
	return env, nil
}

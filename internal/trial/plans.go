package trial

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// plansTimeout bounds the whole capture of plans.json (each EXPLAIN has
// collect.DefaultPlanTimeout).
const plansTimeout = 30 * time.Second

// maxPlanSteps bounds the walk through one script's commands (a \if loop
// cannot occur, but a script may be long).
const maxPlanSteps = 100000

// recordPlans writes plans.json: the plans of the scripts' statements,
// explained once after the setup and before the collectors' baselines and
// the warm-up, so that the measurement does not see the EXPLAINs. pgtrial's
// own runs only (not the pgbench front end), and not with the collectors
// off (no session of pgtrial's then), and only by segment 0 of a load
// several generators share. What goes wrong is a warning of the
// run, never its failure.
func (c *Config) recordPlans(ctx context.Context, dir *results.Dir, run *results.Run) {
	if dir == nil || c.Pgbench != nil || c.Collect.Off || !run.Segment.Collects() {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, plansTimeout)
	defer cancel()
	p, err := collect.CapturePlans(pctx, collect.PlansConfig{
		ConnString: c.ConnString,
		Seed:       strconv.FormatUint(c.Seed.Value, 10),
		Requests:   c.PlanRequests(),
	})
	if err != nil {
		run.Warnings = append(run.Warnings, err.Error())
		c.out("pgtrial: warning: " + err.Error())
		if p == nil {
			return
		}
	}
	if err := results.WritePlans(dir.Path(), p); err != nil {
		run.Warnings = append(run.Warnings, "plans: "+err.Error())
		c.out("pgtrial: warning: plans: " + err.Error())
	}
}

// PlanRequests are the statements of the run's scripts to explain, with
// the values of their :variables: each script's meta-commands evaluated
// once, as client 0 would run its first transaction of that script (its
// random stream from the run's seed, -D, :scale, :client_id 0,
// :default_seed, :random_seed), SQL commands in branches not taken with the
// variables as they are at the script's end. A compound command (\;) gives
// one request per statement. Variables that only \gset, \aset or
// \setshell would set have no value (those commands are not run).
func (c *Config) PlanRequests() []collect.PlanRequest {
	scale := c.Scale
	if !NeedsPgbench(c.Scripts) || scale < 1 {
		scale = 1
	}
	programs := make([]*script.Script, len(c.Scripts))
	for i, s := range c.Scripts {
		programs[i] = s.Parsed
	}
	prog := script.NewProgram(programs...)
	prog.ZipfianBelowOne = c.Pgbench == nil
	streams := prng.Derive(c.Seed.Value, max(c.Clients, 1), max(c.Threads, 1), DefinesVar(c.Vars, "default_seed"))
	var out []collect.PlanRequest
	for si, s := range c.Scripts {
		out = append(out, scriptPlanRequests(prog, si, s, ClientSetup(c.Vars, scale, streams), streams.Clients[0])...)
	}
	return out
}

// scriptPlanRequests walks script si once and makes its requests.
func scriptPlanRequests(prog *script.Program, si int, s Script, setup func(*script.Client) error, rnd prng.State) []collect.PlanRequest {
	cl := prog.NewClient(0, rnd, nil)
	cmds := s.Parsed.Commands
	reqs := make(map[int][]collect.PlanRequest)
	unset := map[string]string{} // variable → why it has no value
	var gsets []string           // "\gset of command N"
	stopped := ""
	if err := setup(cl); err != nil {
		stopped = "the variables could not be set up: " + err.Error()
	}
	cl.Begin(si)
	steps := 0
	for i := 0; stopped == "" && i < len(cmds) && steps < maxPlanSteps; steps++ {
		cmd := cmds[i]
		switch {
		case cmd.Kind == script.SQLCommand:
			reqs[i] = commandRequests(s, si, cmd, cl, unset, gsets)
			if cmd.Meta == script.MetaGset || cmd.Meta == script.MetaAset {
				gsets = append(gsets, fmt.Sprintf("\\%s of command %d", cmd.Meta, cmd.Index))
			}
		case cmd.Meta == script.MetaSetShell && len(cmd.Args) > 1:
			unset[cmd.Args[1]] = fmt.Sprintf("set by \\setshell (command %d), which is not run", cmd.Index)
		case cmd.Meta == script.MetaSet || (cmd.Meta >= script.MetaIf && cmd.Meta <= script.MetaEndif):
			if err := cl.Exec(i); err != nil {
				stopped = fmt.Sprintf("command %d (%s) failed: %v", cmd.Index, cmd.FirstLine, err)
			}
		}
		i = cl.Next(i)
	}
	var out []collect.PlanRequest
	for i, cmd := range cmds {
		if cmd.Kind != script.SQLCommand {
			continue
		}
		r, ok := reqs[i]
		if !ok {
			r = commandRequests(s, si, cmd, cl, unset, gsets)
			if stopped != "" {
				for k := range r {
					r[k].SQL, r[k].Statement.Params = "", nil
					r[k].NoValue = "the evaluation of the script stopped: " + stopped
				}
			}
		}
		out = append(out, r...)
	}
	return out
}

// commandRequests are the requests of SQL command cmd with the variables
// of cl: one per statement of the command.
func commandRequests(s Script, si int, cmd *script.Command, cl *script.Client, unset map[string]string, gsets []string) []collect.PlanRequest {
	base := results.PlanStatement{Script: s.Name, ScriptIndex: si, Command: cmd.Index, Line: cmd.Line, Text: NormalizeSQL(cmd.Text)}
	// The command parsed on its own: its statements, their $n text and
	// the variables bound to $1, $2, … (script.Prepare's extended mode).
	sub, err := script.Parse(s.Name, cmd.Text)
	var parts []*script.Command
	if err == nil {
		_, err = sub.Prepare(script.Extended, 0)
		for _, p := range sub.Commands {
			if p.Kind == script.SQLCommand {
				parts = append(parts, p)
			}
		}
	}
	if err != nil || len(parts) == 0 {
		why := "no statement found"
		if err != nil {
			why = err.Error()
		}
		base.Reason = "not explainable: the command could not be split into statements: " + why
		return []collect.PlanRequest{{Statement: base, Reason: base.Reason}}
	}
	// A client of the command alone, with cl's values of its variables.
	subProg := script.NewProgram(sub)
	subCl := subProg.NewClient(0, cl.Rand, nil)
	for _, name := range sub.Variables() {
		if v, ok := cl.Get(name); ok {
			_ = subCl.SetString("plans", name, v)
		}
	}
	subCl.Begin(0)
	var out []collect.PlanRequest
	for k, p := range parts {
		st := base
		if len(parts) > 1 {
			st.Part, st.Text = k, NormalizeSQL(p.Text)
		}
		rq := collect.PlanRequest{Statement: st}
		var missing []string
		seen := map[string]bool{}
		for _, name := range p.Query.Params {
			if seen[name] {
				continue
			}
			seen[name] = true
			v, ok := cl.Get(name)
			if !ok {
				missing = append(missing, noValue(name, unset, gsets))
				continue
			}
			rq.Statement.Params = append(rq.Statement.Params, results.PlanParam{Name: name, Value: v})
		}
		if len(p.Query.Params) > 0 {
			rq.Generic = p.Query.SQL
		}
		if len(missing) == 0 {
			rq.SQL = string(subCl.AppendSQL(nil, p.Index))
		} else {
			rq.Statement.Params = nil
			rq.NoValue = strings.Join(missing, "; ")
		}
		out = append(out, rq)
	}
	return out
}

// noValue says why variable name has no value.
func noValue(name string, unset map[string]string, gsets []string) string {
	if why, ok := unset[name]; ok {
		return ":" + name + " is " + why
	}
	if len(gsets) > 0 {
		return ":" + name + " has no value (perhaps set by the " + strings.Join(gsets, ", ") + ", which is not run)"
	}
	return ":" + name + " is not defined when the statement runs"
}

// NormalizeSQL is a statement's text as plans.json keeps it: blanks
// collapsed to one space, trimmed.
func NormalizeSQL(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

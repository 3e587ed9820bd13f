package trial

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// LoadMix expands a built-in Mix (-b tpcc) into its scripts with their
// weights; ok is false when name is no mix. Mix scripts are not Builtin:
// they do not need the pgbench tables.
func LoadMix(name string) (m workload.Mix, scripts []Script, ok bool, err error) {
	m, ok = workload.FindMix(name)
	if !ok {
		return m, nil, false, nil
	}
	for _, ms := range m.Scripts {
		s, err := loadText(ms.Name, ms.Desc, ms.Script, ms.Weight)
		if err != nil {
			return m, nil, true, fmt.Errorf("built-in mix %s, script %s: %w", m.Name, ms.Name, err)
		}
		scripts = append(scripts, s)
	}
	return m, scripts, true, nil
}

// RunProbe runs a Mix's Probe on the target. It returns the columns a -D
// (vars) does not define, as client variables to add, and every column
// with the value the clients get (the probe's, or the -D's), for run.json's
// workload.probe (Config.Probe).
func RunProbe(ctx context.Context, connString, mix, probe string, vars []Var) (add []Var, got map[string]string, err error) {
	if probe == "" {
		return nil, nil, nil
	}
	// The init workload is the mix's family: tpcc-spec → tpcc, ycsb-a → ycsb.
	family, _, _ := strings.Cut(mix, "-")
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(&cfg.Config, pgsession.NameSetup, pgsession.Short)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, probe, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, nil, fmt.Errorf("read the %s workload's parameters: %w\nhint: load its tables first: pgtrial init -w %s", mix, err, family)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("read the %s workload's parameters: %w\nhint: load its tables first: pgtrial init -w %s", mix, err, family)
		}
		return nil, nil, fmt.Errorf("the %s workload's parameters are missing (its probe returned no row)\nhint: load its tables again: pgtrial init -w %s", mix, family)
	}
	vals := rows.RawValues()
	got = map[string]string{}
	for i, fd := range rows.FieldDescriptions() {
		if v, ok := varValue(vars, fd.Name); ok {
			got[fd.Name] = v
			continue
		}
		add = append(add, Var{Name: fd.Name, Value: string(vals[i])})
		got[fd.Name] = string(vals[i])
	}
	return add, got, rows.Err()
}

// varValue is the value of the last Var named name (a later -D wins, as
// the clients' setup assigns them in order).
func varValue(vars []Var, name string) (string, bool) {
	v, ok := "", false
	for _, x := range vars {
		if x.Name == name {
			v, ok = x.Value, true
		}
	}
	return v, ok
}

// MixForVars makes a Mix's scripts again for the probe's variables as the
// clients get them (workload.Mix.ForVars: YCSB's update for ycsb_meta's
// fields); ok is false when the mix's scripts do not depend on them.
func MixForVars(m workload.Mix, got map[string]string) (scripts []Script, ok bool, err error) {
	if m.ForVars == nil {
		return nil, false, nil
	}
	mss, err := m.ForVars(got)
	if err != nil {
		return nil, true, err
	}
	for _, ms := range mss {
		s, err := loadText(ms.Name, ms.Desc, ms.Script, ms.Weight)
		if err != nil {
			return nil, true, fmt.Errorf("built-in mix %s, script %s: %w", m.Name, ms.Name, err)
		}
		scripts = append(scripts, s)
	}
	return scripts, true, nil
}

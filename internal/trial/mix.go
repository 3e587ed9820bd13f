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

// RunProbe runs a Mix's Probe on the target and returns its columns as
// client variables, leaving out those a -D (vars) defines already.
func RunProbe(ctx context.Context, connString, mix, probe string, vars []Var) ([]Var, error) {
	if probe == "" {
		return nil, nil
	}
	// The init workload is the mix's family: tpcc-spec → tpcc, ycsb-a → ycsb.
	family, _, _ := strings.Cut(mix, "-")
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(&cfg.Config, pgsession.NameSetup, pgsession.Short)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, probe, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, fmt.Errorf("read the %s workload's parameters: %w\nhint: load its tables first: pgtrial init -w %s", mix, err, family)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read the %s workload's parameters: %w\nhint: load its tables first: pgtrial init -w %s", mix, err, family)
		}
		return nil, fmt.Errorf("the %s workload's parameters are missing (its probe returned no row)\nhint: load its tables again: pgtrial init -w %s", mix, family)
	}
	vals := rows.RawValues()
	var out []Var
	for i, fd := range rows.FieldDescriptions() {
		if !DefinesVar(vars, fd.Name) {
			out = append(out, Var{Name: fd.Name, Value: string(vals[i])})
		}
	}
	return out, rows.Err()
}

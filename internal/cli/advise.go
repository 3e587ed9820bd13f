package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/advise"
	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/target"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// adviseTimeout bounds the connection and the reads of pg_settings.
const adviseTimeout = 60 * time.Second

// adviseMinRepeats are the runs per variant the verdicts need (a fixed
// load's default when variants are compared).
const adviseMinRepeats = 5

type adviseOptions struct {
	json                         bool
	url, workload, out, builtin  string
	cpus                         int
	ram, storage                 string
	clients, repeats             int
	restartCommand, nodeExporter string
	sysRoot                      string // "/sys"; tests may point elsewhere
}

func newAdviseCommand() *cobra.Command {
	o := &adviseOptions{sysRoot: "/sys"}
	cmd := &cobra.Command{
		Use:   "advise [flags] [URL]",
		Short: "Advise settings from the hardware as pgtune does, and write an experiment that tests them",
		Long: `advise reads the server's hardware (CPUs, RAM, the data directory's storage type) and
its current settings, computes the settings pgtune would advise for the workload type
(web, oltp, dw, desktop, mixed), prints them with their rules, and writes an experiment
file with two variants, "current" (nothing changed) and "advised" (the advice), so that
"pgtrial experiment FILE" turns the advice into a measured verdict.

Hardware: a server on this machine (loopback or a unix socket) is measured here (online
CPUs from /proc/stat, MemTotal from /proc/meminfo, queue/rotational of the data
directory's block device in /sys); a remote one through --node-exporter, or --cpus and
--ram. --cpus, --ram and --storage override what was measured. Every figure says where it
came from.

The connection only reads (pg_settings, SHOW): advise changes nothing on the server.
Settings that need a restart (pg_settings.context = postmaster) are marked; the experiment
restarts the server for them (the local cluster with pg_ctl, a server given by URL with
--restart-command; without it they are left out of the file and named).

Target as for run: the argument or --url, else the libpq environment, else the local
cluster "default".`,
		Example: `  pgtrial advise --workload oltp
  pgtrial advise --workload web --ram 16GB --storage ssd --out web.yaml
  pgtrial experiment --check advise.yaml && pgtrial experiment advise.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := serverArg(args, o.url)
			if err != nil {
				return err
			}
			return runAdvise(cmd.Context(), o, arg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	f.BoolVar(&o.json, "json", false, "print the advice as JSON on stdout (the experiment file is written as without it)")
	f.StringVar(&o.workload, "workload", "oltp", "pgtune's DB type: web, oltp, dw, desktop or mixed")
	f.StringVar(&o.out, "out", "advise.yaml", "the experiment file to write")
	f.StringVar(&o.builtin, "builtin", "tpcb-like", "the experiment's workload: a built-in script (tpcb-like, simple-update, select-only, tpcc, …)")
	f.IntVar(&o.clients, "clients", 8, "the experiment's clients (closed model)")
	f.IntVar(&o.repeats, "repeats", adviseMinRepeats, "the experiment's runs per variant (at least 5: the verdicts need them)")
	f.IntVar(&o.cpus, "cpus", 0, "the server machine's CPUs (default: measured)")
	f.StringVar(&o.ram, "ram", "", "the server machine's memory, e.g. 16GB (default: measured, MemTotal)")
	f.StringVar(&o.storage, "storage", "", "the data's storage: ssd, hdd or san (default: the kernel's rotational flag of the data directory's device, when it can tell)")
	f.StringVar(&o.restartCommand, "restart-command", "", "the shell command that restarts a server given by URL (the experiment's target.restart_command)")
	f.StringVar(&o.nodeExporter, "node-exporter", "", "a remote server's node_exporter (host:port or URL), for its CPUs and memory")
	return cmd
}

// serverFacts are what advise reads from the server.
type serverFacts struct {
	versionNum        int
	maxConnections    int
	dataDir           string // "" when not readable (needs pg_read_all_settings)
	checkpointTimeout time.Duration
	settings          map[string]currentSetting
}

type currentSetting struct {
	value   string // current_setting(name): SHOW's text
	restart bool   // context = postmaster
}

// hardware is the figures the rules use and where each came from.
type hardware struct {
	cpus                   int
	ram                    int64
	storage                advise.Storage
	cpusSrc, ramSrc, stSrc string
}

func runAdvise(ctx context.Context, o *adviseOptions, arg string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	wl, err := advise.ParseWorkload(o.workload)
	if err != nil {
		return err
	}
	if o.repeats < adviseMinRepeats {
		return fmt.Errorf("--repeats %d: the verdicts need at least %d runs per variant", o.repeats, adviseMinRepeats)
	}
	if o.clients < 1 {
		return fmt.Errorf("--clients %d: give at least 1", o.clients)
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, target.Request{Arg: arg, URL: o.url, Out: func(s string) { fmt.Fprintln(stderr, s) }})
	if err != nil {
		return err
	}
	if res.Local != nil && o.restartCommand != "" {
		return errors.New("--restart-command applies to a server given by URL: the local cluster is restarted with pg_ctl")
	}
	cctx, cancel := context.WithTimeout(ctx, adviseTimeout)
	defer cancel()
	cfg, err := pgx.ParseConfig(res.ConnString)
	if err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(&cfg.Config, "pgtrial advise", adviseTimeout)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return pgerr.Connect(err, &cfg.Config)
	}
	defer conn.Close(context.Background())
	facts, err := readServerFacts(cctx, conn)
	if err != nil {
		return err
	}
	hw, err := adviseHardware(cctx, o, trial.ServerIsLocal(&cfg.Config), facts.dataDir)
	if err != nil {
		return err
	}
	advice, err := advise.Advise(advise.Input{
		CPUs: hw.cpus, RAM: hw.ram, Storage: hw.storage, Workload: wl,
		MaxConnections: facts.maxConnections, Version: facts.versionNum / 10000,
	})
	if err != nil {
		return err
	}
	restartOK := res.Local != nil || o.restartCommand != ""
	if !o.json {
		if err := report.WriteText(stdout, adviseDoc(wl, hw, facts, advice, restartOK)); err != nil {
			return err
		}
	}
	file, err := adviseExperiment(o, wl, hw, facts, advice, res, restartOK)
	if err != nil {
		return err
	}
	// The file is pgtrial's own: it must pass experiment --check.
	if _, err := experiment.Parse(o.out, file); err != nil {
		return fmt.Errorf("advise: the experiment file made is not valid (a bug in pgtrial): %w", err)
	}
	if err := os.WriteFile(o.out, file, 0o644); err != nil {
		return fmt.Errorf("advise: write the experiment file: %w", err)
	}
	if o.json {
		return printJSON(stdout, jsonAdvise, newAdviseJSON(wl, hw, facts, advice, restartOK, o.out))
	}
	fmt.Fprintf(stdout, "\nwrote %s: variants current and advised, %d runs each; check it with\n  pgtrial experiment --check %s\nand measure with\n  pgtrial experiment %s\n", o.out, o.repeats, o.out, o.out)
	return nil
}

// adviseExtraSettings are the settings advise reads besides the advised ones.
var adviseExtraSettings = []string{"server_version_num", "max_connections", "data_directory", "checkpoint_timeout"}

// readServerFacts reads the server's version, max_connections, data
// directory and the advised settings' current values and contexts, in one
// read-only transaction.
func readServerFacts(ctx context.Context, conn *pgx.Conn) (*serverFacts, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("advise: begin a read-only transaction: %w", err)
	}
	defer tx.Rollback(context.Background())
	names := append([]string{}, adviseExtraSettings...)
	names = append(names, adviseNames()...)
	// pg_settings hides data_directory from roles without
	// pg_read_all_settings: then its row is missing.
	rows, err := tx.Query(ctx, `SELECT name, current_setting(name), setting, context FROM pg_settings WHERE name = ANY($1)`, names)
	if err != nil {
		return nil, fmt.Errorf("advise: read pg_settings: %w", err)
	}
	f := &serverFacts{settings: map[string]currentSetting{}}
	for rows.Next() {
		var name, value, raw, context string // raw: in the setting's base unit (checkpoint_timeout: s)
		if err := rows.Scan(&name, &value, &raw, &context); err != nil {
			return nil, fmt.Errorf("advise: read pg_settings: %w", err)
		}
		switch name {
		case "server_version_num":
			f.versionNum, _ = strconv.Atoi(value)
		case "max_connections":
			f.maxConnections, _ = strconv.Atoi(value)
		case "data_directory":
			f.dataDir = value
		case "checkpoint_timeout":
			secs, _ := strconv.Atoi(raw)
			f.checkpointTimeout = time.Duration(secs) * time.Second
		}
		f.settings[name] = currentSetting{value: value, restart: context == "postmaster"}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("advise: read pg_settings: %w", err)
	}
	if f.versionNum == 0 || f.maxConnections == 0 {
		return nil, errors.New("advise: pg_settings has no server_version_num or max_connections")
	}
	return f, nil
}

// adviseNames are the names of every setting the rules give.
func adviseNames() []string {
	ss, _ := advise.Advise(advise.Input{CPUs: 4, RAM: 1 << 30, Storage: advise.SSD, Workload: advise.Web, Version: 99})
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}

// adviseHardware measures the server's machine (when local, or through a
// node_exporter) and applies the flags over it.
func adviseHardware(ctx context.Context, o *adviseOptions, local bool, dataDir string) (*hardware, error) {
	hw := &hardware{storage: advise.Unknown}
	switch {
	case local:
		h, err := collect.ReadHost(ctx, true, "")
		if h != nil {
			hw.cpus, hw.ram = h.CPUs, h.MemoryBytes
		}
		hw.cpusSrc, hw.ramSrc = "online CPUs in /proc/stat (the server is on this machine)", "MemTotal in /proc/meminfo, a little under the installed RAM (--ram to give that)"
		if hw.cpus == 0 {
			hw.cpus, hw.cpusSrc = runtime.NumCPU(), "this process's CPUs (runtime.NumCPU; /proc/stat unreadable)"
		}
		if err != nil && hw.ram == 0 && o.ram == "" {
			return nil, fmt.Errorf("advise: the memory of this machine: %w (give --ram)", err)
		}
		if dataDir == "" {
			hw.stSrc = "unknown: the data directory is hidden from this role (pg_read_all_settings); give --storage"
		} else {
			hw.storage, hw.stSrc = advise.StorageOf(dataDir, o.sysRoot)
		}
	case o.nodeExporter != "":
		h, err := collect.ReadHost(ctx, false, o.nodeExporter)
		if err != nil && o.cpus == 0 && o.ram == "" {
			return nil, fmt.Errorf("advise: the node_exporter %s: %w (or give --cpus and --ram)", o.nodeExporter, err)
		}
		if h != nil {
			hw.cpus, hw.ram = h.CPUs, h.MemoryBytes
		}
		hw.cpusSrc = "node_cpu_seconds_total's cpus at " + o.nodeExporter
		hw.ramSrc = "node_memory_MemTotal_bytes at " + o.nodeExporter
		hw.stSrc = "unknown: a remote server's storage cannot be told; give --storage"
	default:
		hw.cpusSrc, hw.ramSrc = "unknown: the server is not on this machine", "unknown: the server is not on this machine"
		hw.stSrc = "unknown: the server is not on this machine; give --storage"
	}
	if o.cpus != 0 {
		if o.cpus < 0 {
			return nil, fmt.Errorf("--cpus %d: give a positive number", o.cpus)
		}
		hw.cpus, hw.cpusSrc = o.cpus, "--cpus"
	}
	if o.ram != "" {
		b, err := advise.ParseBytes(o.ram)
		if err != nil {
			return nil, fmt.Errorf("--ram: %w", err)
		}
		hw.ram, hw.ramSrc = b, "--ram"
	}
	if o.storage != "" {
		st, err := advise.ParseStorage(o.storage)
		if err != nil {
			return nil, fmt.Errorf("--storage: %w", err)
		}
		hw.storage, hw.stSrc = st, "--storage"
	}
	if hw.ram == 0 {
		return nil, errors.New("advise: the server's memory is unknown (it is not on this machine): give --ram (and --cpus, --storage), or --node-exporter")
	}
	return hw, nil
}

// adviseDoc is the printed advice: the hardware and where each figure came
// from, then setting, current, advised, restart and rule.
func adviseDoc(wl advise.Workload, hw *hardware, f *serverFacts, advice []advise.Setting, restartOK bool) *report.Doc {
	cpus := strconv.Itoa(hw.cpus)
	if hw.cpus == 0 {
		cpus = format.Missing
	}
	doc := &report.Doc{Title: fmt.Sprintf("pgtune's advice for workload type %s (PostgreSQL %d, max_connections %d)", wl, f.versionNum/10000, f.maxConnections)}
	doc.Add(&report.Lines{Title: "hardware", Indent: 2, Lines: []string{
		fmt.Sprintf("CPUs     %s: %s", cpus, hw.cpusSrc),
		fmt.Sprintf("RAM      %s: %s", format.Bytes(hw.ram), hw.ramSrc),
		fmt.Sprintf("storage  %s: %s", hw.storage, hw.stSrc),
	}})
	t := &report.Table{Title: "settings", Head: []string{"setting", "current", "advised", "restart", "rule"}}
	var left []string
	for _, s := range advice {
		cur, ok := f.settings[s.Name]
		curText := cur.value
		if !ok {
			curText = format.Missing
		}
		adv, restart := s.Value, ""
		if adv == "" {
			adv = "(as is)"
		}
		if cur.restart {
			restart = "yes"
			if !restartOK && s.Value != "" {
				restart = "yes, left out"
				left = append(left, s.Name)
			}
		}
		t.Rows = append(t.Rows, []report.Cell{report.Text(s.Name), report.Text(curText), report.Text(adv), report.Text(restart), report.Text(s.Rule)})
	}
	t.Notes = append(t.Notes, "rules: pgtune (le0pard/pgtune), in kB of RAM rounded down; restart: pg_settings.context = postmaster")
	if len(left) > 0 {
		t.Notes = append(t.Notes, "left out of the experiment: "+strings.Join(left, ", ")+" need a restart, and a server given by URL needs --restart-command")
	}
	doc.Add(t)
	return doc
}

// adviseJSON is advise --json: what the text shows, and the file written.
type adviseJSON struct {
	Schema        string          `json:"schema"`   // jsonSchemaID(jsonAdvise)
	Workload      string          `json:"workload"` // pgtune's DB type
	ServerVersion int             `json:"server_version_major"`
	MaxConns      int             `json:"max_connections"`
	CPUs          int             `json:"cpus,omitempty"` // 0: unknown
	CPUsSource    string          `json:"cpus_source"`
	RAMBytes      int64           `json:"ram_bytes"`
	RAMSource     string          `json:"ram_source"`
	Storage       string          `json:"storage"`
	StorageSource string          `json:"storage_source"`
	Settings      []adviseSetting `json:"settings"`
	Experiment    string          `json:"experiment_file"`
}

type adviseSetting struct {
	Name    string `json:"name"`
	Current string `json:"current,omitempty"` // absent: the server did not show it
	Advised string `json:"advised,omitempty"` // absent: the rule advises nothing (leave it)
	Restart bool   `json:"restart"`           // pg_settings.context = postmaster
	// LeftOut: it needs a restart, which the experiment cannot do on a
	// server given by URL without --restart-command.
	LeftOut bool   `json:"left_out,omitempty"`
	Rule    string `json:"rule"`
}

func newAdviseJSON(wl advise.Workload, hw *hardware, f *serverFacts, advice []advise.Setting, restartOK bool, file string) adviseJSON {
	j := adviseJSON{
		Schema: jsonSchemaID(jsonAdvise), Workload: string(wl), ServerVersion: f.versionNum / 10000, MaxConns: f.maxConnections,
		CPUs: hw.cpus, CPUsSource: hw.cpusSrc, RAMBytes: hw.ram, RAMSource: hw.ramSrc,
		Storage: string(hw.storage), StorageSource: hw.stSrc, Experiment: file, Settings: []adviseSetting{},
	}
	for _, s := range advice {
		cur := f.settings[s.Name]
		j.Settings = append(j.Settings, adviseSetting{
			Name: s.Name, Current: cur.value, Advised: s.Value, Restart: cur.restart,
			LeftOut: cur.restart && !restartOK && s.Value != "", Rule: s.Rule,
		})
	}
	return j
}

// The experiment file, in the experiment package's keys (doc.go).
type adviseFile struct {
	Name        string          `yaml:"name"`
	Description string          `yaml:"description"`
	Target      adviseTarget    `yaml:"target"`
	Workload    adviseWorkload  `yaml:"workload"`
	Load        adviseLoad      `yaml:"load"`
	Protocol    adviseProtocol  `yaml:"protocol"`
	Variants    []adviseVariant `yaml:"variants"`
}

type adviseTarget struct {
	Local          any    `yaml:"local,omitempty"` // true or a cluster's name
	URL            string `yaml:"url,omitempty"`
	RestartCommand string `yaml:"restart_command,omitempty"`
	NodeExporter   string `yaml:"node_exporter,omitempty"`
}

type adviseWorkload struct {
	Builtin string `yaml:"builtin"`
}

type adviseLoad struct {
	Closed  bool `yaml:"closed"`
	Clients int  `yaml:"clients"`
}

type adviseProtocol struct {
	Repeats int `yaml:"repeats"`
}

type adviseVariant struct {
	Name     string     `yaml:"name"`
	Settings *yaml.Node `yaml:"settings,omitempty"`
}

// adviseExperiment is the experiment file: a comment header, then the two
// variants over the workload in the closed model.
func adviseExperiment(o *adviseOptions, wl advise.Workload, hw *hardware, f *serverFacts, advice []advise.Setting, res *target.Resolved, restartOK bool) ([]byte, error) {
	settings := &yaml.Node{Kind: yaml.MappingNode} // block style: one setting a line
	n := 0
	var left []string
	for _, s := range advice {
		if s.Value == "" {
			continue
		}
		if f.settings[s.Name].restart && !restartOK {
			left = append(left, s.Name)
			continue
		}
		if _, known := f.settings[s.Name]; !known {
			continue // this server does not have it
		}
		settings.Content = append(settings.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: s.Name},
			&yaml.Node{Kind: yaml.ScalarNode, Value: s.Value, Style: yaml.DoubleQuotedStyle, LineComment: s.Rule})
		n++
	}
	if n == 0 {
		return nil, errors.New("advise: nothing to advise that the experiment could set")
	}
	ef := adviseFile{
		Name:        "advise-" + string(wl),
		Description: fmt.Sprintf("pgtune's advice for %s (%d CPUs, %s, %s) against the current settings", wl, hw.cpus, format.Bytes(hw.ram), hw.storage),
		Workload:    adviseWorkload{Builtin: o.builtin},
		Load:        adviseLoad{Closed: true, Clients: o.clients},
		Protocol:    adviseProtocol{Repeats: o.repeats},
		Variants:    []adviseVariant{{Name: "current"}, {Name: "advised", Settings: settings}},
	}
	switch {
	case res.Local != nil && res.Local.Name() == "default":
		ef.Target.Local = true
	case res.Local != nil:
		ef.Target.Local = res.Local.Name()
	default:
		ef.Target.URL = res.Display // never a password: pgx completes it from the environment or ~/.pgpass
		ef.Target.RestartCommand = o.restartCommand
		ef.Target.NodeExporter = o.nodeExporter
	}
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(&ef); err != nil {
		return nil, fmt.Errorf("advise: the experiment file: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("advise: the experiment file: %w", err)
	}
	window := max(2*f.checkpointTimeout, time.Minute)
	each := 30*time.Second + window // protocol's default warm-up and window
	var b strings.Builder
	lines := []string{
		fmt.Sprintf("Written by pgtrial advise: pgtune's advice for workload type %s against the", wl),
		"server's current settings, as two variants: current (nothing changed) and advised",
		"(ALTER SYSTEM SET, then a reload, or a restart for shared_buffers and the other",
		"postmaster settings; everything is put back at the end). Each setting's comment",
		"is its rule. The verdict compares advised with current over the runs, interleaved.",
		"Hardware:",
		fmt.Sprintf("  CPUs %d: %s", hw.cpus, hw.cpusSrc),
		fmt.Sprintf("  RAM %s: %s", format.Bytes(hw.ram), hw.ramSrc),
		fmt.Sprintf("  storage %s: %s", hw.storage, hw.stSrc),
		fmt.Sprintf("The workload's tables first: pgtrial init (-s SCALE for %s).", o.builtin),
		fmt.Sprintf("Duration: 2 variants × %d runs × (30s warm-up + %s window, max(2 × checkpoint_timeout, 60s)) ≈ %s, plus restarts.",
			o.repeats, format.Duration(window), format.Duration(time.Duration(2*o.repeats)*each)),
		"  pgtrial experiment --check " + o.out,
		"  pgtrial experiment " + o.out,
	}
	if len(left) > 0 {
		lines = append(lines, "Left out (they need a restart, and a server given by URL --restart-command): "+strings.Join(left, ", "))
	}
	for _, l := range lines {
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	b.Write(body.Bytes())
	return []byte(b.String()), nil
}

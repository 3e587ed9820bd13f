package cli

// k8s.go: `pgtrial k8s job|pod|collect`, one load as a Kubernetes Indexed
// Job (internal/k8s; docs/kubernetes.md).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/k8s"
	"github.com/pgtrial/pgtrial/internal/merge"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

func newK8sCommand(info BuildInfo) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Run one load as a Kubernetes Indexed Job: one pod per segment, results collected from the logs",
		Long: `k8s runs one load from several pods, each a segment of it (run --segment i/n), all
starting at one instant (--start-at), as a Kubernetes Indexed Job:

  pgtrial k8s job      writes the Job's manifests (kubectl apply -f)
  pgtrial k8s pod      what each pod runs: run, then its run directory on stdout
  pgtrial k8s collect  the run directories from the saved logs, checked and merged

See docs/kubernetes.md for the steps end to end.`,
	}
	cmd.AddCommand(newK8sJobCommand(info), newK8sPodCommand(info), newK8sCollectCommand(info))
	return cmd
}

// k8sJobOptions are `pgtrial k8s job`'s own flags; the rest are run's.
type k8sJobOptions struct {
	job            k8s.Job
	output         string
	startIn        time.Duration
	startAt        string
	env            []string
	noLogResults   bool
	withSecretTmpl bool
}

const k8sJobLong = `job writes the manifests of a Kubernetes Indexed Job that runs one load of pgtrial run
in --segments pods: pod i runs "pgtrial run --segment i/n --start-at T" with the run
flags given here (everything that is not one of job's own flags is run's, checked as
run checks it: -j must be a multiple of n, -T not -t, no --scenario). The -f script
files go into a ConfigMap NAME-scripts, which the pods mount at /scripts.

Every segment starts its warm-up at one instant T: --start-at, or now + --start-in
(default 2m, for the image pulls). Apply the Job before T. A pod that starts after T
refuses to run (its segment is missing, the Job fails, the others go on); one that
starts before T but connects its clients after it runs its late slots at once, which
shows as lag (see run's --start-at).

The connection: never a password in the manifest. The pods take the libpq environment
(PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, …) from the Secret
--secret NAME (envFrom); --with-secret-template also writes an example Secret with
placeholders. A --url or argument with a password is refused. --env NAME=VALUE adds
plain variables.

backoffLimit is 0: a failed segment is not retried, since a retry would start its
schedule late. Each pod writes its run directory to its log at the end (a gzip tar in
base64 between marker lines; "pgtrial k8s collect" reads it), and to the
PersistentVolumeClaim --results-pvc (ReadWriteMany when the pods spread over nodes)
under /results/NAME/segment-NNN.

The image must have pgtrial as its entrypoint (the Dockerfile's does).`

func newK8sJobCommand(info BuildInfo) *cobra.Command {
	o := &k8sJobOptions{startIn: 2 * time.Minute}
	o.job.CPU, o.job.Memory = "2", "2Gi"
	cmd := &cobra.Command{
		Use:   "job --segments N --image IMAGE [--secret NAME] [run flags]",
		Short: "Write the manifests of an Indexed Job that runs one load in N segments",
		Long:  k8sJobLong,
		Example: `  kubectl create secret generic pgtrial-db --from-literal=PGHOST=db.example.com \
    --from-literal=PGUSER=bench --from-literal=PGPASSWORD=… --from-literal=PGDATABASE=bench
  pgtrial k8s job --segments 4 --image registry.example.com/pgtrial:v1 --secret pgtrial-db \
    --rate 20000 -c 256 -j 16 -T 10m -o job.yaml
  kubectl apply -f job.yaml`,
		// The flags are split here: job's own, the rest are run's.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runK8sJob(cmd, o, args, info, time.Now())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.IntVar(&o.job.Segments, "segments", 0, "segments, one pod each (completions and parallelism)")
	f.StringVar(&o.job.Image, "image", "", "the container image, with pgtrial as its entrypoint (the repository's Dockerfile)")
	f.StringVar(&o.job.Secret, "secret", "", "the Secret whose keys are the pods' libpq environment (PGHOST, PGPASSWORD, …)")
	f.BoolVar(&o.withSecretTmpl, "with-secret-template", false, "also write an example Secret --secret NAME with placeholders (never a password)")
	f.StringArrayVar(&o.env, "env", nil, "plain environment variable NAME=VALUE of the pods (PGHOST=…, PGSSLMODE=…; never a password); repeatable")
	f.StringVar(&o.job.Name, "name", "", "the Job's name, also its pods' run label (default pgtrial-<time>)")
	f.StringVar(&o.job.Namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
	f.DurationVar(&o.startIn, "start-in", o.startIn, "the segments start this long after now (image pulls, scheduling, connections)")
	f.StringVar(&o.startAt, "start-at", "", "the segments' start instant instead (RFC 3339, e.g. 2026-12-04T10:00:00Z)")
	f.StringVar(&o.job.CPU, "cpu", o.job.CPU, "CPU of each pod, requested and limit (a Kubernetes quantity: 2, 500m)")
	f.StringVar(&o.job.Memory, "memory", o.job.Memory, "memory of each pod, requested and limit (4Gi, 512Mi)")
	f.BoolVar(&o.job.RequireSpread, "require-spread", false, "at most one pod per node (required anti-affinity; default preferred)")
	f.StringVar(&o.job.ResultsPVC, "results-pvc", "", "also keep the run directories on this PersistentVolumeClaim, under /results/NAME/segment-NNN")
	f.BoolVar(&o.noLogResults, "no-log-results", false, "with --results-pvc: do not also write the run directories to the logs")
	f.StringVar(&o.job.ServiceAcct, "service-account", "", "the pods' service account (default the namespace's)")
	f.StringVarP(&o.output, "output", "o", "", "write the manifests to this file instead of stdout")
	return cmd
}

// runK8sJob splits args into job's flags and run's, checks run's as run
// does, and writes the manifests.
func runK8sJob(cmd *cobra.Command, o *k8sJobOptions, args []string, info BuildInfo, now time.Time) error {
	runCmd, ro := newRunCommandOptions(info)
	rf := runCmd.Flags()
	jobArgs, runArgs, help := splitFlags(args, cmd.Flags(), rf)
	if help {
		return cmd.Help()
	}
	if err := cmd.Flags().Parse(jobArgs); err != nil {
		return err
	}
	if err := rf.Parse(runArgs); err != nil {
		return fmt.Errorf("%w (the flags of pgtrial k8s job are its own and run's; see pgtrial k8s job --help and pgtrial run --help)", err)
	}
	if n := len(rf.Args()); n > 1 {
		return fmt.Errorf("accepts at most 1 arg(s), received %d", n)
	}
	var err error
	if ro.arg, err = serverArg(rf.Args(), ro.url); err != nil {
		return err
	}
	for _, name := range []string{"segment", "run-dir", "show-script"} {
		if rf.Changed(name) {
			return fmt.Errorf("--%s is not for k8s job: the pods set --segment and --run-dir themselves", name)
		}
	}
	for i, a := range results.RedactArgs(runArgs) {
		if a != runArgs[i] {
			return errors.New("a password is in the run flags (--url or the argument): never in the manifest; put PGPASSWORD in the Secret (--secret NAME; kubectl create secret generic NAME --from-literal=PGPASSWORD=…) and give the URL without it")
		}
	}
	j := &o.job
	switch {
	case j.Segments < 1:
		return errors.New("--segments N is needed: the pods, each a segment of the load")
	case j.Image == "":
		return errors.New("--image IMAGE is needed: an image with pgtrial as its entrypoint (the repository's Dockerfile)")
	}
	if ro.threads < 1 {
		return fmt.Errorf("give -j explicitly, a multiple of --segments %d: its default, min(clients, CPUs), would be each pod's own CPU count, and the segments must cut one load's threads", j.Segments)
	}
	plan, err := planRun(ro, rf.Changed)
	if err != nil {
		return err
	}
	switch {
	case o.noLogResults && j.ResultsPVC == "":
		return errors.New("--no-log-results needs --results-pvc: the results must go somewhere")
	case o.withSecretTmpl && j.Secret == "":
		return errors.New("--with-secret-template needs --secret NAME")
	}
	for _, e := range o.env {
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			return fmt.Errorf("--env %q: want NAME=VALUE", e)
		}
		j.Env = append(j.Env, [2]string{k, v})
	}
	if !hasK8sTarget(ro, j) {
		return errors.New("the pods need a target: --secret NAME (its PGHOST, PGPASSWORD, …), --url or the argument (without a password), or --env PGHOST=…; there is no local cluster in a pod")
	}
	switch {
	case o.startAt != "":
		if cmd.Flags().Changed("start-in") {
			return errors.New("give --start-at or --start-in, not both")
		}
		if j.StartAt, err = time.Parse(time.RFC3339, o.startAt); err != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("--start-at %q: want an RFC 3339 time, e.g. %s", o.startAt, now.UTC().Add(5*time.Minute).Truncate(time.Second).Format(time.RFC3339))}
		}
	case o.startIn < 10*time.Second:
		return fmt.Errorf("--start-in %v: give the pods at least 10s to be scheduled and connect (the default is 2m)", o.startIn)
	default:
		// Whole seconds, rounded up: one RFC 3339 instant for every pod.
		j.StartAt = now.Add(o.startIn).UTC().Truncate(time.Second).Add(time.Second)
	}
	// The refusals of run --segment (-j a multiple of n, -T, no
	// --scenario, --start-at ahead and within a day), on the whole load.
	tc := &trial.Config{Clients: ro.clients, Threads: plan.threads, Transactions: ro.transactions, Scenarios: plan.scenarios}
	if !ro.closed {
		tc.Rate = ro.rate
	}
	if err := segmentRun(tc, "0/"+strconv.Itoa(j.Segments), j.StartAt.Format(time.RFC3339Nano), now); err != nil {
		return err
	}
	if j.Name == "" {
		j.Name = "pgtrial-" + now.UTC().Format("20060102-150405")
	}
	j.Length = ro.warmup.d + ro.duration.d
	j.SecretTemplate = o.withSecretTmpl
	// The -f files go into a ConfigMap; the pods read them from it.
	if j.RunArgs, err = mapFlagValues(runArgs, rf, "file", func(v string) (string, error) {
		path, weight := v, ""
		if i := strings.LastIndexByte(v, '@'); i >= 0 {
			path, weight = v[:i], v[i:]
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read script: %w", err)
		}
		key := fmt.Sprintf("%d-%s", len(j.Scripts)+1, configKeyOf(filepath.Base(path)))
		j.Scripts = append(j.Scripts, [2]string{key, string(data)})
		return k8s.ScriptsDir + "/" + key + weight, nil
	}); err != nil {
		return err
	}
	if j.ResultsPVC != "" {
		j.PodFlags = append(j.PodFlags, "--results-dir", k8s.ResultsDir+"/"+j.Name)
	}
	if o.noLogResults {
		j.PodFlags = append(j.PodFlags, "--stream=false")
	}
	w := cmd.OutOrStdout()
	var file *os.File
	if o.output != "" {
		if file, err = os.OpenFile(o.output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
			return err
		}
		defer file.Close()
		w = file
	}
	if err := j.Write(w, now); err != nil {
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "pgtrial: wrote %s: Job %s, %d segments starting at %s (in %s); apply it before then: kubectl apply -f %s\n",
			o.output, j.Name, j.Segments, j.StartAt.Format(time.RFC3339), j.StartAt.Sub(now).Round(time.Second), o.output)
	}
	return nil
}

// hasK8sTarget says the pods are told which server: a Secret (its keys are
// not known here), a URL or argument, or a libpq variable in --env.
func hasK8sTarget(ro *runOptions, j *k8s.Job) bool {
	if j.Secret != "" || ro.url != "" || ro.arg != "" {
		return true
	}
	for _, e := range j.Env {
		switch e[0] {
		case "PGHOST", "PGHOSTADDR", "PGSERVICE":
			return true
		}
	}
	return false
}

// splitFlags splits a command line into the flags of own and the rest
// (run's flags, their values and the argument), as pflag reads them: a
// long flag --name or --name=value, a short one -x, a cluster of boolean
// shorthands, -xVALUE. Everything after "--" is the rest's. help says -h
// or --help was given before "--".
func splitFlags(args []string, own, rest *pflag.FlagSet) (ownArgs, restArgs []string, help bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ownArgs, append(restArgs, args[i:]...), help
		case a == "-h" || a == "--help":
			help = true
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			fs, dst := rest, &restArgs
			if own.Lookup(name) != nil {
				fs, dst = own, &ownArgs
			}
			*dst = append(*dst, a)
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				*dst = append(*dst, args[i])
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			fs, dst := rest, &restArgs
			if own.ShorthandLookup(a[1:2]) != nil {
				fs, dst = own, &ownArgs
			}
			*dst = append(*dst, a)
			for k := 1; k < len(a); k++ {
				f := fs.ShorthandLookup(a[k : k+1])
				if f == nil || f.NoOptDefVal != "" {
					if f == nil {
						break
					}
					continue // a boolean: the cluster goes on
				}
				if k == len(a)-1 && i+1 < len(args) {
					i++
					*dst = append(*dst, args[i])
				}
				break
			}
		default:
			restArgs = append(restArgs, a)
		}
	}
	return ownArgs, restArgs, help
}

// configKeyOf is name with what a ConfigMap key cannot hold as '_'.
func configKeyOf(name string) string {
	key := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	return key[:min(len(key), 200)]
}

// mapFlagValues is args (a command line of fs's flags) with every value of
// the flag name replaced by fn's: --name V, --name=V, -x V, -xV and -abxV
// after boolean shorthands, as pflag reads them. After "--" nothing is a
// flag.
func mapFlagValues(args []string, fs *pflag.FlagSet, name string, fn func(string) (string, error)) ([]string, error) {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--":
			return out, nil
		case strings.HasPrefix(a, "--"):
			n, v, hasValue := strings.Cut(a[2:], "=")
			f := fs.Lookup(n)
			if f == nil || f.NoOptDefVal != "" {
				continue
			}
			if !hasValue {
				if i++; i >= len(out) {
					return out, nil
				}
				v = out[i]
			}
			if f.Name != name {
				continue
			}
			nv, err := fn(v)
			if err != nil {
				return nil, err
			}
			if hasValue {
				out[i] = "--" + n + "=" + nv
			} else {
				out[i] = nv
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for k := 1; k < len(a); k++ {
				f := fs.ShorthandLookup(a[k : k+1])
				if f == nil {
					break
				}
				if f.NoOptDefVal != "" {
					continue
				}
				if k < len(a)-1 { // -xVALUE
					if f.Name == name {
						nv, err := fn(a[k+1:])
						if err != nil {
							return nil, err
						}
						out[i] = a[:k+1] + nv
					}
				} else if i+1 < len(out) {
					i++
					if f.Name == name {
						nv, err := fn(out[i])
						if err != nil {
							return nil, err
						}
						out[i] = nv
					}
				}
				break
			}
		}
	}
	return out, nil
}

// k8sPodOptions are `pgtrial k8s pod`'s flags.
type k8sPodOptions struct {
	segment    string
	startAt    string
	resultsDir string
	stream     bool
}

func newK8sPodCommand(info BuildInfo) *cobra.Command {
	o := &k8sPodOptions{resultsDir: k8s.ResultsDir, stream: true}
	cmd := &cobra.Command{
		Use:   "pod --segment I/N --start-at T [--results-dir DIR] -- [run flags]",
		Short: "In a pod of k8s job: run one segment, then write its run directory to stdout",
		Long: `pod is what each pod of "pgtrial k8s job" runs: pgtrial run --segment I/N --start-at T
with the run flags after "--" and the run directory DIR/segment-NNN, the run's output
on stderr; then the run directory on stdout (also of a failed or interrupted run) as
lines "pgtrial-results …": a gzip tar in base64 with the segment and its sha256, which
"pgtrial k8s collect" finds in the saved logs. I may be $(JOB_COMPLETION_INDEX), the
variable Kubernetes sets in an Indexed Job's pods: the kubelet expands it, and pod
replaces it itself when it arrives unexpanded. The exit status is run's.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runK8sPod(cmd, o, args, info)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.segment, "segment", "", "the segment I/N (I may be $(JOB_COMPLETION_INDEX))")
	f.StringVar(&o.startAt, "start-at", "", "the segments' start instant (RFC 3339)")
	f.StringVar(&o.resultsDir, "results-dir", o.resultsDir, "the run directory is DIR/segment-NNN")
	f.BoolVar(&o.stream, "stream", o.stream, "write the run directory to stdout at the end")
	return cmd
}

func runK8sPod(cmd *cobra.Command, o *k8sPodOptions, args []string, info BuildInfo) error {
	seg := o.segment
	if strings.Contains(seg, k8s.IndexRef) {
		v := os.Getenv(k8s.IndexVar)
		if v == "" {
			return fmt.Errorf("--segment %s: %s is not set; this runs in a pod of an Indexed Job (pgtrial k8s job), or give --segment I/N", seg, k8s.IndexVar)
		}
		seg = strings.ReplaceAll(seg, k8s.IndexRef, v)
	}
	i, n, err := trial.ParseSegment(seg)
	if err != nil {
		return err
	}
	if o.startAt == "" {
		return errors.New("--start-at T is needed: every segment starts at one instant")
	}
	dir := filepath.Join(o.resultsDir, fmt.Sprintf("segment-%03d", i))
	runCmd, _ := newRunCommandOptions(info)
	runCmd.SilenceUsage, runCmd.SilenceErrors = true, true
	runCmd.SetArgs(append(append([]string(nil), args...), "--segment", seg, "--start-at", o.startAt, "--run-dir", dir))
	// stdout is the stream's: the summary goes to stderr.
	runCmd.SetOut(cmd.ErrOrStderr())
	runCmd.SetErr(cmd.ErrOrStderr())
	runErr := runCmd.ExecuteContext(cmd.Context())
	if !o.stream {
		return runErr
	}
	if _, err := os.Stat(filepath.Join(dir, results.RunFile)); err != nil {
		if runErr != nil {
			return runErr // nothing measured: no directory to stream
		}
		return &exitError{code: exitRunFail, err: fmt.Errorf("segment %d/%d: no %s in %s to stream", i, n, results.RunFile, dir)}
	}
	if runErr != nil {
		// The error itself is printed last, as the command's.
		fmt.Fprintf(cmd.ErrOrStderr(), "pgtrial: the run of segment %d/%d failed; streaming what it recorded\n", i, n)
	}
	if err := k8s.StreamDir(cmd.OutOrStdout(), i, n, dir); err != nil {
		return &exitError{code: exitRunFail, err: fmt.Errorf("stream the run directory %s: %w", dir, err)}
	}
	return runErr
}

func newK8sCollectCommand(info BuildInfo) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "collect [-o OUT] LOGFILE…|DIR",
		Short: "Gather the segments' run directories from saved pod logs (or a results PVC's copy) and merge them",
		Long: `collect reads the run directories that the pods of "pgtrial k8s job" wrote to their
logs: the saved output of kubectl logs (of each pod, or of all with -l and --prefix;
other lines are skipped, the segments may interleave), given as files or a directory of
files. Every segment of the load must be there once, complete, with its sha256; each is
extracted (regular files and directories only, no name outside its directory) into
OUT/pods/NNN, and the segments are merged into the run directory OUT (default
./pgtrial-runs/<time>-k8s).

A directory of run directories segment-NNN (a copy of --results-pvc's /results/NAME)
is taken as it is: its segments are checked and merged into OUT.`,
		Example: `  kubectl logs -l job-name=pgtrial-20261204-100000 --tail=-1 --prefix --max-log-requests 16 > job.log
  pgtrial k8s collect -o merged job.log
  pgtrial report merged`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runK8sCollect(info, out, args, cmd.ErrOrStderr(), time.Now())
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the merged run directory (default ./pgtrial-runs/<time>-k8s); it must not exist")
	return cmd
}

func runK8sCollect(info BuildInfo, out string, args []string, stderr io.Writer, now time.Time) error {
	if out == "" {
		out = defaultRunDir(now, "k8s")
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("-o %s exists already: give a new directory for the merged run", out)
	}
	var logs, runDirs []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			logs = append(logs, a)
			continue
		}
		segs, files, err := k8sDirEntries(a)
		if err != nil {
			return err
		}
		runDirs, logs = append(runDirs, segs...), append(logs, files...)
	}
	if len(logs) > 0 && len(runDirs) > 0 {
		return errors.New("give either pod logs or copied run directories (segment-NNN), not both")
	}
	dirs := runDirs
	if len(logs) > 0 {
		r := k8s.NewReader()
		for _, l := range logs {
			f, err := os.Open(l)
			if err != nil {
				return err
			}
			err = r.Read(l, f)
			f.Close()
			if err != nil {
				return err
			}
		}
		segs, err := r.Segments()
		if err != nil {
			return err
		}
		base := filepath.Join(out, "pods") // not segments/: the merge keeps segments' os.csv there
		if err := results.MakeDirs("run directory", out, base); err != nil {
			return err
		}
		for _, s := range segs {
			d := filepath.Join(base, fmt.Sprintf("%03d", s.Index))
			if err := k8s.Extract(s, d); err != nil {
				return err
			}
			dirs = append(dirs, d)
		}
		fmt.Fprintf(stderr, "pgtrial: %d segments extracted into %s (checksums verified)\n", len(segs), base)
	}
	if err := checkSegmentDirs(dirs); err != nil {
		return err
	}
	if _, err := merge.Merge(merge.Config{Dirs: dirs, Out: out, Tool: info.tool(), CommandLine: os.Args}); err != nil {
		var re *merge.RefusalError
		if errors.As(err, &re) {
			return &exitError{code: exitBadInput, err: err}
		}
		return &exitError{code: exitRunFail, err: err}
	}
	fmt.Fprintf(stderr, "pgtrial: merged %d segments into %s (pgtrial report %s)\n", len(dirs), out, out)
	return nil
}

// k8sDirEntries are a directory's run directories segment-NNN (a copy of
// the results PVC) or else its regular files (saved logs), in name order.
func k8sDirEntries(dir string) (runDirs, files []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() && strings.HasPrefix(e.Name(), "segment-"):
			if _, err := os.Stat(filepath.Join(p, results.RunFile)); err == nil {
				runDirs = append(runDirs, p)
			}
		case e.Type().IsRegular():
			files = append(files, p)
		}
	}
	if len(runDirs) > 0 {
		return runDirs, nil, nil
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("%s has no saved logs and no run directories segment-NNN", dir)
	}
	sort.Strings(files)
	return nil, files, nil
}

// checkSegmentDirs checks that dirs are the segments 0..n−1 of one load,
// each once, in index order, by their run.json.
func checkSegmentDirs(dirs []string) error {
	if len(dirs) == 0 {
		return errors.New("no segments")
	}
	seen := map[int]string{}
	count := 0
	for k, d := range dirs {
		r, err := results.Load(d)
		if err != nil {
			return err
		}
		s := r.Segment
		switch {
		case s == nil:
			return fmt.Errorf("%s is not a segment's run (its run.json has no segment): not a run of pgtrial k8s job", d)
		case k > 0 && s.Count != count:
			return fmt.Errorf("%s is segment %d of %d, %s one of %d: runs of different loads", d, s.Index, s.Count, dirs[0], count)
		case seen[s.Index] != "":
			return fmt.Errorf("%s and %s are both segment %d/%d", seen[s.Index], d, s.Index, s.Count)
		}
		count = s.Count
		seen[s.Index] = d
	}
	var missing []string
	for i := range count {
		if seen[i] == "" {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("segments %s of %d are missing: their pods failed or their directories were not copied", strings.Join(missing, ", "), count)
	}
	return nil
}

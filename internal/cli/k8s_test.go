package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/pgtrial/pgtrial/internal/k8s"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestK8sJob: the manifests carry the segment and one --start-at, run's
// flags after "--", the Secret; no password from the environment or the
// flags is in any output; run's refusals are run's.
func TestK8sJob(t *testing.T) {
	const envPw, flagPw = "envS3cretPw", "flagS3cretPw"
	t.Setenv("PGPASSWORD", envPw)
	t.Setenv("PGHOST", "envhost.example")
	t.Setenv("PGUSER", "envuser")
	out := filepath.Join(t.TempDir(), "job.yaml")
	code, stdout, stderr := runCLI(t, "k8s", "job", "--segments", "4", "--image", "reg.example/pgtrial:v1",
		"--secret", "pgtrial-db", "--with-secret-template", "--rate", "1000", "-c", "16", "-j", "8", "-rT", "2m",
		"--warmup=30s", "-b", "select-only", "--env", "PGSSLMODE=require", "--start-in", "90s", "-o", out, "--cpu", "1")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(b)
	for _, want := range []string{
		"completionMode: Indexed", "completions: 4", "parallelism: 4", "backoffLimit: 0",
		"- $(JOB_COMPLETION_INDEX)/4", "- --start-at", "name: pgtrial-db", "kind: Secret",
		"topologyKey: kubernetes.io/hostname", "cpu: \"1\"", "name: PGSSLMODE",
		"- --\n            - --rate\n            - \"1000\"\n            - -c\n            - \"16\"\n            - -j\n            - \"8\"\n            - -rT\n            - 2m\n            - --warmup=30s\n",
	} {
		if !strings.Contains(yaml, want) {
			t.Errorf("the manifests lack %q:\n%s", want, yaml)
		}
	}
	if n := strings.Count(yaml, "--start-at"); n != 2 { // one in the header comment, one argument
		t.Errorf("--start-at %d times", n)
	}
	for _, leak := range []string{envPw, "envhost.example", "envuser"} {
		if strings.Contains(yaml+stdout+stderr, leak) {
			t.Errorf("%q from the environment is in the output", leak)
		}
	}
	if !strings.Contains(stderr, "kubectl apply -f "+out) {
		t.Errorf("stderr %q", stderr)
	}

	base := []string{"k8s", "job", "--segments", "2", "--image", "img", "--rate", "100", "-c", "4", "-j", "2"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "postgres://bench:" + flagPw + "@db/bench"}, "a password is in the run flags"},
		{[]string{"host=db password=" + flagPw}, "a password is in the run flags"},
		{[]string{"--secret", "s", "--env", "PGPASSWORD=" + flagPw}, "a password goes into the Secret"},
		{[]string{"--secret", "s", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"--secret", "s", "-j", "3"}, "give -j a multiple of 2"},
		{[]string{"--secret", "s", "-t", "100"}, "--segment needs -T"},
		{[]string{"--secret", "s", "--segment", "0/2"}, "--segment is not for k8s job"},
		{[]string{"--secret", "s", "-f", "no-such.sql"}, "read script"},
		{[]string{"--secret", "s", "--start-at", "2020-01-01T00:00:00Z"}, "ago"},
		{nil, "the pods need a target"},
		{[]string{"--secret", "s", "-j", "0"}, "give -j explicitly"},
		{[]string{"--secret", "s", "--closed"}, "--rate and --closed exclude each other"},
	} {
		code, stdout, stderr := runCLI(t, append(append([]string(nil), base...), tc.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stdout+stderr, flagPw) || strings.Contains(stdout+stderr, envPw) {
			t.Errorf("%v: a password in the output:\n%s%s", tc.args, stdout, stderr)
		}
	}
	// -f files: into the ConfigMap, the pods' args name them there.
	script := connTestScript(t, t.TempDir())
	code, stdout, stderr = runCLI(t, append(append([]string(nil), base...), "--secret", "s", "-f", script+"@2", "--file="+script)...)
	if code != exitOK || !strings.Contains(stdout, "kind: ConfigMap") || !strings.Contains(stdout, "1-s.sql: |\n    SELECT 1;") ||
		!strings.Contains(stdout, "- /scripts/1-s.sql@2\n") || !strings.Contains(stdout, "- --file=/scripts/2-s.sql\n") || strings.Contains(stdout, script) {
		t.Errorf("-f: exit %d\n%s%s", code, stdout, stderr)
	}
	// run's own message for an unknown flag.
	_, _, runErr := runCLI(t, "run", "--bogus")
	if !strings.Contains(runErr, "unknown flag: --bogus") {
		t.Errorf("run --bogus: %q", runErr)
	}
}

// TestK8sPodCollect, end to end but for Kubernetes: the manifest's pod
// arguments, as the kubelet expands them, run as two concurrent pods
// against a real server with the one --start-at; their streams in noisy
// kubectl logs, then collect: the segments extracted as they were
// written, handed to the merge.
func TestK8sPodCollect(t *testing.T) {
	url, _ := pgbenchdb.Scale1(t)
	tmp := t.TempDir()
	resultsDir := filepath.Join(tmp, "results")
	startAt := time.Now().Add(3 * time.Second).UTC().Truncate(time.Second).Add(time.Second).Format(time.RFC3339)
	code, manifest, stderr := runCLI(t, "k8s", "job", "--segments", "2", "--image", "img", "--start-at", startAt, url,
		"-b", "select-only", "--rate", "40", "-c", "2", "-j", "2", "-T", "1s", "--warmup", "0", "--no-report")
	if code != exitOK {
		t.Fatalf("k8s job: exit %d\n%s", code, stderr)
	}
	var job batchv1.Job
	if err := sigsyaml.UnmarshalStrict([]byte(manifest[strings.Index(manifest, "apiVersion"):]), &job); err != nil {
		t.Fatal(err)
	}
	podArgs := job.Spec.Template.Spec.Containers[0].Args
	type pod struct {
		code           int
		stdout, stderr string
	}
	pods := make([]pod, 2)
	var wg sync.WaitGroup
	for i := range pods {
		var args []string
		for _, a := range podArgs {
			if a == "--" {
				args = append(args, "--results-dir", resultsDir)
			}
			// The kubelet's $(VAR) expansion.
			args = append(args, strings.ReplaceAll(a, k8s.IndexRef, strconv.Itoa(i)))
		}
		wg.Go(func() {
			p := &pods[i]
			p.code, p.stdout, p.stderr = runCLI(t, args...)
		})
	}
	wg.Wait()
	var logs []string
	for i, p := range pods {
		if p.code != exitOK {
			t.Fatalf("pod %d: exit %d\n%s", i, p.code, p.stderr)
		}
		if !strings.HasPrefix(p.stdout, k8s.Marker+"begin ") || !strings.Contains(p.stderr, "tps") {
			t.Fatalf("pod %d: stdout is not the stream alone, or the summary is not on stderr:\nstdout %.300s\nstderr %s", i, p.stdout, p.stderr)
		}
		// kubectl logs --prefix: the pod's stderr and stdout mixed.
		var b strings.Builder
		errLines := strings.Split(p.stderr, "\n")
		for k, l := range strings.Split(strings.TrimSuffix(p.stdout, "\n"), "\n") {
			if k < len(errLines) {
				fmt.Fprintf(&b, "[pod/pgtrial-x-%d-abcde/pgtrial] %s\n", i, errLines[k])
			}
			fmt.Fprintf(&b, "[pod/pgtrial-x-%d-abcde/pgtrial] %s\n", i, l)
		}
		f := filepath.Join(tmp, fmt.Sprintf("pod%d.log", i))
		if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, f)
	}

	out := filepath.Join(tmp, "merged")
	code, _, stderr = runCLI(t, "k8s", "collect", "-o", out, logs[1], logs[0])
	if code != exitOK {
		t.Fatalf("collect: exit %d\n%s", code, stderr)
	}
	for i := range 2 {
		d := filepath.Join(out, "pods", fmt.Sprintf("%03d", i))
		src := filepath.Join(resultsDir, fmt.Sprintf("segment-%03d", i))
		want, got := treeOf(t, src), treeOf(t, d)
		if len(want) == 0 || len(got) != len(want) {
			t.Errorf("segment %d: %d files, want %d", i, len(got), len(want))
		}
		for n, body := range want {
			if got[n] != body {
				t.Errorf("segment %d: %s differs", i, n)
			}
		}
		r, err := results.Load(d)
		if err != nil || r.Segment == nil || r.Segment.Index != i || r.Segment.Count != 2 || r.Segment.StartAt.Format(time.RFC3339) != startAt {
			t.Errorf("segment %d: run.json's segment %+v (%v), want %d/2 starting at %s", i, r.Segment, err, i, startAt)
		}
	}
	// The merge of the two: the whole load, its segments listed.
	checkMerged := func(out string) {
		t.Helper()
		run, err := results.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if run.Merge == nil || len(run.Merge.Segments) != 2 || run.Model.Clients != 2 || run.Model.Rate != 40 || run.Summary == nil ||
			run.Summary.Total.Committed != run.Merge.Segments[0].Committed+run.Merge.Segments[1].Committed {
			t.Errorf("merged %s: merge %+v, model %+v", out, run.Merge, run.Model)
		}
	}
	checkMerged(out)

	// The copy of a results PVC: taken as it is.
	if code, _, stderr := runCLI(t, "k8s", "collect", "-o", filepath.Join(tmp, "merged2"), resultsDir); code != exitOK {
		t.Errorf("collect of the run directories: exit %d\n%s", code, stderr)
	} else {
		checkMerged(filepath.Join(tmp, "merged2"))
	}
	// One log only: segment 0 is missing.
	if code, _, stderr := runCLI(t, "k8s", "collect", "-o", filepath.Join(tmp, "merged3"), logs[1]); code != exitBadInput || !strings.Contains(stderr, "segments 0 of 2 are missing") {
		t.Errorf("collect without segment 0: exit %d\n%s", code, stderr)
	}
}

func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestK8sSplitFlags: job's own flags apart from run's, as pflag reads
// them (values after the flag or with =, shorthand clusters, "--").
func TestK8sSplitFlags(t *testing.T) {
	job := newK8sJobCommand(BuildInfo{})
	runCmd, _ := newRunCommandOptions(BuildInfo{})
	for _, tc := range []struct {
		args      []string
		own, rest string
		help      bool
	}{
		{[]string{"--segments", "4", "--rate", "10", "-o", "f.yaml", "-c8", "-rT", "1m", "--image=x", "URL"},
			"--segments 4 -o f.yaml --image=x", "--rate 10 -c8 -rT 1m URL", false},
		{[]string{"-ofile", "--start-at", "T", "--closed", "-b", "select-only", "--", "-o", "--segments"},
			"-ofile --start-at T", "--closed -b select-only -- -o --segments", false},
		{[]string{"--require-spread", "--quiet", "-D", "x=1", "--env", "A=b", "-h"},
			"--require-spread --env A=b", "--quiet -D x=1", true},
	} {
		own, rest, help := splitFlags(tc.args, job.Flags(), runCmd.Flags())
		if strings.Join(own, " ") != tc.own || strings.Join(rest, " ") != tc.rest || help != tc.help {
			t.Errorf("%q: own %q rest %q help %v, want %q, %q, %v", tc.args, own, rest, help, tc.own, tc.rest, tc.help)
		}
	}
}

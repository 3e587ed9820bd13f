package k8s

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Docs splits multi-document YAML into its documents (comments and empty
// documents dropped).
func Docs(t *testing.T, s string) []string {
	t.Helper()
	var docs []string
	for _, d := range strings.Split("\n"+s, "\n---\n") {
		var lines []string
		for _, l := range strings.Split(d, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "#") && strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			docs = append(docs, strings.Join(lines, "\n")+"\n")
		}
	}
	return docs
}

func testJob() *Job {
	return &Job{
		Name: "pgtrial-a", Namespace: "bench", Image: "registry.example.com/pgtrial:v1", Segments: 4,
		StartAt: time.Date(2026, 12, 4, 10, 2, 0, 0, time.UTC), Length: 70 * time.Second,
		RunArgs: []string{"--rate", "1000", "-c", "16", "-j", "4", "-T", "60s"},
		Secret:  "pgtrial-db", Env: [][2]string{{"PGSSLMODE", "require"}}, CPU: "500m", Memory: "1Gi",
	}
}

// TestJobStrict decodes the manifests strictly into k8s.io/api's types: a
// field Kubernetes does not know fails, and the Job is what the segments
// need.
func TestJobStrict(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for _, required := range []bool{false, true} {
		j := testJob()
		j.RequireSpread = required
		j.SecretTemplate = required
		if required {
			j.ResultsPVC = "pgtrial-results"
			j.Scripts = [][2]string{{"1-mix.sql", "\\set aid random(1, 100000)\nSELECT 1;\n"}}
			j.RunArgs = append(j.RunArgs, "-f", ScriptsDir+"/1-mix.sql@2")
		}
		var b strings.Builder
		if err := j.Write(&b, now); err != nil {
			t.Fatal(err)
		}
		docs := Docs(t, b.String())
		if want := map[bool]int{false: 1, true: 3}[required]; len(docs) != want {
			t.Fatalf("%d documents, want %d:\n%s", len(docs), want, b.String())
		}
		if required {
			var sec corev1.Secret
			if err := yaml.UnmarshalStrict([]byte(docs[0]), &sec); err != nil {
				t.Fatalf("the Secret: %v\n%s", err, docs[0])
			}
			if sec.Kind != "Secret" || sec.Name != "pgtrial-db" || !strings.HasPrefix(sec.StringData["PGPASSWORD"], "REPLACE-") {
				t.Errorf("the Secret template: %+v", sec)
			}
			var cm corev1.ConfigMap
			if err := yaml.UnmarshalStrict([]byte(docs[1]), &cm); err != nil {
				t.Fatalf("the ConfigMap: %v\n%s", err, docs[1])
			}
			if cm.Kind != "ConfigMap" || cm.Name != "pgtrial-a-scripts" || cm.Data["1-mix.sql"] != j.Scripts[0][1] {
				t.Errorf("the ConfigMap: %+v", cm)
			}
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
			t.Fatalf("the Job: %v\n%s", err, docs[len(docs)-1])
		}
		s := job.Spec
		if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name != "pgtrial-a" || job.Namespace != "bench" {
			t.Errorf("type and metadata: %s %s %s/%s", job.APIVersion, job.Kind, job.Namespace, job.Name)
		}
		if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion ||
			s.Completions == nil || *s.Completions != 4 || s.Parallelism == nil || *s.Parallelism != 4 ||
			s.BackoffLimit == nil || *s.BackoffLimit != 0 {
			t.Errorf("spec: mode %v completions %v parallelism %v backoff %v", s.CompletionMode, s.Completions, s.Parallelism, s.BackoffLimit)
		}
		// 2 min to the start, 70 s of run, the slack.
		if s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != 120+70+int64(DeadlineSlack/time.Second) {
			t.Errorf("activeDeadlineSeconds %v", s.ActiveDeadlineSeconds)
		}
		p := s.Template.Spec
		if p.AutomountServiceAccountToken == nil || *p.AutomountServiceAccountToken || p.EnableServiceLinks == nil || *p.EnableServiceLinks {
			t.Errorf("automountServiceAccountToken %v, enableServiceLinks %v", p.AutomountServiceAccountToken, p.EnableServiceLinks)
		}
		if p.RestartPolicy != corev1.RestartPolicyNever || len(p.Containers) != 1 {
			t.Fatalf("restartPolicy %q, %d containers", p.RestartPolicy, len(p.Containers))
		}
		if l := s.Template.Labels; l[NameLabel] != "pgtrial" || l[InstanceLabel] != "pgtrial-a" {
			t.Errorf("pod labels %v", l)
		}
		c := p.Containers[0]
		args := strings.Join(c.Args, " ")
		if want := "k8s pod --segment $(JOB_COMPLETION_INDEX)/4 --start-at 2026-12-04T10:02:00Z "; !strings.HasPrefix(args, want) {
			t.Errorf("args %q, want the prefix %q", args, want)
		}
		if strings.Count(args, "--start-at") != 1 || !strings.Contains(args, "-- --rate 1000 -c 16 -j 4 -T 60s") {
			t.Errorf("args %q: one --start-at, the run flags last", args)
		}
		if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "pgtrial-db" {
			t.Errorf("envFrom %+v", c.EnvFrom)
		}
		for _, e := range c.Env {
			if strings.Contains(e.Name, "PASSWORD") {
				t.Errorf("env %s in the manifest", e.Name)
			}
		}
		if c.Resources.Limits.Cpu().String() != "500m" || c.Resources.Requests.Memory().String() != "1Gi" {
			t.Errorf("resources %+v", c.Resources)
		}
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || p.SecurityContext == nil || !*p.SecurityContext.RunAsNonRoot {
			t.Errorf("security contexts %+v %+v", sc, p.SecurityContext)
		}
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.MountPath] = m.Name
		}
		vols := map[string]corev1.Volume{}
		for _, v := range p.Volumes {
			vols[v.Name] = v
		}
		if sv := vols[mounts[ScriptsDir]]; required && (sv.ConfigMap == nil || sv.ConfigMap.Name != "pgtrial-a-scripts") || !required && mounts[ScriptsDir] != "" {
			t.Errorf("the scripts' volume %+v", sv)
		}
		res := vols[mounts[ResultsDir]]
		if required && (res.PersistentVolumeClaim == nil || res.PersistentVolumeClaim.ClaimName != "pgtrial-results") ||
			!required && res.EmptyDir == nil || vols[mounts[TmpDir]].EmptyDir == nil {
			t.Errorf("volumes %+v mounts %v", p.Volumes, mounts)
		}
		anti := p.Affinity.PodAntiAffinity
		var term corev1.PodAffinityTerm
		if required {
			if len(anti.RequiredDuringSchedulingIgnoredDuringExecution) != 1 || len(anti.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
				t.Fatalf("anti-affinity %+v", anti)
			}
			term = anti.RequiredDuringSchedulingIgnoredDuringExecution[0]
		} else {
			if len(anti.PreferredDuringSchedulingIgnoredDuringExecution) != 1 || len(anti.RequiredDuringSchedulingIgnoredDuringExecution) != 0 {
				t.Fatalf("anti-affinity %+v", anti)
			}
			term = anti.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
		}
		if term.TopologyKey != "kubernetes.io/hostname" || term.LabelSelector.MatchLabels[InstanceLabel] != "pgtrial-a" {
			t.Errorf("anti-affinity term %+v", term)
		}
	}
}

func TestJobCheck(t *testing.T) {
	for _, c := range []struct {
		edit func(*Job)
		want string
	}{
		{func(j *Job) { j.Name = "Bad_Name" }, "--name"},
		{func(j *Job) { j.Name = strings.Repeat("a", 53) }, "--name"},
		{func(j *Job) { j.Image = "" }, "--image"},
		{func(j *Job) { j.Segments = 0 }, "--segments"},
		{func(j *Job) { j.CPU = "two" }, "--cpu"},
		{func(j *Job) { j.Memory = "1GB" }, "--memory"},
		{func(j *Job) { j.Env = [][2]string{{"PGPASSWORD", "x"}} }, "Secret"},
		{func(j *Job) { j.Env = [][2]string{{"1X", "x"}} }, "not an environment variable"},
		{func(j *Job) { j.Secret = "Bad" }, "--secret"},
	} {
		j := testJob()
		c.edit(j)
		err := j.Write(&strings.Builder{}, j.StartAt.Add(-time.Minute))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", j, err, c.want)
		}
	}
}

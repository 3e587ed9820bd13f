// Package k8s runs one pgtrial load as a Kubernetes Indexed Job: the
// manifests of the Job (one pod per segment of the load, `pgtrial k8s job`),
// and the stream format in which each pod hands its run directory back
// through its log (`pgtrial k8s pod` writes it, `pgtrial k8s collect` reads
// it and extracts the directories safely).
//
// The manifests are written as YAML from the small structs below (the
// fields of batch/v1 Job and core/v1 PodSpec that the Job uses, with their
// Kubernetes JSON names), not from k8s.io/api's types: those would add
// megabytes to the binary for a few dozen fields. The tests decode the
// output strictly into k8s.io/api's types, so a misspelt field fails them.
package k8s

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Labels of the Job and its pods; InstanceLabel's value is the Job's name,
// the run label the pods' anti-affinity selects on.
const (
	NameLabel      = "app.kubernetes.io/name"
	InstanceLabel  = "app.kubernetes.io/instance"
	ComponentLabel = "app.kubernetes.io/component"
	AppName        = "pgtrial"
)

// Paths inside the pod: the run directories' volume (an emptyDir, or the
// PVC of --results-pvc) and the scratch space of a read-only root.
const (
	ResultsDir = "/results"
	TmpDir     = "/tmp"
	// IndexVar is the variable Kubernetes sets in an Indexed Job's pods to
	// the pod's completion index (0 to completions−1).
	IndexVar = "JOB_COMPLETION_INDEX"
	// IndexRef is IndexVar as a container argument: the kubelet expands it
	// ($(VAR) syntax, no shell needed); `pgtrial k8s pod` also replaces it
	// itself when it arrives unexpanded.
	IndexRef = "$(" + IndexVar + ")"
)

// Job is what `pgtrial k8s job` generates.
type Job struct {
	Name      string // the Job's name, a DNS-1123 label (its pods are Name-INDEX-xxxxx)
	Namespace string // "": the one kubectl applies it to
	Image     string
	Segments  int       // n: completions and parallelism
	StartAt   time.Time // the one --start-at of every segment
	// RunArgs are the `pgtrial run` flags of the whole load, validated by
	// the caller, without --segment, --start-at and --run-dir (the pod
	// sets them).
	RunArgs []string
	// PodFlags are more flags of `pgtrial k8s pod` (--results-dir,
	// --stream=false).
	PodFlags []string
	// Length is how long a segment runs at most after StartAt (warm-up +
	// duration + the end's work): activeDeadlineSeconds is StartIn +
	// Length + DeadlineSlack.
	Length        time.Duration
	Secret        string      // the Secret whose keys become the pods' environment (PGHOST, PGPASSWORD, …); "": none
	Env           [][2]string // plain environment variables (never a password)
	CPU, Memory   string      // requests = limits: a quantity ("2", "500m"; "4Gi")
	RequireSpread bool        // required anti-affinity (one pod per node) instead of preferred
	ResultsPVC    string      // a PersistentVolumeClaim for ResultsDir instead of an emptyDir
	ServiceAcct   string      // "": the namespace's default
	// SecretTemplate also writes an example Secret (placeholders only).
	SecretTemplate bool
	// Scripts are the -f files of the run (key → content): a ConfigMap
	// Name-scripts mounted at ScriptsDir, RunArgs naming ScriptsDir/key.
	Scripts [][2]string
}

// ScriptsDir is where the pods see the ConfigMap of the -f scripts.
const ScriptsDir = "/scripts"

// MaxScripts is the bytes of -f scripts a Job takes: a ConfigMap holds at
// most 1 MiB, with its metadata.
const MaxScripts = 900 << 10

// ScriptsName is the ConfigMap of the Job's -f scripts.
func (j *Job) ScriptsName() string { return j.Name + "-scripts" }

// DeadlineSlack is added to the run's length in activeDeadlineSeconds: the
// connections before StartAt are within StartIn, this covers the end's
// reports, the stream of the results and a slow node.
const DeadlineSlack = 10 * time.Minute

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Check refuses a Job Kubernetes would refuse, or one that cannot work.
func (j *Job) Check() error {
	switch {
	case len(j.Name) > 52 || !dnsLabel.MatchString(j.Name):
		// 63 less the pods' "-INDEX-xxxxx" (Kubernetes truncates beyond).
		return fmt.Errorf("--name %q: use lower-case letters, digits and '-', starting and ending with a letter or digit, at most 52 characters (a DNS label, with room for the pods' suffixes)", j.Name)
	case j.Namespace != "" && (len(j.Namespace) > 63 || !dnsLabel.MatchString(j.Namespace)):
		return fmt.Errorf("--namespace %q is not a DNS label (lower-case letters, digits and '-')", j.Namespace)
	case strings.TrimSpace(j.Image) == "" || strings.ContainsAny(j.Image, " \t\n"):
		return fmt.Errorf("--image %q: give the image that holds pgtrial as its entrypoint, e.g. registry.example.com/pgtrial:v1 (see the Dockerfile)", j.Image)
	case j.Segments < 1 || j.Segments > 1000:
		return fmt.Errorf("--segments %d: give 1 to 1000 (one pod each)", j.Segments)
	case j.StartAt.IsZero():
		return errors.New("the Job needs the segments' start instant")
	case j.Secret != "" && !dnsSubdomain(j.Secret):
		return fmt.Errorf("--secret %q is not a Secret name (lower-case letters, digits, '-' and '.')", j.Secret)
	case j.ResultsPVC != "" && !dnsSubdomain(j.ResultsPVC):
		return fmt.Errorf("--results-pvc %q is not a PersistentVolumeClaim name", j.ResultsPVC)
	}
	for _, q := range [][2]string{{"--cpu", j.CPU}, {"--memory", j.Memory}} {
		if !quantity.MatchString(q[1]) {
			return fmt.Errorf("%s %q: give a Kubernetes quantity such as 2, 500m, 1Gi or 512Mi", q[0], q[1])
		}
	}
	size := 0
	for _, sc := range j.Scripts {
		size += len(sc[0]) + len(sc[1])
		if !configKey.MatchString(sc[0]) {
			return fmt.Errorf("the script key %q is not a ConfigMap key", sc[0])
		}
	}
	if size > MaxScripts {
		return fmt.Errorf("the -f scripts have %d bytes; a ConfigMap holds at most %d: build an image with them instead", size, MaxScripts)
	}
	for _, e := range j.Env {
		if !envName.MatchString(e[0]) {
			return fmt.Errorf("--env %s: %q is not an environment variable name", e[0]+"="+e[1], e[0])
		}
		if strings.Contains(strings.ToUpper(e[0]), "PASSWORD") {
			return fmt.Errorf("--env %s: a password goes into the Secret (--secret), never into the manifest", e[0])
		}
	}
	return nil
}

var (
	quantity = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)
	envName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// configKey is a ConfigMap key (also a file name in its volume).
	configKey = regexp.MustCompile(`^[-._a-zA-Z0-9]{1,253}$`)
)

func dnsSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if !dnsLabel.MatchString(p) {
			return false
		}
	}
	return true
}

// PodArgs are the container's arguments (after the image's entrypoint,
// pgtrial): `k8s pod` with the segment, the start and the run's flags.
func (j *Job) PodArgs() []string {
	args := []string{"k8s", "pod",
		"--segment", IndexRef + "/" + strconv.Itoa(j.Segments),
		"--start-at", j.StartAt.UTC().Format(time.RFC3339Nano)}
	args = append(append(args, j.PodFlags...), "--")
	return append(args, j.RunArgs...)
}

// Write writes the manifests, multi-document YAML: the example Secret when
// asked, then the Job. Nothing in them comes from the environment of the
// machine that generates them.
func (j *Job) Write(w io.Writer, now time.Time) error {
	if err := j.Check(); err != nil {
		return err
	}
	var b strings.Builder
	if j.SecretTemplate && j.Secret != "" {
		fmt.Fprintf(&b, "# The connection of the pods, as the libpq environment (PGHOST, PGPORT, PGUSER,\n"+
			"# PGPASSWORD, PGDATABASE, PGSSLMODE, …). Fill in the placeholders and apply it\n"+
			"# apart, or better create it without a file:\n"+
			"#   kubectl create secret generic %s --from-literal=PGHOST=… --from-literal=PGPASSWORD=…\n", j.Secret)
		if err := encode(&b, j.secret()); err != nil {
			return err
		}
		b.WriteString("---\n")
	}
	if len(j.Scripts) > 0 {
		fmt.Fprintf(&b, "# The -f scripts of the run, mounted at %s in the pods.\n", ScriptsDir)
		if err := encode(&b, j.configMap()); err != nil {
			return err
		}
		b.WriteString("---\n")
	}
	fmt.Fprintf(&b, "# pgtrial k8s job, generated %s: %d segments of one load (pgtrial run --segment i/%d),\n"+
		"# every segment starting its warm-up at %s (--start-at).\n"+
		"# Apply it before then: a pod whose container starts after that instant refuses to run\n"+
		"# (its segment is missing), and one that starts before it but connects its clients late\n"+
		"# runs its late slots at once, which shows as lag.\n"+
		"# backoffLimit 0: a failed segment is not retried, since a retry would start its\n"+
		"# schedule late and break the schedule the segments share.\n"+
		"# Each pod writes its run directory to its log at the end (pgtrial k8s collect reads\n"+
		"# it): do not delete the Job before saving the logs (docs/kubernetes.md).\n",
		now.UTC().Format(time.RFC3339), j.Segments, j.Segments, j.StartAt.UTC().Format(time.RFC3339))
	if err := encode(&b, j.job(now)); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func encode(b *strings.Builder, v any) error {
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write the manifest: %w", err)
	}
	return enc.Close()
}

// The manifests' types: the fields used, with Kubernetes' JSON names.
type (
	meta struct {
		Name      string            `yaml:"name,omitempty"`
		Namespace string            `yaml:"namespace,omitempty"`
		Labels    map[string]string `yaml:"labels,omitempty"`
	}
	configMap struct {
		APIVersion string            `yaml:"apiVersion"`
		Kind       string            `yaml:"kind"`
		Metadata   meta              `yaml:"metadata"`
		Data       map[string]string `yaml:"data"`
	}
	secret struct {
		APIVersion string            `yaml:"apiVersion"`
		Kind       string            `yaml:"kind"`
		Metadata   meta              `yaml:"metadata"`
		Type       string            `yaml:"type"`
		StringData map[string]string `yaml:"stringData"`
	}
	job struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   meta    `yaml:"metadata"`
		Spec       jobSpec `yaml:"spec"`
	}
	jobSpec struct {
		CompletionMode        string      `yaml:"completionMode"`
		Completions           int         `yaml:"completions"`
		Parallelism           int         `yaml:"parallelism"`
		BackoffLimit          int         `yaml:"backoffLimit"`
		ActiveDeadlineSeconds int64       `yaml:"activeDeadlineSeconds"`
		Template              podTemplate `yaml:"template"`
	}
	podTemplate struct {
		Metadata meta    `yaml:"metadata"`
		Spec     podSpec `yaml:"spec"`
	}
	podSpec struct {
		RestartPolicy                 string         `yaml:"restartPolicy"`
		ServiceAccountName            string         `yaml:"serviceAccountName,omitempty"`
		AutomountServiceAccountToken  bool           `yaml:"automountServiceAccountToken"`
		EnableServiceLinks            bool           `yaml:"enableServiceLinks"`
		TerminationGracePeriodSeconds int            `yaml:"terminationGracePeriodSeconds"`
		SecurityContext               podSecurity    `yaml:"securityContext"`
		Affinity                      affinity       `yaml:"affinity"`
		Containers                    []container    `yaml:"containers"`
		Volumes                       []volumeSource `yaml:"volumes"`
	}
	podSecurity struct {
		RunAsNonRoot   bool      `yaml:"runAsNonRoot"`
		RunAsUser      int       `yaml:"runAsUser"`
		RunAsGroup     int       `yaml:"runAsGroup"`
		FSGroup        int       `yaml:"fsGroup"`
		SeccompProfile seccompTy `yaml:"seccompProfile"`
	}
	seccompTy struct {
		Type string `yaml:"type"`
	}
	affinity struct {
		PodAntiAffinity antiAffinity `yaml:"podAntiAffinity"`
	}
	antiAffinity struct {
		Required  []podAffinityTerm `yaml:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
		Preferred []weightedTerm    `yaml:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
	}
	weightedTerm struct {
		Weight          int             `yaml:"weight"`
		PodAffinityTerm podAffinityTerm `yaml:"podAffinityTerm"`
	}
	podAffinityTerm struct {
		LabelSelector labelSelector `yaml:"labelSelector"`
		TopologyKey   string        `yaml:"topologyKey"`
	}
	labelSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	container struct {
		Name            string            `yaml:"name"`
		Image           string            `yaml:"image"`
		Args            []string          `yaml:"args"`
		Env             []envVar          `yaml:"env,omitempty"`
		EnvFrom         []envFrom         `yaml:"envFrom,omitempty"`
		Resources       resources         `yaml:"resources"`
		SecurityContext containerSecurity `yaml:"securityContext"`
		VolumeMounts    []volumeMount     `yaml:"volumeMounts"`
	}
	envVar struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	}
	envFrom struct {
		SecretRef nameRef `yaml:"secretRef"`
	}
	nameRef struct {
		Name string `yaml:"name"`
	}
	resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	}
	containerSecurity struct {
		AllowPrivilegeEscalation bool         `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool         `yaml:"readOnlyRootFilesystem"`
		RunAsNonRoot             bool         `yaml:"runAsNonRoot"`
		Capabilities             capabilities `yaml:"capabilities"`
	}
	capabilities struct {
		Drop []string `yaml:"drop"`
	}
	volumeMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly,omitempty"`
	}
	volumeSource struct {
		Name                  string     `yaml:"name"`
		EmptyDir              *emptyDir  `yaml:"emptyDir,omitempty"`
		PersistentVolumeClaim *claimName `yaml:"persistentVolumeClaim,omitempty"`
		ConfigMap             *nameRef   `yaml:"configMap,omitempty"`
	}
	emptyDir struct {
		SizeLimit string `yaml:"sizeLimit,omitempty"`
	}
	claimName struct {
		ClaimName string `yaml:"claimName"`
	}
)

// nonRootUID is distroless's "nonroot" user (65532), which the Dockerfile's
// image runs as.
const nonRootUID = 65532

func (j *Job) labels() map[string]string {
	return map[string]string{NameLabel: AppName, InstanceLabel: j.Name, ComponentLabel: "load-generator"}
}

func (j *Job) configMap() configMap {
	data := map[string]string{}
	for _, sc := range j.Scripts {
		data[sc[0]] = sc[1]
	}
	return configMap{APIVersion: "v1", Kind: "ConfigMap", Data: data,
		Metadata: meta{Name: j.ScriptsName(), Namespace: j.Namespace, Labels: j.labels()}}
}

func (j *Job) secret() secret {
	return secret{APIVersion: "v1", Kind: "Secret", Type: "Opaque",
		Metadata: meta{Name: j.Secret, Namespace: j.Namespace, Labels: map[string]string{NameLabel: AppName}},
		StringData: map[string]string{
			"PGHOST":     "REPLACE-WITH-THE-SERVER-HOST",
			"PGPORT":     "5432",
			"PGUSER":     "REPLACE-WITH-THE-USER",
			"PGPASSWORD": "REPLACE-WITH-THE-PASSWORD",
			"PGDATABASE": "REPLACE-WITH-THE-DATABASE",
			"PGSSLMODE":  "require",
		}}
}

func (j *Job) job(now time.Time) job {
	deadline := j.StartAt.Sub(now) + j.Length + DeadlineSlack
	c := container{
		Name:  "pgtrial",
		Image: j.Image,
		Args:  j.PodArgs(),
		// A read-only root: temporary files and HOME on the emptyDir.
		Env: []envVar{{Name: "TMPDIR", Value: TmpDir}, {Name: "HOME", Value: TmpDir}},
		Resources: resources{
			Requests: map[string]string{"cpu": j.CPU, "memory": j.Memory},
			Limits:   map[string]string{"cpu": j.CPU, "memory": j.Memory},
		},
		SecurityContext: containerSecurity{ReadOnlyRootFilesystem: true, RunAsNonRoot: true, Capabilities: capabilities{Drop: []string{"ALL"}}},
		VolumeMounts:    []volumeMount{{Name: "results", MountPath: ResultsDir}, {Name: "tmp", MountPath: TmpDir}},
	}
	for _, e := range j.Env {
		c.Env = append(c.Env, envVar{Name: e[0], Value: e[1]})
	}
	if j.Secret != "" {
		c.EnvFrom = []envFrom{{SecretRef: nameRef{Name: j.Secret}}}
	}
	results := volumeSource{Name: "results", EmptyDir: &emptyDir{}}
	if j.ResultsPVC != "" {
		results = volumeSource{Name: "results", PersistentVolumeClaim: &claimName{ClaimName: j.ResultsPVC}}
	}
	volumes := []volumeSource{results, {Name: "tmp", EmptyDir: &emptyDir{}}}
	if len(j.Scripts) > 0 {
		c.VolumeMounts = append(c.VolumeMounts, volumeMount{Name: "scripts", MountPath: ScriptsDir, ReadOnly: true})
		volumes = append(volumes, volumeSource{Name: "scripts", ConfigMap: &nameRef{Name: j.ScriptsName()}})
	}
	term := podAffinityTerm{LabelSelector: labelSelector{MatchLabels: map[string]string{InstanceLabel: j.Name}}, TopologyKey: "kubernetes.io/hostname"}
	var anti antiAffinity
	if j.RequireSpread {
		anti.Required = []podAffinityTerm{term}
	} else {
		anti.Preferred = []weightedTerm{{Weight: 100, PodAffinityTerm: term}}
	}
	return job{APIVersion: "batch/v1", Kind: "Job",
		Metadata: meta{Name: j.Name, Namespace: j.Namespace, Labels: j.labels()},
		Spec: jobSpec{
			CompletionMode:        "Indexed",
			Completions:           j.Segments,
			Parallelism:           j.Segments,
			BackoffLimit:          0,
			ActiveDeadlineSeconds: int64(deadline.Round(time.Second) / time.Second),
			Template: podTemplate{
				Metadata: meta{Labels: j.labels()},
				Spec: podSpec{
					RestartPolicy:      "Never",
					ServiceAccountName: j.ServiceAcct,
					// The pods need no API token, nor the services' variables
					// beside the libpq environment.
					AutomountServiceAccountToken: false,
					EnableServiceLinks:           false,
					// run's SIGTERM handling writes the results so far; then the stream.
					TerminationGracePeriodSeconds: 60,
					SecurityContext: podSecurity{RunAsNonRoot: true, RunAsUser: nonRootUID, RunAsGroup: nonRootUID, FSGroup: nonRootUID,
						SeccompProfile: seccompTy{Type: "RuntimeDefault"}},
					Affinity:   affinity{PodAntiAffinity: anti},
					Containers: []container{c},
					Volumes:    volumes,
				},
			},
		},
	}
}

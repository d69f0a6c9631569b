package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/version"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

// LWSOptions says what the LeaderWorkerSet manifest deploys.
type LWSOptions struct {
	// Profile is the profile the plan was resolved from, extends applied:
	// the ConfigMap holds it, so that every pod runs this plan.
	Profile   *profiles.Profile
	Name      string // the LeaderWorkerSet's name (default sglaunch-PROFILE, made a DNS label)
	Namespace string // "": kubectl's current namespace
	Image     string // the container image, holding sglaunch, python and SGLang (required)
	Replicas  int    // groups (0: 1)
	// GPUsPerNode overrides --tp-size × --pp-size / nodes (0: derive).
	GPUsPerNode int
	// GroupSecret is the group's secret the Kubernetes Secret holds
	// ("": a fresh random one).
	GroupSecret string
	// CPU and Memory are each pod's resource requests, Kubernetes
	// quantities ("": DefaultCPUPerGPU and DefaultMemoryPerGPUGi times the
	// pod's GPUs). Without requests a pod is BestEffort, the first the
	// kubelet evicts under memory pressure.
	CPU, Memory string
	// ShmSize bounds the /dev/shm volume ("": DefaultShmSize); it counts
	// against the pod's memory.
	ShmSize string
}

const (
	// DefaultStatusPort is the pods' status endpoint port when the
	// profile has no status_addr.
	DefaultStatusPort = 9400
	// ProfileDir is where the pods see the profile.
	ProfileDir = "/etc/sglaunch/profiles"
	// The LeaderWorkerSet's labels on every pod of a set
	// (api/leaderworkerset/v1/leaderworkerset_types.go).
	lwsSetNameLabel     = "leaderworkerset.sigs.k8s.io/name"
	lwsWorkerIndexLabel = "leaderworkerset.sigs.k8s.io/worker-index"

	probePeriod = 10 * time.Second
	// probeSlack keeps the startup probe's budget above sglaunch's own
	// timeouts, so that sglaunch's message says what went wrong rather
	// than a kubelet kill.
	probeSlack = 60 * time.Second
	// stopSlack is the grace above stop_timeout before the kubelet kills.
	stopSlack = 30 * time.Second
	// preStopDelay lets the leader's Service and any load balancer stop
	// sending new requests before sglaunch starts the drain (endpoints are
	// removed while preStop runs); the grace period includes it.
	preStopDelay = 5 * time.Second

	// Each pod's requests by default, per GPU: the tokenizer, the
	// detokenizer, one scheduler process per GPU and NCCL's proxy threads
	// want cores, and the weights pass through host memory as they load.
	DefaultCPUPerGPU      = 4
	DefaultMemoryPerGPUGi = 32
	// DefaultShmSize is /dev/shm's bound, as SGLang's own docker
	// instructions size it (--shm-size 32g).
	DefaultShmSize = "32Gi"
)

var (
	// dns1035RE is a DNS-1035 label, which LWS requires of its name (it
	// names the headless Service).
	dns1035RE = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	// dns1123RE is a DNS-1123 label, a namespace's name.
	dns1123RE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// quantityRE is a Kubernetes resource quantity (resource.Quantity's
	// grammar, without exponent forms).
	quantityRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)
	// configMapKeyRE is what a ConfigMap data key may hold.
	configMapKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
)

// LWSManifest renders a ConfigMap holding the profile, a LeaderWorkerSet
// whose pods run `sglaunch serve` on it, and a Service for rank 0's HTTP
// API, as one multi-document YAML for kubectl apply.
func LWSManifest(p *plan.Plan, o LWSOptions) (string, error) {
	if err := checkMultiNode(p, "lws", plan.OrchestratorLWS); err != nil {
		return "", err
	}
	if o.Profile == nil {
		return "", fmt.Errorf("lws: no profile given for the ConfigMap")
	}
	if o.Image == "" {
		return "", inputerr.Errorf("lws: --image is required: an image that holds sglaunch, python and SGLang")
	}
	if o.Replicas < 0 {
		return "", inputerr.Errorf("--replicas %d: want a positive number of groups", o.Replicas)
	}
	name := o.Name
	if name == "" {
		name = defaultLWSName(p.Profile)
	}
	if len(name) > 63 || !dns1035RE.MatchString(name) {
		return "", inputerr.Errorf("--name %q: a LeaderWorkerSet's name is a DNS-1035 label (it names its Service): lowercase letters, digits and '-', starting with a letter, at most 63 characters", name)
	}
	if o.Namespace != "" && (len(o.Namespace) > 63 || !dns1123RE.MatchString(o.Namespace)) {
		return "", inputerr.Errorf("--namespace %q: want a DNS-1123 label (lowercase letters, digits and '-')", o.Namespace)
	}
	if secrets := profileSecrets(o.Profile); len(secrets) > 0 {
		return "", inputerr.Errorf("lws: profile %s holds a credential (%s), and a ConfigMap is readable by anyone who may read the namespace; "+
			"remove it from the profile and give it to the pods from a Kubernetes Secret: a variable through inherit_env (add it to the container's env with valueFrom.secretKeyRef), "+
			"a flag such as --api-key after -- in the container's command from such a variable ($(VAR))",
			p.Profile, strings.Join(secrets, ", "))
	}
	if ip := net.ParseIP(p.Host()); p.Host() == "localhost" || ip != nil && ip.IsLoopback() {
		return "", inputerr.Errorf("lws: SGLang listens on %s (args.host), which the Service cannot reach in the leader pod; set args.host: 0.0.0.0 in the profile (serve: {args: {host: 0.0.0.0}}; perf-neutral, the fingerprint stays)", p.Host())
	}
	gpus, err := gpusPerNode(p, o.GPUsPerNode)
	if err != nil {
		return "", err
	}
	if gpus == 0 {
		return "", inputerr.Errorf("lws: the profile gives no --tp-size, so the GPUs each pod needs are unknown; give --gpus-per-node N (or args.tp in the profile)")
	}
	requests, shm, err := podResources(o, gpus)
	if err != nil {
		return "", err
	}
	statusPort, err := statusPort(p.StatusAddr)
	if err != nil {
		return "", err
	}
	text, key, err := configMapProfile(o.Profile)
	if err != nil {
		return "", err
	}
	labels := map[string]string{"app.kubernetes.io/name": "sglaunch", "app.kubernetes.io/instance": name}
	meta := func(n string) objectMeta {
		return objectMeta{Name: n, Namespace: o.Namespace, Labels: labels}
	}
	cm := configMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: meta(name + "-profile"), Data: map[string]string{key: text}}
	if o.GroupSecret == "" {
		o.GroupSecret = newGroupSecret()
	}
	sec := secret{APIVersion: "v1", Kind: "Secret", Metadata: meta(name + "-group-secret"), Type: "Opaque",
		StringData: map[string]string{groupSecretKey: o.GroupSecret}}

	start := p.MultiNode.RendezvousTimeout + p.Health.StartTimeout + probeSlack
	ready := func(path string, failures int) probe {
		return probe{HTTPGet: httpGetAction{Path: path, Port: "status"}, PeriodSeconds: int(probePeriod / time.Second), TimeoutSeconds: 5, FailureThreshold: failures}
	}
	replicas := max(o.Replicas, 1)
	set := leaderWorkerSet{
		APIVersion: "leaderworkerset.x-k8s.io/v1", Kind: "LeaderWorkerSet",
		Metadata: objectMeta{Name: name, Namespace: o.Namespace, Labels: labels, Annotations: map[string]string{
			"sglaunch/profile":     p.Profile,
			"sglaunch/fingerprint": p.Fingerprint,
		}},
		Spec: lwsSpec{
			Replicas:      replicas,
			StartupPolicy: "LeaderCreated",
			LeaderWorkerTemplate: leaderWorkerTemplate{
				Size:          p.MultiNode.Nodes,
				RestartPolicy: "RecreateGroupOnPodRestart",
				WorkerTemplate: podTemplateSpec{
					Metadata: objectMeta{Labels: labels},
					Spec: podSpec{
						TerminationGracePeriodSeconds: int((preStopDelay + p.StopTimeout + stopSlack + time.Second - 1) / time.Second),
						Containers: []container{{
							Name:    "sglaunch",
							Image:   o.Image,
							Command: []string{"sglaunch", "serve", "--profile", ProfileDir + "/" + key, "--status-addr", net.JoinHostPort("0.0.0.0", strconv.Itoa(statusPort))},
							Ports: []containerPort{
								{Name: "http", ContainerPort: p.Port(), Protocol: "TCP"},
								{Name: "status", ContainerPort: statusPort, Protocol: "TCP"},
								{Name: "control", ContainerPort: p.MultiNode.ControlPort, Protocol: "TCP"},
								{Name: "dist-init", ContainerPort: p.MultiNode.DistInitPort, Protocol: "TCP"},
							},
							// The group's secret, for sglaunch alone: it keeps the
							// variable out of the server's environment.
							Env: []envVar{{Name: plan.GroupSecretVar, ValueFrom: envVarSource{
								SecretKeyRef: secretKeySelector{Name: sec.Metadata.Name, Key: groupSecretKey}}}},
							Resources: resourceRequirements{Limits: map[string]int{"nvidia.com/gpu": gpus}, Requests: requests},
							VolumeMounts: []volumeMount{
								{Name: "dshm", MountPath: "/dev/shm"},
								{Name: "profile", MountPath: ProfileDir, ReadOnly: true},
							},
							StartupProbe:   ready("/readyz", int((start+probePeriod-1)/probePeriod)),
							ReadinessProbe: ready("/readyz", 3),
							LivenessProbe:  ready("/livez", 3),
							Lifecycle: &lifecycle{PreStop: lifecycleHandler{Exec: execAction{
								Command: []string{"sleep", strconv.Itoa(int(preStopDelay / time.Second))},
							}}},
						}},
						Volumes: []volume{
							{Name: "dshm", EmptyDir: &emptyDirSource{Medium: "Memory", SizeLimit: shm}},
							{Name: "profile", ConfigMap: &configMapSource{Name: cm.Metadata.Name}},
						},
					},
				},
			},
		},
	}
	svc := service{
		APIVersion: "v1", Kind: "Service", Metadata: meta(name + "-leader"),
		Spec: serviceSpec{
			Selector: map[string]string{lwsSetNameLabel: name, lwsWorkerIndexLabel: "0"},
			Ports:    []servicePort{{Name: "http", Port: p.Port(), TargetPort: "http", Protocol: "TCP"}},
		},
	}
	var b strings.Builder
	b.WriteString(header(
		fmt.Sprintf("generated by sglaunch %s from profile %s (fingerprint %s, python %s here;", version.String(), p.Profile, p.ShortFingerprint(), p.Python),
		"the pods resolve python in the image). Apply with kubectl apply -f.",
		fmt.Sprintf("The ConfigMap holds the profile with extends applied; each of the %d pods of a group", p.MultiNode.Nodes),
		"runs sglaunch serve on it and reads its rank from LWS_WORKER_INDEX. The group is",
		"ready (/readyz on every pod) once rank 0 answers /health and every rank has reported;",
		"a lost rank stops the group, and RecreateGroupOnPodRestart recreates it whole.",
		"The startup probe allows multinode.rendezvous_timeout + health.start_timeout + 60s.",
		"The Secret holds a fresh group secret, which authenticates the ranks' control",
		"channel; applying this file again replaces it (a group recreated reads it anew).",
		fmt.Sprintf("On deletion preStop waits %s for the Service to stop sending, then sglaunch", preStopDelay),
		"drains on SIGTERM within stop_timeout. Each pod requests cpu and memory (a pod",
		"without requests is the first evicted) and bounds /dev/shm, which counts as memory.",
		"",
	))
	for i, doc := range []any{cm, set, svc, sec} {
		out, err := yaml.MarshalWithOptions(doc, yaml.UseLiteralStyleIfMultiline(true), yaml.IndentSequence(true))
		if err != nil {
			return "", fmt.Errorf("lws: render: %w", err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(out)
	}
	return b.String(), nil
}

// groupSecretKey is the Secret's key of the group secret.
const groupSecretKey = "group-secret"

// newGroupSecret is a fresh group secret: 256 random bits, hex.
func newGroupSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// podResources is each pod's cpu and memory requests and /dev/shm's
// bound: the options where given, else defaults for the pod's GPUs.
func podResources(o LWSOptions, gpus int) (requests map[string]string, shm string, err error) {
	cpu, mem, shm := o.CPU, o.Memory, o.ShmSize
	if cpu == "" {
		cpu = strconv.Itoa(DefaultCPUPerGPU * gpus)
	}
	if mem == "" {
		mem = fmt.Sprintf("%dGi", DefaultMemoryPerGPUGi*gpus)
	}
	if shm == "" {
		shm = DefaultShmSize
	}
	for _, q := range []struct{ flag, v string }{{"--cpu", cpu}, {"--memory", mem}, {"--shm-size", shm}} {
		if !quantityRE.MatchString(q.v) {
			return nil, "", inputerr.Errorf("%s %q: want a Kubernetes quantity (like 32, 500m, 256Gi)", q.flag, q.v)
		}
	}
	return map[string]string{"cpu": cpu, "memory": mem}, shm, nil
}

// defaultLWSName is sglaunch-PROFILE as a DNS-1035 label: lowercase,
// anything else a '-', at most 63 characters.
func defaultLWSName(profile string) string {
	var b strings.Builder
	b.WriteString("sglaunch-")
	for _, r := range strings.ToLower(profile) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 63 {
		s = s[:63]
	}
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return strings.TrimRight(s, "-")
}

// statusPort is the port of the profile's status_addr, or
// DefaultStatusPort. The pods bind it on every address, for the kubelet.
func statusPort(addr string) (int, error) {
	if addr == "" {
		return DefaultStatusPort, nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, fmt.Errorf("status_addr %q: %w", addr, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return 0, inputerr.Errorf("status_addr %q: want a port from 1 to 65535 for the probes", addr)
	}
	return n, nil
}

// profileSecrets names the profile's credentials by internal/redact's
// rule, the ones `profiles show` would print as <redacted>.
func profileSecrets(p *profiles.Profile) []string {
	var out []string
	check := func(prefix string, env, args profiles.Section) {
		for _, e := range env {
			if redact.IsSecretVar(e.Name) && hasValue(e.Value) {
				out = append(out, prefix+"env."+e.Name)
			}
		}
		for _, e := range args {
			if redact.IsSecretFlag("--"+e.Name) && hasValue(e.Value) {
				out = append(out, prefix+"args."+e.Name)
			}
		}
	}
	check("", p.Env, p.Args)
	check("serve.", p.Serve.Env, p.Serve.Args)
	check("bench.", p.Bench.Env, p.Bench.Args)
	return out
}

func hasValue(v profiles.Value) bool {
	return v.Kind == profiles.List || v.Kind == profiles.Scalar && v.Text != ""
}

// configMapProfile renders the profile as the pods read it: one file,
// extends applied (the parents' files are not in the pod), and checks
// that the file reads back as the same profile. It returns the text and
// its ConfigMap key.
func configMapProfile(p *profiles.Profile) (text, key string, err error) {
	text = p.YAML()
	q, err := profiles.Parse("configmap", []byte(text))
	if err != nil {
		return "", "", inputerr.Errorf("lws: profile %s does not read back as one file (%v); give it a plain name: (letters, digits, '.', '_', '+', '-')", p.Name, err)
	}
	if why := differs(p, q); why != "" {
		return "", "", fmt.Errorf("lws: profile %s reads back from the ConfigMap with a different %s", p.Name, why)
	}
	key = p.Name + ".yaml"
	if !configMapKeyRE.MatchString(key) {
		key = "profile.yaml"
	}
	return text, key, nil
}

// differs names what a profile read back from its rendering lost, or "".
func differs(p, q *profiles.Profile) string {
	same := func(a, b profiles.Section) bool {
		return slices.EqualFunc(a, b, func(x, y profiles.Entry) bool {
			return x.Name == y.Name && x.Value.Kind == y.Value.Kind && x.Value.Text == y.Value.Text && slices.Equal(x.Value.List, y.Value.List)
		})
	}
	switch {
	case p.Name != q.Name:
		return "name"
	case !same(p.Args, q.Args) || !same(p.Serve.Args, q.Serve.Args):
		return "args"
	case !same(p.Env, q.Env) || !same(p.Serve.Env, q.Serve.Env):
		return "env"
	case !slices.Equal(p.ManagedEnv, q.ManagedEnv) || !slices.Equal(p.InheritEnv, q.InheritEnv):
		return "managed_env or inherit_env"
	}
	for k, v := range p.Settings {
		if w, ok := q.Settings[k]; !ok || w.Text != v.Text {
			return k
		}
	}
	return ""
}

package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/profiles"
)

const lwsProfile = `name: big
args: {model-path: /models/big, tp: 16, trust-remote-code: true}
serve:
  args: {host: 0.0.0.0, port: 8000}
env: {NCCL_IB_HCA: mlx5}
health: {start_timeout: 40m}
multinode: {nodes: 2}
`

// crdFile is the LeaderWorkerSet CRD from kubernetes-sigs/lws (see
// testdata/README.md for the commit).
const crdFile = "testdata/leaderworkerset.x-k8s.io_leaderworkersets.yaml"

func lwsFor(t *testing.T, text string, o LWSOptions, sets ...string) string {
	t.Helper()
	p, prof := jobProfile(t, "big", "/etc/sglaunch/profiles/big.yaml", text, sets...)
	o.Profile = prof
	if o.GroupSecret == "" {
		o.GroupSecret = "0123456789abcdef0123456789abcdef" // the golden's
	}
	out, err := LWSManifest(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLWSManifest(t *testing.T) {
	got := lwsFor(t, lwsProfile, LWSOptions{Image: "registry.example/sglang:v0.5", Namespace: "llm"})
	testkit.Golden(t, t.Name(), got, *testkit.Update)
}

// docs splits a multi-document manifest into its objects.
func docs(t *testing.T, manifest string) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(manifest))
	var out []map[string]any
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("manifest does not parse: %v\n%s", err, manifest)
		}
		out = append(out, m)
	}
}

func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a mapping at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

// TestLWSManifestShape pins what the pods need: one template for leader
// and workers, the group's policies, GPUs, /dev/shm, HTTP probes on the
// status endpoint, and a Service on the leader's HTTP port selected by
// LWS's own labels.
func TestLWSManifestShape(t *testing.T) {
	ds := docs(t, lwsFor(t, lwsProfile, LWSOptions{Image: "img", Name: "big", Replicas: 2}))
	if len(ds) != 4 {
		t.Fatalf("got %d documents, want ConfigMap, LeaderWorkerSet, Service, Secret", len(ds))
	}
	for i, kind := range []string{"ConfigMap", "LeaderWorkerSet", "Service", "Secret"} {
		if got := ds[i]["kind"]; got != kind {
			t.Errorf("document %d: got kind %v, want %s", i, got, kind)
		}
	}
	lws := ds[1]
	tmpl := get(t, lws, "spec", "leaderWorkerTemplate").(map[string]any)
	if _, ok := tmpl["leaderTemplate"]; ok {
		t.Error("a leaderTemplate: leader and workers must share one template")
	}
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"spec", "replicas"}, uint64(2)},
		{[]any{"spec", "startupPolicy"}, "LeaderCreated"},
		{[]any{"spec", "leaderWorkerTemplate", "size"}, uint64(2)},
		{[]any{"spec", "leaderWorkerTemplate", "restartPolicy"}, "RecreateGroupOnPodRestart"},
	}
	for _, c := range checks {
		if got := get(t, lws, c.path...); got != c.want {
			t.Errorf("%v: got %v (%T), want %v", c.path, got, got, c.want)
		}
	}
	c := get(t, tmpl, "workerTemplate", "spec", "containers", 0)
	cmd, _ := json.Marshal(get(t, c, "command"))
	if want := `["sglaunch","serve","--profile","/etc/sglaunch/profiles/big.yaml","--status-addr","0.0.0.0:9400"]`; string(cmd) != want {
		t.Errorf("command %s, want %s", cmd, want)
	}
	if got := get(t, c, "resources", "limits", "nvidia.com/gpu"); got != uint64(8) {
		t.Errorf("nvidia.com/gpu %v, want 8 (tp 16 over 2 nodes)", got)
	}
	ports := map[string]any{}
	for _, p := range get(t, c, "ports").([]any) {
		ports[p.(map[string]any)["name"].(string)] = p.(map[string]any)["containerPort"]
	}
	for name, want := range map[string]uint64{"http": 8000, "status": 9400, "control": 19900, "dist-init": 20000} {
		if ports[name] != want {
			t.Errorf("container port %s: got %v, want %d", name, ports[name], want)
		}
	}
	for probe, path := range map[string]string{"startupProbe": "/readyz", "readinessProbe": "/readyz", "livenessProbe": "/livez"} {
		pr := get(t, c, probe).(map[string]any)
		if _, tcp := pr["tcpSocket"]; tcp || get(t, pr, "httpGet", "path") != path || get(t, pr, "httpGet", "port") != "status" {
			t.Errorf("%s: got %v, want httpGet %s on the status port", probe, pr, path)
		}
	}
	// 10m rendezvous + 40m start + 60s slack, in 10 s periods.
	if got := get(t, c, "startupProbe", "failureThreshold"); got != uint64(306) {
		t.Errorf("startup failureThreshold %v, want 306", got)
	}
	vols, _ := json.Marshal(get(t, tmpl, "workerTemplate", "spec", "volumes"))
	if want := `[{"emptyDir":{"medium":"Memory","sizeLimit":"32Gi"},"name":"dshm"},{"configMap":{"name":"big-profile"},"name":"profile"}]`; string(vols) != want {
		t.Errorf("volumes %s, want %s", vols, want)
	}
	svc := ds[2]
	sel, _ := json.Marshal(get(t, svc, "spec", "selector"))
	if want := `{"leaderworkerset.sigs.k8s.io/name":"big","leaderworkerset.sigs.k8s.io/worker-index":"0"}`; string(sel) != want {
		t.Errorf("Service selector %s, want %s", sel, want)
	}
	if got := get(t, svc, "spec", "ports", 0, "port"); got != uint64(8000) {
		t.Errorf("Service port %v, want 8000", got)
	}
}

// TestLWSPodsRunThePlan: the profile in the ConfigMap, read as the pods
// read it, resolves to the plan the manifest was written from, extends
// applied (the parent's file is not in the pod).
func TestLWSPodsRunThePlan(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base.yaml", "args: {model-path: /models/big, tp: 16, cuda-graph-bs: [1, 2, 4]}\nenv: {NCCL_BUFFSIZE: 16777216}\n")
	write("big.yaml", "extends: base\nserve: {args: {host: 0.0.0.0}}\nenv: {NCCL_IB_HCA: mlx5}\nmultinode: {nodes: 4, control_port: 19000}\n")
	prof, err := (&profiles.Finder{Dirs: []string{dir}}).Load("big")
	if err != nil {
		t.Fatal(err)
	}
	p := resolveJob(t, prof)
	out, err := LWSManifest(p, LWSOptions{Profile: prof, Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	text, ok := get(t, docs(t, out)[0], "data", "big.yaml").(string)
	if !ok {
		t.Fatalf("no big.yaml in the ConfigMap:\n%s", out)
	}
	if text != prof.YAML() {
		t.Errorf("the ConfigMap's file does not read back as written:\n%s\nwant:\n%s", text, prof.YAML())
	}
	back, err := profiles.Parse("/etc/sglaunch/profiles/big.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if back.Extends != "" {
		t.Errorf("the pod's profile extends %q, a file the pod does not have", back.Extends)
	}
	q := resolveJob(t, back)
	if q.Fingerprint != p.Fingerprint || strings.Join(q.Argv, " ") != strings.Join(p.Argv, " ") {
		t.Errorf("the pods' plan differs:\n%q %s\nwant\n%q %s", q.Argv, q.Fingerprint, p.Argv, p.Fingerprint)
	}
	if q.MultiNode != p.MultiNode {
		t.Errorf("multinode %+v, want %+v", q.MultiNode, p.MultiNode)
	}
}

func TestLWSRefuses(t *testing.T) {
	tests := []struct {
		name, profile string
		o             LWSOptions
		want          string
	}{
		{"single node", "args: {tp: 8, host: 0.0.0.0}\n", LWSOptions{Image: "img"}, "set multinode.nodes"},
		{"slurm profile", "args: {tp: 16, host: 0.0.0.0}\nmultinode: {nodes: 2, orchestrator: slurm}\n", LWSOptions{Image: "img"}, "set multinode.orchestrator: lws"},
		{"static profile", "args: {tp: 16, host: 0.0.0.0}\nmultinode: {nodes: 2, orchestrator: static}\n", LWSOptions{Image: "img"}, "multinode.orchestrator static"},
		{"no image", lwsProfile, LWSOptions{}, "--image is required"},
		{"HF_TOKEN in env", "args: {tp: 16}\nserve: {env: {HF_TOKEN: hf_abcdefgh}, args: {host: 0.0.0.0}}\nmultinode: {nodes: 2}\n", LWSOptions{Image: "img"}, "serve.env.HF_TOKEN"},
		{"api key in args", "args: {tp: 16, host: 0.0.0.0, api-key: sk-12345678}\nmultinode: {nodes: 2}\n", LWSOptions{Image: "img"}, "args.api-key"},
		{"loopback host", "args: {tp: 16}\nmultinode: {nodes: 2}\n", LWSOptions{Image: "img"}, "set args.host: 0.0.0.0"},
		{"GPUs unknown", "args: {host: 0.0.0.0}\nmultinode: {nodes: 2}\n", LWSOptions{Image: "img"}, "give --gpus-per-node"},
		{"bad name", lwsProfile, LWSOptions{Image: "img", Name: "Big.Model"}, "DNS-1035"},
		{"bad namespace", lwsProfile, LWSOptions{Image: "img", Namespace: "a b"}, "DNS-1123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, prof := jobProfile(t, "r", "/p/r.yaml", tt.profile)
			tt.o.Profile = prof
			out, err := LWSManifest(p, tt.o)
			if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an input error with %q", err, tt.want)
			}
			if strings.Contains(out+errString(err), "hf_abcdefgh") || strings.Contains(out+errString(err), "sk-12345678") {
				t.Errorf("the credential is in the output or the error: %v", err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestDefaultLWSName(t *testing.T) {
	for in, want := range map[string]string{
		"kimi-k2.5-int4-eagle3": "sglaunch-kimi-k2-5-int4-eagle3",
		"Big_Model+x":           "sglaunch-big-model-x",
		strings.Repeat("a", 80): "sglaunch-" + strings.Repeat("a", 54),
		"x--":                   "sglaunch-x",
	} {
		if got := defaultLWSName(in); got != want || !dns1035RE.MatchString(got) {
			t.Errorf("defaultLWSName(%q): got %q, want %q", in, got, want)
		}
	}
}

// TestLWSValidatesAgainstCRD validates the LeaderWorkerSet that sglaunch
// writes against the CRD's published v1 openAPIV3Schema with a real
// validator (python3-jsonschema, reading the Kubernetes extensions as
// the API server does: testdata/validate_crd.py).
func TestLWSValidatesAgainstCRD(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    LWSOptions
	}{
		{"defaults", LWSOptions{Image: "img"}},
		{"all options", LWSOptions{Image: "registry.example/sglang:v0.5", Name: "big", Namespace: "llm", Replicas: 3, GPUsPerNode: 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lws := docs(t, lwsFor(t, lwsProfile, tt.o))[1]
			if out, ok := validateLWS(t, lws); !ok {
				t.Errorf("the LeaderWorkerSet does not validate against the CRD:\n%s", out)
			}
		})
	}
}

// TestCRDValidatorBites proves the validation can fail: a wrong type, an
// unknown field, a value off the enum and an int-or-string given a list
// are each refused.
func TestCRDValidatorBites(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(lws map[string]any)
		want   string
	}{
		{"size as a string", func(l map[string]any) { tmpl(l)["size"] = "2" }, "is not of type 'integer'"},
		{"unknown field", func(l map[string]any) { tmpl(l)["leaderTemplat"] = map[string]any{} }, "Additional properties are not allowed"},
		{"restart policy off the enum", func(l map[string]any) { tmpl(l)["restartPolicy"] = "Always" }, "is not one of"},
		{"gpu limit a list", func(l map[string]any) {
			c := container0(l)
			c["resources"] = map[string]any{"limits": map[string]any{"nvidia.com/gpu": []any{8}}}
		}, "is not valid under any of the given schemas"},
		{"duplicate container port", func(l map[string]any) {
			c := container0(l)
			c["ports"] = []any{map[string]any{"containerPort": 80}, map[string]any{"containerPort": 80, "protocol": "TCP"}}
		}, "duplicate key"},
		{"port out of int32", func(l map[string]any) { container0(l)["ports"] = []any{map[string]any{"containerPort": 1 << 40}} }, "is not a 'int32'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lws := docs(t, lwsFor(t, lwsProfile, LWSOptions{Image: "img"}))[1]
			tt.break_(lws)
			out, ok := validateLWS(t, lws)
			if ok || !strings.Contains(out, tt.want) {
				t.Errorf("got valid=%v, want invalid with %q:\n%s", ok, tt.want, out)
			}
		})
	}
}

func tmpl(lws map[string]any) map[string]any {
	return lws["spec"].(map[string]any)["leaderWorkerTemplate"].(map[string]any)
}

func container0(lws map[string]any) map[string]any {
	pod := tmpl(lws)["workerTemplate"].(map[string]any)["spec"].(map[string]any)
	return pod["containers"].([]any)[0].(map[string]any)
}

// crdSchema is the CRD's v1 openAPIV3Schema as JSON.
var crdSchema = sync.OnceValues(func() ([]byte, error) {
	data, err := os.ReadFile(crdFile)
	if err != nil {
		return nil, err
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `yaml:"name"`
				Schema struct {
					OpenAPIV3Schema any `yaml:"openAPIV3Schema"`
				} `yaml:"schema"`
			} `yaml:"versions"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1" {
			return json.Marshal(v.Schema.OpenAPIV3Schema)
		}
	}
	return nil, errors.New("no v1 version in " + crdFile)
})

// validateLWS runs testdata/validate_crd.py on the object. A missing
// python3-jsonschema fails the test: the validation must not pass by
// being skipped.
func validateLWS(t *testing.T, obj map[string]any) (string, bool) {
	t.Helper()
	schema, err := crdSchema()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	js, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	sf, of := filepath.Join(dir, "schema.json"), filepath.Join(dir, "object.json")
	if err := os.WriteFile(sf, schema, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(of, js, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(jsonschemaPython(t), "testdata/validate_crd.py", sf, of)
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), true
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return out.String(), false
	default:
		t.Fatalf("validate_crd.py: %v\n%s", err, out.String())
		return "", false
	}
}

// jsonschemaPython is a python3 that imports jsonschema (Debian's
// python3-jsonschema; CI installs it): python3 from PATH, or the
// system's. The test fails, saying what to install, when neither does.
func jsonschemaPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import jsonschema").Run() == nil {
			return py
		}
	}
	t.Fatal("no python3 imports jsonschema: install python3-jsonschema (apt-get install python3-jsonschema; .ci/run does)")
	return ""
}

// TestLWSManifestWiresAFreshGroupSecret: every rendering holds a fresh
// group secret in a Secret, which the container reads into
// SGLAUNCH_GROUP_SECRET (issue 22: the control channel was
// unauthenticated).
func TestLWSManifestWiresAFreshGroupSecret(t *testing.T) {
	p, prof := jobProfile(t, "big", "/etc/sglaunch/profiles/big.yaml", lwsProfile)
	var secrets []string
	for range 2 {
		out, err := LWSManifest(p, LWSOptions{Image: "img", Profile: prof})
		if err != nil {
			t.Fatal(err)
		}
		ds := docs(t, out)
		if len(ds) != 4 || ds[3]["kind"] != "Secret" {
			t.Fatalf("want a Secret as the 4th document, got %d documents", len(ds))
		}
		name := get(t, ds[3], "metadata", "name")
		value, _ := get(t, ds[3], "stringData", "group-secret").(string)
		if len(value) < 32 {
			t.Errorf("group secret %q: too short", value)
		}
		secrets = append(secrets, value)
		env := get(t, ds[1], "spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers", 0, "env", 0)
		if got := get(t, env, "name"); got != "SGLAUNCH_GROUP_SECRET" {
			t.Errorf("env name %v", got)
		}
		if got := get(t, env, "valueFrom", "secretKeyRef", "name"); got != name {
			t.Errorf("secretKeyRef names %v, the Secret is %v", got, name)
		}
	}
	if secrets[0] == secrets[1] {
		t.Error("two renderings share one group secret")
	}
}

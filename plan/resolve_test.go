package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/profiles"
)

// fakePython makes resolution independent of where python3 lives here.
func fakePython(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return name, nil
	}
	return "/usr/bin/" + name, nil
}

func fakeSimDir() (string, error) { return "/cache/sglaunch/sim-0123456789ab", nil }

func load(t *testing.T, dirs []string, ref string) *profiles.Profile {
	t.Helper()
	p, err := (&profiles.Finder{Dirs: dirs}).Load(ref)
	if err != nil {
		t.Fatalf("load %s: %v", ref, err)
	}
	return p
}

func resolve(t *testing.T, req Request) *Plan {
	t.Helper()
	if req.LookPath == nil {
		req.LookPath = fakePython
	}
	if req.SimDir == nil {
		req.SimDir = fakeSimDir
	}
	plan, err := Resolve(req)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	plan.Version = "test"
	return plan
}

// TestConfigGolden pins the printed config of both built-ins, in both
// modes, as text and JSON.
func TestConfigGolden(t *testing.T) {
	environ := []string{"PATH=/usr/bin:/bin", "HOME=/home/op", "NCCL_ALGO=Tree", "NCCL_DEBUG=INFO", "HF_TOKEN=hf_secret"}
	for _, name := range []string{"kimi-k2.5-int4-eagle3", "demo"} {
		for _, mode := range []string{ModeServe, ModeBench} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				plan := resolve(t, Request{Profile: load(t, nil, name), Mode: mode, Environ: environ})
				testkit.Golden(t, "config-"+name+"-"+mode+".txt", plan.Text(), *testkit.Update)
				testkit.Golden(t, "config-"+name+"-"+mode+".json", string(plan.View().JSON()), *testkit.Update)
			})
		}
	}
}

// The reference deployment's benchmark command and NCCL environment,
// exactly as the issue that founded sglaunch states them.
const kimiBenchCommand = "--model-path /shared/kimi-k2.5-int4 --tp 8 --trust-remote-code --cuda-graph-max-bs 128 --disable-custom-all-reduce --attention-backend flashinfer --enable-flashinfer-allreduce-fusion --speculative-algorithm EAGLE3 --speculative-draft-model-path /data/eagle3/output_100k_sglang/4 --speculative-num-steps 2 --speculative-eagle-topk 1 --mem-fraction-static 0.88"

func TestKimiReference(t *testing.T) {
	p := load(t, nil, "kimi-k2.5-int4-eagle3")
	bench := resolve(t, Request{Profile: p, Mode: ModeBench})
	serve := resolve(t, Request{Profile: p, Mode: ModeServe})

	wantBench := append([]string{"/usr/bin/python3", "-m", "sglang.launch_server"}, strings.Fields(kimiBenchCommand)...)
	if !slices.Equal(bench.Argv, wantBench) {
		t.Errorf("bench argv:\n got %q\nwant %q", bench.Argv, wantBench)
	}
	wantServe := append(slices.Clone(wantBench), "--host", "0.0.0.0", "--tool-call-parser", "kimi_k2", "--reasoning-parser", "kimi_k2")
	if !slices.Equal(serve.Argv, wantServe) {
		t.Errorf("serve argv:\n got %q\nwant %q", serve.Argv, wantServe)
	}
	wantEnv := "NCCL_PROTO=LL NCCL_ALGO=Ring NCCL_P2P_LEVEL=SYS NCCL_MAX_NCHANNELS=16 NCCL_BUFFSIZE=16777216 NCCL_NTHREADS=512 SGLANG_ENABLE_SPEC_V2=True SPT_NOENV=1"
	var gotEnv []string
	for _, e := range bench.Env {
		gotEnv = append(gotEnv, e.Name+"="+e.Value)
	}
	if got := strings.Join(gotEnv, " "); got != wantEnv {
		t.Errorf("env:\n got %s\nwant %s", got, wantEnv)
	}
	if bench.Fingerprint != serve.Fingerprint {
		t.Errorf("serve and bench fingerprints differ: %s vs %s (the serve overlay is perf-neutral)", serve.Fingerprint, bench.Fingerprint)
	}
}

func TestFingerprintChanges(t *testing.T) {
	p := load(t, nil, "kimi-k2.5-int4-eagle3")
	base := resolve(t, Request{Profile: p, Mode: ModeBench}).Fingerprint
	tests := []struct {
		name string
		sets []string
		same bool
	}{
		{"nccl value", []string{"env.NCCL_PROTO=Simple"}, false},
		{"new nccl var", []string{"env.NCCL_DEBUG=INFO"}, false},
		{"perf flag", []string{"args.mem-fraction-static=0.85"}, false},
		{"interpreter", []string{"python=/opt/venv/bin/python3"}, false},
		{"port", []string{"args.port=31000"}, true},
		{"served name", []string{"args.served-model-name=kimi"}, true},
		{"same flag by its full name", []string{"args.tp-size=8"}, true},
		{"health setting", []string{"health.interval=5s"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(t, Request{Profile: p, Mode: ModeBench, Sets: tt.sets}).Fingerprint
			if (got == base) != tt.same {
				t.Errorf("fingerprint same=%v, want same=%v", got == base, tt.same)
			}
		})
	}
}

func TestHermeticEnv(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "h.yaml", "env:\n  NCCL_ALGO: Ring\ninherit_env: [CUDA_VISIBLE_DEVICES]\nmanaged_env: [MY_]\nargs:\n  model-path: /m\n")
	environ := []string{"PATH=/bin", "NCCL_ALGO=Tree", "NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=0,1", "MY_KNOB=1", "NOTIFY_SOCKET=/run/x", "WATCHDOG_USEC=1", "WATCHDOG_PID=2", "LANG=C"}
	plan := resolve(t, Request{Profile: load(t, []string{dir}, "h"), Mode: ModeServe, Environ: environ})
	want := []string{"PATH=/bin", "CUDA_VISIBLE_DEVICES=0,1", "LANG=C", "NCCL_ALGO=Ring", "SPT_NOENV=1"}
	if !slices.Equal(plan.Environ, want) {
		t.Errorf("environ: got %q, want %q", plan.Environ, want)
	}
	var dropped []string
	for _, d := range plan.Dropped {
		dropped = append(dropped, d.Name)
	}
	if want := []string{"MY_KNOB", "NCCL_ALGO", "NCCL_DEBUG"}; !slices.Equal(dropped, want) {
		t.Errorf("dropped: got %q, want %q", dropped, want)
	}
	if got := plan.Provenance["env.CUDA_VISIBLE_DEVICES"]; got != "inherited" {
		t.Errorf("CUDA_VISIBLE_DEVICES provenance: got %q, want inherited", got)
	}
}

// TestProvenance checks that every layer overriding a value is named.
func TestProvenance(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "base.yaml", "env:\n  NCCL_ALGO: Ring\n  NCCL_PROTO: LL\nargs:\n  model-path: /m\n  tp: 8\n  mem-fraction-static: 0.9\n  trust-remote-code: true\n")
	write(t, dir, "child.yaml", "extends: base\nargs:\n  mem-fraction-static: 0.88\n  trust-remote-code: false\nserve:\n  args:\n    host: 0.0.0.0\n    tp: 4\n")
	req := Request{
		Profile: load(t, []string{dir}, "child"),
		Mode:    ModeServe,
		Config:  Config{Port: "31000", Set: []string{"env.NCCL_PROTO=Simple"}, Python: "/opt/py/bin/python3"},
		Sets:    []string{"args.mem-fraction-static=0.8", "health.start_timeout=1h"},
		Unsets:  []string{"env.NCCL_ALGO"},
		Extra:   []string{"--log-level", "debug"},
	}
	plan := resolve(t, req)
	tests := []struct{ key, want string }{
		{"args.model-path", "extends base"},
		{"args.tp", "serve overlay"},
		{"args.host", "serve overlay"},
		{"args.port", "SGLAUNCH_PORT"},
		{"args.mem-fraction-static", "--set"},
		{"env.NCCL_PROTO", "SGLAUNCH_SET"},
		{"python", "SGLAUNCH_PYTHON"},
		{"health.start_timeout", "--set"},
		{"health.interval", "default"},
		{"extra", "--"},
	}
	for _, tt := range tests {
		if got := plan.Provenance[tt.key]; got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.key, got, tt.want)
		}
	}
	if _, ok := plan.Provenance["env.NCCL_ALGO"]; ok {
		t.Error("env.NCCL_ALGO still in the plan after --unset")
	}
	if _, ok := plan.Provenance["args.trust-remote-code"]; ok {
		t.Error("trust-remote-code: false did not remove the inherited flag")
	}
	text := plan.Text()
	text = strings.Join(strings.Fields(text), " ") // spacing is layout, not content
	for _, want := range []string{"# serve overlay: --tp --host", "# SGLAUNCH_PORT: --port", "# --set: --mem-fraction-static", "NCCL_PROTO=Simple # SGLAUNCH_SET", "# extends base: --model-path", "# after --: --log-level debug", "health.start_timeout 1h # --set"} {
		if !strings.Contains(text, want) {
			t.Errorf("printed config lacks %q:\n%s", want, text)
		}
	}
	wantArgv := "/opt/py/bin/python3 -m sglang.launch_server --model-path /m --tp 4 --mem-fraction-static 0.8 --host 0.0.0.0 --port 31000 --log-level debug"
	if got := strings.Join(plan.Argv, " "); got != wantArgv {
		t.Errorf("argv:\n got %s\nwant %s", got, wantArgv)
	}
}

func TestResolveErrors(t *testing.T) {
	p := load(t, nil, "kimi-k2.5-int4-eagle3")
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"set without =", Request{Sets: []string{"args.tp"}}, `--set "args.tp": want KEY=VALUE`},
		{"set unknown key", Request{Sets: []string{"pyton=x"}}, `unknown key "pyton"`},
		{"set bad duration", Request{Sets: []string{"health.interval=ten"}}, "want a duration"},
		{"set empty flag", Request{Sets: []string{"args.=1"}}, "empty flag name"},
		{"set dashed flag", Request{Sets: []string{"args.--tp=1"}}, "without its leading dashes"},
		{"bad mode", Request{Mode: "deploy"}, `mode "deploy": want serve or bench`},
		// Issue 24: --unset of a flag the plan does not have was silently a no-op.
		{"unset absent flag", Request{Unsets: []string{"args.nonexistent"}}, "--unset args.nonexistent: the plan has no flag --nonexistent to remove"},
		{"unset near miss", Request{Unsets: []string{"args.mem-fraction-statik"}}, "did you mean args.mem-fraction-static?"},
		{"python missing", Request{LookPath: func(string) (string, error) { return "", os.ErrNotExist }}, `interpreter "python3" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Profile = p
			if req.Mode == "" {
				req.Mode = ModeServe
			}
			if req.LookPath == nil {
				req.LookPath = fakePython
			}
			_, err := Resolve(req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSecretsRedacted(t *testing.T) {
	p := load(t, nil, "kimi-k2.5-int4-eagle3")
	plan := resolve(t, Request{Profile: p, Mode: ModeServe, Sets: []string{"args.api-key=sk-live-123", "env.HF_TOKEN=hf_abc"}, Environ: []string{"NCCL_SECRET_X=zzz"}})
	js, _ := json.Marshal(plan.View())
	for _, out := range []string{plan.Text(), string(js)} {
		for _, secret := range []string{"sk-live-123", "hf_abc", "zzz"} {
			if strings.Contains(out, secret) {
				t.Errorf("secret %q printed:\n%s", secret, out)
			}
		}
	}
	if !slices.Contains(plan.Argv, "sk-live-123") {
		t.Error("the real argv lost the secret; only printouts are redacted")
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

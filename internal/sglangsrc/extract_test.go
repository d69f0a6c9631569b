package sglangsrc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// TestExtract reads testdata/tree, a small tree written for this test in
// SGLang's shapes (not a copy of SGLang's files), and checks a row of each
// kind the tables hold.
func TestExtract(t *testing.T) {
	ts, skipped, err := Extract(t.Context(), "testdata/tree")
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	ts.Meta = sglangtab.Meta{Version: "0.0.1", Commit: strings.Repeat("c", 40)}
	if err := sglangtab.Check(ts); err != nil {
		t.Errorf("provenance: %v", err)
	}

	writes := map[string]sglangtab.EnvWrite{}
	for _, w := range ts.EnvWrites {
		writes[w.Name] = w
	}
	wantWrites := []struct {
		name, how, source string
		fillsOnly         bool
		requires          string
		when              string
	}{
		{"SGLANG_WIDGET", "envs.set", "python/sglang/srt/server_args.py:23", false, "[]", ""},
		{"SGLANG_ALWAYS", "assign", "python/sglang/srt/server_args.py:24", false, "[]", ""},
		{"SGLANG_WIDGET_MODE", "assign", "python/sglang/srt/server_args.py:26", false, "[[enable_widget]]", "self.enable_widget"},
		// After an early return: the write needs the flag the return tests.
		{"NCCL_ALGO", "assign", "python/sglang/srt/server_args.py:32", false, "[[enable_widget]]", "not (not self.enable_widget) | self.tp_size > 1"},
		{"NCCL_CUMEM_ENABLE", "assign", "python/sglang/srt/entrypoints/engine.py:9", false, "[[enable_symm_mem]]", "'NCCL_CUMEM_ENABLE' not in os.environ or server_args.enable_symm_mem"},
		{"CUTE_DSL_LOG_LEVEL", "assign", "python/sglang/srt/entrypoints/engine.py:11", true, "[]", "os.environ.get('CUTE_DSL_LOG_LEVEL') is None"},
		{"PUT_ME", "putenv", "python/sglang/srt/entrypoints/engine.py:12", false, "[]", ""},
		{"PDL", "assign", "python/sglang/srt/entrypoints/engine.py:35", false, "[]", "os.environ.get('PDL', '1') != '0'"},
		{"FILL_EMPTY", "assign", "python/sglang/srt/entrypoints/engine.py:40", true, "[]", "not os.getenv('FILL_EMPTY')"},
		{"UPDATED_A", "update", "python/sglang/srt/entrypoints/engine.py:13", false, "[]", ""},
		{"UPDATED_B", "update", "python/sglang/srt/entrypoints/engine.py:13", false, "[]", ""},
		// Keys of the dict a function returns, walked by a loop.
		{"TRITON_CACHE_DIR", "setdefault", "python/sglang/srt/environ.py:18", true, "[]", "for (key, value) in cache_defaults().items()"},
		{"CUDA_CACHE_PATH", "setdefault", "python/sglang/srt/environ.py:18", true, "[]", "for (key, value) in cache_defaults().items()"},
		// A prefix rewrite: a family of names.
		{"SGLANG_*", "assign", "python/sglang/srt/environ.py:25", false, "[]", "for (key, value) in os.environ.items() | key.startswith('SGL_')"},
	}
	for _, tt := range wantWrites {
		w, ok := writes[tt.name]
		if !ok {
			t.Errorf("no env write of %s in %+v", tt.name, ts.EnvWrites)
			continue
		}
		if w.How != tt.how || w.Source != tt.source || w.FillsOnly != tt.fillsOnly || fmt.Sprint(w.Requires) != tt.requires || strings.Join(w.When, " | ") != tt.when {
			t.Errorf("%s: got how=%s source=%s fills=%v requires=%v when=%q, want %s %s %v %s %q", tt.name, w.How, w.Source, w.FillsOnly, w.Requires, strings.Join(w.When, " | "), tt.how, tt.source, tt.fillsOnly, tt.requires, tt.when)
		}
	}
	// Conditions that read the environment are marked: flags cannot decide them.
	for name, want := range map[string]bool{"PDL": true, "NCCL_CUMEM_ENABLE": false, "NCCL_ALGO": false, "CUTE_DSL_LOG_LEVEL": false} {
		if writes[name].ReadsEnv != want {
			t.Errorf("%s: reads_env %v, want %v", name, writes[name].ReadsEnv, want)
		}
	}
	if w := writes["SGLANG_*"]; w.NameExpr != "SGL_*" {
		t.Errorf("the SGLANG_* family is copied from %q, want SGL_*", w.NameExpr)
	}
	if len(writes) != len(wantWrites) {
		t.Errorf("got %d written names, want %d: %+v", len(writes), len(wantWrites), ts.EnvWrites)
	}

	args := map[string]sglangtab.ServerArg{}
	for _, a := range ts.ServerArgs {
		args[a.Dest] = a
	}
	for _, tt := range []struct {
		dest, flags, typ, action, def string
		deprecated                    bool
	}{
		{"model_path", "[--model-path --model]", "str", "", "", false},
		{"tp_size", "[--tp-size --tp]", "int", "", "1", false},
		{"enable_widget", "[--enable-widget]", "bool", "store_true", "False", false},
		{"old_widget", "[--old-widget]", "", "DeprecatedAction", "", true},
		// add_argument's default=ServerArgs.ratio resolves to the field's.
		{"ratio", "[--ratio]", "float", "", "0.5", false},
		{"queue", "[--queue]", "list", "", "list()", false},
	} {
		a, ok := args[tt.dest]
		if !ok {
			t.Errorf("no server arg %s", tt.dest)
			continue
		}
		if fmt.Sprint(a.Flags) != tt.flags || a.Type != tt.typ || a.Action != tt.action || a.Default != tt.def || a.Deprecated != tt.deprecated {
			t.Errorf("%s: got %+v", tt.dest, a)
		}
	}
	if _, ok := args["hidden"]; ok {
		t.Error("a no_cli field became a flag")
	}

	reads := map[string]string{}
	for _, r := range ts.EnvReads {
		reads[r.Name] = r.How + " " + r.Type + " " + r.Default
	}
	for name, want := range map[string]string{"SGLANG_WIDGET": "Envs EnvBool False", "SGLANG_CACHE_DIR": "Envs EnvStr '/tmp/c'", "SGLANG_LOG_LEVEL": "os.getenv  'info'"} {
		if reads[name] != want {
			t.Errorf("env read %s: got %q, want %q", name, reads[name], want)
		}
	}

	var paths []string
	for _, e := range ts.Endpoints {
		paths = append(paths, e.Path+" "+strings.Join(e.Methods, ","))
	}
	if want := []string{"/health GET", "/health_generate GET", "/flush_cache GET,POST"}; !slices.Equal(paths, want) {
		t.Errorf("endpoints %v, want %v", paths, want)
	}
	if len(ts.Metrics) != 1 || ts.Metrics[0].Name != "sglang:num_running_reqs" || fmt.Sprint(ts.Metrics[0].Labels) != "[model_name tp_rank]" || ts.Metrics[0].Kind != "Gauge" {
		t.Errorf("metrics %+v", ts.Metrics)
	}
	// The second names its text through a local: its plain form is used;
	// the last picks between two literals: one row each.
	var formats []string
	for _, f := range ts.LogFormats {
		formats = append(formats, f.Marker+" | "+f.Format+" | "+f.Source)
	}
	wantFormats := []string{
		"Load weight end | Load weight end. elapsed={elapsed} s | python/sglang/srt/entrypoints/engine.py:17",
		"KV Cache is allocated | KV Cache is allocated. #tokens: {size} | python/sglang/srt/entrypoints/engine.py:23",
		"KV Cache VA upper bound | KV Cache VA upper bound. dtype: {post_capture} | python/sglang/srt/entrypoints/engine.py:27",
		"KV Cache is allocated | KV Cache is allocated. dtype: {post_capture} | python/sglang/srt/entrypoints/engine.py:27",
	}
	if !slices.Equal(formats, wantFormats) {
		t.Errorf("log formats:\n%s\nwant:\n%s", strings.Join(formats, "\n"), strings.Join(wantFormats, "\n"))
	}
}

func TestExtractWithoutTree(t *testing.T) {
	if _, _, err := Extract(t.Context(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "no python/sglang") {
		t.Errorf("got %v, want no python/sglang", err)
	}
}

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
	// How argparse registers each: value types, nargs, spelled-out
	// choices (literal, Literal[...], module and class constants of the
	// file, a sum of those; none when computed), deprecation from the
	// action or the help text, new_flag, removal, help.
	byFlag := map[string]sglangtab.ServerArg{}
	for _, a := range ts.ServerArgs {
		byFlag[a.Flags[0]] = a
	}
	for _, tt := range []struct {
		flag, valueType, nargs, choices, newFlag, help string
		deprecated, removed, required                  bool
	}{
		{"--model-path", "str", "", "[]", "", "Model.", false, false, true},
		{"--tp-size", "int", "", "[]", "", "TP.", false, false, false},
		{"--enable-widget", "", "", "[]", "", "Turn widgets on.", false, false, false},
		{"--ratio", "float", "", "[0.5 1.0]", "", "", false, false, false},
		{"--mode", "str", "", "[fast slow]", "", "Mode.", false, false, false},
		{"--sizes", "int", "'+'", "[]", "", "Sizes.", false, false, false},
		{"--maybe", "", "", "[]", "--mode", "(Deprecated, use --mode) Maybe.", true, false, false},
		{"--tokens", "human_readable_int", "", "[]", "", "Tokens.", false, false, false},
		{"--old-mode", "str", "", "[]", "--mode", "[Deprecated] Use --mode instead.", true, false, false},
		{"--gone", "", "", "[]", "", "SUPPRESS", true, true, false},
		{"--parser", "str", "", "[auto a b]", "", "", false, false, false},
		{"--style", "str", "", "[plain fancy none]", "", "", false, false, false},
		{"--computed", "str", "", "[]", "", "", false, false, false},
	} {
		a, ok := byFlag[tt.flag]
		if !ok {
			t.Errorf("no server arg %s", tt.flag)
			continue
		}
		got := fmt.Sprint(a.ValueType, "|", a.Nargs, "|", fmt.Sprint(a.ChoiceValues), "|", a.NewFlag, "|", a.Help, "|", a.Deprecated, a.Removed, a.Required)
		want := fmt.Sprint(tt.valueType, "|", tt.nargs, "|", tt.choices, "|", tt.newFlag, "|", tt.help, "|", tt.deprecated, tt.removed, tt.required)
		if got != want {
			t.Errorf("%s: got %s, want %s", tt.flag, got, want)
		}
	}
	if a := byFlag["--fast-mode"]; a.Dest != "mode" || a.Const != "fast" || a.NewFlag != "--mode=fast" || !a.Deprecated {
		t.Errorf("--fast-mode: got %+v, want a deprecated store of the constant fast into mode", a)
	}
	if a := byFlag["--old-mode"]; a.Dest != "mode" || a.Action != "DeprecatedAliasStoreAction" {
		t.Errorf("--old-mode: got dest %q action %q, want mode, DeprecatedAliasStoreAction", a.Dest, a.Action)
	}
	if _, ok := args["hidden"]; ok {
		t.Error("a no_cli field became a flag")
	}

	reads := map[string]string{}
	for _, r := range ts.EnvReads {
		reads[r.Name] = r.How + " " + r.Type + " " + r.Default
	}
	for name, want := range map[string]string{"SGLANG_WIDGET": "Envs EnvBoolWithAlias False", "SGLANG_CACHE_DIR": "Envs EnvStr '/tmp/c'", "SGLANG_LOG_LEVEL": "os.getenv  'info'"} {
		if reads[name] != want {
			t.Errorf("env read %s: got %q, want %q", name, reads[name], want)
		}
	}

	// Reads by subscript and by "in os.environ"; the older name an Envs
	// field still reads; _DEPRECATED_ENVS with replacement, transform, note.
	for name, want := range map[string]string{"SGLANG_SUB_READ": "os.environ[]  ", "SGLANG_IN_READ": "in os.environ  "} {
		if reads[name] != want {
			t.Errorf("env read %s: got %q, want %q", name, reads[name], want)
		}
	}
	deprecated := map[string]sglangtab.EnvRead{}
	for _, r := range ts.EnvReads {
		if r.Name == "SGLANG_WIDGET" && r.Alias != "SGL_WIDGET" {
			t.Errorf("SGLANG_WIDGET: alias %q, want SGL_WIDGET", r.Alias)
		}
		if r.How == "deprecated" {
			deprecated[r.Name] = r
		}
	}
	if r := deprecated["SGLANG_OLD_WIDGET"]; r.Replacement != "SGLANG_WIDGET" || r.Transform != "_invert_bool" || r.Source != "python/sglang/srt/environ.py:36" {
		t.Errorf("SGLANG_OLD_WIDGET: got %+v", r)
	}
	if r := deprecated["SGLANG_GONE"]; r.Replacement != "" || r.Note != "Please use '--gone' instead." {
		t.Errorf("SGLANG_GONE: got %+v", r)
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
	// the next picks between two literals: one row each.
	// Each row names the phase it marks; a capture line's verb says
	// which, and "Capture cuda graph bs ..." (neither) is no row.
	var formats []string
	for _, f := range ts.LogFormats {
		formats = append(formats, fmt.Sprintf("%s | %s | %s | %s %v", f.Marker, f.Format, f.Source, f.Phase, f.Last))
	}
	wantFormats := []string{
		"Load weight end | Load weight end. elapsed={elapsed} s | python/sglang/srt/entrypoints/engine.py:17 | weights loaded true",
		"KV Cache is allocated | KV Cache is allocated. #tokens: {size} | python/sglang/srt/entrypoints/engine.py:23 | KV cache allocated true",
		"KV Cache VA upper bound | KV Cache VA upper bound. dtype: {post_capture} | python/sglang/srt/entrypoints/engine.py:27 | KV cache allocated true",
		"KV Cache is allocated | KV Cache is allocated. dtype: {post_capture} | python/sglang/srt/entrypoints/engine.py:27 | KV cache allocated true",
		"Load weight begin | Load weight begin. avail mem={mem} GB | python/sglang/srt/entrypoints/engine.py:44 | loading weights false",
		"Capture  | Capture {role} decode CUDA graph begin. bs={bs} | python/sglang/srt/entrypoints/engine.py:45 | capturing CUDA graphs false",
		"Capture  | Capture {role} decode CUDA graph end. elapsed={t} s | python/sglang/srt/entrypoints/engine.py:46 | CUDA graphs captured true",
		// A name the branches of an if bind to different strings: one row
		// per branch (the table had taken the else branch's alone).
		"Capture  | Capture {role} verify CUDA graph begin. bs={bs} | python/sglang/srt/entrypoints/engine.py:55 | capturing CUDA graphs false",
		"Capture  | Capture {role} decode CUDA graph begin. bs={bs} | python/sglang/srt/entrypoints/engine.py:55 | capturing CUDA graphs false",
		// log_info_on_rank0(logger, msg): the message is its second argument.
		"Capture  | Capture draft extend CUDA graph begin. bs={bs} | python/sglang/srt/entrypoints/engine.py:59 | capturing CUDA graphs false",
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

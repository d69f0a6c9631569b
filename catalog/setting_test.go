package catalog

import (
	"slices"
	"testing"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// TestSetting pins the setting each spelling stores into, as argparse's
// dest says (server_args.py @ 382343f86): aliases, deprecated aliases and
// store_const flags are one setting with the flag that owns their dest.
func TestSetting(t *testing.T) {
	a := SGLangArgs()
	tests := []struct {
		opt     string
		written []string
		setting string
		values  []string
	}{
		{"--tp", []string{"2"}, "--tp-size", []string{"2"}},
		{"--tensor-parallel-size", []string{"2"}, "--tp-size", []string{"2"}},
		{"--cuda-graph-max-bs", []string{"16"}, "--cuda-graph-max-bs-decode", []string{"16"}},
		{"--cuda-graph-bs", []string{"1", "2"}, "--cuda-graph-bs-decode", []string{"1", "2"}},
		{"--piecewise-cuda-graph-max-tokens", []string{"4096"}, "--cuda-graph-max-bs-prefill", []string{"4096"}},
		{"--piecewise-cuda-graph-tokens", []string{"8"}, "--cuda-graph-bs-prefill", []string{"8"}},
		{"--piecewise-cuda-graph-compiler", []string{"eager"}, "--cuda-graph-tc-compiler", []string{"eager"}},
		{"--nsa-prefill-backend", []string{"flashmla_sparse"}, "--dsa-prefill-backend", []string{"flashmla_sparse"}},
		{"--nsa-decode-backend", []string{"flashmla_sparse"}, "--dsa-decode-backend", []string{"flashmla_sparse"}},
		{"--mamba-scheduler-strategy", []string{"auto"}, "--mamba-radix-cache-strategy", []string{"auto"}},
		{"--speculative-dflash-draft-window-size", []string{"4"}, "--speculative-draft-window-size", []string{"4"}},
		{"--stream-output", nil, "--incremental-streaming-output", nil},
		{"--enable-gdn-replayssm-spec", nil, "--enable-linear-replayssm-spec", nil},
		{"--enable-breakable-cuda-graph", nil, "--cuda-graph-backend-prefill", []string{"breakable"}},
		{"--disable-piecewise-cuda-graph", nil, "--cuda-graph-backend-prefill", []string{"disabled"}},
		{"--enforce-piecewise-cuda-graph", nil, "--cuda-graph-backend-prefill", []string{"tc_piecewise"}},
		// Both deprecated, one dest: the first registered names it.
		{"--enable-nsa-prefill-context-parallel", nil, "--enable-dsa-prefill-context-parallel", nil},
		{"--nsa-prefill-cp-mode", []string{"in-seq-split"}, "--dsa-prefill-cp-mode", []string{"in-seq-split"}},
		// Rewritten in __post_init__, not stored into the replacement's
		// dest: a setting of its own.
		{"--dsa-prefill-cp-mode", []string{"in-seq-split"}, "--dsa-prefill-cp-mode", []string{"in-seq-split"}},
		{"--prefill-cp-mode", []string{"in-seq-split"}, "--prefill-cp-mode", []string{"in-seq-split"}},
		{"--enable-prefill-context-parallel", nil, "--enable-prefill-context-parallel", nil},
		{"--disable-cuda-graph", nil, "--disable-cuda-graph", nil},
		{"--enable-flashinfer-allreduce-fusion", nil, "--enable-flashinfer-allreduce-fusion", nil},
	}
	for _, tt := range tests {
		t.Run(tt.opt, func(t *testing.T) {
			f, _, err := a.Resolve(tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			s := a.Setting(f)
			if s.Name != tt.setting {
				t.Errorf("setting: got %s, want %s", s.Name, tt.setting)
			}
			if s.Dest != f.Dest {
				t.Errorf("dest: %s stores into %s, its setting %s into %s", f.Name, f.Dest, s.Name, s.Dest)
			}
			if got := SettingValues(f, tt.written); !slices.Equal(got, tt.values) {
				t.Errorf("values: got %q, want %q", got, tt.values)
			}
		})
	}
}

// TestDeprecatedCPModeDests pins a catalog defect: the dest of a
// deprecated flag was guessed from its replacement, so --dsa-prefill-cp-mode,
// --nsa-prefill-cp-mode and --prefill-cp-mode stored into cp_strategy and
// would have been one setting with --cp-strategy, whose values they do not
// take (SGLang maps in-seq-split to zigzag in __post_init__).
func TestDeprecatedCPModeDests(t *testing.T) {
	a := SGLangArgs()
	for opt, dest := range map[string]string{"--dsa-prefill-cp-mode": "dsa_prefill_cp_mode", "--nsa-prefill-cp-mode": "dsa_prefill_cp_mode", "--prefill-cp-mode": "prefill_cp_mode"} {
		f, _ := a.Lookup(opt)
		if f.Dest != dest {
			t.Errorf("%s: dest %s, want %s", opt, f.Dest, dest)
		}
	}
}

// TestOneOwnerPerDest: flags that are not deprecated never share a dest,
// so a setting's name is never a choice between two current flags, and
// every flag that names a setting is one a user can write today when one
// exists.
func TestOneOwnerPerDest(t *testing.T) {
	a := SGLangArgs()
	seen := map[string]string{}
	for _, f := range a.Flags {
		if f.Deprecated {
			continue
		}
		if other, ok := seen[f.Dest]; ok {
			t.Errorf("%s and %s both store into %s", other, f.Name, f.Dest)
		}
		seen[f.Dest] = f.Name
	}
	for _, f := range a.Flags {
		if f.Action == "store_const" && f.Const == "" {
			t.Errorf("%s: store_const without the value it stores", f.Name)
		}
	}
}

// TestRenamedFieldDests pins flags whose ServerArgs field has another
// name (Arg(cli_name=...), server_args.py @ 382343f86): the catalog gave
// them the name's dest, so verify looked for their value under a
// /server_info key SGLang never reports.
func TestRenamedFieldDests(t *testing.T) {
	a := SGLangArgs()
	for opt, dest := range map[string]string{
		"--fp8-gemm-backend": "fp8_gemm_runner_backend", "--fp4-gemm-backend": "fp4_gemm_runner_backend",
		"--elastic-ep-join-mode": "ep_join_mode", "--elastic-ep-join-rank-offset": "ep_join_rank_offset",
	} {
		if f, _ := a.Lookup(opt); f.Dest != dest {
			t.Errorf("%s: dest %s, want %s", opt, f.Dest, dest)
		}
	}
}

// TestDestsAgreeWithGeneratedTables: every flag the hand catalog shares
// with the newest table generated from SGLang's source stores into the
// same dest there, so the settings the fingerprint, diff and verify
// compare by are SGLang's own (the hand catalog guessed the dest of
// deprecated flags from their replacement, and of renamed fields from
// the flag).
func TestDestsAgreeWithGeneratedTables(t *testing.T) {
	all, err := sglangtab.All()
	if err != nil {
		t.Fatal(err)
	}
	newest := all[len(all)-1]
	a := SGLangArgs()
	n := 0
	for _, row := range newest.ServerArgs {
		for _, opt := range row.Flags {
			f, ok := a.Lookup(opt)
			if !ok {
				continue
			}
			n++
			if f.Dest != row.Dest {
				t.Errorf("%s: the catalog stores into %s, SGLang %s (%s) into %s", opt, f.Dest, newest.Meta.Version, row.Source, row.Dest)
			}
		}
	}
	if n < 400 {
		t.Errorf("only %d flags compared", n)
	}
}

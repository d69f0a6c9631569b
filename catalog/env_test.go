package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestNCCLEnvCatalog(t *testing.T) {
	c := NCCLEnv()
	if got := len(c.Vars); got != 245 {
		t.Errorf("variables: got %d, want 245 (rows of nccl-env.tsv)", got)
	}
	if got := len(c.Removed); got != 24 {
		t.Errorf("removed: got %d, want 24 (rows of nccl-env-removed.tsv)", got)
	}
	tests := []struct {
		name string
		want string // a summary of the derived fields
	}{
		{"NCCL_ALGO", "list raw tokens=[Tree Ring CollNetDirect CollNetChain NVLS NVLSTree PAT] ci"},
		{"NCCL_PROTO", "list raw tokens=[LL LL128 Simple] ci"},
		{"NCCL_BUFFSIZE", "int strtoll range=>=1"},
		{"NCCL_MAX_NCHANNELS", "int strtoll range=>=1"},
		{"NCCL_CGA_CLUSTER_SIZE", "int strtoll range=0..8"},
		{"NCCL_IB_TC", "int strtoll range=0..255 ints=[-1]"},
		{"NCCL_IB_ROCE_VERSION_NUM", "int strtoll ints=[1 2] closed"},
		{"NCCL_IB_AR_THRESHOLD", "int strtoll ints=[-2]"},
		{"NCCL_IB_TIMEOUT", "int strtoll"},
		{"NCCL_SHM_DISABLE", "bool strtoll ints=[0 1] closed only-one"},
		{"NCCL_P2P_DISABLE", "bool raw only-one"},
		{"NCCL_IB_DISABLE", "bool strtoll ints=[0 1] closed nonzero-on"},
		{"NCCL_CROSS_NIC", "enum strtoll ints=[0 1 2] closed"},
		{"NCCL_IB_ADAPTIVE_ROUTING", "enum strtoll ints=[0 1 -2] closed"},
		{"NCCL_CUMEM_ENABLE", "enum strtoll"},
		{"NCCL_P2P_LEVEL", "enum raw tokens=[LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS]"},
		{"NCCL_DEBUG", "enum typed tokens=[VERSION WARN INFO ABORT TRACE] ci"},
		{"NCCL_DEBUG_SUBSYS", "list typed tokens=[INIT COLL P2P SHM NET GRAPH TUNING ENV ALLOC ALLOC_HOST CALL PROXY NVLS BOOTSTRAP REG PROFILE RAS DESTROY ALL] ci"},
		{"NCCL_GRAPH_HELPER_DISABLE", "int strtoll dead"},
		{"NCCL_MAX_NRINGS", "int strtoll deprecated->NCCL_MAX_NCHANNELS"},
		{"NCCL_CHECK_POINTERS", "bool strtoll ints=[0 1] closed only-one deprecated->NCCL_CHECK_MODE=DEBUG_LOCAL"},
		{"NCCL_COLLNET_ENABLE", "bool strtol ints=[0 1] closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := c.Lookup(tt.name)
			if !ok {
				t.Fatalf("not found")
			}
			if got := summary(v); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	r, ok := c.LookupRemoved("NCCL_IB_GDR_LEVEL")
	if !ok || !strings.Contains(r.Note, "NCCL_NET_GDR_LEVEL") {
		t.Errorf("NCCL_IB_GDR_LEVEL: got %+v, want a removed entry naming NCCL_NET_GDR_LEVEL", r)
	}
	if _, ok := c.Lookup("NCCL_MAX_NCHANNEL"); ok {
		t.Errorf("NCCL_MAX_NCHANNEL: found, want unknown")
	}
	if got := Nearest("NCCL_MAX_NCHANNEL", c.Names(), 1); !slices.Equal(got, []string{"NCCL_MAX_NCHANNELS"}) {
		t.Errorf("nearest NCCL_MAX_NCHANNEL: got %v, want [NCCL_MAX_NCHANNELS]", got)
	}
}

func TestOtherEnvCatalog(t *testing.T) {
	c := OtherEnv()
	if got := len(c.Vars); got != 27 {
		t.Errorf("variables: got %d, want 27", got)
	}
	tests := []struct{ name, want string }{
		{"CUDA_DEVICE_ORDER", "enum other tokens=[FASTEST_FIRST PCI_BUS_ID]"},
		{"CUDA_DEVICE_MAX_CONNECTIONS", "int other range=1..32"},
		{"TORCH_NCCL_ASYNC_ERROR_HANDLING", "enum other ints=[0 1 2 3] closed aliases=[NCCL_ASYNC_ERROR_HANDLING]"},
		{"TORCH_NCCL_DESYNC_DEBUG", "bool other ci aliases=[NCCL_DESYNC_DEBUG]"},
		{"TORCH_DISTRIBUTED_DEBUG", "enum other tokens=[OFF INFO DETAIL]"},
		{"NVIDIA_TF32_OVERRIDE", "enum other ints=[0] closed"},
		{"OMP_NUM_THREADS", "int other range=>=1"},
		{"PYTORCH_CUDA_ALLOC_CONF", "list other aliases=[PYTORCH_ALLOC_CONF] keys=[backend max_split_size_mb roundup_power2_divisions garbage_collection_threshold expandable_segments pinned_use_cuda_host_register pinned_num_register_threads release_lock_on_cudamalloc]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := c.Lookup(tt.name)
			if !ok {
				t.Fatalf("not found")
			}
			if got := summary(v); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// "as above" repeats the valid values of the row before.
	v, _ := c.Lookup("TORCH_NCCL_HIGH_PRIORITY")
	if !strings.HasPrefix(v.Valid, "y/yes/1/t/true") {
		t.Errorf("TORCH_NCCL_HIGH_PRIORITY valid: got %q, want the bool list of the row above", v.Valid)
	}
	if a, ok := c.LookupAlias("NCCL_BLOCKING_WAIT"); !ok || a.Name != "TORCH_NCCL_BLOCKING_WAIT" {
		t.Errorf("alias NCCL_BLOCKING_WAIT: got %v, want TORCH_NCCL_BLOCKING_WAIT", a)
	}
}

func TestParseNCCLEnvErrors(t *testing.T) {
	head := "name\ttype\tvalid_values_or_range\tdefault\tparse_rule\ton_invalid_value\tnotes\n"
	tests := []struct{ name, vars, want string }{
		{"missing column", "name\ttype\n", `no column "valid_values_or_range"`},
		{"bad rule", head + "NCCL_X\tint\t-\t0\tmagic\t-\t-\n", `NCCL_X: unknown parse rule "magic"`},
		{"not nccl", head + "FOO\tint\t-\t0\tNCCL_PARAM: x\t-\t-\n", `"FOO" is not an NCCL_ name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNCCLEnv(tt.vars, "name\tlast_seen_in_sampled_tags\tnote\n")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func summary(v *EnvVar) string {
	s := v.Type + " " + string(v.Parse)
	if v.Range != (IntRange{}) {
		s += " range=" + v.Range.String()
	}
	if len(v.Ints) > 0 {
		s += fmt.Sprintf(" ints=%v", v.Ints)
		if v.Closed {
			s += " closed"
		}
	}
	if len(v.Tokens) > 0 {
		s += fmt.Sprintf(" tokens=%v", v.Tokens)
	}
	if v.CaseInsensitive {
		s += " ci"
	}
	if v.OnlyOne {
		s += " only-one"
	}
	if v.NonzeroOn {
		s += " nonzero-on"
	}
	if v.Dead {
		s += " dead"
	}
	if v.Deprecated {
		s += " deprecated->" + v.Replacement
	}
	if len(v.Aliases) > 0 {
		s += fmt.Sprintf(" aliases=%v", v.Aliases)
	}
	if len(v.Keys) > 0 {
		var keys []string
		for _, k := range v.Keys {
			keys = append(keys, k.Key)
		}
		s += fmt.Sprintf(" keys=%v", keys)
	}
	return s
}

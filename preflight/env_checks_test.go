package preflight

import (
	"fmt"
	"strings"
	"testing"
)

// envCase checks variables and looks at the findings about the first.
type envCase struct {
	name   string
	env    []string // NAME=VALUE, the first is the subject
	want   string   // the statuses of the subject's findings, e.g. "FAIL" or "PASS"
	reason string   // a part of the first finding's reason
	fix    string   // the first finding's fix, exactly
}

func runEnvCases(t *testing.T, check func([]envItem) []Finding, tests []envCase) {
	t.Helper()
	old := interfaces
	interfaces = func() ([]string, error) { return []string{"lo", "eth0", "docker0"}, nil }
	t.Cleanup(func() { interfaces = old })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var items []envItem
			for _, kv := range tt.env {
				name, val, _ := strings.Cut(kv, "=")
				items = append(items, envItem{name: name, value: val, where: "test"})
			}
			subject := items[0].name
			var fs []Finding
			for _, f := range check(items) {
				if f.Subject == subject {
					fs = append(fs, f)
				}
			}
			var statuses []string
			for _, f := range fs {
				statuses = append(statuses, f.Status.String())
			}
			if got := strings.Join(statuses, " "); got != tt.want {
				t.Fatalf("statuses: got %q, want %q (%+v)", got, tt.want, fs)
			}
			if !strings.Contains(fs[0].Reason, tt.reason) {
				t.Errorf("reason: got %q, want it to contain %q", fs[0].Reason, tt.reason)
			}
			if fs[0].Fix != tt.fix {
				t.Errorf("fix: got %q, want %q", fs[0].Fix, tt.fix)
			}
		})
	}
}

func TestNCCLValues(t *testing.T) {
	o := (Options{Dir: t.TempDir()}).withDefaults()
	runEnvCases(t, func(items []envItem) []Finding { return checkNCCL(items, o) }, []envCase{
		// Integers strtoll would silently misread.
		{"scientific", []string{"NCCL_BUFFSIZE=1e6"}, "FAIL", "so it silently uses 1", "write NCCL_BUFFSIZE=1000000"},
		{"bool word", []string{"NCCL_IB_DISABLE=true"}, "FAIL", `"true" is not a number`, "write NCCL_IB_DISABLE=1"},
		{"octal", []string{"NCCL_NTHREADS=0256"}, "FAIL", "reads it as octal, so NCCL uses 174", "write NCCL_NTHREADS=256 (or 174, if octal was meant)"},
		{"overflow", []string{"NCCL_BUFFSIZE=99999999999999999999"}, "FAIL", "overflows a 64-bit integer", "write a smaller number (at most 9223372036854775807)"},
		{"white space", []string{"NCCL_BUFFSIZE= 16777216 "}, "WARN", "NCCL reads 16777216", "write NCCL_BUFFSIZE=16777216"},
		{"hex", []string{"NCCL_BUFFSIZE=0x1000000"}, "PASS", "hex 0x1000000: NCCL reads 16777216 (16 MiB)", ""},
		{"default sentinel", []string{"NCCL_BUFFSIZE=-2"}, "PASS", "NCCL reads -2, the default", ""},
		{"tiny buffer", []string{"NCCL_BUFFSIZE=4096"}, "WARN", "a tiny buffer", "use 4194304 (4 MiB) or more"},
		{"not a power of 2", []string{"NCCL_BUFFSIZE=3000000"}, "WARN", "not a power of 2", "use a power of 2, e.g. 2097152"},
		{"empty", []string{"NCCL_BUFFSIZE="}, "WARN", "empty", "remove it, or give a value"},
		// What NCCL really uses.
		{"threads not a multiple of 32", []string{"NCCL_NTHREADS=100"}, "WARN", "100 is not a multiple of 32: NCCL uses 512 instead",
			"write NCCL_NTHREADS=512, what NCCL uses anyway, or another valid value: multiple of 32 in [64,512] (docs: 64,128,256,512)"},
		{"threads above max", []string{"NCCL_NTHREADS=1024"}, "WARN", "1024 is above 512: NCCL uses 512 instead",
			"write NCCL_NTHREADS=512, what NCCL uses anyway, or another valid value: multiple of 32 in [64,512] (docs: 64,128,256,512)"},
		{"channels clamped", []string{"NCCL_MAX_NCHANNELS=128"}, "WARN", "128 is above 64 (MAXCHANNELS): NCCL uses 64 instead",
			"write NCCL_MAX_NCHANNELS=64, what NCCL uses anyway, or another valid value: >=1; capped at 64 (MAXCHANNELS)"},
		{"ignored below range", []string{"NCCL_MAX_CTAS=0"}, "WARN", "0 is below 1: NCCL uses nothing: it is ignored instead", "use a valid value: 1..64"},
		{"only exactly 1", []string{"NCCL_SHM_DISABLE=2"}, "FAIL", "only when it is exactly 1 (it compares == 1), so 2 does nothing", "write NCCL_SHM_DISABLE=1 to turn it on, or remove it"},
		{"nonzero is on", []string{"NCCL_IB_DISABLE=2"}, "WARN", "any nonzero value means on; 2 works as 1", "write NCCL_IB_DISABLE=1"},
		{"not a listed value", []string{"NCCL_CROSS_NIC=5"}, "WARN", "5 is not one of NCCL's values", "use one of 0, 1 or 2"},
		{"out of range", []string{"NCCL_IB_TC=300"}, "WARN", "300 is outside NCCL's valid range", "use a value in 0..255"},
		{"special value", []string{"NCCL_IB_SL=-1"}, "PASS", "NCCL reads -1", ""},
		{"product of two", []string{"NCCL_NSOCKS_PERTHREAD=32", "NCCL_SOCKET_NTHREADS=4"}, "WARN", "32 × 4 = 128 exceeds 64", "keep the product at 64 or below"},
		// Levels, lists and words.
		{"level typo", []string{"NCCL_P2P_LEVEL=NVLINK"}, "FAIL", `"NVLINK" is not a level NCCL knows`, "did you mean NVL?"},
		{"legacy level", []string{"NCCL_P2P_LEVEL=5"}, "PASS", "legacy number 5 means SYS", ""},
		{"gdr level lower case", []string{"NCCL_NET_GDR_LEVEL=phb"}, "FAIL", `"phb" is not PHB`, "write NCCL_NET_GDR_LEVEL=PHB"},
		{"per collective", []string{"NCCL_ALGO=allreduce:ring;allgather:^tree"}, "PASS", "valid algorithm list", ""},
		{"old collnet", []string{"NCCL_ALGO=^nvls,collnet"}, "FAIL", "is the name NCCL 2.13 and older used", "use a comma list of Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree or PAT, with no spaces"},
		{"entry without collective", []string{"NCCL_ALGO=ring;tree"}, "FAIL", `entry "tree" has no collective`, "use a comma list of Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree or PAT, with no spaces"},
		{"bad collective", []string{"NCCL_PROTO=allredcue:LL"}, "FAIL", `unknown collective "allredcue"`, "write NCCL_PROTO=AllReduce:LL"},
		{"forced LL128", []string{"NCCL_PROTO=LL128"}, "WARN", "forces LL128", "leave LL128 to NCCL unless this platform supports it"},
		{"excluded LL128", []string{"NCCL_PROTO=^LL128"}, "PASS", "valid protocol list", ""},
		{"debug level any case", []string{"NCCL_DEBUG=info"}, "PASS", "log level INFO", ""},
		{"debug NONE", []string{"NCCL_DEBUG=NONE"}, "WARN", "NONE is not a level", "remove it"},
		{"debug typo", []string{"NCCL_DEBUG=WARNING"}, "FAIL", "silently falls back to no logging", "did you mean WARN?"},
		{"subsystem typo", []string{"NCCL_DEBUG_SUBSYS=INIT,NETT"}, "FAIL", `unknown token "NETT" (did you mean NET?)`, "use a comma list of INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, ALLOC_HOST, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS, DESTROY or ALL"},
		{"subsystem caret", []string{"NCCL_DEBUG_SUBSYS=INIT,^NET"}, "FAIL", "^ applies only to the whole list", "use a comma list of INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, ALLOC_HOST, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS, DESTROY or ALL"},
		{"typed bool", []string{"NCCL_SET_THREAD_NAME=yes"}, "FAIL", "NCCL 2.30.7 silently uses the default (FALSE)", "write NCCL_SET_THREAD_NAME=1"},
		{"deprecated word", []string{"NCCL_LAUNCH_MODE=GROUP"}, "WARN", "GROUP is deprecated since NCCL 2.9", "remove it"},
		{"case-sensitive word", []string{"NCCL_SOCKET_FAMILY=af_inet"}, "FAIL", `"af_inet" is not AF_INET: NCCL compares it case-sensitively`, "write NCCL_SOCKET_FAMILY=AF_INET"},
		{"logged bad word", []string{"NCCL_NET_MERGE_POLICY=rails"}, "WARN", "WARN 'unknown value, defaulting to ALL'", "write NCCL_NET_MERGE_POLICY=RAIL"},
		{"p2p disable true", []string{"NCCL_P2P_DISABLE=true"}, "FAIL", `only exactly 1 disables P2P; "true" does nothing`, "write NCCL_P2P_DISABLE=1 to disable P2P, or remove it"},
		// Strings NCCL reads its own way.
		{"interface", []string{"NCCL_SOCKET_IFNAME=eth"}, "PASS", "matches eth0", ""},
		{"no interface", []string{"NCCL_SOCKET_IFNAME=ib"}, "FAIL", "no interface of this host matches", "name an interface this host has, e.g. eth0"},
		{"everything excluded", []string{"NCCL_SOCKET_IFNAME=^lo,eth,docker"}, "FAIL", "excludes every interface", "exclude fewer interfaces"},
		{"graph file", []string{"NCCL_GRAPH_FILE=/nonexistent/graph.xml"}, "FAIL", "NCCL init fails", "point it at an existing graph XML file, or remove it"},
		{"topology file", []string{"NCCL_TOPO_FILE=/nonexistent/topo.xml"}, "WARN", "detects the topology itself", "point it at an existing topology XML file, or remove it"},
		{"cpu range", []string{"NCCL_PROXY_CPUSET=0-3"}, "FAIL", `"0-3" is a range`, "list every CPU: 0,1,2,3"},
		{"comm id", []string{"NCCL_COMM_ID=node1"}, "FAIL", "'Invalid NCCL_COMM_ID'", "write it like 10.0.0.1:29500"},
		{"no cache key", []string{"NCCL_NO_CACHE=NCCL_PROT"}, "WARN", "is not an NCCL variable", "did you mean NCCL_PROTO?"},
		{"addr range", []string{"NCCL_IB_ADDR_RANGE=10.0.0.0"}, "FAIL", "has no /prefix", "write a CIDR, like 10.0.0.0/16"},
		// Names.
		{"never read", []string{"NCCL_GRAPH_HELPER_DISABLE=1"}, "WARN", "defines it but never reads it", "remove it"},
		{"legacy alias", []string{"NCCL_MAX_NRINGS=4"}, "WARN", "deprecated: legacy alias of NCCL_MAX_NCHANNELS", "use NCCL_MAX_NCHANNELS instead"},
		{"renamed long ago", []string{"NCCL_IB_GDR_LEVEL=PHB"}, "WARN", "read only by NCCL releases before 2.4.8, not by NCCL 2.30.7", "use NCCL_NET_GDR_LEVEL instead"},
		{"removed", []string{"NCCL_RINGS=0 1"}, "WARN", "read up to NCCL 2.4.8, not by NCCL 2.30.7", "remove it"},
		{"pytorch alias", []string{"NCCL_ASYNC_ERROR_HANDLING=1"}, "WARN", "PyTorch's legacy name for TORCH_NCCL_ASYNC_ERROR_HANDLING", "rename it to TORCH_NCCL_ASYNC_ERROR_HANDLING"},
		{"no near name", []string{"NCCL_XYZZY=1"}, "FAIL", "NCCL ignores unknown names silently", "remove it; NCCL 2.30.7 reads no variable of that name"},
	})
}

func TestTorchValues(t *testing.T) {
	o := (Options{Dir: t.TempDir()}).withDefaults()
	runEnvCases(t, func(items []envItem) []Finding { return checkTorchEnv(items, o) }, []envCase{
		{"visible devices", []string{"CUDA_VISIBLE_DEVICES=GPU-8932f937,1"}, "PASS", "2 GPU(s) visible", ""},
		{"no GPU", []string{"CUDA_VISIBLE_DEVICES="}, "WARN", "CUDA shows no GPU at all", "list the GPU indices to use, or remove it to see every GPU"},
		{"truncated list", []string{"CUDA_VISIBLE_DEVICES=0, 1"}, "FAIL", `CUDA stops reading at " 1", so only 0 are visible`, "write comma-separated GPU indices or UUIDs, with no spaces"},
		{"repeated GPU", []string{"CUDA_VISIBLE_DEVICES=0,1,1"}, "FAIL", "GPU 1 is listed twice", "list each GPU once"},
		{"device order", []string{"CUDA_DEVICE_ORDER=pci_bus_id"}, "FAIL", `"pci_bus_id" is not one of FASTEST_FIRST or PCI_BUS_ID`, "write CUDA_DEVICE_ORDER=PCI_BUS_ID"},
		{"max connections", []string{"CUDA_DEVICE_MAX_CONNECTIONS=1"}, "WARN", "SGLang sets CUDA_DEVICE_MAX_CONNECTIONS=8 at start-up", "remove it"},
		{"launch blocking", []string{"CUDA_LAUNCH_BLOCKING=1"}, "WARN", "makes every kernel launch synchronous", "remove it"},
		{"async handling word", []string{"TORCH_NCCL_ASYNC_ERROR_HANDLING=abort"}, "FAIL", "raises 'Invalid value for environment variable'", "write a plain integer"},
		{"async handling junk", []string{"TORCH_NCCL_ASYNC_ERROR_HANDLING=3x"}, "WARN", "PyTorch reads 3", "write TORCH_NCCL_ASYNC_ERROR_HANDLING=3"},
		{"async handling value", []string{"TORCH_NCCL_ASYNC_ERROR_HANDLING=7"}, "WARN", "7 is not one of PyTorch's values", "use one of 0, 1, 2 or 3"},
		{"cvar bool", []string{"TORCH_NCCL_BLOCKING_WAIT=True"}, "PASS", "valid", ""},
		{"cvar bool bad", []string{"TORCH_NCCL_ENABLE_MONITORING=on"}, "FAIL", "when the process group is created", "write TORCH_NCCL_ENABLE_MONITORING=1 or TORCH_NCCL_ENABLE_MONITORING=0"},
		{"dump without buffer", []string{"TORCH_NCCL_DUMP_ON_TIMEOUT=1", "TORCH_NCCL_TRACE_BUFFER_SIZE=0"}, "WARN", "nothing to dump", "set TORCH_NCCL_TRACE_BUFFER_SIZE above 0 (e.g. 2000)"},
		{"deprecated", []string{"TORCH_NCCL_AVOID_RECORD_STREAMS=1"}, "WARN", "in recent PyTorch this is the default", "remove it"},
		{"debug level case", []string{"TORCH_DISTRIBUTED_DEBUG=detail"}, "FAIL", `"detail" is not one of OFF, INFO or DETAIL`, "write TORCH_DISTRIBUTED_DEBUG=DETAIL"},
		{"alloc key typo", []string{"PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True"}, "FAIL", `unknown key "expandable_segment"`, "did you mean expandable_segments?"},
		{"alloc bool", []string{"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true"}, "FAIL", "must be exactly True or False", "see PYTORCH_CUDA_ALLOC_CONF in other-env.tsv for the values each key takes"},
		{"alloc threshold", []string{"PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:1.5,max_split_size_mb:512"}, "FAIL", "strictly between 0 and 1", "see PYTORCH_CUDA_ALLOC_CONF in other-env.tsv for the values each key takes"},
		{"alloc newer name", []string{"PYTORCH_ALLOC_CONF=expandable_segments:True"}, "PASS", "valid allocator options", ""},
		{"alloc unknown key", []string{"PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.5"}, "WARN", "not one the catalog knows", "check it against this PyTorch's documentation"},
		{"omp", []string{"OMP_NUM_THREADS=0"}, "WARN", "outside the valid range >=1", "use a value in >=1"},
		{"tf32", []string{"NVIDIA_TF32_OVERRIDE=1"}, "WARN", "not a documented value", "use 0"},
		{"gloo interface", []string{"GLOO_SOCKET_IFNAME=eth9"}, "FAIL", `this host has no interface "eth9"`, "name an interface this host has, exactly"},
		{"torch typo", []string{"TORCH_NCCL_BLOKING_WAIT=1"}, "WARN", "one or two letters from TORCH_NCCL_BLOCKING_WAIT", "did you mean TORCH_NCCL_BLOCKING_WAIT?"},
	})
}

func TestSGLangEnvCatalog(t *testing.T) {
	py := &pythonResult{}
	runEnvCases(t, func(items []envItem) []Finding { return checkSGLangEnv(items, py) }, []envCase{
		{"registry", []string{"SGLANG_USE_MODELSCOPE=true"}, "PASS", "SGLang reads it (the catalog's registry has it)", ""},
		{"read directly", []string{"SGLANG_HEALTH_CHECK_TIMEOUT=30"}, "PASS", "SGLang reads it", ""},
		{"typo", []string{"SGLANG_USE_MODELSCOP=1"}, "WARN", "not read by SGLang: no mention in SGLang's environment registry", "did you mean SGLANG_USE_MODELSCOPE?"},
		{"removed in 2026", []string{"SGLANG_ENABLE_SPEC_V2=True"}, "WARN", `removed from SGLang (removed by PR #27964 "Retire Spec V1", 2026-06-11): it has no effect, but SGLang logs a warning at start-up when it is set: "SGLANG_ENABLE_SPEC_V2 has been removed: speculative decoding always runs the V2 worker.`, "remove it"},
		{"renamed", []string{"SGLANG_GC_LOG=1"}, "WARN", "deprecated; SGLang forwards it to SGLANG_LOG_GC, with a warning", "rename it to SGLANG_LOG_GC"},
		{"now a flag", []string{"SGLANG_ENABLE_GRPC=1"}, "WARN", "(replaced by --grpc-port)", "use --grpc-port instead, and remove the variable"},
		{"legacy prefix", []string{"SGL_USE_MODELSCOPE=1"}, "WARN", "legacy SGL_ name: SGLang copies it to SGLANG_USE_MODELSCOPE", "rename it to SGLANG_USE_MODELSCOPE"},
		{"legacy read directly", []string{"SGL_FORCE_SHUTDOWN=1"}, "PASS", "SGLang reads it", ""},
		{"bad bool", []string{"SGLANG_USE_MODELSCOPE=enabled"}, "WARN", `"enabled" is not a bool SGLang reads`, "write a valid Bool value"},
		{"bad int", []string{"SGLANG_SORT_WEIGHT_FILES=many"}, "WARN", `"many" is not an integer: SGLang warns and uses the default (0)`, "write a valid Int value"},
		// Newer than the tables, and read by SGLang's /health: the bypass
		// check warns on it, so this one must not call it unread.
		{"health bypass newer than the tables", []string{"SGLANG_DIAG_BYPASS_HEALTH_GENERATE=1"}, "PASS", "SGLang's /health reads it", ""},
	})
}

func TestStrtoll(t *testing.T) {
	tests := []struct {
		in   string
		want string // n base rest
	}{
		{"16", "16 10 \"\""}, {"16M", "16 10 \"M\""}, {"0x10", "16 16 \"\""}, {"010", "8 8 \"\""},
		{"0", "0 8 \"\""}, {"-2", "-2 10 \"\""}, {"true", "0 10 \"true\""}, {"1e6", "1 10 \"e6\""},
		{"0x", "0 8 \"x\""}, {" 7", "7 10 \"\""}, {"9223372036854775808", "9223372036854775807 10 \"\""},
	}
	for _, tt := range tests {
		r := strtoll(tt.in)
		if got := fmt.Sprintf("%d %d %q", r.n, r.base, r.rest); got != tt.want {
			t.Errorf("strtoll(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

package preflight

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/tail"
)

// gpuErr says why the query listed no GPU, or nil when it listed some.
func gpuErr(q hostprobe.GPUQuery) error {
	switch {
	case q.Run.Err != nil:
		return q.Run.Err
	case len(q.GPUs) == 0:
		return fmt.Errorf("no GPU listed (output %q)", tail.Line(q.Run.Stdout, 2))
	}
	return nil
}

// intFlag is an integer flag's value, or def when absent or not a number
// (the flag check reports that).
func intFlag(uses []catalog.Use, canonical string, def int) int {
	if v, ok := lastValue(uses, canonical); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return def
}

func hasFlag(uses []catalog.Use, canonical string) bool {
	for _, u := range uses {
		if u.Canonical == canonical {
			return true
		}
	}
	return false
}

// checkGPUs compares the GPUs the server will see (CUDA_VISIBLE_DEVICES
// applied) with what the plan needs: tp × dp × pp per node (dp lives
// inside tp with --enable-dp-attention).
func checkGPUs(uses []catalog.Use, items []envItem, q hostprobe.GPUQuery, py *pythonResult) []Finding {
	s := subject{CheckGPU, "gpus", ""}
	switch {
	case py.sim:
		return []Finding{s.skip("the simulated SGLang server needs no GPU")}
	case q.Absent:
		return []Finding{s.skip("nvidia-smi not found, so the GPUs are not checked")}
	case gpuErr(q) != nil:
		return []Finding{s.fail("nvidia-smi failed: "+describeErr(gpuErr(q), q.Run.Stderr), "fix the NVIDIA driver: SGLang cannot use the GPUs until nvidia-smi works")}
	}
	env := envMap(items)
	visible, how := q.GPUs, "all GPUs"
	if cvd, set := env["CUDA_VISIBLE_DEVICES"]; set {
		visible, how = applyVisible(q.GPUs, cvd), "CUDA_VISIBLE_DEVICES="+cvd
	}
	tp, dp, pp := intFlag(uses, "--tp-size", 1), intFlag(uses, "--dp-size", 1), intFlag(uses, "--pp-size", 1)
	nodes := intFlag(uses, "--nnodes", 1)
	need, formula := tp*dp*pp, fmt.Sprintf("tp %d × dp %d × pp %d", tp, dp, pp)
	if hasFlag(uses, "--enable-dp-attention") {
		need, formula = tp*pp, fmt.Sprintf("tp %d × pp %d (dp attention runs inside tp)", tp, pp)
	}
	if nodes > 1 {
		need = (need + nodes - 1) / nodes
		formula += fmt.Sprintf(" over %d nodes", nodes)
	}
	var out []Finding
	if len(visible) < need {
		out = append(out, s.fail(fmt.Sprintf("%s needs %d GPUs on this host; %d visible (%s)", formula, need, len(visible), how),
			"lower --tp-size, or make more GPUs visible"))
	} else {
		out = append(out, s.pass(fmt.Sprintf("%d visible (%s); %s needs %d", len(visible), how, formula, need)))
	}
	frac := 0.9
	if v, ok := lastValue(uses, "--mem-fraction-static"); ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && f < 1 {
			frac = f
		}
	}
	names := map[string]bool{}
	for _, g := range visible {
		gs := subject{CheckGPU, fmt.Sprintf("gpu %d", g.Index), ""}
		names[g.Name] = true
		desc := fmt.Sprintf("%s, %d MiB, %d MiB in use", g.Name, g.MemoryMiB, g.UsedMiB)
		if limit := int64(float64(g.MemoryMiB) * (1 - frac)); g.UsedMiB > limit && g.UsedMiB > 1024 {
			out = append(out, gs.warn(desc+fmt.Sprintf(": the server wants %.0f%% of it (--mem-fraction-static %.2f), so it may run out of memory after the load", frac*100, frac),
				"free the GPU (nvidia-smi shows what holds it; an orphaned scheduler is a common cause), or lower --mem-fraction-static"))
			continue
		}
		out = append(out, gs.pass(desc))
	}
	if cvd := env["CUDA_VISIBLE_DEVICES"]; len(names) > 1 && env["CUDA_DEVICE_ORDER"] != "PCI_BUS_ID" && cvd != "" && !strings.Contains(cvd, "GPU-") {
		out = append(out, s.warn("GPUs of different models, selected by index: CUDA numbers them fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, so the indices may not be nvidia-smi's",
			"set CUDA_DEVICE_ORDER=PCI_BUS_ID, or select GPUs by UUID"))
	}
	return out
}

// applyVisible selects the GPUs CUDA_VISIBLE_DEVICES names, in its order,
// stopping where CUDA stops: at an entry that names no GPU.
func applyVisible(all []hostprobe.GPU, cvd string) []hostprobe.GPU {
	kept, _ := visibleTokens(cvd)
	var out []hostprobe.GPU
	for _, tok := range kept {
		var hit *hostprobe.GPU
		for i := range all {
			g := &all[i]
			if strconv.Itoa(g.Index) == tok || strings.HasPrefix(tok, "GPU-") && strings.HasPrefix(g.UUID, tok) {
				hit = g
				break
			}
		}
		if strings.HasPrefix(tok, "MIG-") {
			hit = &hostprobe.GPU{Index: -1, Name: "MIG instance " + tok}
		}
		if hit == nil {
			break
		}
		out = append(out, *hit)
	}
	return out
}

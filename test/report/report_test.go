package report

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds for a loaded 2-core machine.
const (
	benchTimeout  = 2 * time.Minute
	chromeTimeout = 90 * time.Second
)

var (
	sglaunchBin string
	cacheDir    string
)

func TestMain(m *testing.M) {
	os.Exit(testkit.RunWithWorkspace(m, "sglaunch-report-", func(w *testkit.Workspace) error {
		sglaunchBin, cacheDir = w.Bin, w.Cache
		return nil
	}))
}

// sglaunch runs the binary in an isolated home and returns its stdout.
func sglaunch(t *testing.T, home string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), benchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, sglaunchBin, args...)
	cmd.Dir = home
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"), "XDG_CACHE_HOME=" + cacheDir,
		"SGLAUNCH_STATE_DIR=" + filepath.Join(home, "state", "sglaunch"),
		"SGLAUNCH_RUNTIME_DIR=" + filepath.Join(home, "run", "sglaunch"),
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sglaunch %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// chromium finds the browser: in CI (.ci/run installs it) its absence is
// a failure, elsewhere a skip.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium); CI runs this test")
	return ""
}

// browse runs headless Chromium on a local file with a fresh profile and
// nothing that reaches the network, and returns its stdout.
func browse(t *testing.T, bin, page string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), chromeTimeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestReportRendersInChromium: two runs of a sweep, the second with a
// slower decode, reported side by side; Chromium renders every chart with
// both records' data.
func TestReportRendersInChromium(t *testing.T) {
	browser := chromium(t)
	home := t.TempDir()
	profiles := filepath.Join(home, "config", "sglaunch", "profiles")
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := fmt.Sprintf(`python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  SGLANG_SIM_TTFT_MS: "40"
  SGLANG_SIM_ITL_MS: "5"
  SGLANG_SIM_LOAD_SECONDS: "0.5"
  SGLANG_SIM_WARMUP_SECONDS: "0.1"
args:
  model-path: sim/model
  tp: 2
  port: %d
bench:
  workloads:
    - {name: sweep, input_len: 64, output_len: 24, concurrency: [1, 4, 16], rounds: 2}
`, testkit.RealPython(t), testkit.FreePort(t))
	if err := os.WriteFile(filepath.Join(profiles, "rep.yaml"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	sglaunch(t, home, "bench", "--profile", "rep", "--details")
	sglaunch(t, home, "bench", "--profile", "rep", "--details", "--set", "env.SGLANG_SIM_ITL_MS=8")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(sglaunch(t, home, "bench", "list", "--json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("bench list: %v %+v", err, list)
	}
	page := filepath.Join(home, "report.html")
	sglaunch(t, home, "bench", "report", "-o", page, list[0].ID, list[1].ID)

	// The DOM after Chromium has parsed and laid it out.
	dom := browse(t, browser, page, "--dump-dom")
	charts := regexp.MustCompile(`<svg class="chart" id="([^"]+)"[^>]*>(?s:(.*?))</svg>`).FindAllStringSubmatch(dom, -1)
	if len(charts) != 6 {
		t.Fatalf("got %d charts in the DOM, want 6 (throughput, TTFT, ITL, E2E, two distributions)\n%.2000s", len(charts), dom)
	}
	paths := regexp.MustCompile(`<path class="series" data-record="(\w+)" data-points="(\d+)" d="M[\d.]+ [\d.]+[LH][^"]+"`)
	for _, c := range charts {
		records := map[string]bool{}
		for _, p := range paths.FindAllStringSubmatch(c[2], -1) {
			if n, _ := strconv.Atoi(p[2]); n >= 3 {
				records[p[1]] = true
			}
		}
		if !records[list[0].ID] || !records[list[1].ID] || strings.Contains(c[2], "no data") {
			t.Errorf("chart %s: series with data for %v, want both records", c[1], records)
		}
	}
	if n := strings.Count(dom, `<circle class="point"`); n != 2*(3+3*3*2) {
		t.Errorf("got %d data points, want 2 records x (3 throughput + 3 latencies x 3 levels x median and p99)", n)
	}

	// What Chromium drew: both records' colours, in quantity, on a page
	// that is not blank.
	shot := filepath.Join(t.TempDir(), "report.png")
	browse(t, browser, page, "--window-size=1560,960", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	blue, red, ink := countColors(img)
	if blue < 800 || red < 800 || ink < 5000 {
		t.Errorf("screenshot has %d blue, %d red, %d dark pixels; want both series colours drawn and text", blue, red, ink)
	}
	if *testkit.Update {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report.png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// countColors counts pixels near the first two palette colours (#1f77b4,
// #d62728) and dark ones (text, axes).
func countColors(img image.Image) (blue, red, ink int) {
	near := func(r, g, b, R, G, B int) bool {
		return abs(r-R) < 40 && abs(g-G) < 40 && abs(b-B) < 40
	}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r16, g16, b16, _ := img.At(x, y).RGBA()
			r, g, b := int(r16>>8), int(g16>>8), int(b16>>8)
			switch {
			case near(r, g, b, 0x1f, 0x77, 0xb4):
				blue++
			case near(r, g, b, 0xd6, 0x27, 0x28):
				red++
			case r < 90 && g < 90 && b < 90:
				ink++
			}
		}
	}
	return blue, red, ink
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

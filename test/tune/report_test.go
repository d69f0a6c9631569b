package tune

import (
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tunepkg "github.com/sglaunch/sglaunch/tune"
)

// chromeTimeout bounds one headless Chromium run.
const chromeTimeout = 90 * time.Second

// TestReportRendersInChromium: the report of a tune (a record written
// here: 6 measured points, one failed) opened in headless Chromium draws
// every measured point inside its chart, one bar per measured value of
// each parameter, and the failure; the screenshot shows the points' blue.
func TestReportRendersInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
		}
	}
	if browser == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium is not installed (apt-get install chromium); CI runs this test")
	}
	h := newHome(t, 3, "")
	dir := filepath.Join(h.dir, "state", "tunes", "t1")
	rec := tunepkg.NewRecord(dir, time.Now())
	rec.Base, rec.BaseName, rec.Status, rec.Strategy = "tb", "tb", tunepkg.TuneDone, tunepkg.StrategyGrid
	rec.Space = tunepkg.Space{
		Params:    []tunepkg.Param{{Key: "env.NCCL_PROTO", Values: []string{"Simple", "LL128"}}, {Key: "args.cuda-graph-max-bs", Values: []string{"64", "128", "256"}}},
		Objective: tunepkg.Objective{Workload: "quick", Metric: "median_itl_ms", Direction: -1},
	}
	rec.Points = append(rec.Points, &tunepkg.Point{N: 0, Status: tunepkg.PointOK, Objective: &tunepkg.Estimate{Mean: 10, Lo: 9.8, Hi: 10.2, N: 3}})
	n := 1
	for _, proto := range []string{"Simple", "LL128"} {
		for i, bs := range []string{"64", "128", "256"} {
			p := &tunepkg.Point{N: n, Sets: []string{"env.NCCL_PROTO=" + proto, "args.cuda-graph-max-bs=" + bs}, Status: tunepkg.PointOK}
			m := 10 - float64(i%2) - 0.8*float64(n/4)
			p.Objective = &tunepkg.Estimate{Mean: m, Lo: m - 0.2, Hi: m + 0.2, N: 3}
			p.VsBaseline = &tunepkg.Delta{Pct: (m - 10) * 10, LoPct: (m - 10.4) * 10, HiPct: (m - 9.6) * 10, HasInterval: true, Judged: true, Verdict: tunepkg.VerdictBetter}
			if proto == "LL128" && bs == "256" {
				p.Status, p.Objective, p.VsBaseline = tunepkg.PointFailed, nil, nil
				p.Reason, p.Phase, p.Tail = "crashed during the load (capturing CUDA graphs): server exited", "capturing CUDA graphs", []string{"Exception: Capture cuda graph failed"}
			}
			rec.Points = append(rec.Points, p)
			n++
		}
	}
	rec.Verdict = &tunepkg.Verdict{Winner: 5, Text: "winner: point 5"}
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(h.dir, "tune.html")
	if r := h.run(t, "tune", "report", "-o", page, dir); r.code != 0 {
		t.Fatalf("tune report: exit %d\n%s", r.code, r.stderr)
	}

	dom := browse(t, browser, page, "--dump-dom")
	chart := regexp.MustCompile(`<svg id="objective-chart" width="(\d+)"[^>]*>(?s:(.*?))</svg>`).FindStringSubmatch(dom)
	if chart == nil {
		t.Fatalf("no objective chart in the DOM\n%.3000s", dom)
	}
	width, _ := strconv.ParseFloat(chart[1], 64)
	means := regexp.MustCompile(`<circle class="mean" cx="([\d.]+)"`).FindAllStringSubmatch(chart[2], -1)
	if len(means) != 6 {
		t.Errorf("got %d points drawn, want the 6 measured", len(means))
	}
	for _, m := range means {
		if x, _ := strconv.ParseFloat(m[1], 64); x <= 0 || x >= width {
			t.Errorf("a point is drawn at x=%s, outside the chart (width %g)", m[1], width)
		}
	}
	if got := strings.Count(dom, `<rect class="bar"`); got != 5 {
		t.Errorf("got %d effect bars, want 5 (2 protocols, 3 batch sizes)", got)
	}
	if !strings.Contains(dom, "capturing CUDA graphs") || !strings.Contains(dom, `id="verdict"`) {
		t.Error("the failure's phase or the verdict is missing")
	}
	var parsed tunepkg.Record
	b, _ := os.ReadFile(filepath.Join(dir, "tune.json"))
	if err := json.Unmarshal(b, &parsed); err != nil || len(parsed.Points) != 7 {
		t.Fatalf("record: %v", err)
	}

	shot := filepath.Join(t.TempDir(), "tune.png")
	browse(t, browser, page, "--window-size=1200,1400", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	blue := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(int(r>>8), 0x3a) && near(int(g>>8), 0x6e) && near(int(bl>>8), 0xa5) {
				blue++
			}
		}
	}
	if blue < 2000 {
		t.Errorf("the screenshot has %d pixels of the points' blue; want the chart and bars drawn", blue)
	}
}

func near(a, b int) bool { return a-b < 40 && b-a < 40 }

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

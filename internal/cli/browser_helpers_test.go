package cli

// The browser harness of the report tests: a headless Chromium driven over
// the DevTools protocol (chromedp) loads a report.html from file:// with the
// network off, and says what the page did: console errors, exceptions,
// dialogs (an alert() is script that should not have run), requests for
// anything but file: and data: URLs, window.pgtrialReport (the DOM contract
// of the HTML writer: charts, drawn, errors, markers) and, per
// figure.chart, whether it holds a painted canvas or an SVG with children.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Time bounds of one page: the browser's whole life, and the wait for
// html[data-ready="1"] after the load.
const (
	browserLife  = 90 * time.Second
	readyTimeout = 20 * time.Second
)

// chromiumNames are the executables looked for on PATH (and in /usr/bin),
// in this order, when PGTRIAL_CHROMIUM is not set.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// findChromium is the browser's executable: PGTRIAL_CHROMIUM when set (it
// must exist), else the first of chromiumNames found.
func findChromium() (string, error) {
	if p := os.Getenv("PGTRIAL_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("PGTRIAL_CHROMIUM=%s: %w", p, err)
		}
		return p, nil
	}
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		if p := filepath.Join("/usr/bin", n); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %s on PATH or in /usr/bin (PGTRIAL_CHROMIUM names another)", strings.Join(chromiumNames, ", "))
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

var (
	chromiumOnce sync.Once
	chromiumExe  string
	chromiumErr  error
)

// chromium is the browser's path, installing Debian's chromium package
// through scripts/ensure-test-extras.sh (as root, once per test binary) when
// none is found. Without one the test is skipped, saying why, except under
// CI=true, where it fails (as pgtest does without PostgreSQL).
func chromium(t *testing.T) string {
	t.Helper()
	chromiumOnce.Do(func() {
		chromiumExe, chromiumErr = findChromium()
		if chromiumErr == nil || os.Getenv("PGTRIAL_CHROMIUM") != "" {
			return
		}
		script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "ensure-test-extras.sh"))
		if err != nil {
			chromiumErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, script).CombinedOutput()
		if chromiumExe, chromiumErr = findChromium(); chromiumErr != nil {
			chromiumErr = fmt.Errorf("%w; %s: %v %s", chromiumErr, script, err, strings.TrimSpace(string(out)))
		}
	})
	if chromiumErr != nil {
		msg := "headless Chromium not found and could not be installed: " + chromiumErr.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return chromiumExe
}

// reportState is window.pgtrialReport (DOM16: the HTML page's contract).
type reportState struct {
	Charts  int            `json:"charts"`
	Drawn   int            `json:"drawn"`
	Errors  []string       `json:"errors"`
	Markers []reportMarker `json:"markers"`
}

type reportMarker struct {
	Chart string  `json:"chart"`
	Kind  string  `json:"kind"`
	Label string  `json:"label"`
	X     float64 `json:"x"`
}

// figureState is what the page holds for one figure.chart.
type figureState struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`      // data-kind
	Drawn     string `json:"drawn"`     // data-drawn: "canvas", "svg" or ""
	Canvases  int    `json:"canvases"`  // canvas elements of a positive size
	Painted   bool   `json:"painted"`   // one of them has a pixel that is not transparent
	SVGs      int    `json:"svgs"`      // svg elements with child elements
	CanvasErr string `json:"canvasErr"` // reading the pixels failed
}

// figuresJS lists the page's figure.chart elements. A canvas counts as
// painted when one pixel's alpha is not 0 (getImageData over the whole
// canvas; a chart's canvas is at most a few million pixels).
const figuresJS = `Array.from(document.querySelectorAll('figure.chart')).map(f => {
  const r = {id: f.id, kind: f.dataset.kind || '', drawn: f.dataset.drawn || '', canvases: 0, painted: false, svgs: 0, canvasErr: ''};
  for (const c of f.querySelectorAll('canvas')) {
    if (!(c.width > 0 && c.height > 0)) continue;
    r.canvases++;
    if (r.painted) continue;
    try {
      const g = c.getContext('2d');
      if (!g) { r.canvasErr = 'no 2d context'; continue; }
      const d = g.getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < d.length; i += 4) { if (d[i] !== 0) { r.painted = true; break; } }
    } catch (e) { r.canvasErr = String(e); }
  }
  for (const s of f.querySelectorAll('svg')) { if (s.childElementCount > 0) r.svgs++; }
  return r;
})`

// loadedPage is what a report page did in the browser. Ctx evaluates more
// in the loaded page until the test ends.
type loadedPage struct {
	Ctx        context.Context
	URL        string
	Ready      bool          // html[data-ready="1"] came within readyTimeout
	ReadyAfter time.Duration // from the navigation's start
	Report     *reportState  // nil: window.pgtrialReport is not an object
	ReportErr  string        // why Report is nil
	Figures    []figureState
	Screenshot string // PNG of the whole page in the test's temporary directory

	mu         sync.Mutex
	console    []string // console.error calls and error entries of the browser log
	exceptions []string // uncaught exceptions
	requests   []string // URLs other than file: and data: the page asked for (all failed)
	dialogs    []string // alert, confirm, prompt (all dismissed)
}

func (p *loadedPage) record(list *[]string, s string) {
	p.mu.Lock()
	*list = append(*list, s)
	p.mu.Unlock()
}

// Console, Exceptions, Requests and Dialogs are copies of what the page did
// so far.
func (p *loadedPage) Console() []string    { return p.copyOf(&p.console) }
func (p *loadedPage) Exceptions() []string { return p.copyOf(&p.exceptions) }
func (p *loadedPage) Requests() []string   { return p.copyOf(&p.requests) }
func (p *loadedPage) Dialogs() []string    { return p.copyOf(&p.dialogs) }

func (p *loadedPage) copyOf(list *[]string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(*list)
}

// localURL: what a report page may load (its own file and data: URLs).
func localURL(u string) bool {
	return strings.HasPrefix(u, "file:") || strings.HasPrefix(u, "data:")
}

// loadPage loads the HTML file path in a fresh headless Chromium (no
// sandbox: the tests run as root; network emulated offline and every
// request but file: and data: failed by the Fetch domain and recorded),
// waits for html[data-ready="1"], reads window.pgtrialReport and the
// figures, and saves a full-page screenshot (also into $PGTRIAL_SCREENSHOTS
// when that is a directory, named after the test). Failures of the harness
// itself (no browser start, no load, no screenshot) fail the test; what the
// page did is for checkReportPage or the test to judge.
func loadPage(t *testing.T, path string) *loadedPage {
	t.Helper()
	exe := chromium(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &loadedPage{URL: "file://" + filepath.ToSlash(abs)}

	life, cancelLife := context.WithTimeout(context.Background(), browserLife)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-proxy-server", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(life, opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		cancelLife()
	})
	p.Ctx = ctx
	if err := chromedp.Do(ctx); err != nil { // starts the browser and the tab
		t.Fatalf("starting %s: %v", exe, err)
	}

	// Subscribe before anything can happen.
	messages := chromedp.Console(ctx)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	var wg sync.WaitGroup
	t.Cleanup(func() { cancelCtx(); wg.Wait() })
	wg.Go(func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			switch {
			case m.IsException():
				p.record(&p.exceptions, fmt.Sprintf("%s:%d: %s", m.URL, m.Line+1, m.Text))
			case m.Type == chromedp.ConsoleError:
				p.record(&p.console, fmt.Sprintf("%s:%d: %s", m.URL, m.Line+1, m.Text))
			}
		}
	})
	wg.Go(func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if localURL(ev.Request.URL) {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			p.record(&p.requests, ev.Request.URL)
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	})
	wg.Go(func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			p.record(&p.dialogs, fmt.Sprintf("%s(%q)", ev.Type, ev.Message))
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	})

	// The network off: offline for every URL, and the interception above.
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}},
	}); err != nil {
		t.Fatalf("network offline: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatalf("network state offline: %v", err)
	}
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		t.Fatalf("request interception: %v", err)
	}

	began := time.Now()
	navCtx, cancelNav := context.WithTimeout(ctx, readyTimeout)
	defer cancelNav()
	if err := chromedp.Do(navCtx, chromedp.Navigate(p.URL)); err != nil {
		t.Fatalf("loading %s: %v", p.URL, err)
	}
	for time.Since(began) < readyTimeout {
		ready, err := chromedp.Run(navCtx, chromedp.Evaluate[string](`document.documentElement.getAttribute('data-ready') || ''`))
		if err == nil && ready == "1" {
			p.Ready, p.ReadyAfter = true, time.Since(began)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	evalCtx, cancelEval := context.WithTimeout(ctx, 20*time.Second)
	defer cancelEval()
	switch rep, err := chromedp.Run(evalCtx, chromedp.Evaluate[*reportState](`window.pgtrialReport`)); {
	case err != nil:
		p.ReportErr = fmt.Sprintf("window.pgtrialReport: %v", err)
	case rep == nil:
		p.ReportErr = "window.pgtrialReport is not set"
	default:
		p.Report = rep
	}
	figs, err := chromedp.Run(evalCtx, chromedp.Evaluate[[]figureState](figuresJS))
	if err != nil {
		t.Fatalf("reading the figures: %v", err)
	}
	p.Figures = figs

	shot, err := chromedp.Run(evalCtx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p.Screenshot = filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".html")+".png")
	if err := os.WriteFile(p.Screenshot, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s", path, p.Screenshot)
	if dir := os.Getenv("PGTRIAL_SCREENSHOTS"); dir != "" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			keep := filepath.Join(dir, screenshotName(t.Name()+"-"+filepath.Base(path))+".png")
			if err := os.WriteFile(keep, shot, 0o644); err != nil {
				t.Errorf("PGTRIAL_SCREENSHOTS: %v", err)
			} else {
				t.Logf("screenshot kept: %s", keep)
			}
		}
	}
	return p
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// screenshotName makes a file name of a test's name (subtests have slashes).
func screenshotName(test string) string {
	return strings.Trim(unsafeName.ReplaceAllString(test, "_"), "_")
}

// evalIn evaluates expr in the loaded page, within 10 s.
func evalIn[T any](t *testing.T, p *loadedPage, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// pageProblems is what is wrong with a loaded report page by the DOM
// contract: it became ready, logged no console error, threw no exception,
// opened no dialog, asked for nothing off file: and data:, and
// window.pgtrialReport says every one of its charts (more than none) was
// drawn without errors; each figure.chart is marked drawn and holds a
// painted canvas or an SVG with elements.
func pageProblems(p *loadedPage) []string {
	var out []string
	if !p.Ready {
		out = append(out, fmt.Sprintf(`html[data-ready="1"] not set within %v`, readyTimeout))
	}
	for _, m := range p.Console() {
		out = append(out, "console error: "+m)
	}
	for _, m := range p.Exceptions() {
		out = append(out, "exception: "+m)
	}
	for _, m := range p.Dialogs() {
		out = append(out, "dialog opened (script ran that should not): "+m)
	}
	for _, u := range p.Requests() {
		out = append(out, "request off the file (network disabled): "+u)
	}
	if p.Report == nil {
		out = append(out, p.ReportErr)
	} else {
		r := p.Report
		if r.Charts <= 0 {
			out = append(out, fmt.Sprintf("pgtrialReport.charts = %d, want charts", r.Charts))
		}
		if r.Drawn != r.Charts {
			out = append(out, fmt.Sprintf("pgtrialReport: drawn %d of %d charts", r.Drawn, r.Charts))
		}
		for _, e := range r.Errors {
			out = append(out, "pgtrialReport.errors: "+e)
		}
		if len(p.Figures) != r.Charts {
			out = append(out, fmt.Sprintf("%d figure.chart elements, pgtrialReport.charts = %d", len(p.Figures), r.Charts))
		}
	}
	for _, f := range p.Figures {
		switch f.Drawn {
		case "canvas":
			if f.Canvases == 0 || !f.Painted {
				out = append(out, fmt.Sprintf("%s (%s): data-drawn=canvas but %d canvases, painted %v %s", f.ID, f.Kind, f.Canvases, f.Painted, f.CanvasErr))
			}
		case "svg":
			if f.SVGs == 0 {
				out = append(out, fmt.Sprintf("%s (%s): data-drawn=svg but no svg with elements", f.ID, f.Kind))
			}
		default:
			out = append(out, fmt.Sprintf("%s (%s): data-drawn=%q, want canvas or svg", f.ID, f.Kind, f.Drawn))
		}
	}
	return out
}

// checkReportPage fails the test for every problem of pageProblems.
func checkReportPage(t *testing.T, p *loadedPage) {
	t.Helper()
	for _, pr := range pageProblems(p) {
		t.Error(pr)
	}
	if p.Report != nil {
		t.Logf("%s: %d charts, %d drawn, %d markers, ready after %v", p.URL, p.Report.Charts, p.Report.Drawn, len(p.Report.Markers), p.ReadyAfter.Round(time.Millisecond))
	}
}

// checklistJS counts the checklist's rows by data-status (DOM16: <table
// class="checklist"> with <tr data-status="pass|warn|fail">); any other
// status counts under its own name.
const checklistJS = `(() => { const n = {}; for (const tr of document.querySelectorAll('table.checklist tr[data-status]')) { const s = tr.dataset.status; n[s] = (n[s] || 0) + 1; } return n; })()`

// checkChecklist fails the test unless the page has a checklist whose rows
// are all pass, warn or fail.
func checkChecklist(t *testing.T, p *loadedPage) {
	t.Helper()
	n := evalIn[map[string]int](t, p, checklistJS)
	rows := 0
	for s, c := range n {
		if s != "pass" && s != "warn" && s != "fail" {
			t.Errorf(`%d checklist rows with data-status=%q`, c, s)
		}
		rows += c
	}
	if rows == 0 {
		t.Errorf(`no table.checklist with tr[data-status] rows`)
	}
}

// stallMarkers are the markers of kind "stall" on time charts (the
// timeline's panels): pgtrialReport.markers whose chart's figure has
// data-kind="time".
func stallMarkers(p *loadedPage) []reportMarker {
	if p.Report == nil {
		return nil
	}
	kind := map[string]string{}
	for _, f := range p.Figures {
		kind[strings.TrimPrefix(f.ID, "chart-")] = f.Kind
	}
	var out []reportMarker
	for _, m := range p.Report.Markers {
		if m.Kind == "stall" && kind[m.Chart] == "time" {
			out = append(out, m)
		}
	}
	return out
}

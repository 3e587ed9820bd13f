package cli

import (
	"crypto/sha256"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeScript draws the page's one canvas chart and its SVG chart's
// data-drawn, then publishes window.pgtrialReport and data-ready as the DOM
// contract (DOM16) says the real page does.
const fakeScript = `(function () {
  var data = JSON.parse(document.getElementById('data-t1').textContent);
  var f = document.getElementById('chart-t1');
  var c = document.createElement('canvas');
  c.width = 300; c.height = 100;
  var g = c.getContext('2d');
  g.strokeStyle = '#0055aa'; g.lineWidth = 2; g.beginPath();
  data.y.forEach(function (y, i) { if (i === 0) g.moveTo(i * 100, 100 - y); else g.lineTo(i * 100, 100 - y); });
  g.stroke();
  f.appendChild(c); f.setAttribute('data-drawn', 'canvas');
  document.getElementById('chart-f1').setAttribute('data-drawn', 'svg');
  window.pgtrialReport = {charts: 2, drawn: 2, errors: [], markers: [{chart: 't1', kind: 'stall', label: 'lock on pgbench_branches', x: 6}]};
  document.documentElement.setAttribute('data-ready', '1');
})();`

// fakePage is a report page by the DOM contract: a CSP that allows only
// its inline script (by hash), a time chart drawn on a canvas with a stall
// marker listed under it, and a forest chart as inline SVG.
func fakePage(script, extraBody string) string {
	sum := sha256.Sum256([]byte(script))
	hash := base64.StdEncoding.EncodeToString(sum[:])
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-` + hash + `'; style-src 'unsafe-inline'; img-src data:">
<title>fake report</title></head>
<body>
<h1>fake report &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</h1>
<figure class="chart" id="chart-t1" data-kind="time"></figure>
<script type="application/json" id="data-t1">{"y":[10,60,30,80]}</script>
<ul class="markers"><li data-kind="stall">lock on pgbench_branches (at 6.0 s)</li></ul>
<table class="checklist"><tr data-status="pass"><td>window</td></tr><tr data-status="warn"><td>repeats</td></tr></table>
<figure class="chart" id="chart-f1" data-kind="forest"><svg xmlns="http://www.w3.org/2000/svg" width="100" height="20"><line x1="0" y1="10" x2="100" y2="10" stroke="black"/></svg></figure>
` + extraBody + `
<script>` + script + `</script>
</body></html>
`
}

// TestBrowserHarness: the harness passes a page that keeps the DOM
// contract, and names every fault of one that does not: a console error, an
// exception, an alert, a request to the network, a blank canvas, charts not
// drawn; and a script the CSP does not allow does not run.
func TestBrowserHarness(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.html")
	if err := os.WriteFile(good, []byte(fakePage(fakeScript, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	p := loadPage(t, good)
	checkReportPage(t, p)
	if got := stallMarkers(p); len(got) != 1 || got[0].Chart != "t1" {
		t.Errorf("stall markers %+v, want one on t1", got)
	}
	if n := evalIn[int](t, p, `document.querySelectorAll('ul.markers li[data-kind="stall"]').length`); n != 1 {
		t.Errorf("%d stall items in ul.markers", n)
	}
	if text := evalIn[string](t, p, `document.body.innerText`); !strings.Contains(text, "<img src=x onerror=alert(1)>") {
		t.Errorf("the escaped text is not shown: %q", text)
	}
	checkChecklist(t, p)
	if fi, err := os.Stat(p.Screenshot); err != nil || fi.Size() == 0 {
		t.Errorf("screenshot %s: %v", p.Screenshot, err)
	}

	// A page that breaks the contract every way the harness checks. Its
	// script is allowed by hash; the inline handler and the second
	// script are not (CSP), so their alert must not open.
	badScript := `(function () {
  console.error('boom');
  var c = document.createElement('canvas'); c.width = 50; c.height = 50;
  document.getElementById('chart-t1').appendChild(c);
  document.getElementById('chart-t1').setAttribute('data-drawn', 'canvas');
  var i = document.createElement('img'); i.src = 'http://192.0.2.1/pixel.png'; document.body.appendChild(i);
  window.pgtrialReport = {charts: 2, drawn: 1, errors: ['forest: no data'], markers: []};
  document.documentElement.setAttribute('data-ready', '1');
  setTimeout(function () { alert('from an allowed script'); }, 0);
  setTimeout(function () { null.x; }, 0);
})();`
	bad := filepath.Join(dir, "bad.html")
	blocked := `<img src="data:," onerror="alert('inline handler')"><script>alert('script without hash')</script>`
	if err := os.WriteFile(bad, []byte(fakePage(badScript, blocked)), 0o600); err != nil {
		t.Fatal(err)
	}
	q := loadPage(t, bad)
	problems := pageProblems(q)
	joined := strings.Join(problems, "\n")
	for _, want := range []string{
		"console error: ", "boom",
		"exception: ", "TypeError",
		`dialog opened (script ran that should not): alert("from an allowed script")`,
		"Loading the image 'http://192.0.2.1/pixel.png' violates",
		"drawn 1 of 2 charts",
		"pgtrialReport.errors: forest: no data",
		"chart-t1 (time): data-drawn=canvas but 1 canvases, painted false",
		`chart-f1 (forest): data-drawn="", want canvas or svg`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the faulty page's problems do not say %q:\n%s", want, joined)
		}
	}
	if slices.ContainsFunc(q.Dialogs(), func(d string) bool {
		return strings.Contains(d, "inline handler") || strings.Contains(d, "without hash")
	}) {
		t.Errorf("a script the CSP forbids ran: %v", q.Dialogs())
	}
	// The CSP's refusals are console errors too (a page of ours with a
	// refused script has a wrong hash).
	if !strings.Contains(joined, "Content Security Policy") {
		t.Errorf("the CSP's refusals are not among the problems:\n%s", joined)
	}

	// Without a CSP the page's requests reach the interception: each is
	// recorded and failed.
	nocsp := filepath.Join(dir, "nocsp.html")
	if err := os.WriteFile(nocsp, []byte(`<!DOCTYPE html><html><head><link rel="stylesheet" href="https://192.0.2.1/x.css"></head><body>
<img src="http://192.0.2.1/pixel.png">
<script>fetch('http://192.0.2.1/data.json').catch(function () {}); document.documentElement.setAttribute('data-ready', '1');</script>
</body></html>`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := loadPage(t, nocsp)
	problems = pageProblems(r)
	joined = strings.Join(problems, "\n")
	for _, want := range []string{
		"request off the file (network disabled): https://192.0.2.1/x.css",
		"request off the file (network disabled): http://192.0.2.1/pixel.png",
		"window.pgtrialReport",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the page without a CSP: problems do not say %q:\n%s", want, joined)
		}
	}
}

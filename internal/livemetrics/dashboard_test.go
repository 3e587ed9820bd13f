package livemetrics

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// dashboardFile is the Grafana dashboard shipped in the repository.
var dashboardFile = filepath.Join("..", "..", "docs", "grafana", "pgtrial.json")

// queries are the PromQL of a dashboard: every panel target's expr and
// every template variable's query, with where they are.
func queries(t *testing.T, dash map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	panels, _ := dash["panels"].([]any)
	if len(panels) == 0 {
		t.Fatal("the dashboard has no panels")
	}
	var walkPanels func(ps []any)
	walkPanels = func(ps []any) {
		for _, p := range ps {
			pm, _ := p.(map[string]any)
			title, _ := pm["title"].(string)
			if sub, ok := pm["panels"].([]any); ok { // a row's panels
				walkPanels(sub)
			}
			if pm["type"] == "row" {
				continue
			}
			targets, _ := pm["targets"].([]any)
			if len(targets) == 0 {
				t.Errorf("panel %q has no query", title)
			}
			for i, tg := range targets {
				expr, _ := tg.(map[string]any)["expr"].(string)
				if strings.TrimSpace(expr) == "" {
					t.Errorf("panel %q: target %d has no expr", title, i)
					continue
				}
				out[expr] = "panel " + title
			}
		}
	}
	walkPanels(panels)
	tmpl, _ := dash["templating"].(map[string]any)
	vars, _ := tmpl["list"].([]any)
	for _, v := range vars {
		vm, _ := v.(map[string]any)
		if vm["type"] != "query" {
			continue
		}
		q := vm["query"]
		if qm, ok := q.(map[string]any); ok {
			q = qm["query"]
		}
		if s, ok := q.(string); ok && s != "" {
			out[s] = "variable " + vm["name"].(string)
		}
	}
	return out
}

var metricName = regexp.MustCompile(`\bpgtrial_[A-Za-z0-9_]*`)

// served says whether a name a query uses is in the scrape: a family, or a
// histogram family's _bucket, _count or _sum series.
func served(fams map[string]*dto.MetricFamily, name string) bool {
	if fams[name] != nil {
		return true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f := fams[base]; f != nil && f.GetType() == dto.MetricType_HISTOGRAM {
				return true
			}
		}
	}
	return false
}

// balanced says whether a query's (), {} and [] pair up outside strings.
func balanced(q string) bool {
	var stack []rune
	inString := false
	for i, r := range q {
		if r == '"' && (i == 0 || q[i-1] != '\\') {
			inString = !inString
		}
		if inString {
			continue
		}
		switch r {
		case '(', '{', '[':
			stack = append(stack, r)
		case ')', '}', ']':
			open := map[rune]rune{')': '(', '}': '{', ']': '['}[r]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0 && !inString
}

// TestDashboardQueriesServedMetrics: every metric the dashboard queries is
// in a scrape of the server (text format, as any Prometheus reads it), and
// every metric served is shown by some panel.
func TestDashboardQueriesServedMetrics(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	srv, err := Serve("127.0.0.1:0", false, fed().Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fams, err := Scrape(context.Background(), srv.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for q, where := range queries(t, dash) {
		if !balanced(q) {
			t.Errorf("%s: unbalanced brackets in %q", where, q)
		}
		names := metricName.FindAllString(q, -1)
		if len(names) == 0 {
			t.Errorf("%s: %q names no pgtrial metric", where, q)
		}
		for _, n := range names {
			if !served(fams, n) {
				t.Errorf("%s: %q queries %s, which the server does not serve", where, q, n)
			}
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				if base, ok := strings.CutSuffix(n, suffix); ok && fams[base] != nil {
					n = base
				}
			}
			used[n] = true
		}
	}
	var names []string
	for n := range fams {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if !used[n] {
			t.Errorf("%s is served but no panel of the dashboard shows it", n)
		}
	}
	t.Logf("%d metrics served, all queried", len(names))
}

func TestBalanced(t *testing.T) {
	for q, want := range map[string]bool{
		`sum(rate(x{a="b"}[1m]))`: true,
		`sum(rate(x{a="("}[1m]))`: true,
		`sum(rate(x{a="b"}[1m])`:  false,
		`x{a="b"]`:                false,
	} {
		if balanced(q) != want {
			t.Errorf("balanced(%q) = %v", q, !want)
		}
	}
}

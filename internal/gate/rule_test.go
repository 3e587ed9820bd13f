package gate

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	rules, err := Parse(" tps<-3% , p99 > +5%,P99.9>10.5%,max>0%")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tps<-3%", "p99>+5%", "p99.9>+10.5%", "max>+0%"}
	if len(rules) != len(want) {
		t.Fatalf("rules = %v, want %v", rules, want)
	}
	for i, r := range rules {
		if r.String() != want[i] {
			t.Errorf("rule %d = %s, want %s", i, r, want[i])
		}
	}
	if rules[0].Change != -0.03 || rules[0].Higher() || rules[0].Column != 2 {
		t.Errorf("tps rule = %+v, want change -0.03, op <, column 2", rules[0])
	}
	if got := rules[1].Threshold(); got != 1.05 {
		t.Errorf("p99's threshold = %v, want 1.05", got)
	}
	if rules[1].Column != 12 || !rules[1].Higher() {
		t.Errorf("p99 rule = %+v, want column 12, op >", rules[1])
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		column int
		msg    string
	}{
		{"p99>>5%", 5, "expected a number"},
		{"", 1, "no rules"},
		{"p98>+5%", 1, `unknown metric "p98"`},
		{"tps=-3%", 4, "expected < or >"},
		{"tps<-3", 7, "expected %"},
		{"tps<-3%,", 9, "empty rule"},
		{"tps<-3%,,p99>5%", 9, "empty rule"},
		{"tps<-3% p99>5%", 9, "separated by commas"},
		{"tps<+3%", 5, "needs a decrease (tps<-3%)"},
		{"p99>-5%", 5, "needs an increase (p99>+5%)"},
		{"tps<-100%", 5, "cannot happen"},
		{"p99>+20000%", 5, "not a threshold"},
		{"tps<-1.2.3%", 5, "expected a number"},
		{"tps<-3%,p99>5%,p99>+6%", 16, "a second rule > for p99"},
		{"<5%", 1, "expected a metric"},
		{"tps<-%", 5, "expected a number"},
		{"tps<-3%x", 8, `unexpected 'x'`},
		{"é<5%", 1, "expected a metric"},
		{"p99>+5%,tps<-9999999999999999%", 13, "cannot happen"},
	} {
		_, err := Parse(tc.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want a ParseError", tc.in, err)
			continue
		}
		if pe.Column != tc.column || !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("Parse(%q): column %d: %s; want column %d: …%s…", tc.in, pe.Column, pe.Msg, tc.column, tc.msg)
		}
		if !strings.HasPrefix(err.Error(), `"`+tc.in+`": column `) {
			t.Errorf("Parse(%q): %q does not start with the input and the column", tc.in, err)
		}
	}
}

func TestParseTooMany(t *testing.T) {
	var parts []string
	for range MaxRules + 1 {
		parts = append(parts, "tps<-3%")
	}
	if _, err := Parse(strings.Join(parts, ",")); err == nil || !strings.Contains(err.Error(), "more than") && !strings.Contains(err.Error(), "second rule") {
		t.Errorf("Parse of %d rules: %v, want a refusal", MaxRules+1, err)
	}
}

// FuzzParse: any text either parses into rules that print and parse back
// to themselves, or is refused with a column inside the text (or just past
// its end); never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"tps<-3%", "p99>+5%,tps<-3%", "p99>>5%", " max > 20 % ", "tps<-3%,", "p99.9>0.5%", "é<1%", "tps<-1e3%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rules, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): %v is not a ParseError", s, err)
			}
			if n := len([]rune(s)); pe.Column < 1 || pe.Column > n+1 {
				t.Fatalf("Parse(%q): column %d outside 1..%d", s, pe.Column, n+1)
			}
			return
		}
		if len(rules) == 0 || len(rules) > MaxRules {
			t.Fatalf("Parse(%q) = %d rules", s, len(rules))
		}
		var parts []string
		for _, r := range rules {
			if r.Higher() && r.Change < 0 || !r.Higher() && (r.Change > 0 || r.Change <= -1) {
				t.Fatalf("Parse(%q): rule %+v has a change on the wrong side", s, r)
			}
			parts = append(parts, r.String())
		}
		again, err := Parse(strings.Join(parts, ","))
		if err != nil || len(again) != len(rules) {
			t.Fatalf("Parse(%q) = %v, printed back %q: %v", s, rules, strings.Join(parts, ","), err)
		}
		for i := range again {
			if again[i].Metric != rules[i].Metric || again[i].Op != rules[i].Op || mathAbs(again[i].Change-rules[i].Change) > 1e-6 {
				t.Fatalf("Parse(%q): rule %d = %+v, printed and parsed back %+v", s, i, rules[i], again[i])
			}
		}
	})
}

func mathAbs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestParseTinyChange(t *testing.T) {
	r, err := Parse("tps<-0.00001%")
	if err != nil || r[0].String() != "tps<+0%" {
		t.Fatalf("Parse = %v, %v; want tps<+0%%", r, err)
	}
	if _, err := Parse(r[0].String()); err != nil {
		t.Fatal(err)
	}
}

package metrics

import "testing"

func TestQuantileNames(t *testing.T) {
	qs := Quantiles()
	names := QuantileNames()
	if len(qs) != 5 || len(names) != len(qs) {
		t.Fatalf("Quantiles = %v, names %v", qs, names)
	}
	for i, q := range qs {
		if i > 0 && !(q.Q > qs[i-1].Q) {
			t.Errorf("Quantiles not increasing: %v", qs)
		}
		if v, ok := QuantileNamed(q.Name); !ok || v != q.Q {
			t.Errorf("QuantileNamed(%q) = %v, %v", q.Name, v, ok)
		}
		if n, ok := QuantileName(q.Q); !ok || n != q.Name || names[i] != q.Name {
			t.Errorf("QuantileName(%v) = %q, %v", q.Q, n, ok)
		}
	}
	if v, ok := QuantileNamed("P99.9"); !ok || v != 0.999 {
		t.Errorf("QuantileNamed is not case-insensitive: %v %v", v, ok)
	}
	if _, ok := QuantileNamed("p75"); ok {
		t.Error("QuantileNamed(p75) is known")
	}
	if _, ok := QuantileName(0.75); ok {
		t.Error("QuantileName(0.75) is known")
	}
}

package chart

import (
	"encoding/json"
	"math"
	"testing"
)

func TestValuesJSON(t *testing.T) {
	b, err := json.Marshal(Values{1, math.NaN(), 1234567.89, math.Inf(1), 0.000123456789})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `[1,null,1.23457e+06,null,0.000123457]`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	var v Values
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v) != 5 || v[0] != 1 || !math.IsNaN(v[1]) || !math.IsNaN(v[3]) {
		t.Fatalf("round trip: %v", v)
	}
}

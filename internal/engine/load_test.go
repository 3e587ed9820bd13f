package engine

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestParsePolicies(t *testing.T) {
	for i, name := range ArrivalNames() {
		a, ok := ParseArrival(name)
		if !ok || int(a) != i || a.String() != name {
			t.Errorf("ParseArrival(%q) = %v, %v", name, a, ok)
		}
	}
	for i, name := range OverloadNames() {
		o, ok := ParseOverload(name)
		if !ok || int(o) != i || o.String() != name {
			t.Errorf("ParseOverload(%q) = %v, %v", name, o, ok)
		}
	}
	if a, ok := ParseArrival("Uniform"); !ok || a != Uniform {
		t.Errorf("ParseArrival is not case-insensitive: %v %v", a, ok)
	}
	if _, ok := ParseArrival("exponential"); ok {
		t.Error("ParseArrival accepted exponential")
	}
	if _, ok := ParseOverload(""); ok {
		t.Error("ParseOverload accepted an empty name")
	}
}

func TestLoadValidate(t *testing.T) {
	fields := func(errs []error) []string {
		var out []string
		for _, err := range errs {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("%T %v, want a *FieldError", err, err)
			}
			out = append(out, fe.Field)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		load Load
		want []string
	}{
		{"closed", Load{Clients: 4}, nil},
		{"open", Load{Clients: 4, Threads: 8, Rate: 500, Arrival: Uniform, Overload: Drop, LatencyLimit: time.Second}, nil},
		{"largest", Load{Clients: MaxClients, Rate: MaxRate}, nil},
		{"no clients", Load{}, []string{FieldClients}},
		{"too many clients", Load{Clients: MaxClients + 1}, []string{FieldClients}},
		{"negative threads", Load{Clients: 1, Threads: -1}, []string{FieldThreads}},
		{"too many threads", Load{Clients: 1, Threads: MaxClients + 1}, []string{FieldThreads}},
		{"negative rate", Load{Clients: 1, Rate: -1}, []string{FieldRate}},
		{"NaN rate", Load{Clients: 1, Rate: math.NaN()}, []string{FieldRate}},
		{"infinite rate", Load{Clients: 1, Rate: math.Inf(1)}, []string{FieldRate}},
		{"rate over the limit", Load{Clients: 1, Rate: 2 * MaxRate}, []string{FieldRate}},
		{"unknown policies", Load{Clients: 1, Rate: 1, Arrival: 7, Overload: 9}, []string{FieldArrival, FieldOverload}},
		{"everything", Load{Clients: -1, Threads: -1, Rate: -1, LatencyLimit: -time.Millisecond},
			[]string{FieldClients, FieldThreads, FieldRate, FieldLatencyLimit}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fields(tc.load.Validate())
			if len(got) != len(tc.want) {
				t.Fatalf("Validate = %v, want errors on %v", tc.load.Validate(), tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("Validate = %v, want errors on %v", tc.load.Validate(), tc.want)
				}
			}
		})
	}
	err := Load{Clients: 0}.Validate()[0]
	if want := "clients 0 is out of range: at least 1 client"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

func TestLoadGroups(t *testing.T) {
	for _, tc := range []struct {
		load Load
		want int
	}{
		{Load{Clients: 8, Threads: 2}, 2},
		{Load{Clients: 2, Threads: 8}, 2}, // at most one per client
		{Load{Clients: 1}, 1},
		{Load{Clients: 1_000}, DefaultThreads(1_000)},
	} {
		if got := tc.load.Groups(); got != tc.want {
			t.Errorf("%+v: Groups = %d, want %d", tc.load, got, tc.want)
		}
	}
	if d := DefaultThreads(1_000); d < 1 || d > 1_000 {
		t.Errorf("DefaultThreads(1000) = %d", d)
	}
}

func TestFieldErrorFlag(t *testing.T) {
	errs := Load{Clients: 1, LatencyLimit: -1}.Validate()
	var fe *FieldError
	if len(errs) != 1 || !errors.As(errs[0], &fe) || fe.Flag() != "--latency-limit" {
		t.Errorf("Validate = %v, want one error on --latency-limit", errs)
	}
}

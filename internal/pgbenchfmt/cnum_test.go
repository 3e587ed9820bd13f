package pgbenchfmt

import (
	"math"
	"testing"
)

func TestOptionParseInt(t *testing.T) {
	tests := []struct {
		in      string
		min     int
		want    int
		wantErr string
	}{
		{in: "4", min: 1, want: 4},
		{in: " 4 ", min: 1, want: 4},
		{in: "+4\t", min: 1, want: 4},
		{in: "2147483647", min: 1, want: 2147483647},
		{in: "0", min: 0, want: 0},
		{in: "", min: 0, want: 0}, // strtol reads nothing, nothing is left: 0
		{in: "  ", min: 0, want: 0},
		{in: "", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "0", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "-1", min: 0, wantErr: "-x/--y must be in range 0..2147483647"},
		{in: "2147483648", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "99999999999999999999", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "three", min: 1, wantErr: `invalid value "three" for option -x/--y`},
		{in: "4x", min: 1, wantErr: `invalid value "4x" for option -x/--y`},
		{in: "0x10", min: 1, wantErr: `invalid value "0x10" for option -x/--y`},
		{in: "4 x", min: 1, wantErr: `invalid value "4 x" for option -x/--y`},
		{in: " -", min: 1, wantErr: `invalid value " -" for option -x/--y`},
		{in: "1.5", min: 1, wantErr: `invalid value "1.5" for option -x/--y`},
	}
	for _, tt := range tests {
		got, err := optionParseInt(tt.in, "-x/--y", tt.min, math.MaxInt32)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("optionParseInt(%q) = %d, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("optionParseInt(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

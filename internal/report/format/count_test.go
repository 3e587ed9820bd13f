package format

import (
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {4210, "4,210"}, {123456, "123,456"},
		{1234567, "1,234,567"}, {-1234567, "-1,234,567"}, {-12, "-12"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Count(tt.n); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

package topic

import (
	"slices"
	"testing"
)

func TestSplitCost(t *testing.T) {
	for _, c := range []struct {
		micros int64
		n      int
		want   []int64
	}{
		{501, 2, []int64{251, 250}},
		{500, 2, []int64{250, 250}},
		{2, 3, []int64{1, 1, 0}},
		{7, 1, []int64{7}},
		{0, 2, []int64{0, 0}},
		{5, 0, nil},
	} {
		if got := SplitCost(c.micros, c.n); !slices.Equal(got, c.want) {
			t.Errorf("SplitCost(%d, %d) = %v, want %v", c.micros, c.n, got, c.want)
		}
	}
}

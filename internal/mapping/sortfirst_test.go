package mapping

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortFirst gives the first k elements a full sort gives, whatever k, the
// length and the number of equal values.
func TestSortFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := r.IntN(300)
		distinct := 1 + r.IntN(400)
		list := make([]int, n)
		for i := range list {
			list[i] = r.IntN(distinct)
		}
		want := slices.Clone(list)
		slices.Sort(want)
		k := 0
		if n > 0 {
			k = r.IntN(n + 1)
		}
		got := slices.Clone(list)
		sortFirst(got, k, cmp.Compare[int])
		if !slices.Equal(got[:k], want[:k]) {
			t.Fatalf("n %d, k %d: first k %v, want %v", n, k, got[:k], want[:k])
		}
		rest := slices.Clone(got[k:])
		slices.Sort(rest)
		if !slices.Equal(rest, want[k:]) {
			t.Fatalf("n %d, k %d: the rest is not the rest", n, k)
		}
	}
}

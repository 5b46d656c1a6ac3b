package mapping

import (
	"slices"
	"testing"
)

// The ids the processes share come back as they were packed, and what is
// not a packing is refused rather than read as ids.
func TestPackedIDsRoundTrip(t *testing.T) {
	for _, ids := range [][]int64{nil, {1}, {1, 2, 3}, {5, 130, 131, 1 << 20, 1<<40 + 7}} {
		got, ok := unpackIDs(packIDs(ids))
		if !ok || !slices.Equal(got, ids) {
			t.Errorf("%v came back as %v, %v", ids, got, ok)
		}
	}
	if _, ok := unpackIDs([]byte{0x80}); ok { // a varint cut short
		t.Error("a truncated packing was read as ids")
	}
}

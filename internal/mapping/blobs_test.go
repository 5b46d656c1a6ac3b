package mapping

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// blobs keeps every entry's bytes through replacements and the rewrites
// they cause, and tells unset entries from empty ones.
func TestBlobs(t *testing.T) {
	var b blobs
	want := map[int64][]byte{}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 20_000 {
		i := int64(r.IntN(500))
		switch r.IntN(4) {
		case 0:
			b.put(i, nil)
			delete(want, i)
		case 1:
			b.put(i, []byte{})
			want[i] = []byte{}
		default:
			v := bytes.Repeat([]byte(fmt.Sprint(step)), 1+r.IntN(200))
			b.put(i, v)
			want[i] = v
		}
	}
	for i := int64(-1); i < 600; i++ {
		got, w := b.get(i), want[i]
		if (got == nil) != (w == nil) || !bytes.Equal(got, w) {
			t.Fatalf("entry %d: %d bytes (nil %t), want %d (nil %t)", i, len(got), got == nil, len(w), w == nil)
		}
	}
	if b.garbage > len(b.data)/2+1<<20 {
		t.Fatalf("%d of %d bytes are garbage", b.garbage, len(b.data))
	}
}

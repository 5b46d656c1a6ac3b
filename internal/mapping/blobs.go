package mapping

// blobs holds byte strings by index (a post id) in one buffer, without a
// pointer per entry: social mapping's copy of the packed engagements holds
// millions of them, and the garbage collector would otherwise scan every
// one of them on every cycle. A replaced entry leaves its old bytes behind
// until they outweigh the live ones; then the buffer is rewritten.
type blobs struct {
	data    []byte
	spans   []blobSpan
	garbage int
}

// blobSpan is where an entry's bytes are; set is false for an entry that
// has none (as opposed to an empty one).
type blobSpan struct {
	off uint64
	n   uint32
	set bool
}

// get returns entry i (nil when it is not set; never nil when it is).
func (b *blobs) get(i int64) []byte {
	if i < 0 || i >= int64(len(b.spans)) || !b.spans[i].set {
		return nil
	}
	s := b.spans[i]
	return b.data[s.off : s.off+uint64(s.n) : s.off+uint64(s.n)]
}

// put sets entry i to v, or unsets it when v is nil.
func (b *blobs) put(i int64, v []byte) {
	if i < 0 {
		return
	}
	if i >= int64(len(b.spans)) {
		if v == nil {
			return
		}
		b.spans = append(b.spans, make([]blobSpan, max(int(i)+1, 2*len(b.spans))-len(b.spans))...)
	}
	b.garbage += int(b.spans[i].n)
	b.spans[i] = blobSpan{}
	if v != nil {
		if len(b.data)+len(v) > cap(b.data) {
			// Doubled: a load puts millions of entries, and append's
			// growth of large slices (a quarter) copies the buffer over
			// and over.
			grown := make([]byte, len(b.data), 2*cap(b.data)+len(v))
			copy(grown, b.data)
			b.data = grown
		}
		b.spans[i] = blobSpan{off: uint64(len(b.data)), n: uint32(len(v)), set: true}
		b.data = append(b.data, v...)
	}
	if b.garbage > 1<<20 && b.garbage > len(b.data)/2 {
		b.compact()
	}
}

func (b *blobs) compact() {
	data := make([]byte, 0, len(b.data)-b.garbage)
	for i, s := range b.spans {
		if s.set {
			b.spans[i].off = uint64(len(data))
			data = append(data, b.data[s.off:s.off+uint64(s.n)]...)
		}
	}
	b.data, b.garbage = data, 0
}

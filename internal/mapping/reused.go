package mapping

import "sync"

// reused keeps a few buffers between queries. Unlike sync.Pool it does not
// drop them at a garbage collection: a query over new keywords allocates
// enough to start one, and the query would then fault in megabytes of
// fresh memory for its per-person buffers (about 14 µs a page on this
// machine; docs/decisions.md, "Fresh memory is slow here").
type reused[T any] struct {
	mu   sync.Mutex
	free []*T
}

// reusedKept bounds the buffers kept of each kind: as many as mapping
// queries tend to run at once.
const reusedKept = 4

// get returns a kept buffer, or nil.
func (r *reused[T]) get() *T {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.free)
	if n == 0 {
		return nil
	}
	b := r.free[n-1]
	r.free = r.free[:n-1]
	return b
}

// put keeps b, unless enough are kept.
func (r *reused[T]) put(b *T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.free) < reusedKept {
		r.free = append(r.free, b)
	}
}

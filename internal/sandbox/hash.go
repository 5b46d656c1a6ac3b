package sandbox

import "math"

// mix is the splitmix64 finaliser: a cheap, well-distributed 64-bit hash step.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hashString folds s into h (FNV-1a, then mixed) so strings feed the same hash chain as numbers.
func hashString(h uint64, s string) uint64 {
	f := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		f ^= uint64(s[i])
		f *= 1099511628211
	}
	return mix(h ^ f)
}

// hashN folds numbers into h.
func hashN(h uint64, xs ...uint64) uint64 {
	for _, x := range xs {
		h = mix(h ^ mix(x))
	}
	return h
}

// rng is a tiny deterministic generator seeded from a hash; each value in the world gets its own.
type rng struct{ s uint64 }

func newRNG(h uint64) *rng { return &rng{s: h} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// float returns a value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// heavy returns a heavy-tailed count in [0, max): most values small, a few large.
func (r *rng) heavy(scale float64) int { return int(math.Exp(r.float()*scale)) - 1 }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

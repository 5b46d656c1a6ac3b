package sandbox

import (
	"math"
	"time"
)

// tau is the time constant of engagement growth: a post gets ~63% of its final likes in tau.
const tau = 36 * time.Hour

// grown is final*(1-exp(-age/tau)), floored: 0 for a post not yet created, monotonic in now.
// The floor stays below final at any finite age; in floating point 1-exp(-age/tau) is exactly 1
// for posts older than about 56 days, so the cap keeps old posts (a 2024 activity id) agreeing
// with grownAt instead of showing a last engager that appears at now and moves with the clock.
func grown(final int, created, now time.Time) int {
	age := now.Sub(created)
	if age <= 0 || final <= 0 {
		return 0
	}
	return min(final-1, int(float64(final)*(1-math.Exp(-float64(age)/float64(tau)))))
}

// grownAt is when the k-th (0-based) unit of a metric with the given final value appears; ok is
// false if it never does. It inverts grown, so the k-th engager exists exactly when grown > k.
func grownAt(final, k int, created time.Time) (time.Time, bool) {
	if k+1 >= final {
		return time.Time{}, false
	}
	age := -float64(tau) * math.Log(1-float64(k+1)/float64(final))
	t := created.Add(time.Duration(age))
	return t, true
}

// engagerIndex returns the roster index of the k-th engager of a post: the k-th element of a
// per-post permutation of the roster, so engager lists only ever grow.
func (w *World) engagerIndex(postHash uint64, k int) int {
	n := uint64(len(w.shuffle))
	a := postHash%n | 1
	for a%5 == 0 { // a must be coprime to the roster size (2000 = 2^4 * 5^3)
		a += 2
	}
	b := (postHash >> 32) % n
	return w.shuffle[(a*uint64(k)+b)%n]
}

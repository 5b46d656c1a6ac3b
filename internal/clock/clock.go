// Package clock provides the controllable clock that tests inject wherever
// the service asks for the time (a func() time.Time), so that schedules are
// tested without waiting.
package clock

import (
	"sync"
	"time"
)

// Fake is a clock that moves only when told to. The zero value is not usable;
// make one with NewFake.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a clock stopped at t.
func NewFake(t time.Time) *Fake { return &Fake{now: t.UTC()} }

// Now returns the clock's time; pass c.Now where a func() time.Time is wanted.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Fake) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
}

package source

import (
	"context"
	"strconv"
	"sync"
)

// Micros is money spent at an upstream vendor, in millionths of a US dollar, so that sums
// of fractions of a cent stay exact.
type Micros int64

// USD is m as a decimal string of dollars with six places, "0.002000".
func (m Micros) USD() string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	frac := strconv.FormatInt(int64(m%1_000_000), 10)
	for len(frac) < 6 {
		frac = "0" + frac
	}
	return sign + strconv.FormatInt(int64(m/1_000_000), 10) + "." + frac
}

// Meter adds up what the upstream calls made under one operation cost. A caller puts one in
// the context (WithMeter) before it calls a connector, and reads Total beside the credits it
// charges; connectors add to it with AddCost. Safe for concurrent use.
type Meter struct {
	mu    sync.Mutex
	total Micros
	calls int
}

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// AddCost adds c to the Meter of ctx, if it carries one: one billed upstream call.
func AddCost(ctx context.Context, c Micros) {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	if m == nil {
		return
	}
	m.mu.Lock()
	m.total += c
	m.calls++
	m.mu.Unlock()
}

// Total is what the calls under m cost so far.
func (m *Meter) Total() Micros {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Calls is how many billed calls were made under m.
func (m *Meter) Calls() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

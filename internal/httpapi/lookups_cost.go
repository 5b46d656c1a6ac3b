package httpapi

import (
	"context"
	"fmt"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
)

// lookupBill is what a live lookup's upstream calls cost at the vendor, for the ledger:
// the connectors add to its meter (source.AddCost) as the vendor bills them, and the
// lookup records the total with its charge, or alone when it charges nothing (a failed
// call the vendor billed, an empty page): docs/decisions.md, "Upstream cost".
type lookupBill struct {
	meter   *source.Meter
	action  string
	feature credits.Feature
}

// meterLookup returns ctx carrying the meter of a lookup spending feature's credits
// under action (the endpoint).
func meterLookup(ctx context.Context, action string, feature credits.Feature) (context.Context, *lookupBill) {
	b := &lookupBill{meter: &source.Meter{}, action: action, feature: feature}
	return source.WithMeter(ctx, b.meter), b
}

// charge spends amount credits with the lookup's upstream cost beside them, and returns
// what the ledger recorded for x-spent-credits. A charge of nothing records the cost alone.
func (s *Server) charge(ctx context.Context, b *lookupBill, amount int64, reference string) (int64, error) {
	if amount <= 0 {
		s.recordLookupCost(ctx, b, reference)
		return 0, nil
	}
	p := principalFrom(ctx)
	c := credits.Charge{AccountID: p.Account.ID, Feature: b.feature, Amount: amount, Allocation: s.cfg.MonthlyCredits(p.Account),
		Reference: reference, Action: b.action, UpstreamCostMicros: int64(b.meter.Total())}
	if _, err := s.store.SpendCharge(ctx, c); err != nil {
		// Refused credits are no reason to forget what the vendor billed.
		s.recordLookupCost(ctx, b, reference)
		return 0, s.fail(ctx, fmt.Errorf("charge %s: %w", b.feature, err))
	}
	return amount, nil
}

// failLookup answers an upstream failure as lookupFail does, recording first what the
// failed calls cost (some vendors bill a miss).
func (s *Server) failLookup(ctx context.Context, b *lookupBill, what, reference string, err error) error {
	s.recordLookupCost(ctx, b, reference)
	return s.lookupFail(ctx, what, err)
}

// recordLookupCost records the cost of a lookup that charged no credits. Failing to
// record it does not fail the answer: the caller's request is done either way.
func (s *Server) recordLookupCost(ctx context.Context, b *lookupBill, reference string) {
	total := b.meter.Total()
	if total <= 0 {
		return
	}
	p := principalFrom(ctx)
	c := credits.Cost{AccountID: p.Account.ID, Feature: b.feature, Action: b.action, Reference: reference, Micros: int64(total)}
	if err := s.store.RecordCost(context.WithoutCancel(ctx), c); err != nil {
		s.log.Error("record upstream cost of a lookup", "action", b.action, "error", err)
	}
}

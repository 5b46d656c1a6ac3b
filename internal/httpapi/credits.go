package httpapi

import (
	"context"
	"fmt"

	"github.com/trawlhq/trawl/internal/credits"
)

// spend charges the caller's account amount credits for feature and returns
// what the ledger recorded, for the x-spent-credits header. Spending nothing
// records nothing.
func (s *Server) spend(ctx context.Context, feature credits.Feature, amount int64, reference string) (int64, error) {
	if amount <= 0 {
		return 0, nil
	}
	p := principalFrom(ctx)
	if _, err := s.store.Spend(ctx, p.Account.ID, feature, amount, s.cfg.MonthlyCredits(p.Account), reference); err != nil {
		return 0, s.fail(ctx, fmt.Errorf("charge %s: %w", feature, err))
	}
	return amount, nil
}

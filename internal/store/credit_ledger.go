package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
)

// Ledger returns the account's spends since since, newest first, limit of
// them after skipping offset, and how many there are in all.
func (s *Store) Ledger(ctx context.Context, accountID string, since time.Time, limit, offset int) ([]credits.Entry, int64, error) {
	var total int64
	err := s.read.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM credit_ledger WHERE account_id = $1 AND created_at >= $2`,
		accountID, ms(since)).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("store: ledger: count: %w", err)
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, feature, amount, action, workflow_id, saved_search_id, upstream_cost_micros, created_at FROM credit_ledger
		  WHERE account_id = $1 AND created_at >= $2
		  ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
		accountID, ms(since), limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: ledger: %w", err)
	}
	defer rows.Close()
	out := []credits.Entry{}
	for rows.Next() {
		var (
			e                credits.Entry
			feature          string
			workflow, search sql.NullString
			created          int64
		)
		if err := rows.Scan(&e.ID, &feature, &e.Amount, &e.Action, &workflow, &search, &e.UpstreamCostMicros, &created); err != nil {
			return nil, 0, fmt.Errorf("store: ledger: %w", err)
		}
		e.Feature, e.WorkflowID, e.SearchID, e.CreatedAt = credits.Feature(feature), workflow.String, search.String, fromMS(created)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: ledger: %w", err)
	}
	return out, total, nil
}

// LedgerByFeature sums the account's spends since since per feature, the
// largest first, with what the upstream calls cost (the ledger's and those
// beside it, upstream_costs).
func (s *Store) LedgerByFeature(ctx context.Context, accountID string, since time.Time) ([]credits.FeatureTotal, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT feature, SUM(amount), SUM(spends), SUM(cost) FROM (
		   SELECT feature, amount, 1 AS spends, upstream_cost_micros AS cost FROM credit_ledger
		    WHERE account_id = $1 AND created_at >= $2
		   UNION ALL
		   SELECT feature, 0, 0, cost_micros FROM upstream_costs
		    WHERE account_id = $1 AND created_at >= $2) x
		  GROUP BY feature HAVING SUM(spends) > 0 ORDER BY SUM(amount) DESC, feature`,
		accountID, ms(since))
	if err != nil {
		return nil, fmt.Errorf("store: ledger by feature: %w", err)
	}
	defer rows.Close()
	out := []credits.FeatureTotal{}
	for rows.Next() {
		var (
			t       credits.FeatureTotal
			feature string
		)
		if err := rows.Scan(&feature, &t.Total, &t.Count, &t.UpstreamCostMicros); err != nil {
			return nil, fmt.Errorf("store: ledger by feature: %w", err)
		}
		t.Feature = credits.Feature(feature)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: ledger by feature: %w", err)
	}
	return out, nil
}

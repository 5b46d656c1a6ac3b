package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/ident"
)

// Spend takes amount credits from the account's balance for the billing
// period containing now, and records the spend in the ledger, atomically.
// allocation is the period's allocation, used when the period's row is
// created by this spend. A spend the balance cannot cover changes nothing and
// returns credits.ErrInsufficient.
func (s *Store) Spend(ctx context.Context, accountID string, feature credits.Feature, amount int64, allocation int64, reference string) (credits.Balance, error) {
	return s.SpendCharge(ctx, credits.Charge{AccountID: accountID, Feature: feature, Amount: amount, Allocation: allocation, Reference: reference})
}

// SpendCharge is Spend of a charge that names its action, workflow or
// saved search for the ledger.
func (s *Store) SpendCharge(ctx context.Context, c credits.Charge) (credits.Balance, error) {
	if c.Amount <= 0 {
		return credits.Balance{}, fmt.Errorf("store: spend: amount %d must be positive", c.Amount)
	}
	var bal credits.Balance
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		bal, err = s.spendTx(ctx, tx, c, s.now())
		return err
	})
	if err != nil {
		return credits.Balance{}, fmt.Errorf("store: spend %d %s credits: %w", c.Amount, c.Feature, err)
	}
	return bal, nil
}

func (s *Store) spendTx(ctx context.Context, tx *sql.Tx, c credits.Charge, now time.Time) (credits.Balance, error) {
	period := credits.PeriodStart(now)
	bal := credits.Balance{PeriodStart: period}
	if err := s.ensurePeriod(ctx, tx, c.AccountID, period, c.Allocation); err != nil {
		return bal, err
	}
	// The condition and the increment are one statement: on PostgreSQL a
	// concurrent spend waits for the row lock and re-checks the condition
	// against the committed value; on SQLite writers are serialised.
	err := s.queryRowTx(ctx, tx,
		`UPDATE credit_periods SET used = used + $3
		  WHERE account_id = $1 AND period_start = $2 AND used + $3 <= allocation
		  RETURNING allocation, used`,
		c.AccountID, ms(period), c.Amount).Scan(&bal.Allocation, &bal.Used)
	if errors.Is(err, sql.ErrNoRows) {
		var left int64
		if err := s.queryRowTx(ctx, tx, `SELECT allocation - used FROM credit_periods WHERE account_id = $1 AND period_start = $2`,
			c.AccountID, ms(period)).Scan(&left); err != nil {
			return bal, fmt.Errorf("read balance: %w", err)
		}
		return bal, &credits.ShortError{Needed: c.Amount, Available: max(left, 0)}
	}
	if err != nil {
		return bal, fmt.Errorf("update balance: %w", err)
	}
	_, err = s.execTx(ctx, tx,
		`INSERT INTO credit_ledger (id, account_id, feature, amount, reference, created_at, action, workflow_id, saved_search_id, upstream_cost_micros)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		ident.New(), c.AccountID, string(c.Feature), c.Amount, c.Reference, ms(now), c.Action, nullString(c.WorkflowID), nullString(c.SearchID),
		max(c.UpstreamCostMicros, 0))
	if err != nil {
		return bal, fmt.Errorf("record ledger entry: %w", err)
	}
	return bal, nil
}

func (s *Store) ensurePeriod(ctx context.Context, tx *sql.Tx, accountID string, period time.Time, allocation int64) error {
	_, err := s.execTx(ctx, tx,
		`INSERT INTO credit_periods (account_id, period_start, allocation, used) VALUES ($1, $2, $3, 0)
		 ON CONFLICT (account_id, period_start) DO NOTHING`,
		accountID, ms(period), allocation)
	if err != nil {
		return fmt.Errorf("open credit period: %w", err)
	}
	return nil
}

// Balance returns the account's balance in the current billing period.
func (s *Store) Balance(ctx context.Context, accountID string, allocation int64) (credits.Balance, error) {
	period := credits.PeriodStart(s.now())
	bal := credits.Balance{PeriodStart: period, Allocation: allocation}
	err := s.read.QueryRowContext(ctx,
		`SELECT allocation, used FROM credit_periods WHERE account_id = $1 AND period_start = $2`,
		accountID, ms(period)).Scan(&bal.Allocation, &bal.Used)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return credits.Balance{}, fmt.Errorf("store: balance: %w", err)
	}
	return bal, nil
}

// Usage is what GET /v1/usage reports for one account and period.
type Usage struct {
	TotalConsumed int64
	ByFeature     map[credits.Feature]int64
	// UpstreamCost and UpstreamByFeature are what the upstream vendors
	// billed, in millionths of a USD: the ledger's costs and the costs
	// beside it (upstream_costs).
	UpstreamCost      int64
	UpstreamByFeature map[credits.Feature]int64
	MonitorsActive    int64
	MonitorsTotal     int64
	ResultsTotal      int64
}

// Usage sums the ledger over [from, to] (both ends included, so a spend
// in the very millisecond of a default "now" counts), counts the account's monitors
// (deleted ones excluded) and the results collected in the period.
func (s *Store) Usage(ctx context.Context, accountID string, from, to time.Time) (Usage, error) {
	u := Usage{ByFeature: map[credits.Feature]int64{}, UpstreamByFeature: map[credits.Feature]int64{}}
	rows, err := s.read.QueryContext(ctx,
		`SELECT feature, SUM(amount), SUM(cost) FROM (
		   SELECT feature, amount, upstream_cost_micros AS cost FROM credit_ledger
		    WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3
		   UNION ALL
		   SELECT feature, 0, cost_micros FROM upstream_costs
		    WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3) x
		  GROUP BY feature`,
		accountID, ms(from), ms(to))
	if err != nil {
		return Usage{}, fmt.Errorf("store: usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			f       string
			n, cost int64
		)
		if err := rows.Scan(&f, &n, &cost); err != nil {
			return Usage{}, fmt.Errorf("store: usage: %w", err)
		}
		u.ByFeature[credits.Feature(f)] = n
		u.TotalConsumed += n
		u.UpstreamByFeature[credits.Feature(f)] = cost
		u.UpstreamCost += cost
	}
	if err := rows.Err(); err != nil {
		return Usage{}, fmt.Errorf("store: usage: %w", err)
	}
	// Monitors are saved searches and topics.
	err = s.read.QueryRowContext(ctx,
		`SELECT COALESCE(SUM(active), 0), COUNT(*) FROM (
		   SELECT CASE WHEN status = 'active' THEN 1 ELSE 0 END AS active FROM searches WHERE account_id = $1 AND status <> 'deleted'
		   UNION ALL
		   SELECT CASE WHEN status = 'ACTIVE' THEN 1 ELSE 0 END FROM topics WHERE account_id = $1 AND status <> 'DELETED') m`,
		accountID).Scan(&u.MonitorsActive, &u.MonitorsTotal)
	if err != nil {
		return Usage{}, fmt.Errorf("store: usage: count monitors: %w", err)
	}
	err = s.read.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM search_results r JOIN searches s ON s.id = r.search_id
		  WHERE s.account_id = $1 AND r.collected_at >= $2 AND r.collected_at <= $3`,
		accountID, ms(from), ms(to)).Scan(&u.ResultsTotal)
	if err != nil {
		return Usage{}, fmt.Errorf("store: usage: count results: %w", err)
	}
	return u, nil
}

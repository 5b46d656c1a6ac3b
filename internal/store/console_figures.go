package store

import (
	"context"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
)

// Figures of the web console's overview that no API route reads as such:
// each one indexed query over what the API's routes read.

// DayCredits is what one feature spent on one UTC day.
type DayCredits struct {
	Day     time.Time // the day's first instant, UTC
	Feature credits.Feature
	Credits int64
}

const dayMS = 24 * 60 * 60 * 1000

// CreditsByDay sums the account's ledger (GET /v1/credits/usage's rows)
// per UTC day and feature over [from, to), by day then feature.
func (s *Store) CreditsByDay(ctx context.Context, accountID string, from, to time.Time) ([]DayCredits, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT created_at / `+fmt.Sprint(dayMS)+` AS day, feature, SUM(amount) FROM credit_ledger
		  WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
		  GROUP BY created_at / `+fmt.Sprint(dayMS)+`, feature HAVING SUM(amount) > 0 ORDER BY 1, 2`,
		accountID, ms(from), ms(to))
	if err != nil {
		return nil, fmt.Errorf("store: credits by day: %w", err)
	}
	defer rows.Close()
	out := []DayCredits{}
	for rows.Next() {
		var (
			d       DayCredits
			day     int64
			feature string
		)
		if err := rows.Scan(&day, &feature, &d.Credits); err != nil {
			return nil, fmt.Errorf("store: credits by day: %w", err)
		}
		d.Day, d.Feature = time.UnixMilli(day*dayMS).UTC(), credits.Feature(feature)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: credits by day: %w", err)
	}
	return out, nil
}

// EngagementsCollected counts the engagements the account's topics
// collected over [from, to): each engagement once, as it was billed.
func (s *Store) EngagementsCollected(ctx context.Context, accountID string, from, to time.Time) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM topic_billing WHERE account_id = $1 AND kind = 'engagement' AND charged_at >= $2 AND charged_at < $3`,
		accountID, ms(from), ms(to)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: engagements collected: %w", err)
	}
	return n, nil
}

// CountActiveTopics counts an account's active topic monitors.
func (s *Store) CountActiveTopics(ctx context.Context, accountID string) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM topics WHERE account_id = $1 AND status = 'ACTIVE'`, accountID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count active topics: %w", err)
	}
	return n, nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
)

// DeliveryBatch is the most results one webhook delivery carries.
const DeliveryBatch = 100

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is a batch of one run's new results on its way to the search's
// webhook_url. Its ID is the webhook-id every attempt repeats.
type Delivery struct {
	ID, SearchID   string
	Status         string
	Attempts       int
	ResultsCount   int
	RunAt          time.Time
	CreatedAt      time.Time
	NextAttemptAt  *time.Time
	LastAttemptAt  *time.Time
	LastStatusCode *int
	LastError      string

	// Set on claimed deliveries only: where and how to send them (URL
	// empty when the search lost its webhook or is gone) and the results,
	// in the shape of GET /v1/searches/{id}/results.
	AccountID string
	URL       string
	Secret    string // sealed, base64
	Results   []json.RawMessage
}

// insertDeliveries writes the deliveries of a run's new results, due now,
// a batch of at most DeliveryBatch results each.
func insertDeliveries(ctx context.Context, tx *sql.Tx, searchID string, items []source.Item, at time.Time) error {
	for batch := range slices.Chunk(items, DeliveryBatch) {
		ids := make([]string, len(batch))
		for i, it := range batch {
			ids[i] = it.ID
		}
		raw, err := json.Marshal(ids)
		if err != nil {
			return fmt.Errorf("insert deliveries: %w", err)
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO search_deliveries (id, search_id, run_at, post_ids, results_count, status, created_at, next_attempt_at)
			 VALUES ($1, $2, $3, $4, $5, 'pending', $3, $3)`,
			ident.New(), searchID, ms(at), string(raw), len(ids)); err != nil {
			return fmt.Errorf("insert deliveries: %w", err)
		}
	}
	return nil
}

// webhookURLColumn reads a search's webhook_url out of its definition.
func (s *Store) webhookURLColumn() string {
	if s.dialect == Postgres {
		return `COALESCE(definition ->> 'webhook_url', '')`
	}
	return `COALESCE(json_extract(definition, '$.webhook_url'), '')`
}

const deliveryColumns = `id, search_id, status, attempts, results_count, run_at, created_at,
	next_attempt_at, last_attempt_at, last_status_code, COALESCE(last_error, '')`

func scanDelivery(row interface{ Scan(...any) error }, extra ...any) (Delivery, error) {
	var (
		d                Delivery
		run, created     int64
		next, last, code sql.NullInt64
	)
	dest := append([]any{&d.ID, &d.SearchID, &d.Status, &d.Attempts, &d.ResultsCount, &run, &created,
		&next, &last, &code, &d.LastError}, extra...)
	if err := row.Scan(dest...); err != nil {
		return Delivery{}, err
	}
	d.RunAt, d.CreatedAt = fromMS(run), fromMS(created)
	if d.Status == DeliveryPending {
		d.NextAttemptAt = nullTime(next)
	}
	d.LastAttemptAt = nullTime(last)
	if code.Valid {
		c := int(code.Int64)
		d.LastStatusCode = &c
	}
	return d, nil
}

// ClaimDeliveries claims at most limit pending deliveries due at now for
// lease: their next attempt moves a lease ahead, so one whose process dies
// is claimed again when the lease ends. On PostgreSQL, SKIP LOCKED lets
// several deliverers claim disjoint rows at once.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Delivery, error) {
	lock := ""
	if s.dialect == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var (
		out  []Delivery
		post [][]string
	)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out, post = nil, nil
		rows, err := tx.QueryContext(ctx,
			`UPDATE search_deliveries SET next_attempt_at = $2
			  WHERE id IN (SELECT id FROM search_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
			               ORDER BY next_attempt_at LIMIT $3`+lock+`)
			  RETURNING `+deliveryColumns+`, post_ids`,
			ms(now), ms(now.Add(lease)), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ids string
			d, err := scanDelivery(rows, &ids)
			if err != nil {
				return err
			}
			var list []string
			if err := json.Unmarshal([]byte(ids), &list); err != nil {
				return fmt.Errorf("decode post ids of delivery %s: %w", d.ID, err)
			}
			out, post = append(out, d), append(post, list)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim deliveries: %w", err)
	}
	for i := range out {
		if err := s.loadDelivery(ctx, &out[i], post[i]); err != nil {
			return nil, fmt.Errorf("store: claim deliveries: %w", err)
		}
	}
	return out, nil
}

// loadDelivery fills in a claimed delivery's target and results.
func (s *Store) loadDelivery(ctx context.Context, d *Delivery, postIDs []string) error {
	var (
		def    []byte
		status string
	)
	err := s.db.QueryRowContext(ctx, `SELECT account_id, status, definition FROM searches WHERE id = $1`, d.SearchID).
		Scan(&d.AccountID, &status, &def)
	if errors.Is(err, sql.ErrNoRows) || status == string(search.StatusDeleted) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("search of delivery %s: %w", d.ID, err)
	}
	var sd search.Definition
	if err := json.Unmarshal(def, &sd); err != nil {
		return fmt.Errorf("decode definition of search %s: %w", d.SearchID, err)
	}
	d.URL, d.Secret = sd.WebhookURL, sd.WebhookSecret
	if len(postIDs) == 0 {
		return nil
	}
	args := []any{d.SearchID}
	marks := make([]string, len(postIDs))
	for i, id := range postIDs {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT post_id, item FROM search_results WHERE search_id = $1 AND post_id IN (`+
		strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return fmt.Errorf("results of delivery %s: %w", d.ID, err)
	}
	defer rows.Close()
	byID := map[string]json.RawMessage{}
	for rows.Next() {
		var (
			id   string
			item []byte
		)
		if err := rows.Scan(&id, &item); err != nil {
			return fmt.Errorf("results of delivery %s: %w", d.ID, err)
		}
		byID[id] = item
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("results of delivery %s: %w", d.ID, err)
	}
	for _, id := range postIDs {
		if item, ok := byID[id]; ok {
			d.Results = append(d.Results, item)
		}
	}
	return nil
}

// DeliveryAttempt is how one attempt at a delivery ended: Status is the
// delivery's status after it; NextAt, when it stays pending, its retry.
type DeliveryAttempt struct {
	At         time.Time
	Status     string
	StatusCode int // 0 when no answer came
	Error      string
	NextAt     time.Time
}

// RecordDeliveryAttempt writes an attempt at a pending delivery.
func (s *Store) RecordDeliveryAttempt(ctx context.Context, id string, a DeliveryAttempt) error {
	var code, next, msg any
	if a.StatusCode != 0 {
		code = a.StatusCode
	}
	if a.Status == DeliveryPending {
		next = ms(a.NextAt)
	}
	if a.Error != "" {
		msg = a.Error
	}
	if _, err := s.db.ExecContext(ctx,
		`UPDATE search_deliveries SET status = $2, attempts = attempts + 1, last_attempt_at = $3,
		        last_status_code = $4, last_error = $5, next_attempt_at = $6
		  WHERE id = $1 AND status = 'pending'`,
		id, a.Status, ms(a.At), code, msg, next); err != nil {
		return fmt.Errorf("store: record delivery %s: %w", id, err)
	}
	return nil
}

// DeliveryPage is a page of a search's deliveries, newest first.
type DeliveryPage struct {
	Deliveries []Delivery
	NextCursor string
}

// ListDeliveries pages through a search's deliveries, newest first. The
// caller checks the search is the account's.
func (s *Store) ListDeliveries(ctx context.Context, searchID string, limit int, cursor string) (DeliveryPage, error) {
	args := []any{searchID, limit + 1}
	where := `search_id = $1`
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return DeliveryPage{}, err
		}
		args = append(args, at, id)
		where += ` AND (created_at, id) < ($3, $4)`
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+deliveryColumns+` FROM search_deliveries WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT $2`, args...)
	if err != nil {
		return DeliveryPage{}, fmt.Errorf("store: list deliveries: %w", err)
	}
	defer rows.Close()
	var page DeliveryPage
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return DeliveryPage{}, fmt.Errorf("store: list deliveries: %w", err)
		}
		page.Deliveries = append(page.Deliveries, d)
	}
	if err := rows.Err(); err != nil {
		return DeliveryPage{}, fmt.Errorf("store: list deliveries: %w", err)
	}
	if len(page.Deliveries) > limit {
		page.Deliveries = page.Deliveries[:limit]
		last := page.Deliveries[limit-1]
		page.NextCursor = encodeCursor(ms(last.CreatedAt), last.ID)
	}
	return page, nil
}

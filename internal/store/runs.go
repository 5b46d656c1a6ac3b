package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
)

// EventNewPost is the outbox kind written for every newly collected result.
const EventNewPost = "new-post"

// ClaimDue implements search.Repository. On PostgreSQL, SKIP LOCKED lets
// several schedulers claim disjoint searches at once; on SQLite the single
// writer serialises them.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, error) {
	lock := ""
	if s.dialect == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	rows, err := s.db.QueryContext(ctx,
		`UPDATE searches SET next_run_at = $2, lease_owner = $4
		  WHERE id IN (SELECT id FROM searches WHERE status = 'active' AND next_run_at <= $1
		               ORDER BY next_run_at LIMIT $3`+lock+`)
		  RETURNING id`,
		ms(now), ms(now.Add(lease)), limit, s.owner)
	if err != nil {
		return nil, fmt.Errorf("store: claim due searches: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: claim due searches: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: claim due searches: %w", err)
	}
	return ids, nil
}

// SetProfileUserID implements search.Repository.
func (s *Store) SetProfileUserID(ctx context.Context, id, userID string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE searches SET profile_user_id = $2 WHERE id = $1`, id, userID); err != nil {
		return fmt.Errorf("store: set profile user of %s: %w", id, err)
	}
	return nil
}

// RecordFailure implements search.Repository.
func (s *Store) RecordFailure(ctx context.Context, id string, at time.Time, msg string, countFailure bool, next time.Time) error {
	inc := 0
	if countFailure {
		inc = 1
	}
	_, err := s.db.ExecContext(ctx,
		`UPDATE searches SET last_error = $2, last_run_at = $3, failures = failures + $4,
		        next_run_at = CASE WHEN status = 'active' THEN $5 ELSE next_run_at END, lease_owner = NULL
		  WHERE id = $1 AND status <> 'deleted'`,
		id, msg, ms(at), inc, ms(next))
	if err != nil {
		return fmt.Errorf("store: record failure of %s: %w", id, err)
	}
	return nil
}

// insertBatch bounds the rows of one INSERT (SQLite allows 32,766 parameters).
const insertBatch = 500

// SaveRun implements search.Repository: new results, their outbox events
// and the search's counters and schedule commit together. Results already
// stored for the search are skipped, so overlapping runs store each post
// once and raise one event for it.
func (s *Store) SaveRun(ctx context.Context, run search.Run) (search.Outcome, error) {
	var out search.Outcome
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		lock := ""
		if s.dialect == Postgres {
			lock = " FOR UPDATE"
		}
		var accountID, status, watermark, webhook string
		err := tx.QueryRowContext(ctx, `SELECT account_id, status, watermark, `+s.webhookURLColumn()+` FROM searches WHERE id = $1`+lock, run.SearchID).
			Scan(&accountID, &status, &watermark, &webhook)
		if errors.Is(err, sql.ErrNoRows) {
			return search.ErrGone
		}
		if err != nil {
			return err
		}
		if search.Status(status) == search.StatusDeleted {
			return search.ErrNotRunnable
		}
		inserted, err := insertResults(ctx, tx, s.dialect, run)
		if err != nil {
			return err
		}
		if err := insertEvents(ctx, tx, s.dialect, accountID, run.SearchID, inserted, run.At); err != nil {
			return err
		}
		if webhook != "" {
			if err := insertDeliveries(ctx, tx, run.SearchID, inserted, run.At); err != nil {
				return err
			}
		}
		if search.NewerID(run.NewestID, watermark) {
			watermark = run.NewestID
		}
		out.NewResults = len(inserted)
		var lastResult any
		if len(inserted) > 0 {
			lastResult = ms(run.At)
		}
		return tx.QueryRowContext(ctx,
			`UPDATE searches SET total_results = total_results + $2, last_result_at = COALESCE($3, last_result_at),
			        last_run_at = $4, failures = 0, last_error = NULL, watermark = $5,
			        next_run_at = CASE WHEN status = 'active' THEN $6 ELSE next_run_at END, lease_owner = NULL
			  WHERE id = $1 RETURNING total_results`,
			run.SearchID, len(inserted), lastResult, ms(run.At), watermark, ms(run.NextRunAt)).Scan(&out.TotalResults)
	})
	if err != nil {
		return search.Outcome{}, fmt.Errorf("store: save run of %s: %w", run.SearchID, err)
	}
	if out.NewResults > 0 {
		s.eventsWritten()
	}
	return out, nil
}

// insertResults stores the items and returns those that were new.
func insertResults(ctx context.Context, tx *sql.Tx, d Dialect, run search.Run) ([]source.Item, error) {
	byID := make(map[string]source.Item, len(run.Items))
	var inserted []source.Item
	for batch := range slices.Chunk(run.Items, insertBatch) {
		var (
			sb   strings.Builder
			args = make([]any, 0, len(batch)*5)
		)
		sb.WriteString(`INSERT INTO search_results (search_id, post_id, published_at, collected_at, item) VALUES `)
		for i, it := range batch {
			if it.CollectedAt.IsZero() {
				it.CollectedAt = run.At
			}
			// MarshalJSON directly: json.Marshal would re-scan its output.
			raw, err := it.MarshalJSON()
			if err != nil {
				return nil, fmt.Errorf("encode result %s: %w", it.ID, err)
			}
			byID[it.ID] = it
			if i > 0 {
				sb.WriteByte(',')
			}
			writeRowParams(&sb, d, len(args), 5)
			args = append(args, run.SearchID, it.ID, ms(it.PublishedAt), ms(it.CollectedAt), string(raw))
		}
		sb.WriteString(` ON CONFLICT (search_id, post_id) DO NOTHING RETURNING post_id`)
		rows, err := tx.QueryContext(ctx, sb.String(), args...)
		if err != nil {
			return nil, fmt.Errorf("insert results: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("insert results: %w", err)
			}
			inserted = append(inserted, byID[id])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("insert results: %w", err)
		}
	}
	if err := countAuthors(ctx, tx, d, run.SearchID, inserted); err != nil {
		return nil, err
	}
	return inserted, nil
}

// writeRowParams writes "(p1, …, pn)" for a row whose values are arguments
// after+1 … after+n. SQLite gets anonymous "?": it looks numbered "$N"
// parameters up by name in a linear list, which costs quadratic time in a
// statement of thousands of them (a fifth of SaveRun's time on SQLite).
func writeRowParams(sb *strings.Builder, d Dialect, after, n int) {
	sb.WriteByte('(')
	for i := 1; i <= n; i++ {
		if i > 1 {
			sb.WriteString(", ")
		}
		if d == SQLite {
			sb.WriteByte('?')
			continue
		}
		sb.WriteByte('$')
		sb.WriteString(strconv.Itoa(after + i))
	}
	sb.WriteByte(')')
}

func insertEvents(ctx context.Context, tx *sql.Tx, d Dialect, accountID, searchID string, items []source.Item, at time.Time) error {
	for batch := range slices.Chunk(items, insertBatch) {
		var (
			sb   strings.Builder
			args = make([]any, 0, len(batch)*7)
		)
		sb.WriteString(`INSERT INTO events (id, account_id, kind, search_id, subject_id, payload, created_at) VALUES `)
		for i, it := range batch {
			if i > 0 {
				sb.WriteByte(',')
			}
			// The row only points at the result: PendingEvents reads the
			// result itself, so the outbox does not write every post twice.
			writeRowParams(&sb, d, len(args), 7)
			args = append(args, ident.New(), accountID, EventNewPost, searchID, it.ID, "{}", ms(at))
		}
		if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return fmt.Errorf("insert events: %w", err)
		}
	}
	return nil
}

// Event is an outbox row.
type Event struct {
	ID        string
	Kind      string
	SearchID  string
	SubjectID string
	// Payload of a new-post event: the fields a workflows/new-post trigger
	// carries, and the result itself under "result".
	Payload   json.RawMessage
	CreatedAt time.Time
}

// newPostPayload is the payload of a new-post event.
type newPostPayload struct {
	SearchID   string          `json:"search_id"`
	AuthorURL  string          `json:"author_url"`
	Text       string          `json:"text"`
	PostURL    string          `json:"post_url"`
	Likes      int             `json:"likes"`
	Comments   int             `json:"comments"`
	DatePosted string          `json:"date_posted"`
	Source     string          `json:"source"`
	Result     json.RawMessage `json:"result"`
}

// PendingEvents lists unprocessed outbox events of an account, oldest first,
// with the payload of each new-post event built from its stored result.
func (s *Store) PendingEvents(ctx context.Context, accountID string, limit int) ([]Event, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT e.id, e.kind, COALESCE(CAST(e.search_id AS TEXT), ''), e.subject_id, e.payload, e.created_at, r.item
		   FROM events e LEFT JOIN search_results r ON r.search_id = e.search_id AND r.post_id = e.subject_id
		  WHERE e.account_id = $1 AND e.processed_at IS NULL ORDER BY e.created_at, e.id LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: pending events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			e       Event
			payload []byte
			item    []byte
			created int64
		)
		if err := rows.Scan(&e.ID, &e.Kind, &e.SearchID, &e.SubjectID, &payload, &created, &item); err != nil {
			return nil, fmt.Errorf("store: pending events: %w", err)
		}
		e.Payload, e.CreatedAt = payload, fromMS(created)
		if e.Kind == EventNewPost && item != nil {
			if e.Payload, err = newPostEventPayload(e.SearchID, item); err != nil {
				return nil, fmt.Errorf("store: pending event %s: %w", e.ID, err)
			}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending events: %w", err)
	}
	return out, nil
}

func newPostEventPayload(searchID string, raw []byte) (json.RawMessage, error) {
	var it source.Item
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, err
	}
	return json.Marshal(newPostPayload{
		SearchID: searchID, AuthorURL: it.Author.ProfileURL, Text: it.Content.Text, PostURL: it.Content.URL,
		Likes: it.Engagement.Likes, Comments: it.Engagement.Comments,
		DatePosted: it.PublishedAt.UTC().Format(source.TimeLayout), Source: it.Source, Result: raw,
	})
}

// LatestNewPostPayload is the new-post payload of a search's most recently
// published result; ErrNotFound when it has none.
func (s *Store) LatestNewPostPayload(ctx context.Context, searchID string) (map[string]any, error) {
	var item []byte
	err := s.read.QueryRowContext(ctx, `SELECT item FROM search_results WHERE search_id = $1
		ORDER BY published_at DESC, post_id DESC LIMIT 1`, searchID).Scan(&item)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: latest result of %s: %w", searchID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: latest result of %s: %w", searchID, err)
	}
	raw, err := newPostEventPayload(searchID, item)
	if err != nil {
		return nil, fmt.Errorf("store: latest result of %s: %w", searchID, err)
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

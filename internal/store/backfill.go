package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/trawlhq/trawl/internal/workflow"
)

// backfillBatch is how many executions one transaction of a backfill
// queues: a crash loses at most a batch's work (the retry queues it, keyed
// as before), and SQLite's one writer is not held for 10,000 inserts.
const backfillBatch = 250

// BackfillQuery selects the stored events a backfill of a workflow takes.
type BackfillQuery struct {
	AccountID string
	Source    workflow.BackfillSource
	Window    workflow.BackfillWindow
	// After continues a truncated backfill: events after this one.
	After *workflow.BackfillCursor
	Limit int
}

// after is the keyset condition of q.After on the (time, id) columns,
// with its arguments numbered from n+1.
func (q BackfillQuery) after(at, id string, n int) (string, []any) {
	if q.After == nil {
		return "", nil
	}
	return fmt.Sprintf(" AND (%s > $%d OR (%s = $%d AND %s > $%d))", at, n+1, at, n+1, id, n+2),
		[]any{ms(q.After.At), q.After.ID}
}

// BackfillEvents lists the events of the source stored in the window,
// oldest first, at most q.Limit, each with the key and payload live
// dispatch gives it; more says the window holds more. A new post whose
// result went with its search is not an event any more (live dispatch
// fires nothing on it either).
func (s *Store) BackfillEvents(ctx context.Context, q BackfillQuery) (events []workflow.BackfillEvent, more bool, err error) {
	switch q.Source.Kind {
	case workflow.TriggerNewPost:
		events, err = s.backfillNewPosts(ctx, q)
	case workflow.TriggerEngagement:
		events, err = s.backfillEngagements(ctx, q)
	default:
		err = fmt.Errorf("trigger %s has no stored events", q.Source.Kind)
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: backfill events: %w", err)
	}
	if len(events) > q.Limit {
		return events[:q.Limit], true, nil
	}
	return events, false, nil
}

// backfillNewPosts reads one more than the limit, to tell whether more
// remain.
func (s *Store) backfillNewPosts(ctx context.Context, q BackfillQuery) ([]workflow.BackfillEvent, error) {
	args := []any{q.AccountID, EventNewPost, ms(q.Window.Since), ms(q.Window.Until), q.Limit + 1}
	search := ""
	if q.Source.SearchID != "" {
		search, args = " AND e.search_id = $6", append(args, q.Source.SearchID)
	}
	cond, more := q.after("e.created_at", "e.id", len(args))
	search, args = search+cond, append(args, more...)
	rows, err := s.read.QueryContext(ctx,
		`SELECT e.id, COALESCE(CAST(e.search_id AS TEXT), ''), e.created_at, r.item
		   FROM events e JOIN search_results r ON r.search_id = e.search_id AND r.post_id = e.subject_id
		  WHERE e.account_id = $1 AND e.kind = $2 AND e.created_at >= $3 AND e.created_at <= $4`+search+`
		  ORDER BY e.created_at, e.id LIMIT $5`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []workflow.BackfillEvent
	for rows.Next() {
		var (
			id, searchID string
			created      int64
			item         []byte
		)
		if err := rows.Scan(&id, &searchID, &created, &item); err != nil {
			return nil, err
		}
		ev := workflow.BackfillEvent{Key: "event:" + id, At: fromMS(created), ID: id}
		raw, err := newPostEventPayload(searchID, item)
		if err == nil {
			err = json.Unmarshal(raw, &ev.Payload)
		}
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", id, err)
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

func (s *Store) backfillEngagements(ctx context.Context, q BackfillQuery) ([]workflow.BackfillEvent, error) {
	args := []any{q.Source.TopicID, q.AccountID, ms(q.Window.Since), ms(q.Window.Until), q.Limit + 1}
	cond, more := q.after("te.created_at", "te.engagement_id", len(args))
	rows, err := s.read.QueryContext(ctx,
		`SELECT CAST(te.topic_id AS TEXT), po.record, `+fmt.Sprintf(engagementColumns, "te.created_at")+`
		   FROM topic_engagements te
		   JOIN topics t ON t.id = te.topic_id
		   JOIN pronet_engagements e ON e.id = te.engagement_id
		   JOIN pronet_people p ON p.urn = e.person_urn
		   JOIN pronet_posts po ON po.urn = e.post_urn
		  WHERE te.topic_id = $1 AND t.account_id = $2 AND te.created_at >= $3 AND te.created_at <= $4`+cond+`
		  ORDER BY te.created_at, te.engagement_id LIMIT $5`, append(args, more...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []workflow.BackfillEvent
	for rows.Next() {
		var (
			topicID string
			post    []byte
		)
		e, err := scanEngagement(rows, &topicID, &post)
		if err != nil {
			return nil, err
		}
		// The key and payload of DispatchEngagements.
		out = append(out, workflow.BackfillEvent{Key: "engagement:" + topicID + "/" + e.ID, At: e.CreatedAt, ID: e.ID,
			Payload: engagementPayload(topicID, e, post)})
	}
	return out, rows.Err()
}

// FiredEventKeys tells which of the event keys have an execution of the
// workflow: live, or an earlier backfill's.
func (s *Store) FiredEventKeys(ctx context.Context, workflowID string, keys []string) (map[string]bool, error) {
	fired := map[string]bool{}
	for batch := range slices.Chunk(keys, backfillBatch) {
		args := []any{workflowID}
		for _, k := range batch {
			args = append(args, k)
		}
		rows, err := s.read.QueryContext(ctx, `SELECT event_key FROM workflow_executions
			WHERE workflow_id = $1 AND event_key IN (`+inList(1, len(batch))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: fired event keys: %w", err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: fired event keys: %w", err)
			}
			fired[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: fired event keys: %w", err)
		}
	}
	return fired, nil
}

// QueueBackfill stores and enqueues one execution of the workflow per
// event, a batch per transaction, as live dispatch does: an event whose key
// already fired the workflow creates nothing. It returns the ids of the
// executions it created, in the events' order; the workers run them.
func (s *Store) QueueBackfill(ctx context.Context, w workflow.Workflow, kind string, events []workflow.BackfillEvent, lease time.Duration) ([]string, error) {
	var queued []string
	for batch := range slices.Chunk(events, backfillBatch) {
		var ids []string
		err := s.inJobTx(ctx, func(tx JobTx) error {
			ids = ids[:0]
			for _, ev := range batch {
				x := workflow.BackfillExecution(w, kind, ev)
				created, err := s.insertExecutionTx(ctx, tx, &x, nil, lease, false)
				if err != nil {
					return fmt.Errorf("event %s: %w", ev.Key, err)
				}
				if created {
					ids = append(ids, x.ID)
				}
			}
			return nil
		})
		if err != nil {
			return queued, fmt.Errorf("store: queue backfill: %w", err)
		}
		queued = append(queued, ids...)
	}
	return queued, nil
}

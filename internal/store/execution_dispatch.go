package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/workflow"
)

// outboxEvent is an unprocessed outbox row on its way to the workflows it
// fires: subject is the search or topic that produced it; a nil payload
// fires nothing (its result went with its search) but is marked processed.
type outboxEvent struct {
	// key names the event among a workflow's executions (EventKey).
	key, account, subject string
	created               int64
	payload               map[string]any
}

// fireEvents creates one execution per event and published, enabled
// workflow of the trigger kind in the event's account that fires on it,
// keyed by the event, so no event fires a workflow twice. The caller marks
// the events processed in the same transaction.
func (s *Store) fireEvents(ctx context.Context, tx JobTx, lease time.Duration, kind string,
	events []outboxEvent, fires func(workflow.Workflow, outboxEvent) bool) error {
	flows := map[string][]workflow.Workflow{}
	for _, ev := range events {
		if ev.payload == nil {
			continue
		}
		ws, seen := flows[ev.account]
		if !seen {
			var err error
			if ws, err = s.firingWorkflows(ctx, tx.SQL, ev.account, kind); err != nil {
				return err
			}
			flows[ev.account] = ws
		}
		for _, w := range ws {
			if !armedFor(w, ev.created) || !fires(w, ev) {
				continue
			}
			x := workflow.Execution{WorkflowID: w.ID, AccountID: w.AccountID, Version: w.Version, Definition: w.Definition,
				EventName: kind, EventKey: ev.key, Trigger: ev.payload}
			if _, err := s.insertExecutionTx(ctx, tx, &x, nil, lease, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// skipLockedOf is skipLocked for the rows of one table of a join.
func (s *Store) skipLockedOf(table string) string {
	if s.dialect != Postgres {
		return ""
	}
	return " FOR UPDATE OF " + table + " SKIP LOCKED"
}

// DispatchNewPosts fires the account's published, enabled new-post
// workflows on unprocessed new-post events, oldest first, at most limit
// events: each event becomes one execution per matching workflow (its
// linked search, or any search of the account when it links none), and is
// marked processed in the same transaction. It returns how many events it
// took.
func (s *Store) DispatchNewPosts(ctx context.Context, lease time.Duration, limit int) (int, error) {
	var n int
	err := s.inJobTx(ctx, func(tx JobTx) error {
		rows, err := tx.SQL.QueryContext(ctx,
			`SELECT e.id, e.account_id, COALESCE(CAST(e.search_id AS TEXT), ''), e.created_at, r.item
			   FROM events e LEFT JOIN search_results r ON r.search_id = e.search_id AND r.post_id = e.subject_id
			  WHERE e.processed_at IS NULL AND e.kind = $1 ORDER BY e.created_at, e.id LIMIT $2`+s.skipLockedOf("e"), EventNewPost, limit)
		if err != nil {
			return err
		}
		var (
			events []outboxEvent
			ids    []any
		)
		err = func() error {
			defer rows.Close()
			for rows.Next() {
				var (
					ev   outboxEvent
					id   string
					item []byte
				)
				if err := rows.Scan(&id, &ev.account, &ev.subject, &ev.created, &item); err != nil {
					return err
				}
				ev.key = "event:" + id
				ids = append(ids, id)
				if item != nil {
					raw, err := newPostEventPayload(ev.subject, item)
					if err == nil {
						err = json.Unmarshal(raw, &ev.payload)
					}
					if err != nil {
						return fmt.Errorf("event %s: %w", id, err)
					}
				}
				events = append(events, ev)
			}
			return rows.Err()
		}()
		if err != nil || len(events) == 0 {
			return err
		}
		n = len(events)
		err = s.fireEvents(ctx, tx, lease, workflow.TriggerNewPost, events, func(w workflow.Workflow, ev outboxEvent) bool {
			return w.SearchID == "" || w.SearchID == ev.subject
		})
		if err != nil {
			return err
		}
		_, err = tx.SQL.ExecContext(ctx, `UPDATE events SET processed_at = $1 WHERE id IN (`+inList(1, len(ids))+`)`,
			append([]any{ms(s.now())}, ids...)...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: dispatch new posts: %w", err)
	}
	return n, nil
}

// DispatchEngagements fires published, enabled engagement workflows on
// the engagements their topic linked and no dispatch has seen yet (the
// link is the outbox event: migration 00019), oldest first, at most limit,
// as DispatchNewPosts does for search results. The payload is the
// engagement as the topics API shows it, plus the post.
func (s *Store) DispatchEngagements(ctx context.Context, lease time.Duration, limit int) (int, error) {
	var n int
	err := s.inJobTx(ctx, func(tx JobTx) error {
		rows, err := tx.SQL.QueryContext(ctx,
			`SELECT t.account_id, CAST(te.topic_id AS TEXT), te.created_at, po.record, `+fmt.Sprintf(engagementColumns, "te.created_at")+`
			   FROM topic_engagements te
			   JOIN topics t ON t.id = te.topic_id
			   JOIN pronet_engagements e ON e.id = te.engagement_id
			   JOIN pronet_people p ON p.urn = e.person_urn
			   JOIN pronet_posts po ON po.urn = e.post_urn
			  WHERE te.pending = 1 ORDER BY te.created_at, te.topic_id, te.engagement_id LIMIT $1`+s.skipLockedOf("te"), limit)
		if err != nil {
			return err
		}
		var (
			events  []outboxEvent
			byTopic = map[string][]any{} // engagement ids
		)
		err = func() error {
			defer rows.Close()
			for rows.Next() {
				var (
					ev   outboxEvent
					post []byte
				)
				e, err := scanEngagement(rows, &ev.account, &ev.subject, &ev.created, &post)
				if err != nil {
					return err
				}
				ev.key = "engagement:" + ev.subject + "/" + e.ID
				ev.payload = engagementPayload(ev.subject, e, post)
				events = append(events, ev)
				byTopic[ev.subject] = append(byTopic[ev.subject], e.ID)
			}
			return rows.Err()
		}()
		if err != nil || len(events) == 0 {
			return err
		}
		n = len(events)
		err = s.fireEvents(ctx, tx, lease, workflow.TriggerEngagement, events, func(w workflow.Workflow, ev outboxEvent) bool {
			topic, _ := w.Definition.Trigger.Inputs["topic_id"].(string)
			return topic == ev.subject
		})
		if err != nil {
			return err
		}
		for topicID, ids := range byTopic {
			if _, err := tx.SQL.ExecContext(ctx,
				`UPDATE topic_engagements SET pending = NULL WHERE topic_id = $1 AND engagement_id IN (`+inList(1, len(ids))+`)`,
				append([]any{topicID}, ids...)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: dispatch engagements: %w", err)
	}
	return n, nil
}

// engagementPayload is an engagement as GET /v1/topics/{id}/engagements
// shows it, with the topic that linked it and the post it was on.
func engagementPayload(topicID string, e Engagement, post []byte) map[string]any {
	var record any
	_ = json.Unmarshal(post, &record)
	p := e.Person
	return map[string]any{
		"id": e.ID, "topic_id": topicID, "prospect_id": p.URN, "pronet_post_id": e.PostURN, "discovery_interval": string(e.DiscoveryInterval),
		"created": e.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		"prospect": map[string]any{"full_name": p.FullName, "pronet_url": p.PronetURL, "job_title": p.JobTitle,
			"company": p.Company, "company_domain": p.CompanyDomain, "pronet_urn": p.URN},
		"engagement": map[string]any{"type": e.Type, "text": e.Text},
		"post":       record,
	}
}

// DispatchSchedules fires scheduled workflows whose time has come, at most
// limit: one execution per occurrence (keyed by it, so no two processes
// fire it twice), and after downtime only the latest missed occurrence.
// It returns how many workflows fired.
func (s *Store) DispatchSchedules(ctx context.Context, now time.Time, lease time.Duration, limit int) (int, error) {
	var n int
	err := s.inJobTx(ctx, func(tx JobTx) error {
		lock := ""
		if s.dialect == Postgres {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		rows, err := tx.SQL.QueryContext(ctx, `SELECT `+workflowColumns+`, next_fire_at FROM workflows
			WHERE next_fire_at <= $1 AND deleted_at IS NULL ORDER BY next_fire_at LIMIT $2`+lock, ms(now), limit)
		if err != nil {
			return err
		}
		type due struct {
			w  workflow.Workflow
			at time.Time
		}
		var dues []due
		for rows.Next() {
			var (
				d    due
				fire int64
			)
			w, err := scanWorkflow(scanPlus{rows, &fire})
			if err != nil {
				rows.Close()
				return err
			}
			d.w, d.at = w, fromMS(fire)
			dues = append(dues, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, d := range dues {
			occurrence := d.at
			next := d.w.NextFire(occurrence)
			for next != nil && !next.After(now) {
				occurrence, next = *next, d.w.NextFire(*next)
			}
			if next == nil {
				// No longer a scheduled workflow: stop looking at it.
				if _, err := tx.SQL.ExecContext(ctx, `UPDATE workflows SET next_fire_at = NULL WHERE id = $1`, d.w.ID); err != nil {
					return err
				}
				continue
			}
			x := workflow.Execution{WorkflowID: d.w.ID, AccountID: d.w.AccountID, Version: d.w.Version, Definition: d.w.Definition,
				EventName: workflow.TriggerScheduled, EventKey: "schedule:" + occurrence.UTC().Format(time.RFC3339),
				Trigger: map[string]any{"scheduled_at": occurrence.UTC().Format(time.RFC3339), "fired_at": now.UTC().Format(time.RFC3339)}}
			if _, err := s.insertExecutionTx(ctx, tx, &x, nil, lease, false); err != nil {
				return err
			}
			if _, err := tx.SQL.ExecContext(ctx, `UPDATE workflows SET next_fire_at = $2 WHERE id = $1`, d.w.ID, ms(*next)); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: dispatch schedules: %w", err)
	}
	return n, nil
}

// scanPlus scans a row that has extra columns after another scanner's.
type scanPlus struct {
	rows  *sql.Rows
	extra *int64
}

func (p scanPlus) Scan(dest ...any) error { return p.rows.Scan(append(dest, p.extra)...) }

// armedFor tells whether an event collected at created (ms) is the
// workflow's: collected after it began to fire.
func armedFor(w workflow.Workflow, created int64) bool {
	return w.ArmedAt != nil && created > ms(*w.ArmedAt)
}

// firingWorkflows are the account's workflows that fire on a trigger kind.
func (s *Store) firingWorkflows(ctx context.Context, q queryer, accountID, kind string) ([]workflow.Workflow, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+workflowColumns+` FROM workflows
		WHERE account_id = $1 AND trigger_kind = $2 AND status = 'PUBLISHED' AND enabled AND deleted_at IS NULL`, accountID, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []workflow.Workflow
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

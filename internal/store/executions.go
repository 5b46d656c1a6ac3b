package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/workflow"
)

// ErrClaimLost means another worker took over the execution, or it was
// cancelled: the caller must stop advancing it.
var ErrClaimLost = errors.New("store: execution claim lost")

const executionColumns = `id, workflow_id, account_id, version, definition, event_name, COALESCE(event_key, ''), trigger,
	test_config, status, COALESCE(error, ''), COALESCE(rerun_of, ''), claim, created_at, started_at, ended_at, resume_at`

func scanExecution(row interface{ Scan(...any) error }) (workflow.Execution, error) {
	var (
		x                workflow.Execution
		def, trig, test  []byte
		status           string
		created, started int64
		ended, resume    sql.NullInt64
	)
	if err := row.Scan(&x.ID, &x.WorkflowID, &x.AccountID, &x.Version, &def, &x.EventName, &x.EventKey, &trig,
		&test, &status, &x.Error, &x.RerunOf, &x.Claim, &created, &started, &ended, &resume); err != nil {
		return workflow.Execution{}, err
	}
	if err := json.Unmarshal(def, &x.Definition); err != nil {
		return workflow.Execution{}, fmt.Errorf("decode execution definition: %w", err)
	}
	if err := json.Unmarshal(trig, &x.Trigger); err != nil {
		return workflow.Execution{}, fmt.Errorf("decode execution trigger: %w", err)
	}
	if len(test) > 0 && string(test) != "null" {
		x.Test = &workflow.TestConfig{}
		if err := json.Unmarshal(test, x.Test); err != nil {
			return workflow.Execution{}, fmt.Errorf("decode test config: %w", err)
		}
	}
	x.Status, x.CreatedAt, x.StartedAt = workflow.ExecutionStatus(status), fromMS(created), fromMS(started)
	x.EndedAt, x.ResumeAt = nullTime(ended), nullTime(resume)
	return x, nil
}

// CreateExecution stores a new running execution with its first steps
// (a rerun's reused ones), claimed for lease, and unless the caller runs it
// itself (inline), enqueues its job in the same transaction. An event
// already fired for the workflow (same EventKey) creates nothing and
// answers false with x.ID set to the execution it fired.
func (s *Store) CreateExecution(ctx context.Context, x *workflow.Execution, steps []workflow.Step, lease time.Duration, inline bool) (bool, error) {
	var created bool
	err := s.inGroupJobTx(ctx, func(tx JobTx) error {
		var err error
		created, err = s.insertExecutionTx(ctx, tx, x, steps, lease, inline)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: create execution: %w", err)
	}
	return created, nil
}

const insertExecutionSQL = `INSERT INTO workflow_executions (id, workflow_id, account_id, version, definition, event_name,
        event_key, trigger, test_config, status, error, rerun_of, claim, created_at, started_at, ended_at, resume_at, lease_owner)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
 ON CONFLICT DO NOTHING`

func (s *Store) insertExecutionTx(ctx context.Context, tx JobTx, x *workflow.Execution, steps []workflow.Step, lease time.Duration, inline bool) (bool, error) {
	def, err := json.Marshal(x.Definition)
	if err != nil {
		return false, err
	}
	trig, err := json.Marshal(x.Trigger)
	if err != nil {
		return false, err
	}
	var test any
	if x.Test != nil {
		raw, err := json.Marshal(x.Test)
		if err != nil {
			return false, err
		}
		test = string(raw)
	}
	// An execution the engine began in memory (Engine.Start) comes with
	// its id, claim and start, and may have ended already.
	now := s.now().UTC().Truncate(time.Millisecond)
	if x.ID == "" {
		x.ID, x.Claim, x.CreatedAt, x.StartedAt = NewID(), NewID(), now, now
	}
	if x.Status == "" {
		x.Status = workflow.ExecutionRunning
	}
	var resume, ended, owner any
	if x.Status == workflow.ExecutionRunning {
		at := s.firstRunAt(now, lease)
		owner = s.claimOwner()
		if inline {
			at, owner = now.Add(lease), s.owner
		}
		x.ResumeAt = &at
		resume = ms(at)
	} else {
		ended = optMS(x.EndedAt)
	}
	res, err := s.execTx(ctx, tx.SQL, insertExecutionSQL,
		x.ID, x.WorkflowID, x.AccountID, x.Version, string(def), x.EventName, nullString(x.EventKey), string(trig),
		test, string(x.Status), nullString(x.Error), nullString(x.RerunOf), x.Claim, ms(x.CreatedAt), ms(x.StartedAt), ended, resume, owner)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, tx.SQL.QueryRowContext(ctx, `SELECT id FROM workflow_executions WHERE workflow_id = $1 AND event_key = $2`,
			x.WorkflowID, x.EventKey).Scan(&x.ID)
	}
	for _, st := range steps {
		if err := s.saveStepTx(ctx, tx.SQL, x.ID, st); err != nil {
			return false, err
		}
	}
	if inline {
		return true, nil
	}
	return true, s.enqueueTx(ctx, tx, workflow.ExecuteArgs{ExecutionID: x.ID, Claim: x.Claim})
}

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
				ev.payload = engagementPayload(e, post)
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
// shows it, with the post it was on.
func engagementPayload(e Engagement, post []byte) map[string]any {
	var record any
	_ = json.Unmarshal(post, &record)
	p := e.Person
	return map[string]any{
		"id": e.ID, "prospect_id": p.URN, "pronet_post_id": e.PostURN, "discovery_interval": string(e.DiscoveryInterval),
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

// Execution returns an execution and its step records in the order they ran.
func (s *Store) Execution(ctx context.Context, id string) (workflow.Execution, []workflow.Step, error) {
	if !ValidID(id) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %q: %w", id, ErrNotFound)
	}
	x, err := scanExecution(s.db.QueryRowContext(ctx, `SELECT `+executionColumns+` FROM workflow_executions WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %s: %w", id, err)
	}
	steps, err := s.steps(ctx, s.db, id)
	if err != nil {
		return workflow.Execution{}, nil, err
	}
	return x, steps, nil
}

// AccountExecution returns an execution of the account's workflow (deleted
// workflows included: their executions stay readable).
func (s *Store) AccountExecution(ctx context.Context, accountID, workflowID, runID string) (workflow.Execution, []workflow.Step, error) {
	if !ValidID(runID) || !ValidID(workflowID) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %q: %w", runID, ErrNotFound)
	}
	x, err := scanExecution(s.read.QueryRowContext(ctx, `SELECT `+executionColumns+` FROM workflow_executions
		WHERE id = $1 AND workflow_id = $2 AND account_id = $3`, runID, workflowID, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %s: %w", runID, ErrNotFound)
	}
	if err != nil {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %s: %w", runID, err)
	}
	steps, err := s.steps(ctx, s.read, runID)
	if err != nil {
		return workflow.Execution{}, nil, err
	}
	return x, steps, nil
}

// ListExecutions returns a page (from 1) of a workflow's executions, newest
// first, without steps, and how many match; ErrNotFound when the workflow,
// deleted or not, is not the account's.
func (s *Store) ListExecutions(ctx context.Context, accountID, workflowID string, status workflow.ExecutionStatus, eventName string, page, pageSize int) ([]workflow.Execution, int64, error) {
	var owner string
	if ValidID(workflowID) {
		err := s.read.QueryRowContext(ctx, `SELECT account_id FROM workflows WHERE id = $1`, workflowID).Scan(&owner)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, 0, fmt.Errorf("store: executions of %s: %w", workflowID, err)
		}
	}
	if owner != accountID {
		return nil, 0, fmt.Errorf("store: executions of workflow %q: %w", workflowID, ErrNotFound)
	}
	filter, args := `workflow_id = $1`, []any{workflowID}
	if status != "" {
		args = append(args, string(status))
		filter += fmt.Sprintf(` AND status = $%d`, len(args))
	}
	if eventName != "" {
		args = append(args, eventName)
		filter += fmt.Sprintf(` AND event_name = $%d`, len(args))
	}
	// The total comes from the counters that the triggers of migration
	// 00011 keep, so it costs the same for ten executions as for millions.
	var total int64
	if err := s.read.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM workflow_execution_counts WHERE `+filter, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count executions: %w", err)
	}
	out := []workflow.Execution{}
	if int64((page-1)*pageSize) >= total {
		return out, total, nil
	}
	// The page's ids come from an index alone (migration 00011), so the rows
	// skipped by OFFSET are never read from the table.
	n := len(args)
	rows, err := s.read.QueryContext(ctx, fmt.Sprintf(`SELECT `+executionColumns+` FROM workflow_executions
		WHERE id IN (SELECT id FROM workflow_executions WHERE `+filter+` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d)
		  AND account_id = $%d
		ORDER BY created_at DESC, id DESC`, n+1, n+2, n+3),
		append(args, pageSize, (page-1)*pageSize, accountID)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list executions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		x, err := scanExecution(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("store: list executions: %w", err)
		}
		out = append(out, x)
	}
	return out, total, rows.Err()
}

type queryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (s *Store) steps(ctx context.Context, q queryer, executionID string) ([]workflow.Step, error) {
	rows, err := q.QueryContext(ctx, `SELECT step_key, seq, step_id, step_name, operation, status, attempts, started_at, ended_at,
		input, output, mapped_output, error, resume_at FROM workflow_steps WHERE execution_id = $1 ORDER BY seq`, executionID)
	if err != nil {
		return nil, fmt.Errorf("store: steps of %s: %w", executionID, err)
	}
	defer rows.Close()
	var out []workflow.Step
	for rows.Next() {
		var (
			st                             workflow.Step
			status, attempts               string
			started, ended, resume         sql.NullInt64
			input, output, mapped, stepErr sql.NullString
		)
		if err := rows.Scan(&st.Key, &st.Seq, &st.StepID, &st.Name, &st.Operation, &status, &attempts, &started, &ended,
			&input, &output, &mapped, &stepErr, &resume); err != nil {
			return nil, fmt.Errorf("store: steps of %s: %w", executionID, err)
		}
		st.Status, st.StartedAt, st.EndedAt, st.ResumeAt = workflow.StepStatus(status), nullTime(started), nullTime(ended), nullTime(resume)
		for _, f := range []struct {
			raw sql.NullString
			dst any
		}{{sql.NullString{String: attempts, Valid: true}, &st.Attempts}, {input, &st.Input}, {output, &st.Output}, {mapped, &st.MappedOutput}, {stepErr, &st.Error}} {
			if f.raw.Valid && f.raw.String != "" {
				if err := json.Unmarshal([]byte(f.raw.String), f.dst); err != nil {
					return nil, fmt.Errorf("store: decode step %s: %w", st.Key, err)
				}
			}
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

func jsonOrNull(v any, present bool) (any, error) {
	if !present {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(raw), nil
}

const saveStepSQL = `INSERT INTO workflow_steps (execution_id, step_key, seq, step_id, step_name, operation, status, attempts,
        started_at, ended_at, input, output, mapped_output, error, resume_at)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
 ON CONFLICT (execution_id, step_key) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
        started_at = excluded.started_at, ended_at = excluded.ended_at, input = excluded.input, output = excluded.output,
        mapped_output = excluded.mapped_output, error = excluded.error, resume_at = excluded.resume_at`

func (s *Store) saveStepTx(ctx context.Context, tx *sql.Tx, executionID string, st workflow.Step) error {
	attempts, err := json.Marshal(st.Attempts)
	if err != nil {
		return err
	}
	if st.Attempts == nil {
		attempts = []byte("[]")
	}
	input, err := jsonOrNull(st.Input, st.Input != nil)
	if err != nil {
		return err
	}
	output, err := jsonOrNull(st.Output, st.Output != nil)
	if err != nil {
		return err
	}
	mapped, err := jsonOrNull(st.MappedOutput, st.MappedOutput != nil)
	if err != nil {
		return err
	}
	stepErr, err := jsonOrNull(st.Error, st.Error != nil)
	if err != nil {
		return err
	}
	_, err = s.execTx(ctx, tx, saveStepSQL, executionID, st.Key, st.Seq, st.StepID, st.Name, st.Operation, string(st.Status), string(attempts),
		optMS(st.StartedAt), optMS(st.EndedAt), input, output, mapped, stepErr, optMS(st.ResumeAt))
	return err
}

func optMS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ms(*t)
}

// SaveSteps records steps and renews the claim for lease, in one
// transaction with a step's charge when there is one. ErrClaimLost when
// the execution is no longer the caller's to advance.
func (s *Store) SaveSteps(ctx context.Context, x workflow.Execution, steps []workflow.Step, charge *Charge, lease time.Duration) error {
	err := s.inGroupTx(ctx, func(tx *sql.Tx) error {
		if err := s.renewTx(ctx, tx, x, s.now().Add(lease)); err != nil {
			return err
		}
		if charge != nil {
			if _, err := s.spendTx(ctx, tx, *charge, s.now()); err != nil {
				return err
			}
		}
		for _, st := range steps {
			if err := s.saveStepTx(ctx, tx, x.ID, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: save steps of %s: %w", x.ID, err)
	}
	return nil
}

// renewSQL also makes the process that advances the execution its lease
// owner: another may have created it (a webhook in the api role).
const renewSQL = `UPDATE workflow_executions SET resume_at = $3, lease_owner = $4 WHERE id = $1 AND claim = $2 AND status = 'running'`

func (s *Store) renewTx(ctx context.Context, tx *sql.Tx, x workflow.Execution, until time.Time) error {
	res, err := s.execTx(ctx, tx, renewSQL, x.ID, x.Claim, ms(until), s.owner)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrClaimLost
	}
	return nil
}

// FinishExecution records the last steps and ends the caller's execution
// as completed or failed, in one transaction.
const finishExecutionSQL = `UPDATE workflow_executions SET status = $3, error = $4, ended_at = $5, resume_at = NULL, lease_owner = NULL
 WHERE id = $1 AND claim = $2 AND status = 'running'`

func (s *Store) FinishExecution(ctx context.Context, x workflow.Execution, steps []workflow.Step, status workflow.ExecutionStatus, errMsg string) error {
	err := s.inGroupTx(ctx, func(tx *sql.Tx) error {
		res, err := s.execTx(ctx, tx, finishExecutionSQL, x.ID, x.Claim, string(status), nullString(errMsg), ms(s.now()))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrClaimLost
		}
		for _, st := range steps {
			if err := s.saveStepTx(ctx, tx, x.ID, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: finish execution %s: %w", x.ID, err)
	}
	return nil
}

// ParkExecution records steps (the last one waiting) and hands the execution over to a
// job scheduled at until (and to the tick, should that job be lost).
func (s *Store) ParkExecution(ctx context.Context, x workflow.Execution, steps []workflow.Step, until time.Time) error {
	claim := NewID()
	err := s.inJobTx(ctx, func(tx JobTx) error {
		for _, st := range steps {
			if err := s.saveStepTx(ctx, tx.SQL, x.ID, st); err != nil {
				return err
			}
		}
		// A delay is nobody's until it ends: the owner's death must not
		// cut it short.
		res, err := tx.SQL.ExecContext(ctx, `UPDATE workflow_executions SET resume_at = $3, claim = $4, lease_owner = NULL
			WHERE id = $1 AND claim = $2 AND status = 'running'`, x.ID, x.Claim, ms(until), claim)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrClaimLost
		}
		if s.jobs == nil {
			return nil
		}
		return s.jobs.InsertTx(ctx, tx, workflow.ExecuteArgs{ExecutionID: x.ID, Claim: claim}, &river.InsertOpts{ScheduledAt: until})
	})
	if err != nil {
		return fmt.Errorf("store: park execution %s: %w", x.ID, err)
	}
	return nil
}

// ClaimDueExecutions takes over running executions whose lease or delay
// has passed, at most limit, and returns the jobs to enqueue.
func (s *Store) ClaimDueExecutions(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]workflow.ExecuteArgs, error) {
	var out []workflow.ExecuteArgs
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		lock := ""
		if s.dialect == Postgres {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM workflow_executions WHERE status = 'running' AND resume_at <= $1
			ORDER BY resume_at LIMIT $2`+lock, ms(now), limit)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			claim := NewID()
			if _, err := tx.ExecContext(ctx, `UPDATE workflow_executions SET claim = $2, resume_at = $3, lease_owner = $4 WHERE id = $1`,
				id, claim, ms(now.Add(lease)), s.owner); err != nil {
				return err
			}
			out = append(out, workflow.ExecuteArgs{ExecutionID: id, Claim: claim})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim due executions: %w", err)
	}
	return out, nil
}

// CancelExecution ends a running execution of the account's workflow as
// failed with error "cancelled"; ErrConflict when it is not running.
func (s *Store) CancelExecution(ctx context.Context, accountID, workflowID, runID string) error {
	if !ValidID(runID) || !ValidID(workflowID) {
		return fmt.Errorf("store: cancel execution %q: %w", runID, ErrNotFound)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM workflow_executions WHERE id = $1 AND workflow_id = $2 AND account_id = $3`+s.forUpdate(),
			runID, workflowID, accountID).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if status != string(workflow.ExecutionRunning) {
			return ErrConflict
		}
		now := ms(s.now())
		if _, err := tx.ExecContext(ctx, `UPDATE workflow_executions SET status = 'failed', error = $2, ended_at = $3, resume_at = NULL, lease_owner = NULL
			WHERE id = $1`, runID, workflow.ErrCancelled, now); err != nil {
			return err
		}
		// Steps caught mid-way end with the execution.
		_, err = tx.ExecContext(ctx, `UPDATE workflow_steps SET status = 'failed', ended_at = $2, error = $3, resume_at = NULL
			WHERE execution_id = $1 AND status = 'running'`, runID, now, `{"code":"CANCELLED","message":"the execution was cancelled"}`)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: cancel execution %s: %w", runID, err)
	}
	return nil
}

// PruneExecutions deletes executions created before cutoff that have ended.
func (s *Store) PruneExecutions(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM workflow_executions WHERE created_at < $1 AND status <> 'running'`, ms(cutoff))
	if err != nil {
		return 0, fmt.Errorf("store: prune executions: %w", err)
	}
	if err := s.foldExecutionCounts(ctx); err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// foldExecutionCounts adds the PostgreSQL counter slots of backends that
// have gone into slot 0, so that the slots stay few (migration 00011). A
// backend that reuses a folded pid meanwhile is safe: the move is one
// statement, and row locks order it with that backend's updates.
func (s *Store) foldExecutionCounts(ctx context.Context) error {
	if s.dialect != Postgres {
		return nil
	}
	_, err := s.db.ExecContext(ctx, `WITH gone AS (
		DELETE FROM workflow_execution_counts
		 WHERE slot <> 0 AND slot NOT IN (SELECT pid FROM pg_stat_activity)
		RETURNING workflow_id, status, event_name, n)
	INSERT INTO workflow_execution_counts (workflow_id, status, event_name, slot, n)
	SELECT workflow_id, status, event_name, 0, SUM(n) FROM gone GROUP BY workflow_id, status, event_name
	ON CONFLICT (workflow_id, status, event_name, slot) DO UPDATE SET n = workflow_execution_counts.n + excluded.n`)
	if err != nil {
		return fmt.Errorf("store: fold execution counts: %w", err)
	}
	return nil
}

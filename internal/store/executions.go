package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/workflow"
)

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
		x.ID, x.Claim, x.CreatedAt, x.StartedAt = ident.New(), ident.New(), now, now
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

// Execution returns an execution and its step records in the order they ran.
func (s *Store) Execution(ctx context.Context, id string) (workflow.Execution, []workflow.Step, error) {
	if !ident.Valid(id) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %q: %w (%w)", id, ErrNotFound, workflow.ErrExecutionNotFound)
	}
	x, err := scanExecution(s.db.QueryRowContext(ctx, `SELECT `+executionColumns+` FROM workflow_executions WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %s: %w (%w)", id, ErrNotFound, workflow.ErrExecutionNotFound)
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
	if !ident.Valid(runID) || !ident.Valid(workflowID) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %q: %w (%w)", runID, ErrNotFound, workflow.ErrExecutionNotFound)
	}
	x, err := scanExecution(s.read.QueryRowContext(ctx, `SELECT `+executionColumns+` FROM workflow_executions
		WHERE id = $1 AND workflow_id = $2 AND account_id = $3`, runID, workflowID, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.Execution{}, nil, fmt.Errorf("store: execution %s: %w (%w)", runID, ErrNotFound, workflow.ErrExecutionNotFound)
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
	if ident.Valid(workflowID) {
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
			return fmt.Errorf("store: %w", workflow.ErrClaimLost)
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
	claim := ident.New()
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
			return fmt.Errorf("store: %w", workflow.ErrClaimLost)
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
			claim := ident.New()
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
	if !ident.Valid(runID) || !ident.Valid(workflowID) {
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

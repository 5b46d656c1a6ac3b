package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/workflow"
)

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
// transaction with a step's charge when there is one. workflow.ErrClaimLost when
// the execution is no longer the caller's to advance.
func (s *Store) SaveSteps(ctx context.Context, x workflow.Execution, steps []workflow.Step, charge *credits.Charge, lease time.Duration) error {
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
		return fmt.Errorf("store: %w", workflow.ErrClaimLost)
	}
	return nil
}

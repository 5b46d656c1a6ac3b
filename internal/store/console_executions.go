package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/trawlhq/trawl/internal/workflow"
)

// ExecutionFilter narrows the account's executions; an empty field keeps
// every value. The caller validates the values (the API's rules).
type ExecutionFilter struct {
	WorkflowID string
	Status     workflow.ExecutionStatus
	EventName  string
}

// ExecutionRow is an execution of the account-wide list, without steps,
// with the name its workflow has now.
type ExecutionRow struct {
	workflow.Execution
	WorkflowName    string
	WorkflowDeleted bool
}

// ExecutionPage is one page of an account's executions.
type ExecutionPage struct {
	Rows       []ExecutionRow
	NextCursor string
}

// withExtra scans a row's execution columns, then extra.
type withExtra struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.row.Scan(append(dest, w.extra...)...) }

// AccountExecutions pages through the executions of every workflow of the
// account (deleted ones included: their executions stay readable), newest
// first, by keyset on (created_at, id) so a deep page costs what the first
// does. The API lists one workflow's executions; the console lists them all.
func (s *Store) AccountExecutions(ctx context.Context, accountID string, f ExecutionFilter, limit int, cursor string) (ExecutionPage, error) {
	args := []any{accountID, limit + 1}
	where := `account_id = $1`
	if f.WorkflowID != "" {
		args = append(args, f.WorkflowID)
		where += fmt.Sprintf(` AND workflow_id = $%d`, len(args))
	}
	if f.Status != "" {
		args = append(args, string(f.Status))
		where += fmt.Sprintf(` AND status = $%d`, len(args))
	}
	if f.EventName != "" {
		args = append(args, f.EventName)
		where += fmt.Sprintf(` AND event_name = $%d`, len(args))
	}
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return ExecutionPage{}, err
		}
		args = append(args, at, id)
		where += fmt.Sprintf(` AND (created_at, id) < ($%d, $%d)`, len(args)-1, len(args))
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+executionColumns+`,
		(SELECT w.name FROM workflows w WHERE w.id = workflow_executions.workflow_id),
		(SELECT w.deleted_at FROM workflows w WHERE w.id = workflow_executions.workflow_id)
		FROM workflow_executions WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT $2`, args...)
	if err != nil {
		return ExecutionPage{}, fmt.Errorf("store: account executions: %w", err)
	}
	defer rows.Close()
	var page ExecutionPage
	for rows.Next() {
		var (
			name    sql.NullString
			deleted sql.NullInt64
		)
		x, err := scanExecution(withExtra{row: rows, extra: []any{&name, &deleted}})
		if err != nil {
			return ExecutionPage{}, fmt.Errorf("store: account executions: %w", err)
		}
		page.Rows = append(page.Rows, ExecutionRow{Execution: x, WorkflowName: name.String, WorkflowDeleted: deleted.Valid})
	}
	if err := rows.Err(); err != nil {
		return ExecutionPage{}, fmt.Errorf("store: account executions: %w", err)
	}
	if len(page.Rows) > limit {
		page.Rows = page.Rows[:limit]
		last := page.Rows[limit-1]
		page.NextCursor = encodeCursor(ms(last.CreatedAt), last.ID)
	}
	return page, nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/workflow"
)

const workflowColumns = `id, account_id, name, description, definition, version, status, enabled,
	COALESCE(CAST(search_id AS TEXT), ''), COALESCE(webhook_token, ''), webhook_secret, armed_at, created_at, updated_at`

func scanWorkflow(row interface{ Scan(...any) error }) (workflow.Workflow, error) {
	var (
		w                workflow.Workflow
		def              []byte
		status           string
		armed            sql.NullInt64
		created, updated int64
	)
	err := row.Scan(&w.ID, &w.AccountID, &w.Name, &w.Description, &def, &w.Version, &status, &w.Enabled,
		&w.SearchID, &w.WebhookToken, &w.WebhookSecret, &armed, &created, &updated)
	if err != nil {
		return workflow.Workflow{}, err
	}
	if err := json.Unmarshal(def, &w.Definition); err != nil {
		return workflow.Workflow{}, fmt.Errorf("decode workflow definition: %w", err)
	}
	w.Status, w.CreatedAt, w.UpdatedAt, w.ArmedAt = workflow.Status(status), fromMS(created), fromMS(updated), nullTime(armed)
	return w, nil
}

// triggerColumns are the trigger's kind and topic, kept beside the
// definition for the engine's lookups.
func triggerColumns(d workflow.Definition) (kind string, topicID any) {
	kind = d.TriggerKind()
	if kind == workflow.TriggerEngagement {
		if id, ok := d.Trigger.Inputs["topic_id"].(string); ok {
			return kind, id
		}
	}
	return kind, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// armedAt is since when a workflow that was before fires: now when it
// starts firing, as it was while it goes on, nil when it stops.
func armedAt(before, after workflow.Workflow, now time.Time) *time.Time {
	switch {
	case !after.Fires():
		return nil
	case before.Fires() && before.ArmedAt != nil:
		return before.ArmedAt
	}
	return &now
}

// CreateWorkflow stores a new workflow, filling in its version, times and,
// unless the caller chose it (to seal a secret to it), its id; with a
// draft (made by draft from the stored workflow), the draft too, in the
// same transaction.
func (s *Store) CreateWorkflow(ctx context.Context, w *workflow.Workflow, draft func(workflow.Workflow) *workflow.Draft) error {
	def, err := json.Marshal(w.Definition)
	if err != nil {
		return fmt.Errorf("store: create workflow: %w", err)
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	if w.ID == "" {
		w.ID = ident.New()
	}
	w.Version, w.CreatedAt, w.UpdatedAt = 1, now, now
	kind, topicID := triggerColumns(w.Definition)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO workflows (id, account_id, name, description, definition, version, status, enabled, search_id,
			                        trigger_kind, topic_id, webhook_token, webhook_secret, next_fire_at, armed_at, created_at, updated_at)
			 VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
			w.ID, w.AccountID, w.Name, w.Description, string(def), string(w.Status), w.Enabled, nullString(w.SearchID),
			kind, topicID, nullString(w.WebhookToken), w.WebhookSecret, optMS(w.NextFire(now)), optMS(armedAt(workflow.Workflow{}, *w, now)), ms(now)); err != nil {
			return err
		}
		if err := saveVersionTx(ctx, tx, *w, &workflow.Version{}); err != nil {
			return err
		}
		if draft == nil {
			return nil
		}
		if d := draft(*w); d != nil {
			return saveDraftTx(ctx, tx, d)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: create workflow: %w", err)
	}
	return nil
}

// AccountWorkflow returns the account's workflow unless it is deleted.
func (s *Store) AccountWorkflow(ctx context.Context, accountID, id string) (workflow.Workflow, error) {
	if !ident.Valid(id) {
		return workflow.Workflow{}, fmt.Errorf("store: workflow %q: %w", id, ErrNotFound)
	}
	w, err := scanWorkflow(s.read.QueryRowContext(ctx,
		`SELECT `+workflowColumns+` FROM workflows WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.Workflow{}, fmt.Errorf("store: workflow %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return workflow.Workflow{}, fmt.Errorf("store: workflow %s: %w", id, err)
	}
	return w, nil
}

// ListWorkflows returns the account's workflows, newest first, from offset,
// and how many match; status "" lists both.
func (s *Store) ListWorkflows(ctx context.Context, accountID string, status workflow.Status, limit, offset int) ([]workflow.Workflow, int64, error) {
	where, args := `account_id = $1 AND deleted_at IS NULL`, []any{accountID}
	if status != "" {
		where, args = where+` AND status = $2`, append(args, string(status))
	}
	var total int64
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM workflows WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count workflows: %w", err)
	}
	n := len(args)
	rows, err := s.read.QueryContext(ctx,
		fmt.Sprintf(`SELECT `+workflowColumns+` FROM workflows WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2),
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list workflows: %w", err)
	}
	defer rows.Close()
	out := []workflow.Workflow{}
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("store: list workflows: %w", err)
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: list workflows: %w", err)
	}
	return out, total, nil
}

// WorkflowEdit is what an edit of a workflow decided.
type WorkflowEdit struct {
	// Draft, made from the workflow as stored (its times set), is saved
	// in the same transaction: publishing leaves one equal to what went
	// live. Nil leaves the draft as it is.
	Draft func(workflow.Workflow) *workflow.Draft
	// Publish, when set, makes the edit a publish: the live definition
	// becomes the next version even when it did not change, with Publish's
	// change summary (and id, made when empty); the store fills in its
	// number and time. Without it, a changed live definition makes the next
	// version without a summary.
	Publish *workflow.Version
}

// UpdateWorkflow edits the account's workflow in one transaction: edit sees
// the live workflow and its draft (nil when none) as they are, changes the
// workflow in place, and what it leaves is stored; the version moves when
// the definition changed. An error from edit aborts everything.
func (s *Store) UpdateWorkflow(ctx context.Context, accountID, id string,
	edit func(w *workflow.Workflow, draft *workflow.Draft) (WorkflowEdit, error)) (workflow.Workflow, error) {
	if !ident.Valid(id) {
		return workflow.Workflow{}, fmt.Errorf("store: update workflow %q: %w", id, ErrNotFound)
	}
	var w workflow.Workflow
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		w, err = scanWorkflow(tx.QueryRowContext(ctx,
			`SELECT `+workflowColumns+` FROM workflows WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`+s.forUpdate(), id, accountID))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		draft, err := draftTx(ctx, tx, id)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		before := w
		e, err := edit(&w, draft)
		if err != nil {
			return err
		}
		w.UpdatedAt = s.now().UTC().Truncate(time.Millisecond)
		if v := e.Publish; v != nil || !workflow.SameDefinition(before.Definition, w.Definition) {
			if v == nil {
				v = &workflow.Version{}
			}
			w.Version++
			if err := saveVersionTx(ctx, tx, w, v); err != nil {
				return err
			}
		}
		def, err := json.Marshal(w.Definition)
		if err != nil {
			return err
		}
		kind, topicID := triggerColumns(w.Definition)
		if _, err := tx.ExecContext(ctx,
			`UPDATE workflows SET name = $2, description = $3, definition = $4, version = $5, status = $6, enabled = $7,
			        trigger_kind = $8, topic_id = $9, webhook_token = $10, webhook_secret = $11, updated_at = $12,
			        next_fire_at = $13, armed_at = $14
			  WHERE id = $1`,
			id, w.Name, w.Description, string(def), w.Version, string(w.Status), w.Enabled, kind, topicID,
			nullString(w.WebhookToken), w.WebhookSecret, ms(w.UpdatedAt), optMS(w.NextFire(w.UpdatedAt)), optMS(armedAt(before, w, w.UpdatedAt))); err != nil {
			return err
		}
		if e.Draft != nil {
			if d := e.Draft(w); d != nil {
				return saveDraftTx(ctx, tx, d)
			}
		}
		return nil
	})
	if err != nil {
		return workflow.Workflow{}, fmt.Errorf("store: update workflow %s: %w", id, err)
	}
	return w, nil
}

// DeleteWorkflow soft-deletes the account's workflow: its triggers stop at
// once; its executions stay readable for their retention period.
func (s *Store) DeleteWorkflow(ctx context.Context, accountID, id string) error {
	if !ident.Valid(id) {
		return fmt.Errorf("store: delete workflow %q: %w", id, ErrNotFound)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE workflows SET deleted_at = $3, updated_at = $3, next_fire_at = NULL
			WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID, ms(s.now()))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM workflow_drafts WHERE workflow_id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete workflow %s: %w", id, err)
	}
	return nil
}

func scanDraft(row interface{ Scan(...any) error }) (workflow.Draft, error) {
	var (
		d                workflow.Draft
		def              []byte
		created, updated int64
	)
	if err := row.Scan(&d.ID, &d.WorkflowID, &d.Name, &d.Description, &def, &created, &updated); err != nil {
		return workflow.Draft{}, err
	}
	if err := json.Unmarshal(def, &d.Definition); err != nil {
		return workflow.Draft{}, fmt.Errorf("decode draft definition: %w", err)
	}
	d.CreatedAt, d.LastModified = fromMS(created), fromMS(updated)
	return d, nil
}

const draftColumns = `id, workflow_id, name, description, definition, created_at, updated_at`

func draftTx(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, workflowID string) (*workflow.Draft, error) {
	d, err := scanDraft(q.QueryRowContext(ctx, `SELECT `+draftColumns+` FROM workflow_drafts WHERE workflow_id = $1`, workflowID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// WorkflowDraft returns the draft of the account's workflow; ErrNotFound
// when the workflow or its draft does not exist.
func (s *Store) WorkflowDraft(ctx context.Context, accountID, workflowID string) (workflow.Workflow, workflow.Draft, error) {
	w, err := s.AccountWorkflow(ctx, accountID, workflowID)
	if err != nil {
		return workflow.Workflow{}, workflow.Draft{}, err
	}
	d, err := draftTx(ctx, s.read, workflowID)
	if err != nil {
		return w, workflow.Draft{}, fmt.Errorf("store: draft of workflow %s: %w", workflowID, err)
	}
	return w, *d, nil
}

// saveDraftTx stores a draft whole (its id made when it has none; an
// existing draft keeps its id and creation time).
func saveDraftTx(ctx context.Context, tx *sql.Tx, d *workflow.Draft) error {
	def, err := json.Marshal(d.Definition)
	if err != nil {
		return err
	}
	if d.ID == "" {
		d.ID = ident.New()
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO workflow_drafts (workflow_id, id, name, description, definition, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)
		 ON CONFLICT (workflow_id) DO UPDATE SET name = excluded.name, description = excluded.description,
		        definition = excluded.definition, updated_at = excluded.updated_at`,
		d.WorkflowID, d.ID, d.Name, d.Description, string(def), ms(d.CreatedAt), ms(d.LastModified))
	return err
}

// PutDraft creates or replaces the draft of the account's workflow and
// returns it with the live workflow.
func (s *Store) PutDraft(ctx context.Context, accountID string, d *workflow.Draft) (workflow.Workflow, error) {
	def, err := json.Marshal(d.Definition)
	if err != nil {
		return workflow.Workflow{}, fmt.Errorf("store: put draft: %w", err)
	}
	var w workflow.Workflow
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		w, err = scanWorkflow(tx.QueryRowContext(ctx,
			`SELECT `+workflowColumns+` FROM workflows WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`+s.forUpdate(), d.WorkflowID, accountID))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO workflow_drafts (workflow_id, id, name, description, definition, created_at, updated_at)
			 VALUES ($1, $2, $3, $4, $5, $6, $6)
			 ON CONFLICT (workflow_id) DO UPDATE SET name = excluded.name, description = excluded.description,
			        definition = excluded.definition, updated_at = excluded.updated_at`,
			d.WorkflowID, ident.New(), d.Name, d.Description, string(def), ms(now)); err != nil {
			return err
		}
		stored, err := draftTx(ctx, tx, d.WorkflowID)
		if err != nil {
			return err
		}
		*d = *stored
		return nil
	})
	if err != nil {
		return workflow.Workflow{}, fmt.Errorf("store: put draft of workflow %s: %w", d.WorkflowID, err)
	}
	return w, nil
}

// DeleteDraft removes the draft of the account's workflow; ErrNotFound when
// there is none.
func (s *Store) DeleteDraft(ctx context.Context, accountID, workflowID string) error {
	if !ident.Valid(workflowID) {
		return fmt.Errorf("store: delete draft %q: %w", workflowID, ErrNotFound)
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM workflow_drafts WHERE workflow_id = $1
		AND workflow_id IN (SELECT id FROM workflows WHERE account_id = $2 AND deleted_at IS NULL)`, workflowID, accountID)
	if err != nil {
		return fmt.Errorf("store: delete draft of workflow %s: %w", workflowID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: draft of workflow %s: %w", workflowID, ErrNotFound)
	}
	return nil
}

// TopicExists tells whether the account has this topic, not deleted.
func (s *Store) TopicExists(ctx context.Context, accountID, id string) (bool, error) {
	_, err := s.AccountTopic(ctx, accountID, id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// DraftedWorkflows tells which of the account's workflows have a draft.
func (s *Store) DraftedWorkflows(ctx context.Context, accountID string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{accountID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT d.workflow_id FROM workflow_drafts d JOIN workflows w ON w.id = d.workflow_id
		WHERE w.account_id = $1 AND d.workflow_id IN (`+inList(1, len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: drafted workflows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: drafted workflows: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

// WorkflowByWebhookToken returns the workflow whose webhook URL holds the
// token, whatever its status; ErrNotFound when none (or deleted).
const webhookWorkflowSQL = `SELECT ` + workflowColumns + ` FROM workflows WHERE webhook_token = $1 AND deleted_at IS NULL`

func (s *Store) WorkflowByWebhookToken(ctx context.Context, token string) (workflow.Workflow, error) {
	w, err := scanWorkflow(s.readRow(ctx, webhookWorkflowSQL, token))
	if errors.Is(err, sql.ErrNoRows) {
		return workflow.Workflow{}, fmt.Errorf("store: webhook: %w", ErrNotFound)
	}
	if err != nil {
		return workflow.Workflow{}, fmt.Errorf("store: webhook: %w", err)
	}
	return w, nil
}

// saveVersionTx records w's live definition as its version w.Version,
// completing v (its id made when empty, its number and time w's).
func saveVersionTx(ctx context.Context, tx *sql.Tx, w workflow.Workflow, v *workflow.Version) error {
	def, err := json.Marshal(w.Definition)
	if err != nil {
		return err
	}
	if v.ID == "" {
		v.ID = ident.New()
	}
	v.WorkflowID, v.Number, v.Name, v.Description, v.Definition, v.PublishedAt = w.ID, w.Version, w.Name, w.Description, w.Definition, w.UpdatedAt
	if _, err := tx.ExecContext(ctx, `INSERT INTO workflow_versions (id, workflow_id, number, name, description, definition, change_summary, published_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		v.ID, w.ID, v.Number, w.Name, w.Description, string(def), v.ChangeSummary, ms(v.PublishedAt)); err != nil {
		return fmt.Errorf("save version %d: %w", v.Number, err)
	}
	return nil
}

// WorkflowVersions lists the versions of the account's workflow, newest
// first.
func (s *Store) WorkflowVersions(ctx context.Context, accountID, workflowID string) ([]workflow.Version, error) {
	if _, err := s.AccountWorkflow(ctx, accountID, workflowID); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, workflow_id, number, name, description, definition, change_summary, published_at
		FROM workflow_versions WHERE workflow_id = $1 ORDER BY number DESC`, workflowID)
	if err != nil {
		return nil, fmt.Errorf("store: versions of workflow %s: %w", workflowID, err)
	}
	defer rows.Close()
	out := []workflow.Version{}
	for rows.Next() {
		var (
			v         workflow.Version
			def       []byte
			summary   sql.NullString
			published int64
		)
		if err := rows.Scan(&v.ID, &v.WorkflowID, &v.Number, &v.Name, &v.Description, &def, &summary, &published); err != nil {
			return nil, fmt.Errorf("store: versions of workflow %s: %w", workflowID, err)
		}
		if err := json.Unmarshal(def, &v.Definition); err != nil {
			return nil, fmt.Errorf("store: versions of workflow %s: decode definition: %w", workflowID, err)
		}
		if summary.Valid {
			v.ChangeSummary = &summary.String
		}
		v.PublishedAt = fromMS(published)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: versions of workflow %s: %w", workflowID, err)
	}
	return out, nil
}

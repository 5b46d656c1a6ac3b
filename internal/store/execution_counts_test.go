package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestExecutionCountSlotsFold: on PostgreSQL each backend counts in a slot
// of its own; retention folds the slots of backends that are gone into
// slot 0, and the totals do not move. A live backend's slot stays.
func TestExecutionCountSlotsFold(t *testing.T) {
	if !slices.Contains(storetest.Engines(), store.Postgres) {
		t.Skip("PostgreSQL only: SQLite keeps one counter per filter")
	}
	ctx := context.Background()
	s := storetest.Open(t, store.Postgres, nil)
	wf := uuid.NewString()
	const gone = 2147483000 // no backend has this pid
	var live int
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&live); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		status string
		slot   int
		n      int
	}{{"completed", 0, 2}, {"completed", gone, 5}, {"running", gone, -1}, {"completed", live, 3}} {
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO workflow_execution_counts (workflow_id, status, event_name, slot, n)
			VALUES ($1, $2, 'workflows/webhook', $3, $4)`, wf, r.status, r.slot, r.n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PruneExecutions(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		status workflow.ExecutionStatus
		want   int64
	}{{"", 9}, {workflow.ExecutionCompleted, 10}, {workflow.ExecutionRunning, -1}} {
		var total int64
		if err := s.DB().QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM workflow_execution_counts WHERE workflow_id = $1 AND ($2 = '' OR status = $2)`,
			wf, string(q.status)).Scan(&total); err != nil {
			t.Fatal(err)
		}
		if total != q.want {
			t.Errorf("status %q: total %d after folding, want %d", q.status, total, q.want)
		}
	}
	var slots []int
	rows, err := s.DB().QueryContext(ctx, `SELECT slot FROM workflow_execution_counts WHERE workflow_id = $1 ORDER BY slot`, wf)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var slot int
		if err := rows.Scan(&slot); err != nil {
			t.Fatal(err)
		}
		slots = append(slots, slot)
	}
	if len(slots) != 3 || slots[0] != 0 || slots[1] != 0 || slots[2] != live {
		t.Errorf("slots after folding %v, want [0 0 %d] (completed and running in 0, the live backend's kept)", slots, live)
	}
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// batchInsert writes n rows of ncols values with multi-row INSERTs of at
// most insertBatch rows: head is "INSERT INTO t (a, b) VALUES ", suffix
// follows the values ("ON CONFLICT … RETURNING …" or ""). row returns the
// values of row i. When scan is set, the statement's returned rows are
// passed to it one by one.
func batchInsert(ctx context.Context, tx *sql.Tx, d Dialect, head, suffix string, ncols, n int,
	row func(i int) []any, scan func(*sql.Rows) error) error {
	for start := 0; start < n; start += insertBatch {
		end := min(start+insertBatch, n)
		var sb strings.Builder
		args := make([]any, 0, (end-start)*ncols)
		sb.WriteString(head)
		for i := start; i < end; i++ {
			if i > start {
				sb.WriteByte(',')
			}
			writeRowParams(&sb, d, len(args), ncols)
			args = append(args, row(i)...)
		}
		sb.WriteByte(' ')
		sb.WriteString(suffix)
		if scan == nil {
			if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
				return err
			}
			continue
		}
		rows, err := tx.QueryContext(ctx, sb.String(), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// inList writes "$a, $b, …" for n arguments after the first `after` ones.
func inList(after, n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "$%d", after+i)
	}
	return sb.String()
}

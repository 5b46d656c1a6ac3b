package store

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// batchChunk is the most rows one multi-row statement takes. Chunks are
// powers of two, so that a handful of statement texts per kind of row
// cover every row count and stay prepared (stmtCache; PostgreSQL's driver
// caches them by text).
const batchChunk = 256

// batchInsert writes n rows of ncols values with multi-row INSERTs of at
// most batchChunk rows: head is "INSERT INTO t (a, b) VALUES ", suffix
// follows the values ("ON CONFLICT … RETURNING …" or ""). row returns the
// values of row i. When scan is set, the statement's returned rows are
// passed to it one by one.
func (s *Store) batchInsert(ctx context.Context, tx *sql.Tx, head, suffix string, ncols, n int,
	row func(i int) []any, scan func(*sql.Rows) error) error {
	for start := 0; start < n; {
		size := batchChunk
		for size > n-start {
			size /= 2
		}
		end := start + size
		var sb strings.Builder
		args := make([]any, 0, size*ncols)
		sb.WriteString(head)
		for i := start; i < end; i++ {
			if i > start {
				sb.WriteByte(',')
			}
			writeRowParams(&sb, s.dialect, len(args), ncols)
			args = append(args, row(i)...)
		}
		sb.WriteByte(' ')
		sb.WriteString(suffix)
		start = end
		text := sb.String()
		st := s.stmtIn(ctx, tx, text)
		if scan == nil {
			var err error
			if st != nil {
				_, err = st.ExecContext(ctx, args...)
			} else {
				_, err = tx.ExecContext(ctx, text, args...)
			}
			if err != nil {
				return err
			}
			continue
		}
		var (
			rows *sql.Rows
			err  error
		)
		if st != nil {
			rows, err = st.QueryContext(ctx, args...)
		} else {
			rows, err = tx.QueryContext(ctx, text, args...)
		}
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

// inChunks yields values as query arguments, at most insertBatch at a
// time, for IN lists of their length (inList(after, len(args))).
func inChunks[T any](values []T) iter.Seq[[]any] {
	return func(yield func([]any) bool) {
		for chunk := range slices.Chunk(values, insertBatch) {
			args := make([]any, len(chunk))
			for i, v := range chunk {
				args[i] = v
			}
			if !yield(args) {
				return
			}
		}
	}
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

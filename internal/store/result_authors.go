package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/trawlhq/trawl/internal/source"
)

// resultProfile is what an author filter reads of a result's author.
type resultProfile struct{ src, username, description, location string }

// countAuthors adds newly stored results to their author profiles' counts
// (search_result_authors), in the transaction that stores them, so that a
// filtered table counts its total over profiles (countResults).
func countAuthors(ctx context.Context, tx *sql.Tx, d Dialect, searchID string, items []source.Item) error {
	counts := make(map[resultProfile]int64, len(items))
	for _, it := range items {
		counts[resultProfile{it.Source, it.Author.Username, it.Author.Description, it.Author.Location}]++
	}
	// In key order, so that two transactions take their row locks in one order.
	profiles := make([]resultProfile, 0, len(counts))
	for p := range counts {
		profiles = append(profiles, p)
	}
	slices.SortFunc(profiles, func(a, b resultProfile) int {
		return cmp.Or(strings.Compare(a.src, b.src), strings.Compare(a.username, b.username),
			strings.Compare(a.description, b.description), strings.Compare(a.location, b.location))
	})
	// The conflict target is the table's key (PostgreSQL hashes bios and locations in it).
	key := `(search_id, source, username, description, location)`
	if d == Postgres {
		key = `(search_id, source, username, md5(description), md5(location))`
	}
	for batch := range slices.Chunk(profiles, insertBatch) {
		var sb strings.Builder
		args := make([]any, 0, len(batch)*6)
		sb.WriteString(`INSERT INTO search_result_authors (search_id, source, username, description, location, results) VALUES `)
		for i, p := range batch {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeRowParams(&sb, d, len(args), 6)
			args = append(args, searchID, p.src, p.username, p.description, p.location, counts[p])
		}
		sb.WriteString(` ON CONFLICT ` + key + ` DO UPDATE SET results = search_result_authors.results + excluded.results`)
		if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return fmt.Errorf("count results' authors: %w", err)
		}
	}
	return nil
}

// countMemo keeps the totals of filtered microblog results tables, keyed
// by the search, its total_results and the filter: a search's author
// profiles change only with its total (countAuthors runs in the
// transaction that raises it), so a kept total is exact until the search
// collects more. Paging a filtered table then counts once, not per page.
// Pronet searches are not kept: their authors' collected profiles change
// on their own.
type countMemo struct {
	mu     sync.Mutex
	counts map[countKey]int64
}

type countKey struct {
	searchID string
	total    int64
	filter   AuthorFilter
}

// countMemoSize bounds the memo; when full it starts again.
const countMemoSize = 1024

func (m *countMemo) get(k countKey) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.counts[k]
	return n, ok
}

func (m *countMemo) put(k countKey, n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil || len(m.counts) >= countMemoSize {
		m.counts = make(map[countKey]int64)
	}
	m.counts[k] = n
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/mapping"
)

// mappingSnapshot reads the pool as of one snapshot (mapping.Snapshot): a
// read-only transaction.
type mappingSnapshot struct {
	s  *Store
	tx *sql.Tx
}

// Snapshot begins a read-only transaction that reads one snapshot.
func (p mappingPool) Snapshot(ctx context.Context) (mapping.Snapshot, error) {
	tx, err := p.s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return &mappingSnapshot{s: p.s, tx: tx}, nil
}

func (m *mappingSnapshot) Close() { m.tx.Rollback() } //nolint:errcheck // read-only

func (m *mappingSnapshot) Position(ctx context.Context, log mapping.Log) (pos, pruned uint64, err error) {
	return m.s.logPosition(ctx, m.tx, logTable(log))
}

// changed is the subquery of the ids log names after position from,
// with its arguments.
func (m *mappingSnapshot) changed(log mapping.Log, from uint64) (string, []any) {
	return m.s.changedSince(logTable(log), from)
}

// foldedColumns are the folded columns a FoldedRow reads: m is
// mapping_people, LEFT JOINed.
const foldedColumns = `m.id IS NOT NULL, m.title, m.domain, m.size, m.industry, m.country, m.followers`

func (m *mappingSnapshot) FoldedPeople(ctx context.Context, whole bool, from uint64, each func(mapping.FoldedRow)) error {
	query, args := `SELECT m.id, `+foldedColumns+` FROM mapping_people m`, []any(nil)
	if !whole {
		var changed string
		changed, args = m.changed(mapping.PeopleLog, from)
		query = `SELECT l.id, ` + foldedColumns + ` FROM (` + changed + `) l LEFT JOIN mapping_people m ON m.id = l.id`
	}
	rows, err := m.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r                               mapping.FoldedRow
			title                           sql.NullString
			domain, size, industry, country sql.NullString
			followers                       sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &r.Present, &title, &domain, &size, &industry, &country, &followers); err != nil {
			return err
		}
		r.Title, r.TitleNull = title.String, !title.Valid
		r.Domain, r.Size, r.Industry, r.Country = domain.String, size.String, industry.String, country.String
		r.Followers, r.HasFollowers = followers.Int64, followers.Valid
		each(r)
	}
	return rows.Err()
}

func (m *mappingSnapshot) PackedEngagers(ctx context.Context, whole bool, from uint64, each func(post int64, list []byte)) error {
	query, args := `SELECT post_id, TRUE, engagers FROM mapping_engagers`, []any(nil)
	if !whole {
		var changed string
		changed, args = m.changed(mapping.EngagersLog, from)
		query = `SELECT l.id, b.post_id IS NOT NULL, b.engagers FROM (` + changed + `) l LEFT JOIN mapping_engagers b ON b.post_id = l.id`
	}
	rows, err := m.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id      int64
			present bool
			list    sql.RawBytes
		)
		if err := rows.Scan(&id, &present, &list); err != nil {
			return err
		}
		if present && list == nil {
			list = sql.RawBytes{} // an empty list, not a missing one
		}
		each(id, list)
	}
	return rows.Err()
}

func (m *mappingSnapshot) PostAuthors(ctx context.Context, whole bool, from uint64, each func(mapping.AuthorRow)) error {
	// A post without an author is as good as none; one whose author is no
	// person is unresolved (-1).
	const author = `CASE WHEN m.author_urn = '' THEN 0 ELSE COALESCE(p.id, -1) END`
	query, args := `SELECT m.id, TRUE, m.posted_at, `+author+` FROM mapping_posts m LEFT JOIN pronet_people p ON p.urn = m.author_urn`, []any(nil)
	if !whole {
		var changed string
		changed, args = m.changed(mapping.PostsLog, from)
		query = `SELECT l.id, m.id IS NOT NULL, COALESCE(m.posted_at, 0), ` + author + `
		           FROM (` + changed + `) l LEFT JOIN mapping_posts m ON m.id = l.id LEFT JOIN pronet_people p ON p.urn = m.author_urn`
	}
	rows, err := m.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r mapping.AuthorRow
		if err := rows.Scan(&r.ID, &r.Present, &r.Posted, &r.Author); err != nil {
			return err
		}
		each(r)
	}
	return rows.Err()
}

// changedTexts reads the posts the subquery changed names, at most limit
// of them.
func (m *mappingSnapshot) changedTexts(ctx context.Context, changed string, args []any, limit int) ([]mapping.PostText, error) {
	return readTexts(ctx, m.tx, `SELECT l.id, m.id IS NOT NULL, COALESCE(p.text, '')
	  FROM (`+changed+`) l LEFT JOIN mapping_posts m ON m.id = l.id LEFT JOIN pronet_posts p ON p.urn = m.urn
	 LIMIT `+strconv.Itoa(limit), args)
}

func (m *mappingSnapshot) ChangedPosts(ctx context.Context, from uint64, limit int) ([]mapping.PostText, error) {
	changed, args := m.changed(mapping.PostsLog, from)
	return m.changedTexts(ctx, changed, args, limit)
}

func (m *mappingSnapshot) ChangedSinceBlocks(ctx context.Context, oldest uint64, limit int) ([]mapping.PostText, error) {
	changed := `SELECT DISTINCT l.id FROM ` + postsLog + ` l LEFT JOIN mapping_posting_blocks b ON l.id >= b.first_id AND l.id < b.end_id
	  WHERE l.xid >= $1::text::xid8 AND (b.block IS NULL OR l.xid >= b.position::text::xid8)`
	return m.changedTexts(ctx, changed, []any{strconv.FormatUint(oldest, 10)}, limit)
}

func (m *mappingSnapshot) PendingPosts(ctx context.Context) ([]mapping.PostText, error) {
	return readTexts(ctx, m.tx, `SELECT m.id, TRUE, p.text FROM mapping_posts m JOIN pronet_posts p ON p.urn = m.urn WHERE `+m.s.pending("m"), nil)
}

// IndexMatches runs one index query and returns the posts it matches.
func (m *mappingSnapshot) IndexMatches(ctx context.Context, query string) ([]int64, error) {
	match := `SELECT rowid AS id FROM mapping_terms WHERE mapping_terms MATCH $1`
	list := `group_concat(id)`
	if m.s.dialect == Postgres {
		match, list = `SELECT id FROM mapping_posts WHERE terms @@ $1::tsquery`, `string_agg(id::text, ',')`
	}
	// The ids come back as one comma-separated list: tens of thousands of
	// rows one by one cost more than the index lookup that finds them.
	var list64 sql.NullString
	if err := m.tx.QueryRowContext(ctx, `SELECT `+list+` FROM (`+match+`) matched`, query).Scan(&list64); err != nil {
		return nil, fmt.Errorf("match posts: %w", err)
	}
	ids := make([]int64, 0, strings.Count(list64.String, ",")+1)
	for field := range strings.SplitSeq(list64.String, ",") {
		if field == "" {
			continue
		}
		id, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("match posts: id %q: %w", field, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// SharedMatches reads the keyword matches other processes shared under
// keys, in one statement.
func (m *mappingSnapshot) SharedMatches(ctx context.Context, keys []string) (map[string]mapping.SharedMatch, error) {
	rows, err := m.tx.QueryContext(ctx, `SELECT key, position, ids FROM mapping_keyword_matches WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[string]mapping.SharedMatch{}
	for rows.Next() {
		var e mapping.SharedMatch
		if err := rows.Scan(&e.Key, &e.Position, &e.Packed); err != nil {
			return nil, err
		}
		found[e.Key] = e
	}
	return found, rows.Err()
}

func (m *mappingSnapshot) PostingBlocks(ctx context.Context) ([]mapping.PostingBlock, error) {
	return readPostingBlocks(ctx, m.tx)
}

// PostingLists reads the posting lists of lexemes, by block and lexeme.
func (m *mappingSnapshot) PostingLists(ctx context.Context, lexemes []string) (map[int64]map[string][]byte, error) {
	lists := map[int64]map[string][]byte{}
	rows, err := m.tx.QueryContext(ctx, `SELECT block, lexeme, list FROM mapping_postings WHERE lexeme = ANY($1)`, lexemes)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			block  int64
			lexeme string
			list   []byte
		)
		if err := rows.Scan(&block, &lexeme, &list); err != nil {
			return nil, err
		}
		if lists[block] == nil {
			lists[block] = map[string][]byte{}
		}
		lists[block][lexeme] = list
	}
	return lists, rows.Err()
}

// readTexts reads posts' texts: query selects id, present, text.
func readTexts(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args []any) ([]mapping.PostText, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []mapping.PostText
	for rows.Next() {
		var p mapping.PostText
		if err := rows.Scan(&p.ID, &p.Present, &p.Text); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

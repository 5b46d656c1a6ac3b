package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/topic"
)

// The surface of bulk loaders: code that fills a database with many rows
// in little time, for benchmarks and tests (bench/seed, which the trawl
// binary does not link). Collection never uses it. It writes the rows it is
// given with the store's own multi-row statements and bookkeeping (people's
// ids, each topic engager's latest engagement), and nothing else: no
// credits, no billing, no outbox events, no jobs. The loader keeps its own
// counters up to date with statements of its own on Tx.

// Bulk is a bulk loader's write transaction (see InBulk).
type Bulk struct {
	s  *Store
	tx *sql.Tx
}

// InBulk runs fn in one write transaction for a bulk loader, committing
// when fn returns nil.
func (s *Store) InBulk(ctx context.Context, fn func(*Bulk) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return fn(&Bulk{s: s, tx: tx}) })
}

// Tx is the transaction, for the loader's own statements ($N parameters on
// both engines).
func (b *Bulk) Tx() *sql.Tx { return b.tx }

// Now is the store's clock.
func (b *Bulk) Now() time.Time { return b.s.now() }

// Insert writes n rows of ncols values with multi-row INSERTs, the way
// collection writes its rows: head is "INSERT INTO t (a, b) VALUES ",
// suffix follows the values ("ON CONFLICT … RETURNING …" or ""), row
// returns the values of row i, and when scan is set the statements'
// returned rows are passed to it one by one.
func (b *Bulk) Insert(ctx context.Context, head, suffix string, ncols, n int,
	row func(i int) []any, scan func(*sql.Rows) error) error {
	return b.s.batchInsert(ctx, b.tx, head, suffix, ncols, n, row, scan)
}

// InsertPeople is Insert into pronet_people, whose rows get the person ids
// the store gives (on SQLite the writer numbers people; on PostgreSQL the
// column's identity does): columns lists the ncols columns row gives
// values of, without the id.
func (b *Bulk) InsertPeople(ctx context.Context, columns, suffix string, ncols, n int,
	row func(i int) []any, scan func(*sql.Rows) error) error {
	ids, err := b.s.personIDs(ctx, b.tx)
	if err != nil {
		return err
	}
	return b.s.batchInsert(ctx, b.tx, `INSERT INTO pronet_people (`+ids.column+columns+`) VALUES `, suffix, ids.n+ncols, n,
		func(i int) []any { return ids.row(i, row(i)...) }, scan)
}

// InsertResults stores items as results of a search, as a collection run
// does (items without a collection time get at), and returns how many were
// new. It leaves the search's row alone.
func (b *Bulk) InsertResults(ctx context.Context, searchID string, at time.Time, items []source.Item) (int, error) {
	inserted, err := insertResults(ctx, b.tx, b.s.dialect, search.Run{SearchID: searchID, At: at, Items: items})
	return len(inserted), err
}

// LinkedEngagement is an engagement a topic has just linked (its
// topic_engagements row is written), for LinkEngagers.
type LinkedEngagement struct {
	ID        string // pronet_engagements.id
	PersonURN string // a person stored already
	At        time.Time
}

// LinkEngagers makes each person's latest engagement in es their entry in
// the topic's engagers unless a later one is there, as hydrations do, and
// returns how many of the people the topic did not list yet. It leaves the
// topic's counters alone.
func (b *Bulk) LinkEngagers(ctx context.Context, topicID string, es []LinkedEngagement) (int, error) {
	urns := make([]string, 0, len(es))
	seen := make(map[string]bool, len(es))
	for _, e := range es {
		if !seen[e.PersonURN] {
			seen[e.PersonURN] = true
			urns = append(urns, e.PersonURN)
		}
	}
	known, err := b.s.peopleOf(ctx, b.tx, urns)
	if err != nil {
		return 0, fmt.Errorf("link engagers of topic %s: %w", topicID, err)
	}
	cs := make([]topic.Candidate, len(es))
	for i, e := range es {
		cs[i] = topic.Candidate{ID: e.ID, Person: e.PersonURN, PersonID: known[e.PersonURN].id, Engaged: ms(e.At)}
	}
	n, err := b.s.updateEngagers(ctx, b.tx, topicID, topic.LatestPerPerson(cs))
	if err != nil {
		return 0, fmt.Errorf("link engagers of topic %s: %w", topicID, err)
	}
	return n, nil
}

// ResultCursor is the cursor Results hands out after the result published
// at publishedAt with post id postID, for a loader that finds a deep page's
// start without reading the results before it.
func ResultCursor(publishedAt time.Time, postID string) string {
	return encodeCursor(ms(publishedAt), postID)
}

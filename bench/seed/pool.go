package seed

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// Bulk loaders of the social mapping pool (the posts, people and
// engagements every topic collects, shared by all of them), for benchmarks
// and tests only (bench/mapping). They write the shared rows and link
// nothing: no topic_posts, topic_engagements or topic_engagers rows, no
// billing, no outbox events, no jobs, no counters but the ones given. Nor
// do they precompute what social mapping reads: store.PrecomputeMapping
// does, after.

// People stores people as if their profile had been read at `at` (see
// above). People already stored keep their row. It returns how many were
// new.
func People(ctx context.Context, st *store.Store, at time.Time, people []topic.Profile) (int64, error) {
	var stored int64
	err := st.InBulk(ctx, func(b *store.Bulk) error {
		return insertPeople(ctx, b, at, people, ` RETURNING 1`, countRows(&stored))
	})
	if err != nil {
		return 0, fmt.Errorf("seed: people: %w", err)
	}
	return stored, nil
}

// PoolPost is a post PoolPosts stores in the pool.
type PoolPost struct {
	topic.Post
	// SeenAt is when a topic first linked it (and the service first saw it).
	SeenAt time.Time
	// HydratedAt is its last hydration; zero when it has had none. Its
	// follow-up hydrations are stored as done.
	HydratedAt time.Time
	// Engagements is its engagements_count: how many of its engagements
	// hydrations stored (PoolEngagements does not count them).
	Engagements int
}

// PoolPosts stores posts in the pool without linking them to a topic (see
// above). Posts already stored keep their row. It returns how many were
// new.
func PoolPosts(ctx context.Context, st *store.Store, posts []PoolPost) (int64, error) {
	var stored int64
	err := st.InBulk(ctx, func(b *store.Bulk) error {
		return b.Insert(ctx,
			`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at, last_hydrated_at, engagements_count) VALUES `,
			`ON CONFLICT (urn) DO NOTHING RETURNING 1`, 7, len(posts),
			func(i int) []any {
				p := posts[i]
				return []any{p.URN, ms(p.PostedAt), string(p.Record), ms(p.SeenAt), ms(p.SeenAt), nullTime(p.HydratedAt), p.Engagements}
			}, countRows(&stored))
	})
	if err != nil {
		return 0, fmt.Errorf("seed: pool posts: %w", err)
	}
	return stored, nil
}

// PoolEngagement is an engagement PoolEngagements stores.
type PoolEngagement struct {
	PostURN      string
	PersonURN    string
	Type         string // like or comment
	ReactionType string
	Text         string
	CommentURN   string
	At           time.Time // engaged_at: a comment's time, a reaction's first sighting
	SeenAt       time.Time // first_seen_at
	Interval     topic.Interval
}

// PoolEngagements stores engagements of posts and people already stored
// (see PoolPosts and People; see above). Engagements already stored, by
// (post, person, type), are skipped. It returns how many were new.
func PoolEngagements(ctx context.Context, st *store.Store, es []PoolEngagement) (int64, error) {
	var stored int64
	err := st.InBulk(ctx, func(b *store.Bulk) error {
		return b.Insert(ctx,
			`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, reaction_type, text, comment_urn, engaged_at, first_seen_at, discovery_interval) VALUES `,
			`ON CONFLICT (post_urn, person_urn, type) DO NOTHING RETURNING 1`, 10, len(es),
			func(i int) []any {
				e := es[i]
				return []any{ident.New(), e.PostURN, e.PersonURN, e.Type, e.ReactionType, e.Text, e.CommentURN, ms(e.At), ms(e.SeenAt), string(e.Interval)}
			}, countRows(&stored))
	})
	if err != nil {
		return 0, fmt.Errorf("seed: pool engagements: %w", err)
	}
	return stored, nil
}

// countRows counts the rows a statement returns, into n.
func countRows(n *int64) func(*sql.Rows) error {
	return func(rows *sql.Rows) error {
		var one int
		*n++
		return rows.Scan(&one)
	}
}

// PoolTables are the tables of the social mapping pool: the shared rows and
// mapping_posts, the posts' integer ids (and keyword index on PostgreSQL)
// that triggers and collection keep.
var PoolTables = []string{"pronet_people", "pronet_posts", "pronet_engagements", "mapping_posts"}

// DeferPoolIndexes drops the secondary indexes of the pool tables (those
// that back no primary key or unique constraint, and are not unique: people
// are given the id after the largest), for a bulk load that builds them
// once at the end instead of row by row; benchmarks only. The returned
// function creates them again, as they were.
func DeferPoolIndexes(ctx context.Context, st *store.Store) (func(context.Context) error, error) {
	db := st.DB()
	var rows *sql.Rows
	var err error
	if st.Dialect() == store.Postgres {
		rows, err = db.QueryContext(ctx,
			`SELECT ic.relname, pg_get_indexdef(ix.indexrelid)
			   FROM pg_index ix
			   JOIN pg_class ic ON ic.oid = ix.indexrelid
			   JOIN pg_class t ON t.oid = ix.indrelid
			   JOIN pg_namespace n ON n.oid = t.relnamespace
			  WHERE n.nspname = current_schema() AND t.relname IN ($1, $2, $3, $4)
			    AND NOT ix.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid)
			  ORDER BY ic.relname`, PoolTables[0], PoolTables[1], PoolTables[2], PoolTables[3])
	} else {
		// Indexes SQLite makes for constraints have no SQL.
		rows, err = db.QueryContext(ctx,
			`SELECT name, sql FROM sqlite_master
			  WHERE type = 'index' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' AND tbl_name IN ($1, $2, $3, $4)
			  ORDER BY name`, PoolTables[0], PoolTables[1], PoolTables[2], PoolTables[3])
	}
	if err != nil {
		return nil, fmt.Errorf("seed: defer pool indexes: %w", err)
	}
	type index struct{ name, create string }
	var indexes []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.name, &ix.create); err != nil {
			rows.Close()
			return nil, fmt.Errorf("seed: defer pool indexes: %w", err)
		}
		indexes = append(indexes, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("seed: defer pool indexes: %w", err)
	}
	for _, ix := range indexes {
		if _, err := db.ExecContext(ctx, `DROP INDEX `+ix.name); err != nil {
			return nil, fmt.Errorf("seed: defer pool index %s: %w", ix.name, err)
		}
	}
	return func(ctx context.Context) error {
		for _, ix := range indexes {
			if _, err := db.ExecContext(ctx, ix.create); err != nil {
				return fmt.Errorf("seed: create pool index %s: %w", ix.name, err)
			}
		}
		return nil
	}, nil
}

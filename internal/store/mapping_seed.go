package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/topic"
)

// Bulk loaders of the social mapping pool (the posts, people and
// engagements every topic collects, shared by all of them), for benchmarks
// only (bench/mapping): collection never calls them. They write the shared
// rows with multi-row INSERTs in one transaction per call and link nothing:
// no topic_posts, topic_engagements or topic_engagers rows, no billing, no
// outbox events, no jobs, no counters but the ones given. Nor do they
// precompute what social mapping reads: PrecomputeMapping does, after.

// SeedPeople stores people as if their profile had been read at `at`, for
// benchmarks only (see above). People already stored keep their row. It
// returns how many were new.
func (s *Store) SeedPeople(ctx context.Context, at time.Time, people []topic.Profile) (int64, error) {
	var stored int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		ids, err := s.personIDs(ctx, tx)
		if err != nil {
			return err
		}
		return s.batchInsert(ctx, tx,
			`INSERT INTO pronet_people (`+ids.column+`urn, username, full_name, first_name, last_name, headline, job_title, company,
			     company_domain, company_size, industry, country, followers, avatar, pronet_url, first_seen_at, profile_fetched_at) VALUES `,
			`ON CONFLICT (urn) DO NOTHING RETURNING 1`, ids.n+17, len(people),
			func(i int) []any {
				p := people[i]
				var followers any
				if p.Followers != nil {
					followers = *p.Followers
				}
				return ids.row(i, p.URN, p.Username, p.FullName, p.FirstName, p.LastName, p.Headline, p.JobTitle, p.Company,
					p.CompanyDomain, p.CompanySize, p.Industry, p.Country, followers, p.Avatar, p.PronetURL, ms(at), ms(at))
			}, countRows(&stored))
	})
	if err != nil {
		return 0, fmt.Errorf("store: seed people: %w", err)
	}
	return stored, nil
}

// SeedPoolPost is a post SeedPoolPosts stores in the pool.
type SeedPoolPost struct {
	topic.Post
	// SeenAt is when a topic first linked it (and the service first saw it).
	SeenAt time.Time
	// HydratedAt is its last hydration; zero when it has had none. Its
	// follow-up hydrations are stored as done.
	HydratedAt time.Time
	// Engagements is its engagements_count: how many of its engagements
	// hydrations stored (SeedPoolEngagements does not count them).
	Engagements int
}

// SeedPoolPosts stores posts in the pool without linking them to a topic,
// for benchmarks only (see above). Posts already stored keep their row. It
// returns how many were new.
func (s *Store) SeedPoolPosts(ctx context.Context, posts []SeedPoolPost) (int64, error) {
	var stored int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.batchInsert(ctx, tx,
			`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at, last_hydrated_at, engagements_count) VALUES `,
			`ON CONFLICT (urn) DO NOTHING RETURNING 1`, 7, len(posts),
			func(i int) []any {
				p := posts[i]
				return []any{p.URN, ms(p.PostedAt), string(p.Record), ms(p.SeenAt), ms(p.SeenAt), seedTime(p.HydratedAt), p.Engagements}
			}, countRows(&stored))
	})
	if err != nil {
		return 0, fmt.Errorf("store: seed pool posts: %w", err)
	}
	return stored, nil
}

// SeedPoolEngagement is an engagement SeedPoolEngagements stores.
type SeedPoolEngagement struct {
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

// SeedPoolEngagements stores engagements of posts and people already stored
// (see SeedPoolPosts and SeedPeople), for benchmarks only (see above).
// Engagements already stored, by (post, person, type), are skipped. It
// returns how many were new.
func (s *Store) SeedPoolEngagements(ctx context.Context, es []SeedPoolEngagement) (int64, error) {
	var stored int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.batchInsert(ctx, tx,
			`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, reaction_type, text, comment_urn, engaged_at, first_seen_at, discovery_interval) VALUES `,
			`ON CONFLICT (post_urn, person_urn, type) DO NOTHING RETURNING 1`, 10, len(es),
			func(i int) []any {
				e := es[i]
				return []any{ident.New(), e.PostURN, e.PersonURN, e.Type, e.ReactionType, e.Text, e.CommentURN, ms(e.At), ms(e.SeenAt), string(e.Interval)}
			}, countRows(&stored))
	})
	if err != nil {
		return 0, fmt.Errorf("store: seed pool engagements: %w", err)
	}
	return stored, nil
}

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
// are given the id after the largest), for a bulk load that
// builds them once at the end instead of row by row; benchmarks only. The
// returned function creates them again, as they were.
func (s *Store) DeferPoolIndexes(ctx context.Context) (func(context.Context) error, error) {
	var rows *sql.Rows
	var err error
	if s.dialect == Postgres {
		rows, err = s.db.QueryContext(ctx,
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
		rows, err = s.db.QueryContext(ctx,
			`SELECT name, sql FROM sqlite_master
			  WHERE type = 'index' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' AND tbl_name IN ($1, $2, $3, $4)
			  ORDER BY name`, PoolTables[0], PoolTables[1], PoolTables[2], PoolTables[3])
	}
	if err != nil {
		return nil, fmt.Errorf("store: defer pool indexes: %w", err)
	}
	type index struct{ name, create string }
	var indexes []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.name, &ix.create); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: defer pool indexes: %w", err)
		}
		indexes = append(indexes, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: defer pool indexes: %w", err)
	}
	for _, ix := range indexes {
		if _, err := s.db.ExecContext(ctx, `DROP INDEX `+ix.name); err != nil {
			return nil, fmt.Errorf("store: defer pool index %s: %w", ix.name, err)
		}
	}
	return func(ctx context.Context) error {
		for _, ix := range indexes {
			if _, err := s.db.ExecContext(ctx, ix.create); err != nil {
				return fmt.Errorf("store: create pool index %s: %w", ix.name, err)
			}
		}
		return nil
	}, nil
}

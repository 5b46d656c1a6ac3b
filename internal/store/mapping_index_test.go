package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestMappingIndexMigration: migration 00010 precomputes over rows stored
// before it (and Migrate indexes the posts' text in Go) what collection
// would have: the answers are exact, and the packed lists and folded
// people it made in SQL are those Go makes.
func TestMappingIndexMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := fixturePoolAt(t, engine, 9)
			if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, s, mapping.NewEngine(s.MappingPool()), "migrated")
			// Migration 00012: each post's reactions + comments, for the creators' statistics.
			rows, err := s.DB().QueryContext(ctx, `SELECT urn, engagement FROM mapping_posts`)
			if err != nil {
				t.Fatal(err)
			}
			engagement := map[string]int{}
			for rows.Next() {
				var urn string
				var n int
				if err := rows.Scan(&urn, &n); err != nil {
					t.Fatal(err)
				}
				engagement[urn] = n
			}
			rows.Close()
			for _, p := range fxPosts {
				if got := engagement[fxPostURN(p.Key)]; got != p.Reactions+p.Comments {
					t.Errorf("post %s: engagement %d, want %d", p.Key, got, p.Reactions+p.Comments)
				}
			}
			migrated := precomputedRows(t, s)
			if done, err := s.PrecomputeMapping(ctx); err != nil || done != (store.MappingPrecomputed{People: 1}) {
				t.Errorf("left after the migration: %+v, %v; want the one person with non-ASCII values", done, err)
			}
			for _, table := range []string{"mapping_engagers", "mapping_people"} {
				if _, err := s.DB().ExecContext(ctx, `DELETE FROM `+table); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.PrecomputeMapping(ctx); err != nil {
				t.Fatal(err)
			}
			inGo := precomputedRows(t, s)
			for row := range migrated {
				if !inGo[row] {
					t.Errorf("the migration made %s; Go makes otherwise", row)
				}
			}
			if len(inGo) != len(migrated)+1 {
				t.Errorf("Go made %d rows, the migration %d (+1 person)", len(inGo), len(migrated))
			}
		})
	}
}

// precomputedRows are the packed lists and folded people, printed.
func precomputedRows(t *testing.T, s *store.Store) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, q := range []string{
		`SELECT 'post ' || CAST(post_id AS TEXT), engagers FROM mapping_engagers`,
		`SELECT 'person ' || CAST(id AS TEXT) || ' ' || COALESCE(title, '<null>') || ' ' || domain || ' ' || size || ' ' || industry || ' ' ||
		        country || ' ' || COALESCE(CAST(followers AS TEXT), '<null>'), NULL FROM mapping_people`,
	} {
		rows, err := s.DB().QueryContext(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var (
				key  string
				blob []byte
			)
			if err := rows.Scan(&key, &blob); err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("%s %x", key, blob)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// fixturePoolAt is a store migrated up to version holding the fixture's
// people, posts and engagements, stored the way the benchmark's bulk
// loaders do, without precomputing anything.
func fixturePoolAt(t *testing.T, engine store.Dialect, version int64) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, _ := storeAt(t, engine, version, func() time.Time { return mapNow })
	var people []topic.Profile
	for _, key := range []string{"U1", "U2", "U3", "U4", "U5", "U6", "U7", "U8", "U9", "U10", "C1", "C2", "C3", "C4", "C5"} {
		p := fxProfiles[key]
		p.URN, p.FullName, p.Headline = fxPersonURN(key), "First"+key+" Last"+key, fxHeadline(key)
		people = append(people, p)
	}
	// Values SQL does not fold: left to the next profile read.
	people[0].JobTitle, people[0].Industry, people[0].CompanyDomain = "Geschäftsführer", "ÄRZTE", "MÜNCHEN.example.de"
	if _, err := seed.People(ctx, s, mapNow.Add(-day), people); err != nil {
		t.Fatal(err)
	}
	var posts []seed.PoolPost
	for _, p := range fxPosts {
		posts = append(posts, seed.PoolPost{Post: topic.Post{URN: fxPostURN(p.Key), PostedAt: p.Posted, Record: fxRecord(p)},
			SeenAt: p.Posted})
	}
	if _, err := seed.PoolPosts(ctx, s, posts); err != nil {
		t.Fatal(err)
	}
	var es []seed.PoolEngagement
	for _, e := range fxEngagements {
		es = append(es, seed.PoolEngagement{PostURN: fxPostURN(e.Post), PersonURN: fxPersonURN(e.Person), Type: e.Kind,
			At: e.At, SeenAt: e.At, Interval: topic.Initial})
	}
	if _, err := seed.PoolEngagements(ctx, s, es); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPhraseLexemeMigration: a pool indexed before two-word phrases were
// lexemes of their own answers phrase queries exactly after migration
// 00021 (which indexes every post again).
func TestPhraseLexemeMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := fixturePoolAt(t, engine, 20)
			if _, err := s.IndexPendingPosts(ctx); err != nil {
				t.Fatal(err)
			}
			if engine == store.SQLite {
				// The index as it was: no phrase lexemes.
				if _, err := s.DB().ExecContext(ctx, `INSERT INTO mapping_terms (mapping_terms) VALUES ('delete-all')`); err != nil {
					t.Fatal(err)
				}
				for _, p := range fxPosts {
					terms := mapping.IndexText(p.Text)
					terms.Others = slices.DeleteFunc(terms.Others, mapping.IsPhraseLexeme)
					if _, err := s.DB().ExecContext(ctx, `INSERT INTO mapping_terms (rowid, terms) SELECT id, $1 FROM mapping_posts WHERE urn = $2`,
						terms.FTSText(), fxPostURN(p.Key)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, s, mapping.NewEngine(s.MappingPool()), "phrase lexemes")
		})
	}
}

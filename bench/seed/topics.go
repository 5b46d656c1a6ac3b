package seed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// Bulk loaders of topic data, for benchmarks and tests only
// (BenchmarkClaimDuePosts, bench/topicengagers). They write the rows a
// topic's discoveries and hydrations leave behind, but charge no credits,
// record no billing, write no outbox events and enqueue no jobs.

// Post is a post TopicPosts stores and links to a topic.
type Post struct {
	topic.Post
	// LinkedAt is when the topic linked it (and the service first saw it).
	LinkedAt time.Time
	// Interval is the discovery that linked it: initial or rediscovery.
	Interval topic.Interval
	// Stage is its next hydration, due at DueAt; "" (and a zero DueAt)
	// when its follow-ups are done.
	Stage topic.Interval
	DueAt time.Time
	// HydratedAt is its last hydration; zero when it has had none.
	HydratedAt time.Time
}

// TopicPosts stores posts and links them to a topic (see above). Posts
// already stored keep their row; links the topic has are skipped. The new
// links are added to the topic's posts_count, which is returned.
func TopicPosts(ctx context.Context, st *store.Store, topicID string, posts []Post) (int64, error) {
	var total int64
	err := st.InBulk(ctx, func(b *store.Bulk) error {
		err := b.Insert(ctx,
			`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at, hydrate_stage, next_hydrate_at, last_hydrated_at) VALUES `,
			`ON CONFLICT (urn) DO NOTHING`, 8, len(posts),
			func(i int) []any {
				p := posts[i]
				return []any{p.URN, ms(p.PostedAt), string(p.Record), ms(p.LinkedAt), ms(p.LinkedAt),
					nullString(string(p.Stage)), nullTime(p.DueAt), nullTime(p.HydratedAt)}
			}, nil)
		if err != nil {
			return fmt.Errorf("store posts: %w", err)
		}
		var linked int64
		err = b.Insert(ctx,
			`INSERT INTO topic_posts (topic_id, post_urn, linked_at, discovery_interval) VALUES `,
			`ON CONFLICT (topic_id, post_urn) DO NOTHING RETURNING post_urn`, 4, len(posts),
			func(i int) []any {
				return []any{topicID, posts[i].URN, ms(posts[i].LinkedAt), string(posts[i].Interval)}
			},
			func(rows *sql.Rows) error {
				var urn string
				linked++
				return rows.Scan(&urn)
			})
		if err != nil {
			return fmt.Errorf("link posts: %w", err)
		}
		err = b.Tx().QueryRowContext(ctx,
			`UPDATE topics SET posts_count = posts_count + $2 WHERE id = $1 RETURNING posts_count`, topicID, linked).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("seed: posts of topic %s: %w", topicID, err)
	}
	return total, nil
}

// Engagement is an engagement TopicEngagements stores and links.
type Engagement struct {
	PostURN string
	// Person is stored as if their profile had been read when the
	// engagement was linked; a person already stored keeps their row.
	Person       topic.Profile
	Type         string // like or comment
	ReactionType string
	Text         string
	CommentURN   string
	At           time.Time // engaged_at
	Interval     topic.Interval
}

// TopicEngagements stores engagements of posts already stored (see
// TopicPosts) with their people and links them to a topic at `at` (see
// above): the topic's engagements, its deduplicated engagers (each person's
// latest engagement) and the engagement counters come out as hydrations
// leave them. Engagements already stored, by (post, person, type), are
// skipped. It returns the topic's engagements_count.
func TopicEngagements(ctx context.Context, st *store.Store, topicID string, at time.Time, es []Engagement) (int64, error) {
	var total int64
	err := st.InBulk(ctx, func(b *store.Bulk) error {
		people := make([]topic.Profile, 0, len(es))
		seen := make(map[string]bool, len(es))
		for _, e := range es {
			if !seen[e.Person.URN] {
				seen[e.Person.URN] = true
				people = append(people, e.Person)
			}
		}
		if err := insertPeople(ctx, b, at, people, ``, nil); err != nil {
			return err
		}
		ids := make([]string, len(es))
		index := make(map[string]int, len(es))
		for i := range es {
			ids[i] = ident.New()
			index[ids[i]] = i
		}
		var inserted []int
		err := b.Insert(ctx,
			`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, reaction_type, text, comment_urn, engaged_at, first_seen_at, discovery_interval) VALUES `,
			`ON CONFLICT (post_urn, person_urn, type) DO NOTHING RETURNING id`, 10, len(es),
			func(i int) []any {
				e := es[i]
				return []any{ids[i], e.PostURN, e.Person.URN, e.Type, e.ReactionType, e.Text, e.CommentURN, ms(e.At), ms(at), string(e.Interval)}
			},
			func(rows *sql.Rows) error {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				i, ok := index[id]
				if !ok {
					return fmt.Errorf("unexpected engagement id %s", id)
				}
				inserted = append(inserted, i)
				return nil
			})
		if err != nil {
			return fmt.Errorf("store engagements: %w", err)
		}
		err = b.Insert(ctx,
			`INSERT INTO topic_engagements (topic_id, engagement_id, post_urn, person_urn, created_at) VALUES `,
			`ON CONFLICT (topic_id, engagement_id) DO NOTHING`, 5, len(inserted),
			func(j int) []any {
				i := inserted[j]
				return []any{topicID, ids[i], es[i].PostURN, es[i].Person.URN, ms(at)}
			}, nil)
		if err != nil {
			return fmt.Errorf("link engagements: %w", err)
		}
		linked := make([]store.LinkedEngagement, len(inserted))
		for j, i := range inserted {
			linked[j] = store.LinkedEngagement{ID: ids[i], PersonURN: es[i].Person.URN, At: es[i].At}
		}
		newEngagers, err := b.LinkEngagers(ctx, topicID, linked)
		if err != nil {
			return err
		}
		perPost := map[string]int{}
		var order []string
		for _, i := range inserted {
			if perPost[es[i].PostURN] == 0 {
				order = append(order, es[i].PostURN)
			}
			perPost[es[i].PostURN]++
		}
		for _, urn := range order {
			if _, err := b.Tx().ExecContext(ctx, `UPDATE pronet_posts SET engagements_count = engagements_count + $2 WHERE urn = $1`,
				urn, perPost[urn]); err != nil {
				return fmt.Errorf("count post engagements: %w", err)
			}
		}
		err = b.Tx().QueryRowContext(ctx,
			`UPDATE topics SET engagements_count = engagements_count + $2, engagers_count = engagers_count + $3
			  WHERE id = $1 RETURNING engagements_count`,
			topicID, len(inserted), newEngagers).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("seed: engagements of topic %s: %w", topicID, err)
	}
	return total, nil
}

// insertPeople stores people as if their profile had been read at `at`;
// suffix and scan are Insert's.
func insertPeople(ctx context.Context, b *store.Bulk, at time.Time, people []topic.Profile, suffix string, scan func(*sql.Rows) error) error {
	err := b.InsertPeople(ctx,
		`urn, username, full_name, first_name, last_name, headline, job_title, company,
		 company_domain, company_size, industry, country, followers, avatar, pronet_url, first_seen_at, profile_fetched_at`,
		`ON CONFLICT (urn) DO NOTHING`+suffix, 17, len(people),
		func(i int) []any {
			p := people[i]
			var followers any
			if p.Followers != nil {
				followers = *p.Followers
			}
			return []any{p.URN, p.Username, p.FullName, p.FirstName, p.LastName, p.Headline, p.JobTitle, p.Company,
				p.CompanyDomain, p.CompanySize, p.Industry, p.Country, followers, p.Avatar, p.PronetURL, ms(at), ms(at)}
		}, scan)
	if err != nil {
		return fmt.Errorf("store people: %w", err)
	}
	return nil
}

// nullString is v, or NULL when empty.
func nullString(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// nullTime is t as stored, or NULL when zero.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/topic"
)

// SaveDiscovery implements topic.Repository. In one transaction: the posts
// are stored (or their records refreshed), those new to the topic are linked
// and paid for (each post once per account), new posts get their first
// hydration enqueued, the topic's engagements on posts it newly shares with
// other topics are linked, and the topic's run fields are set. An account
// whose credits cannot pay for the posts leaves everything as it was
// (credits.ErrInsufficient); one that can pay for the posts but not for the
// engagements other topics collected on them links the posts, and the topic
// waits for credits for the engagements (as after a hydration). A topic that
// is no longer active stores nothing.
func (s *Store) SaveDiscovery(ctx context.Context, run topic.DiscoveryRun) (topic.DiscoveryOutcome, error) {
	var out topic.DiscoveryOutcome
	err := s.inJobTx(ctx, func(tx JobTx) error {
		// The topic row is only updated at the end: every transaction of
		// collection locks posts before topics, and each in key order.
		t, err := scanTopic(tx.SQL.QueryRowContext(ctx, `SELECT `+topicColumns+` FROM topics WHERE id = $1`, run.TopicID))
		if errors.Is(err, sql.ErrNoRows) {
			return topic.ErrGone
		}
		if err != nil {
			return err
		}
		if t.Status != topic.StatusActive || !run.At.Before(t.ExpiresAt) {
			return topic.ErrNotRunnable
		}
		at := ms(run.At)
		hydrateAt, owner := ms(s.firstRunAt(run.At, run.HydrateLease)), s.claimOwner()
		plan := topic.PlanDiscovery(run)
		// Store the posts, reading back which no hydration has read yet
		// (topic.PlanDiscoveryLinks).
		var unhydrated []string
		newPosts := 0
		err = s.batchInsert(ctx, tx.SQL,
			`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at, hydrate_stage, next_hydrate_at, lease_owner) VALUES `,
			`ON CONFLICT (urn) DO UPDATE SET record = excluded.record RETURNING urn, first_seen_at, last_hydrated_at`, 8, len(plan.Posts),
			func(i int) []any {
				p := plan.Posts[i]
				return []any{p.URN, ms(p.PostedAt), string(p.Record), at, at, string(run.Interval), hydrateAt, owner}
			},
			func(rows *sql.Rows) error {
				var urn string
				var seen int64
				var hydrated sql.NullInt64
				if err := rows.Scan(&urn, &seen, &hydrated); err != nil {
					return err
				}
				if seen == at {
					newPosts++
				}
				if !hydrated.Valid {
					unhydrated = append(unhydrated, urn)
				}
				return nil
			})
		if err != nil {
			return fmt.Errorf("store posts: %w", err)
		}
		if err := s.indexDiscoveredPosts(ctx, tx.SQL, plan.Posts); err != nil {
			return err
		}
		if _, err := s.upsertPeople(ctx, tx.SQL, plan.Authors, run.At); err != nil {
			return err
		}
		// Link those the topic does not have yet.
		var linked []string
		err = s.batchInsert(ctx, tx.SQL,
			`INSERT INTO topic_posts (topic_id, post_urn, linked_at, discovery_interval) VALUES `,
			`ON CONFLICT (topic_id, post_urn) DO NOTHING RETURNING post_urn`, 4, len(plan.Posts),
			func(i int) []any { return []any{t.ID, plan.Posts[i].URN, at, string(run.Interval)} },
			func(rows *sql.Rows) error {
				var urn string
				if err := rows.Scan(&urn); err != nil {
					return err
				}
				linked = append(linked, urn)
				return nil
			})
		if err != nil {
			return fmt.Errorf("link posts: %w", err)
		}
		if err := s.payForPosts(ctx, tx.SQL, t, linked, run.At, run.Allocation); err != nil {
			return err
		}
		// The searches' cost is the topic's alone, recorded with its charge.
		if err := s.recordCost(ctx, tx.SQL, topicCost(t, "topic discovery", run.Interval, run.UpstreamCost, run.At), run.At); err != nil {
			return fmt.Errorf("record upstream cost: %w", err)
		}
		res, err := tx.SQL.ExecContext(ctx,
			`UPDATE topics SET last_run_at = $2, new_items = $3, number_of_new_items = $4, posts_count = posts_count + $4,
			        next_run_at = $5, last_error = NULL, failures = 0, credits_blocked_at = NULL, lease_owner = NULL
			  WHERE id = $1 AND status = 'ACTIVE'`,
			t.ID, at, boolInt(len(linked) > 0), len(linked), ms(run.NextRunAt))
		if err != nil {
			return fmt.Errorf("update topic: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return topic.ErrNotRunnable // paused, stopped or deleted meanwhile
		}
		// Posts that waited with no active topic resume their schedule.
		if err := unparkPosts(ctx, tx.SQL, t.ID, run.At); err != nil {
			return err
		}
		// Posts other topics already hydrated bring their engagements
		// along; the others start their hydration.
		links := topic.PlanDiscoveryLinks(linked, unhydrated)
		for _, urn := range links.BringAlong {
			n, err := s.syncTopicPost(ctx, tx.SQL, t, urn, nil, run.At, run.Allocation)
			if topic.Blocks(err) {
				// The posts are paid for; their engagements wait for
				// credits, as those of a hydration do.
				if err := s.blockTopic(ctx, tx.SQL, t.ID, run.At); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return err
			}
			out.LinkedEngagements += n
		}
		for _, urn := range links.Hydrate {
			if err := s.enqueueTx(ctx, tx, topic.HydrateArgs{PostURN: urn}); err != nil {
				return err
			}
		}
		out.NewPosts, out.Linked = newPosts, len(linked)
		return nil
	})
	if err != nil {
		return topic.DiscoveryOutcome{}, fmt.Errorf("store: save discovery of %s: %w", run.TopicID, contention(err))
	}
	return out, nil
}

// payForPosts bills the account for the posts it has not paid for yet and
// spends the credits for them. A balance that cannot pay returns
// credits.ErrInsufficient having written nothing: the bills are written
// first (their insert tells how many are new) under a savepoint that is
// rolled back then. (Engagements are billed by their links:
// syncTopicPost.)
func (s *Store) payForPosts(ctx context.Context, tx *sql.Tx, t topic.Topic, urns []string, at time.Time, allocation int64) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT pay_once`); err != nil {
		return fmt.Errorf("pay for posts: %w", err)
	}
	billed, err := s.billPosts(ctx, tx, t.AccountID, urns, at)
	if err == nil && billed > 0 {
		_, err = s.spendTx(ctx, tx, credits.Charge{AccountID: t.AccountID, Feature: credits.SocialTopics, Amount: billed,
			Allocation: allocation, Reference: t.ID, Action: "topic posts collected"}, at)
	}
	if err != nil {
		if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT pay_once`); rerr != nil {
			return fmt.Errorf("pay for posts: %w (and rolling back: %w)", err, rerr)
		}
		return err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT pay_once`); err != nil {
		return fmt.Errorf("pay for posts: %w", err)
	}
	return nil
}

// billPosts records that the account paid for the posts it had not paid
// for yet and returns how many those were.
func (s *Store) billPosts(ctx context.Context, tx *sql.Tx, accountID string, urns []string, at time.Time) (int64, error) {
	var n int64
	err := s.batchInsert(ctx, tx,
		`INSERT INTO topic_billing (account_id, kind, subject_id, charged_at) VALUES `,
		`ON CONFLICT (account_id, kind, subject_id) DO NOTHING RETURNING subject_id`, 4, len(urns),
		func(i int) []any { return []any{accountID, "post", urns[i], ms(at)} },
		func(rows *sql.Rows) error {
			var id string
			n++
			return rows.Scan(&id)
		})
	if err != nil {
		return 0, fmt.Errorf("bill posts: %w", err)
	}
	return n, nil
}

// SaveHydration implements topic.Repository. In one transaction: the
// engagers are stored as people (new ones get their profile read), each
// engagement once per (post, person, type), the post's schedule moves on,
// and every active topic linking the post links the engagements it keeps,
// paying for each once per account; each new link is also the engagement
// trigger's outbox event. Topics whose account cannot pay link nothing and
// wait for credits; the rest are stored all the same.
func (s *Store) SaveHydration(ctx context.Context, h topic.Hydration) (topic.HydrationOutcome, error) {
	var out topic.HydrationOutcome
	// Hydrations run side by side in the workers; on SQLite those that wait
	// for the writer share a transaction (inGroupTx), and with it the pages
	// they all append to.
	err := s.inGroupTx(ctx, func(tx *sql.Tx) error {
		out = topic.HydrationOutcome{} // a group that failed runs this again alone
		at := ms(h.At)
		var before int64 // the post's engagements stored earlier
		if err := s.queryRowTx(ctx, tx, `SELECT engagements_count FROM pronet_posts WHERE urn = $1`+s.forUpdate(), h.PostURN).Scan(&before); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return topic.ErrGone
			}
			return err
		}
		plan := topic.PlanHydration(h)
		people, err := s.upsertPeople(ctx, tx, plan.People, h.At)
		if err != nil {
			return err
		}
		// Engagements already stored are skipped (ON CONFLICT); the plan
		// has each person's one of a kind, as the statement keeps one.
		found := plan.Found
		ids := make([]string, len(found))
		engaged := make([]int64, len(found))
		for i, f := range found {
			ids[i], engaged[i] = ident.New(), ms(f.At)
		}
		row := func(i int) []any {
			f := found[i]
			return []any{ids[i], h.PostURN, f.Person.URN, f.Type, f.ReactionType, f.Text, f.CommentURN, engaged[i], at, string(h.Stage)}
		}
		const insertEngagements = `INSERT INTO pronet_engagements (id, post_urn, person_urn, type, reaction_type, text, comment_urn, engaged_at, first_seen_at, discovery_interval) VALUES `
		// A post's first hydration (it brings most engagements): what it
		// stores is all the post has and no topic links any of it yet, so
		// on SQLite it is packed and linked as it is instead of read back,
		// row by row into Go. (Every writer of engagements counts them on
		// the post; were one to skip that, the insert below would fail on
		// the unique key, not link the wrong set.) PostgreSQL reads back
		// and packs in the server, which measured faster there.
		var first []topic.Candidate
		newEngagements := 0
		if before == 0 && s.dialect == SQLite {
			if err := s.batchInsert(ctx, tx, insertEngagements, ``, 10, len(found), row, nil); err != nil {
				return fmt.Errorf("store engagements: %w", err)
			}
			newEngagements = len(found)
			first = make([]topic.Candidate, len(found))
			for i, f := range found {
				p, ok := people[f.Person.URN]
				if !ok {
					return fmt.Errorf("engager %s is not stored", f.Person.URN)
				}
				first[i] = topic.Candidate{ID: ids[i], Person: f.Person.URN, PersonID: p.id, Engaged: engaged[i],
					Comment: f.Type == "comment", Title: p.title, Headline: p.headline, NewPerson: p.isNew}
			}
			// In the order unlinkedEngagements reads them.
			slices.SortFunc(first, func(a, b topic.Candidate) int {
				return cmp.Or(cmp.Compare(a.Engaged, b.Engaged), strings.Compare(a.ID, b.ID))
			})
			if err := s.packPost(ctx, tx, h.PostURN, first); err != nil {
				return err
			}
		} else {
			err := s.batchInsert(ctx, tx, insertEngagements, `ON CONFLICT (post_urn, person_urn, type) DO NOTHING RETURNING 1`, 10, len(found), row,
				func(rows *sql.Rows) error {
					newEngagements++
					return nil
				})
			if err != nil {
				return fmt.Errorf("store engagements: %w", err)
			}
			if err := s.indexEngagers(ctx, tx, []string{h.PostURN}); err != nil {
				return err
			}
		}
		var next any
		if h.NextAt != nil {
			next = ms(*h.NextAt)
		}
		var nextStage any
		if h.NextStage != "" {
			nextStage = string(h.NextStage)
		}
		if _, err := s.execTx(ctx, tx,
			`UPDATE pronet_posts SET engagements_count = engagements_count + $2, last_hydrated_at = $3, hydrate_stage = $4,
			        next_hydrate_at = $5, last_error = NULL, failures = 0, lease_owner = NULL
			  WHERE urn = $1`, h.PostURN, newEngagements, at, nextStage, next); err != nil {
			return fmt.Errorf("update post: %w", err)
		}
		out.NewEngagements = newEngagements
		topics, err := s.activeTopicsOfPost(ctx, tx, h.PostURN, at)
		if err != nil {
			return fmt.Errorf("topics of post: %w", err)
		}
		// The hydration's cost is shared by the topics linking the post,
		// those waiting for credits included: the calls were made for them.
		if err := s.splitPostCost(ctx, tx, topics, h.Stage, h.UpstreamCost, h.At); err != nil {
			return err
		}
		for _, t := range topics {
			n, err := s.syncTopicPost(ctx, tx, t, h.PostURN, first, h.At, h.Allocations[t.AccountID])
			if topic.Blocks(err) {
				if err := s.blockTopic(ctx, tx, t.ID, h.At); err != nil {
					return err
				}
				out.Blocked = append(out.Blocked, t.ID)
				continue
			}
			if err != nil {
				return err
			}
			// A failure of this post's earlier hydration no longer stands.
			if _, err := s.execTx(ctx, tx, `UPDATE topics SET last_error = NULL WHERE id = $1 AND last_error LIKE $2`,
				t.ID, "post "+h.PostURN+":%"); err != nil {
				return fmt.Errorf("clear topic error: %w", err)
			}
			out.Linked += n
		}
		return nil
	})
	if err != nil {
		return topic.HydrationOutcome{}, fmt.Errorf("store: save hydration of post %s: %w", h.PostURN, contention(err))
	}
	if out.Linked > 0 { // each linked engagement wrote an outbox event
		s.eventsWritten()
	}
	return out, nil
}

// contention marks the errors of transactions that lost to a concurrent one
// (deadlock, serialization failure, SQLite busy) as topic.ErrContention:
// running again soon is the cure, not a backoff.
func contention(err error) error {
	if lostToConcurrent(err) {
		return fmt.Errorf("%w: %w", topic.ErrContention, err)
	}
	return err
}

// profileRefreshMS is topic.ProfileRefresh in the stored unit, for SQL.
var profileRefreshMS = strconv.FormatInt(topic.ProfileRefresh.Milliseconds(), 10)

// blockTopic records that the topic waits for credits (topic.Blocks), since
// the first time it did.
func (s *Store) blockTopic(ctx context.Context, tx *sql.Tx, id string, at time.Time) error {
	_, err := tx.ExecContext(ctx,
		`UPDATE topics SET credits_blocked_at = COALESCE(credits_blocked_at, $2), last_error = $3 WHERE id = $1`,
		id, ms(at), topic.OutOfCredits)
	if err != nil {
		return fmt.Errorf("block topic %s: %w", id, err)
	}
	return nil
}

// activeTopicsOfPost are the active topics linking the post urn that have not expired at (Unix
// ms), by id.
func (s *Store) activeTopicsOfPost(ctx context.Context, tx *sql.Tx, urn string, at int64) ([]topic.Topic, error) {
	rows, err := s.queryTx(ctx, tx,
		`SELECT `+topicColumns+` FROM topics
		  WHERE id IN (SELECT topic_id FROM topic_posts WHERE post_urn = $1) AND status = 'ACTIVE' AND expires_at > $2
		  ORDER BY id`, urn, at)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var topics []topic.Topic
	for rows.Next() {
		t, err := scanTopic(rows)
		if err != nil {
			return nil, err
		}
		topics = append(topics, t)
	}
	return topics, rows.Err()
}

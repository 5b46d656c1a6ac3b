package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/topic"
)

// ClaimDueTopics implements topic.Repository: active, unexpired topics whose
// discovery is due, claimed for lease.
func (s *Store) ClaimDueTopics(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, error) {
	return s.claim(ctx, "topics",
		`UPDATE topics SET next_run_at = $2, lease_owner = $4
		  WHERE id IN (SELECT id FROM topics WHERE status = 'ACTIVE' AND next_run_at <= $1 AND expires_at > $1
		               ORDER BY next_run_at LIMIT $3`+s.skipLocked()+`)
		  RETURNING id`, ms(now), ms(now.Add(lease)), limit, s.owner)
}

// ClaimDuePosts implements topic.Repository: posts whose next hydration is
// due and that an active, unexpired topic still links, claimed for lease.
func (s *Store) ClaimDuePosts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, error) {
	return s.claim(ctx, "posts",
		`UPDATE pronet_posts SET next_hydrate_at = $2, lease_owner = $4
		  WHERE urn IN (SELECT p.urn FROM pronet_posts p
		                 WHERE p.next_hydrate_at <= $1
		                   AND EXISTS (SELECT 1 FROM topic_posts tp JOIN topics t ON t.id = tp.topic_id
		                                WHERE tp.post_urn = p.urn AND t.status = 'ACTIVE' AND t.expires_at > $1)
		                 ORDER BY p.next_hydrate_at LIMIT $3`+s.skipLocked()+`)
		  RETURNING urn`, ms(now), ms(now.Add(lease)), limit, s.owner)
}

// ClaimDueProfiles implements topic.Repository: people whose profile is due
// to be read, claimed for lease.
func (s *Store) ClaimDueProfiles(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]topic.PersonRef, error) {
	rows, err := s.db.QueryContext(ctx,
		`UPDATE pronet_people SET profile_due_at = $2, lease_owner = $4
		  WHERE urn IN (SELECT urn FROM pronet_people WHERE profile_due_at <= $1
		                 ORDER BY profile_due_at LIMIT $3`+s.skipLocked()+`)
		  RETURNING urn, username`, ms(now), ms(now.Add(lease)), limit, s.owner)
	if err != nil {
		return nil, fmt.Errorf("store: claim due profiles: %w", err)
	}
	defer rows.Close()
	var out []topic.PersonRef
	for rows.Next() {
		var p topic.PersonRef
		if err := rows.Scan(&p.URN, &p.Username); err != nil {
			return nil, fmt.Errorf("store: claim due profiles: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: claim due profiles: %w", err)
	}
	return out, nil
}

// CreditBlockedTopics implements topic.Repository: active topics whose
// linking waits for credits.
func (s *Store) CreditBlockedTopics(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id FROM topics WHERE credits_blocked_at IS NOT NULL AND status = 'ACTIVE' ORDER BY credits_blocked_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: credit-blocked topics: %w", err)
	}
	return scanStrings(rows, "credit-blocked topics")
}

func (s *Store) claim(ctx context.Context, what, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: claim due %s: %w", what, err)
	}
	return scanStrings(rows, "claim due "+what)
}

func scanStrings(rows *sql.Rows, what string) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("store: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return out, nil
}

func (s *Store) skipLocked() string {
	if s.dialect == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// ExpireTopics implements topic.Repository: topics past their 30 days end.
func (s *Store) ExpireTopics(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx,
			`SELECT id FROM topics WHERE status IN ('ACTIVE', 'PAUSED') AND expires_at <= $1`, ms(now))
		if err != nil {
			return err
		}
		ids, err := scanStrings(rows, "expired topics")
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := parkPosts(ctx, tx, id, now); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx,
			`UPDATE topics SET status = 'EXPIRED', next_run_at = NULL, credits_blocked_at = NULL, updated_at = $1, lease_owner = NULL
			  WHERE status IN ('ACTIVE', 'PAUSED') AND expires_at <= $1`, ms(now))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: expire topics: %w", err)
	}
	return n, nil
}

// parkPosts takes the posts of a topic that stops being active out of the
// due-post schedule when no other active topic links them, so the scan does
// not walk past them for good; their next stage is kept for unparkPosts.
// Callers run it before they lock the topic's row: collection locks posts
// before topics.
func parkPosts(ctx context.Context, tx *sql.Tx, topicID string, now time.Time) error {
	_, err := tx.ExecContext(ctx,
		`UPDATE pronet_posts SET next_hydrate_at = NULL, lease_owner = NULL
		  WHERE urn IN (SELECT post_urn FROM topic_posts WHERE topic_id = $1) AND next_hydrate_at IS NOT NULL
		    AND NOT EXISTS (SELECT 1 FROM topic_posts tp JOIN topics t ON t.id = tp.topic_id
		                     WHERE tp.post_urn = pronet_posts.urn AND t.id <> $1 AND t.status = 'ACTIVE' AND t.expires_at > $2)`,
		topicID, ms(now))
	if err != nil {
		return fmt.Errorf("park posts of topic %s: %w", topicID, err)
	}
	return nil
}

// unparkPosts puts the parked posts of a resumed topic back on schedule: a
// follow-up at its due time (now, if that has passed), a first hydration now.
func unparkPosts(ctx context.Context, tx *sql.Tx, topicID string, now time.Time) error {
	const day = int64(24 * time.Hour / time.Millisecond)
	_, err := tx.ExecContext(ctx,
		`UPDATE pronet_posts SET next_hydrate_at = CASE hydrate_stage
		         WHEN 'day1' THEN first_linked_at + $3 WHEN 'day3' THEN first_linked_at + 3 * $3
		         WHEN 'day5' THEN first_linked_at + 5 * $3 ELSE $2 END
		  WHERE urn IN (SELECT post_urn FROM topic_posts WHERE topic_id = $1)
		    AND next_hydrate_at IS NULL AND hydrate_stage IS NOT NULL`,
		topicID, ms(now), day)
	if err != nil {
		return fmt.Errorf("unpark posts of topic %s: %w", topicID, err)
	}
	return nil
}

// RecordTopicFailure implements topic.Repository.
func (s *Store) RecordTopicFailure(ctx context.Context, id string, msg string, countFailure bool, next time.Time) error {
	inc := 0
	if countFailure {
		inc = 1
	}
	_, err := s.db.ExecContext(ctx,
		`UPDATE topics SET last_error = $2, failures = failures + $3,
		        next_run_at = CASE WHEN status = 'ACTIVE' THEN $4 ELSE next_run_at END, lease_owner = NULL
		  WHERE id = $1`, id, msg, inc, ms(next))
	if err != nil {
		return fmt.Errorf("store: record topic failure %s: %w", id, err)
	}
	return nil
}

// RecordPostFailure implements topic.Repository: the post is hydrated again
// at next, and the active topics linking it show why.
func (s *Store) RecordPostFailure(ctx context.Context, urn, msg string, countFailure bool, next time.Time) error {
	inc := 0
	if countFailure {
		inc = 1
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE pronet_posts SET last_error = $2, failures = failures + $3, next_hydrate_at = $4, lease_owner = NULL WHERE urn = $1`,
			urn, msg, inc, ms(next)); err != nil {
			return fmt.Errorf("store: record post failure %s: %w", urn, err)
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE topics SET last_error = $2
			  WHERE status = 'ACTIVE' AND id IN (SELECT topic_id FROM topic_posts WHERE post_urn = $1)`,
			urn, "post "+urn+": "+msg); err != nil {
			return fmt.Errorf("store: record post failure %s: %w", urn, err)
		}
		return nil
	})
}

// PostSchedule implements topic.Repository: what a hydration of the post
// needs to know.
func (s *Store) PostSchedule(ctx context.Context, urn string) (topic.PostSchedule, error) {
	var (
		p      topic.PostSchedule
		linked int64
		stage  sql.NullString
		due    sql.NullInt64
	)
	err := s.db.QueryRowContext(ctx,
		`SELECT urn, first_linked_at, hydrate_stage, next_hydrate_at, failures FROM pronet_posts WHERE urn = $1`, urn).
		Scan(&p.URN, &linked, &stage, &due, &p.Failures)
	if errors.Is(err, sql.ErrNoRows) {
		return topic.PostSchedule{}, fmt.Errorf("store: post %s: %w", urn, topic.ErrGone)
	}
	if err != nil {
		return topic.PostSchedule{}, fmt.Errorf("store: post %s: %w", urn, err)
	}
	p.FirstLinkedAt, p.Stage, p.DueAt = fromMS(linked), topic.Interval(stage.String), nullTime(due)
	rows, err := s.db.QueryContext(ctx,
		`SELECT DISTINCT t.account_id FROM topic_posts tp JOIN topics t ON t.id = tp.topic_id
		  WHERE tp.post_urn = $1 AND t.status = 'ACTIVE'`, urn)
	if err != nil {
		return topic.PostSchedule{}, fmt.Errorf("store: post %s accounts: %w", urn, err)
	}
	if p.Accounts, err = scanStrings(rows, "post accounts"); err != nil {
		return topic.PostSchedule{}, err
	}
	return p, nil
}

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
		slices.SortFunc(run.Posts, func(a, b topic.Post) int { return strings.Compare(a.URN, b.URN) })
		// Store the posts; the ones not hydrated yet start their hydration,
		// which links them to every topic then linking them. (Not "first
		// seen now": another discovery of the same millisecond may have
		// stored a post, and its hydration may be over.)
		var fresh []string
		newPosts := 0
		err = s.batchInsert(ctx, tx.SQL,
			`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at, hydrate_stage, next_hydrate_at, lease_owner) VALUES `,
			`ON CONFLICT (urn) DO UPDATE SET record = excluded.record RETURNING urn, first_seen_at, last_hydrated_at`, 8, len(run.Posts),
			func(i int) []any {
				p := run.Posts[i]
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
					fresh = append(fresh, urn)
				}
				return nil
			})
		if err != nil {
			return fmt.Errorf("store posts: %w", err)
		}
		if err := s.indexDiscoveredPosts(ctx, tx.SQL, run.Posts); err != nil {
			return err
		}
		var authors []topic.Engager
		for _, p := range run.Posts {
			if p.Author.URN != "" {
				authors = append(authors, p.Author)
			}
		}
		if _, err := s.upsertPeople(ctx, tx.SQL, uniqueEngagers(authors), run.At); err != nil {
			return err
		}
		// Link those the topic does not have yet.
		var linked []string
		err = s.batchInsert(ctx, tx.SQL,
			`INSERT INTO topic_posts (topic_id, post_urn, linked_at, discovery_interval) VALUES `,
			`ON CONFLICT (topic_id, post_urn) DO NOTHING RETURNING post_urn`, 4, len(run.Posts),
			func(i int) []any { return []any{t.ID, run.Posts[i].URN, at, string(run.Interval)} },
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
		// Posts other topics already hydrated bring their engagements along.
		isFresh := make(map[string]bool, len(fresh))
		for _, urn := range fresh {
			isFresh[urn] = true
		}
		for _, urn := range linked {
			if isFresh[urn] {
				continue
			}
			n, err := s.syncTopicPost(ctx, tx.SQL, t, urn, nil, run.At, run.Allocation)
			if errors.Is(err, credits.ErrInsufficient) {
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
		for _, urn := range fresh {
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
// payForEngagements.)
func (s *Store) payForPosts(ctx context.Context, tx *sql.Tx, t topic.Topic, urns []string, at time.Time, allocation int64) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT pay_once`); err != nil {
		return fmt.Errorf("pay for posts: %w", err)
	}
	billed, err := s.billPosts(ctx, tx, t.AccountID, urns, at)
	if err == nil && billed > 0 {
		_, err = s.spendTx(ctx, tx, Charge{AccountID: t.AccountID, Feature: credits.SocialTopics, Amount: billed,
			Allocation: allocation, Reference: t.ID}, at)
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
		people, err := s.upsertPeople(ctx, tx, uniquePeople(h.Found), h.At)
		if err != nil {
			return err
		}
		// Engagements already stored are skipped (ON CONFLICT), and so
		// is a person's second one of a kind in this read, as the
		// statement would skip it.
		found := uniqueFound(h.Found)
		ids := make([]string, len(found))
		engaged := make([]int64, len(found))
		for i, f := range found {
			ids[i], engaged[i] = NewID(), ms(engagedAt(f, h.At))
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
		var first []candidate
		newEngagements := 0
		if before == 0 && s.dialect == SQLite {
			if err := s.batchInsert(ctx, tx, insertEngagements, ``, 10, len(found), row, nil); err != nil {
				return fmt.Errorf("store engagements: %w", err)
			}
			newEngagements = len(found)
			first = make([]candidate, len(found))
			for i, f := range found {
				p, ok := people[f.Person.URN]
				if !ok {
					return fmt.Errorf("engager %s is not stored", f.Person.URN)
				}
				first[i] = candidate{id: ids[i], person: f.Person.URN, personID: p.id, engaged: engaged[i],
					comment: f.Type == "comment", title: p.title, headline: p.headline, newPerson: p.isNew}
			}
			slices.SortFunc(first, func(a, b candidate) int {
				return cmp.Or(cmp.Compare(a.engaged, b.engaged), strings.Compare(a.id, b.id))
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
		rows, err := s.queryTx(ctx, tx,
			`SELECT `+topicColumns+` FROM topics
			  WHERE id IN (SELECT topic_id FROM topic_posts WHERE post_urn = $1) AND status = 'ACTIVE' AND expires_at > $2
			  ORDER BY id`, h.PostURN, at)
		if err != nil {
			return fmt.Errorf("topics of post: %w", err)
		}
		var topics []topic.Topic
		for rows.Next() {
			t, err := scanTopic(rows)
			if err != nil {
				rows.Close()
				return err
			}
			topics = append(topics, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, t := range topics {
			n, err := s.syncTopicPost(ctx, tx, t, h.PostURN, first, h.At, h.Allocations[t.AccountID])
			if errors.Is(err, credits.ErrInsufficient) {
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
	msg := err.Error()
	if strings.Contains(msg, "SQLSTATE 40P01") || strings.Contains(msg, "SQLSTATE 40001") || strings.Contains(msg, "SQLITE_BUSY") {
		return fmt.Errorf("%w: %w", topic.ErrContention, err)
	}
	return err
}

// upsertPeople stores people seen engaging or posting: new ones get their
// profile read at once, known ones again when it is older than
// topic.ProfileRefresh. A known person's row is rewritten only when that
// changes something (most engagers seen again change nothing). Rows are
// locked in key order, so that concurrent transactions sharing people
// cannot deadlock on PostgreSQL. On SQLite it returns every one of people
// as stored now, by URN (SaveHydration links a post's first engagements
// from it): the known ones are read first, so that only they cross from the
// database, and the new ones have the ids the writer gave them.
func (s *Store) upsertPeople(ctx context.Context, tx *sql.Tx, people []topic.Engager, at time.Time) (map[string]knownPerson, error) {
	slices.SortFunc(people, func(a, b topic.Engager) int { return strings.Compare(a.URN, b.URN) })
	ids, err := s.personIDs(ctx, tx)
	if err != nil {
		return nil, err
	}
	var out map[string]knownPerson
	if s.dialect == SQLite {
		urns := make([]string, len(people))
		for i, p := range people {
			urns[i] = p.URN
		}
		if out, err = s.peopleOf(ctx, tx, urns); err != nil {
			return nil, err
		}
		for i, p := range people {
			switch k, ok := out[p.URN]; {
			case !ok:
				out[p.URN] = knownPerson{id: ids.next + int64(i), headline: p.Headline, isNew: true}
			case p.Headline != "":
				k.headline = p.Headline
				out[p.URN] = k
			}
		}
	}
	err = s.batchInsert(ctx, tx,
		`INSERT INTO pronet_people (`+ids.column+`urn, username, full_name, first_name, last_name, headline, avatar, pronet_url, first_seen_at, profile_due_at) VALUES `,
		`ON CONFLICT (urn) DO UPDATE SET
		     headline = CASE WHEN excluded.headline <> '' THEN excluded.headline ELSE pronet_people.headline END,
		     profile_due_at = CASE WHEN pronet_people.profile_due_at IS NULL
		                            AND pronet_people.profile_fetched_at < excluded.first_seen_at - `+profileRefreshMS+`
		                           THEN excluded.first_seen_at ELSE pronet_people.profile_due_at END
		  WHERE (excluded.headline <> '' AND excluded.headline <> pronet_people.headline)
		     OR (pronet_people.profile_due_at IS NULL AND pronet_people.profile_fetched_at < excluded.first_seen_at - `+profileRefreshMS+`)`,
		ids.n+10, len(people),
		func(i int) []any {
			p := people[i]
			first, last := splitName(p.FullName)
			return ids.row(i, p.URN, p.Username, p.FullName, first, last, p.Headline, p.Avatar, p.ProfileURL, ms(at), ms(at))
		}, nil)
	if err != nil {
		return nil, fmt.Errorf("store people: %w", err)
	}
	return out, nil
}

// personIDs gives the people a write transaction inserts their ids: the
// next ones after the largest, in the order they are first seen. On SQLite
// the writer assigns them (one writer at a time: the largest cannot change
// under it); on PostgreSQL the column's identity does. Rows that turn out
// to be stored already keep theirs.
func (s *Store) personIDs(ctx context.Context, tx *sql.Tx) (personIDs, error) {
	if s.dialect != SQLite {
		return personIDs{}, nil
	}
	var last int64
	if err := s.queryRowTx(ctx, tx, `SELECT COALESCE(MAX(id), 0) FROM pronet_people`).Scan(&last); err != nil {
		return personIDs{}, fmt.Errorf("last person id: %w", err)
	}
	return personIDs{column: "id, ", n: 1, next: last + 1}, nil
}

// knownPerson is what collection reads of a stored person: the id
// social mapping knows them by, and what a topic's job titles match.
type knownPerson struct {
	id              int64
	title, headline string
	isNew           bool // stored by this transaction
}

// peopleOf reads stored people by URN, in one statement whatever their
// number.
func (s *Store) peopleOf(ctx context.Context, tx *sql.Tx, urns []string) (map[string]knownPerson, error) {
	out := make(map[string]knownPerson, len(urns))
	list, err := json.Marshal(urns)
	if err != nil {
		return nil, err
	}
	rows, err := s.queryTx(ctx, tx, `SELECT urn, id, job_title, headline FROM pronet_people WHERE urn IN (`+s.jsonTextList(1)+`)`, string(list))
	if err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			urn string
			p   knownPerson
		)
		if err := rows.Scan(&urn, &p.id, &p.title, &p.headline); err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		out[urn] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	return out, nil
}

// personIDs is the id column of a people INSERT: none on PostgreSQL.
type personIDs struct {
	column string
	n      int
	next   int64
}

// row returns the values of the i-th row inserted, its id first.
func (p personIDs) row(i int, values ...any) []any {
	if p.n == 0 {
		return values
	}
	return append([]any{p.next + int64(i)}, values...)
}

// profileRefreshMS is topic.ProfileRefresh in the stored unit, for SQL.
var profileRefreshMS = strconv.FormatInt(topic.ProfileRefresh.Milliseconds(), 10)

func (s *Store) blockTopic(ctx context.Context, tx *sql.Tx, id string, at time.Time) error {
	_, err := tx.ExecContext(ctx,
		`UPDATE topics SET credits_blocked_at = COALESCE(credits_blocked_at, $2), last_error = $3 WHERE id = $1`,
		id, ms(at), "Out of credits: collection is paused until the account has credits again.")
	if err != nil {
		return fmt.Errorf("block topic %s: %w", id, err)
	}
	return nil
}

// ResyncTopic implements topic.Repository: a topic that waited for credits
// links what its posts collected meanwhile, each post's engagements as soon
// as the account can pay for them. It stays blocked while the account still
// cannot pay for every post.
func (s *Store) ResyncTopic(ctx context.Context, topicID string, at time.Time, allocation int64) (int, error) {
	var linked int
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Paying for a post's engagements needs the post locked
		// (payForEngagements), and collection locks posts before topics:
		// the topic's posts first, in key order.
		if s.dialect == Postgres {
			if _, err := tx.ExecContext(ctx,
				`SELECT p.urn FROM pronet_posts p JOIN topic_posts tp ON tp.post_urn = p.urn
				  WHERE tp.topic_id = $1 ORDER BY p.urn FOR UPDATE OF p`, topicID); err != nil {
				return fmt.Errorf("lock posts: %w", err)
			}
		}
		t, err := scanTopic(tx.QueryRowContext(ctx, `SELECT `+topicColumns+` FROM topics WHERE id = $1`+s.forUpdate(), topicID))
		if errors.Is(err, sql.ErrNoRows) {
			return topic.ErrGone
		}
		if err != nil {
			return err
		}
		if t.Status != topic.StatusActive || t.CreditsBlockedAt == nil {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT post_urn FROM topic_posts WHERE topic_id = $1 ORDER BY linked_at`, t.ID)
		if err != nil {
			return err
		}
		urns, err := scanStrings(rows, "topic posts")
		if err != nil {
			return err
		}
		// Post by post: what the balance can pay for is linked, even when
		// the whole backlog is more than a month's allocation.
		waiting := false
		for _, urn := range urns {
			n, err := s.syncTopicPost(ctx, tx, t, urn, nil, at, allocation)
			if errors.Is(err, credits.ErrInsufficient) {
				waiting = true
				continue
			}
			if err != nil {
				return err
			}
			linked += n
		}
		if waiting {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE topics SET credits_blocked_at = NULL, last_error = NULL WHERE id = $1`, t.ID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: resync topic %s: %w", topicID, err)
	}
	return linked, nil
}

// syncTopicPost links to the topic the engagements of the post it keeps and
// has not linked yet, pays for those its account has not paid for, and
// marks each link pending for the workflow dispatcher. first, when set, is
// every engagement of the post, none of them linked (the post's first
// hydration); otherwise they are read. A balance that cannot pay returns
// credits.ErrInsufficient having written nothing.
func (s *Store) syncTopicPost(ctx context.Context, tx *sql.Tx, t topic.Topic, postURN string, first []candidate, at time.Time, allocation int64) (int, error) {
	unlinked := first
	if unlinked == nil {
		var err error
		if unlinked, err = s.unlinkedEngagements(ctx, tx, t.ID, postURN); err != nil {
			return 0, err
		}
	}
	var keep []candidate
	for _, c := range unlinked {
		if t.Definition.KeepsEngager(c.title, c.headline) {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return 0, nil
	}
	if err := s.payForEngagements(ctx, tx, t, postURN, keep, at, allocation); err != nil {
		return 0, err
	}
	now := ms(at)
	// Each link waits for the workflow dispatcher (pending): it is the
	// engagement trigger's outbox event.
	if err := s.batchInsert(ctx, tx,
		`INSERT INTO topic_engagements (topic_id, engagement_id, post_urn, person_urn, created_at, pending) VALUES `, ``, 6, len(keep),
		func(i int) []any { return []any{t.ID, keep[i].id, postURN, keep[i].person, now, 1} }, nil); err != nil {
		return 0, fmt.Errorf("link engagements: %w", err)
	}
	newEngagers, err := s.updateEngagers(ctx, tx, t.ID, latestPerPerson(keep))
	if err != nil {
		return 0, err
	}
	if _, err := s.execTx(ctx, tx, `UPDATE topics SET engagements_count = engagements_count + $2, engagers_count = engagers_count + $3 WHERE id = $1`,
		t.ID, len(keep), newEngagers); err != nil {
		return 0, fmt.Errorf("count engagements: %w", err)
	}
	return len(keep), nil
}

// payForEngagements spends a credit for each engagement of keep (of the
// post) that the account has not paid for: that no other of its topics
// links. The links are the bills: a topic links what its account paid for,
// nothing else. On PostgreSQL the caller holds the post's row lock
// (SaveHydration, ResyncTopic), so that two transactions linking one
// engagement to two topics of an account cannot both find it unpaid. A
// balance that cannot pay returns credits.ErrInsufficient having spent
// nothing.
func (s *Store) payForEngagements(ctx context.Context, tx *sql.Tx, t topic.Topic, postURN string, keep []candidate, at time.Time, allocation int64) error {
	rows, err := s.queryTx(ctx, tx,
		`SELECT CAST(te.engagement_id AS TEXT)
		   FROM topic_posts tp
		   JOIN topics o ON o.id = tp.topic_id AND o.account_id = $1 AND o.id <> $2
		   JOIN topic_engagements te ON te.topic_id = tp.topic_id AND te.post_urn = tp.post_urn
		  WHERE tp.post_urn = $3`, t.AccountID, t.ID, postURN)
	if err != nil {
		return fmt.Errorf("engagements paid for: %w", err)
	}
	paid, err := scanStrings(rows, "engagements paid for")
	if err != nil {
		return err
	}
	unpaid := int64(len(keep))
	if len(paid) > 0 {
		set := make(map[string]bool, len(paid))
		for _, id := range paid {
			set[id] = true
		}
		for _, c := range keep {
			if set[c.id] {
				unpaid--
			}
		}
	}
	if unpaid == 0 {
		return nil
	}
	_, err = s.spendTx(ctx, tx, Charge{AccountID: t.AccountID, Feature: credits.SocialTopics, Amount: unpaid,
		Allocation: allocation, Reference: t.ID}, at)
	return err
}

// candidate is an engagement a topic may link, and its person's title and
// headline, which the topic's job titles are matched against.
type candidate struct {
	id, person      string
	personID        int64
	engaged         int64
	comment         bool
	title, headline string
	newPerson       bool // new to the service: no topic lists them yet
}

// unlinkedEngagements reads the engagements of the post the topic does not
// link, in the order they happened.
func (s *Store) unlinkedEngagements(ctx context.Context, tx *sql.Tx, topicID, postURN string) ([]candidate, error) {
	rows, err := tx.QueryContext(ctx,
		`SELECT CAST(e.id AS TEXT), e.person_urn, p.id, e.engaged_at, e.type, p.job_title, p.headline
		   FROM pronet_engagements e JOIN pronet_people p ON p.urn = e.person_urn
		  WHERE e.post_urn = $1
		    AND NOT EXISTS (SELECT 1 FROM topic_engagements te WHERE te.topic_id = $2 AND te.engagement_id = e.id)
		  ORDER BY e.engaged_at, e.id`, postURN, topicID)
	if err != nil {
		return nil, fmt.Errorf("engagements to link: %w", err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var (
			c    candidate
			kind string
		)
		if err := rows.Scan(&c.id, &c.person, &c.personID, &c.engaged, &kind, &c.title, &c.headline); err != nil {
			return nil, fmt.Errorf("engagements to link: %w", err)
		}
		c.comment = kind == "comment"
		out = append(out, c)
	}
	return out, rows.Err()
}

// uniqueFound keeps the first engagement of each person and kind.
func uniqueFound(found []topic.Found) []topic.Found {
	type key struct{ person, kind string }
	seen := make(map[key]bool, len(found))
	out := make([]topic.Found, 0, len(found))
	for _, f := range found {
		k := key{f.Person.URN, f.Type}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// engagedAt is when f happened: a comment's time, or for a reaction, which
// carries none, when it was first seen.
func engagedAt(f topic.Found, seen time.Time) time.Time {
	if f.At.IsZero() {
		return seen
	}
	return f.At
}

// updateEngagers makes each candidate its person's latest engagement in the
// topic's engagers unless a later one is there, and returns how many of the
// people the topic did not list yet. People new to the service are simply
// added; the others are added where missing, then updated in key order
// (concurrent transactions sharing engagers cannot deadlock on
// PostgreSQL). The engagers count is kept on the topic: counting a million
// rows per page of the engagers list would cost what the page does a
// hundred times.
func (s *Store) updateEngagers(ctx context.Context, tx *sql.Tx, topicID string, latest []candidate) (int, error) {
	slices.SortFunc(latest, func(a, b candidate) int { return cmp.Compare(a.personID, b.personID) })
	const insert = `INSERT INTO topic_engagers (topic_id, person_id, person_urn, engagement_id, latest_at) VALUES `
	row := func(cs []candidate) func(i int) []any {
		return func(i int) []any { return []any{topicID, cs[i].personID, cs[i].person, cs[i].id, cs[i].engaged} }
	}
	var newcomers, seen []candidate
	for _, c := range latest {
		if c.newPerson {
			newcomers = append(newcomers, c)
		} else {
			seen = append(seen, c)
		}
	}
	if err := s.batchInsert(ctx, tx, insert, ``, 5, len(newcomers), row(newcomers), nil); err != nil {
		return 0, fmt.Errorf("add new engagers: %w", err)
	}
	added := make(map[int64]bool, len(seen))
	err := s.batchInsert(ctx, tx, insert, `ON CONFLICT (topic_id, person_id) DO NOTHING RETURNING person_id`, 5, len(seen), row(seen),
		func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			added[id] = true
			return nil
		})
	if err != nil {
		return 0, fmt.Errorf("add engagers: %w", err)
	}
	known := make([]candidate, 0, len(seen)-len(added))
	for _, c := range seen {
		if !added[c.personID] {
			known = append(known, c)
		}
	}
	err = s.batchInsert(ctx, tx, insert,
		`ON CONFLICT (topic_id, person_id) DO UPDATE SET engagement_id = excluded.engagement_id, latest_at = excluded.latest_at
		  WHERE excluded.latest_at >= topic_engagers.latest_at`, 5, len(known), row(known), nil)
	if err != nil {
		return 0, fmt.Errorf("update engagers: %w", err)
	}
	return len(newcomers) + len(added), nil
}

// latestPerPerson keeps each person's latest engagement: one upsert
// statement may not touch a row twice.
func latestPerPerson(cs []candidate) []candidate {
	at := make(map[string]int, len(cs))
	var out []candidate
	for _, c := range cs {
		i, ok := at[c.person]
		switch {
		case !ok:
			at[c.person] = len(out)
			out = append(out, c)
		case c.engaged >= out[i].engaged:
			out[i] = c
		}
	}
	return out
}

// SaveProfile implements topic.Repository: the person's firmographics from
// their pronet profile, trusted for topic.ProfileRefresh, and their filter
// columns folded for social mapping, in one transaction.
func (s *Store) SaveProfile(ctx context.Context, p topic.Profile, at time.Time) error {
	var followers any
	if p.Followers != nil {
		followers = *p.Followers
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE pronet_people SET
		     username = CASE WHEN $2 <> '' THEN $2 ELSE username END,
		     full_name = CASE WHEN $3 <> '' THEN $3 ELSE full_name END,
		     first_name = $4, last_name = $5,
		     headline = CASE WHEN $6 <> '' THEN $6 ELSE headline END,
		     job_title = $7, company = $8, company_domain = $9, company_size = $10, industry = $11, country = $12,
		     followers = $13, avatar = CASE WHEN $14 <> '' THEN $14 ELSE avatar END,
		     pronet_url = CASE WHEN $15 <> '' THEN $15 ELSE pronet_url END,
		     profile_fetched_at = $16, profile_due_at = NULL, profile_failures = 0, company_logo = $17, lease_owner = NULL
		  WHERE urn = $1`,
			p.URN, p.Username, p.FullName, p.FirstName, p.LastName, p.Headline, p.JobTitle, p.Company, p.CompanyDomain,
			p.CompanySize, p.Industry, p.Country, followers, p.Avatar, p.PronetURL, ms(at), p.CompanyLogo); err != nil {
			return err
		}
		return s.foldPeople(ctx, tx, []string{p.URN})
	})
	if err != nil {
		return fmt.Errorf("store: save profile %s: %w", p.URN, err)
	}
	return nil
}

// RecordProfileFailure implements topic.Repository: next zero gives up on
// the profile (the member does not exist) until they engage again after
// topic.ProfileRefresh.
func (s *Store) RecordProfileFailure(ctx context.Context, urn string, at time.Time, next time.Time) error {
	var due any
	if !next.IsZero() {
		due = ms(next)
	}
	_, err := s.db.ExecContext(ctx,
		`UPDATE pronet_people SET profile_due_at = $2, profile_failures = profile_failures + 1, lease_owner = NULL,
		        profile_fetched_at = CASE WHEN $2 IS NULL THEN $3 ELSE profile_fetched_at END
		  WHERE urn = $1`, urn, due, ms(at))
	if err != nil {
		return fmt.Errorf("store: record profile failure %s: %w", urn, err)
	}
	return nil
}

func uniquePeople(found []topic.Found) []topic.Engager {
	people := make([]topic.Engager, len(found))
	for i, f := range found {
		people[i] = f.Person
	}
	return uniqueEngagers(people)
}

func uniqueEngagers(people []topic.Engager) []topic.Engager {
	seen := make(map[string]bool, len(people))
	var out []topic.Engager
	for _, p := range people {
		if !seen[p.URN] {
			seen[p.URN] = true
			out = append(out, p)
		}
	}
	return out
}

func splitName(full string) (string, string) {
	first, last, _ := strings.Cut(strings.TrimSpace(full), " ")
	return first, strings.TrimSpace(last)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

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

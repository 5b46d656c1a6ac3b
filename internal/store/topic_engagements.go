package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/topic"
)

// ResyncTopic implements topic.Repository: a topic that waited for credits
// links what its posts collected meanwhile, each post's engagements as soon
// as the account can pay for them. It stays blocked while the account still
// cannot pay for every post.
func (s *Store) ResyncTopic(ctx context.Context, topicID string, at time.Time, allocation int64) (int, error) {
	var linked int
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Paying for a post's engagements needs the post locked
		// (paidEngagements), and collection locks posts before topics:
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
			if topic.Blocks(err) {
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

// syncTopicPost applies the topic's link plan (topic.PlanLinks) for the
// post: it charges the plan's credits, links the kept engagements and marks
// each link pending for the workflow dispatcher. first, when set, is every
// engagement of the post, none of them linked (the post's first
// hydration); otherwise they are read. A balance that cannot pay returns
// credits.ErrInsufficient having written nothing.
func (s *Store) syncTopicPost(ctx context.Context, tx *sql.Tx, t topic.Topic, postURN string, first []topic.Candidate, at time.Time, allocation int64) (int, error) {
	unlinked := first
	if unlinked == nil {
		var err error
		if unlinked, err = s.unlinkedEngagements(ctx, tx, t.ID, postURN); err != nil {
			return 0, err
		}
	}
	plan, err := topic.PlanLinks(t.Definition, unlinked, func() ([]string, error) {
		return s.paidEngagements(ctx, tx, t, postURN)
	})
	if err != nil {
		return 0, err
	}
	if len(plan.Keep) == 0 {
		return 0, nil
	}
	if plan.Charge > 0 {
		if _, err := s.spendTx(ctx, tx, credits.Charge{AccountID: t.AccountID, Feature: credits.SocialTopics, Amount: plan.Charge,
			Allocation: allocation, Reference: t.ID, Action: "topic engagements collected"}, at); err != nil {
			return 0, err
		}
	}
	now := ms(at)
	keep := plan.Keep
	// Each link waits for the workflow dispatcher (pending): it is the
	// engagement trigger's outbox event.
	if err := s.batchInsert(ctx, tx,
		`INSERT INTO topic_engagements (topic_id, engagement_id, post_urn, person_urn, created_at, pending) VALUES `, ``, 6, len(keep),
		func(i int) []any { return []any{t.ID, keep[i].ID, postURN, keep[i].Person, now, 1} }, nil); err != nil {
		return 0, fmt.Errorf("link engagements: %w", err)
	}
	newEngagers, err := s.updateEngagers(ctx, tx, t.ID, plan.Engagers)
	if err != nil {
		return 0, err
	}
	if _, err := s.execTx(ctx, tx, `UPDATE topics SET engagements_count = engagements_count + $2, engagers_count = engagers_count + $3 WHERE id = $1`,
		t.ID, len(keep), newEngagers); err != nil {
		return 0, fmt.Errorf("count engagements: %w", err)
	}
	return len(keep), nil
}

// paidEngagements reads the ids of the post's engagements the account has
// paid for: those another of its topics links. The links are the bills: a
// topic links what its account paid for, nothing else. On PostgreSQL the
// caller holds the post's row lock (SaveHydration, ResyncTopic), so that
// two transactions linking one engagement to two topics of an account
// cannot both find it unpaid.
func (s *Store) paidEngagements(ctx context.Context, tx *sql.Tx, t topic.Topic, postURN string) ([]string, error) {
	rows, err := s.queryTx(ctx, tx,
		`SELECT CAST(te.engagement_id AS TEXT)
		   FROM topic_posts tp
		   JOIN topics o ON o.id = tp.topic_id AND o.account_id = $1 AND o.id <> $2
		   JOIN topic_engagements te ON te.topic_id = tp.topic_id AND te.post_urn = tp.post_urn
		  WHERE tp.post_urn = $3`, t.AccountID, t.ID, postURN)
	if err != nil {
		return nil, fmt.Errorf("engagements paid for: %w", err)
	}
	return scanStrings(rows, "engagements paid for")
}

// unlinkedEngagements reads the engagements of the post the topic does not
// link, in the order they happened.
func (s *Store) unlinkedEngagements(ctx context.Context, tx *sql.Tx, topicID, postURN string) ([]topic.Candidate, error) {
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
	var out []topic.Candidate
	for rows.Next() {
		var (
			c    topic.Candidate
			kind string
		)
		if err := rows.Scan(&c.ID, &c.Person, &c.PersonID, &c.Engaged, &kind, &c.Title, &c.Headline); err != nil {
			return nil, fmt.Errorf("engagements to link: %w", err)
		}
		c.Comment = kind == "comment"
		out = append(out, c)
	}
	return out, rows.Err()
}

// updateEngagers makes each candidate its person's latest engagement in the
// topic's engagers unless a later one is there, and returns how many of the
// people the topic did not list yet. People new to the service are simply
// added; the others are added where missing, then updated in key order
// (concurrent transactions sharing engagers cannot deadlock on
// PostgreSQL). The engagers count is kept on the topic: counting a million
// rows per page of the engagers list would cost what the page does a
// hundred times.
func (s *Store) updateEngagers(ctx context.Context, tx *sql.Tx, topicID string, latest []topic.Candidate) (int, error) {
	slices.SortFunc(latest, func(a, b topic.Candidate) int { return cmp.Compare(a.PersonID, b.PersonID) })
	const insert = `INSERT INTO topic_engagers (topic_id, person_id, person_urn, engagement_id, latest_at) VALUES `
	row := func(cs []topic.Candidate) func(i int) []any {
		return func(i int) []any { return []any{topicID, cs[i].PersonID, cs[i].Person, cs[i].ID, cs[i].Engaged} }
	}
	var newcomers, seen []topic.Candidate
	for _, c := range latest {
		if c.NewPerson {
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
	known := make([]topic.Candidate, 0, len(seen)-len(added))
	for _, c := range seen {
		if !added[c.PersonID] {
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

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
	_, err = s.spendTx(ctx, tx, credits.Charge{AccountID: t.AccountID, Feature: credits.SocialTopics, Amount: unpaid,
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

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/topic"
)

// RecordCost records money an upstream vendor billed beside the ledger: for
// an operation that charged no credits, or a topic's share of its
// collection (docs/decisions.md, "Upstream cost"). A cost of 0 records
// nothing.
func (s *Store) RecordCost(ctx context.Context, c credits.Cost) error {
	if c.Micros <= 0 {
		return nil
	}
	at := c.At
	if at.IsZero() {
		at = s.now()
	}
	if err := s.recordCost(ctx, s.db, c, at); err != nil {
		return fmt.Errorf("store: record upstream cost of %s: %w", c.Feature, err)
	}
	return nil
}

// execer is a transaction or the pool.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *Store) recordCost(ctx context.Context, db execer, c credits.Cost, at time.Time) error {
	if c.Micros <= 0 {
		return nil
	}
	_, err := db.ExecContext(ctx,
		`INSERT INTO upstream_costs (id, account_id, feature, action, reference, workflow_id, saved_search_id, topic_id, interval, cost_micros, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		ident.New(), c.AccountID, string(c.Feature), c.Action, c.Reference, nullString(c.WorkflowID), nullString(c.SearchID),
		nullString(c.TopicID), c.Interval, c.Micros, ms(at))
	return err
}

// topicCost is a topic's cost row.
func topicCost(t topic.Topic, action string, iv topic.Interval, micros int64, at time.Time) credits.Cost {
	return credits.Cost{AccountID: t.AccountID, Feature: credits.SocialTopics, Action: action, Reference: t.ID,
		TopicID: t.ID, Interval: string(iv), Micros: micros, At: at}
}

// RecordTopicCost implements topic.Repository: what a discovery's calls cost
// when the discovery stored nothing (it failed), on the topic.
func (s *Store) RecordTopicCost(ctx context.Context, id string, iv topic.Interval, at time.Time, micros int64) error {
	if micros <= 0 {
		return nil
	}
	t, err := s.TopicByID(ctx, id)
	if err != nil {
		return fmt.Errorf("store: record upstream cost of topic %s: %w", id, err)
	}
	if err := s.recordCost(ctx, s.db, topicCost(t, "topic discovery", iv, micros, at), at); err != nil {
		return fmt.Errorf("store: record upstream cost of topic %s: %w", id, err)
	}
	return nil
}

// RecordPostCost implements topic.Repository: what a hydration's calls
// cost when the hydration stored nothing (it failed), split between the
// active topics linking the post.
func (s *Store) RecordPostCost(ctx context.Context, urn string, iv topic.Interval, at time.Time, micros int64) error {
	if micros <= 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		topics, err := s.activeTopicsOfPost(ctx, tx, urn, ms(at))
		if err != nil {
			return err
		}
		return s.splitPostCost(ctx, tx, topics, iv, micros, at)
	})
	if err != nil {
		return fmt.Errorf("store: record upstream cost of post %s: %w", urn, err)
	}
	return nil
}

// splitPostCost shares a hydration's cost evenly between the topics linking
// the post, as their credits are shared (split_evenly); the first topics in
// key order take the remainder's micros, so that the shares sum exactly.
// With no topic left to pay, the cost is on no one.
func (s *Store) splitPostCost(ctx context.Context, tx *sql.Tx, topics []topic.Topic, iv topic.Interval, micros int64, at time.Time) error {
	if micros <= 0 || len(topics) == 0 {
		return nil
	}
	shares := topic.SplitCost(micros, len(topics))
	for i, t := range topics {
		if err := s.recordCost(ctx, tx, topicCost(t, "topic hydration", iv, shares[i], at), at); err != nil {
			return fmt.Errorf("record upstream cost of topic %s: %w", t.ID, err)
		}
	}
	return nil
}

// splitProfileCost shares what reading a person's profile cost at the
// vendor. The read serves every topic and search that shows the person, so
// it is split evenly (topic.SplitCost, first by id taking the remainder)
// between the active topics the person engaged with or wrote a linked post
// of, under the topics' "profiles" interval; when none is left, between the
// saved searches (not deleted) whose results the person wrote, under
// search_create, the feature a saved search is paid with. With neither, the
// cost is on no one, as a hydration's with no topic left.
func (s *Store) splitProfileCost(ctx context.Context, tx *sql.Tx, urn string, micros int64, at time.Time) error {
	if micros <= 0 {
		return nil
	}
	topics, err := s.activeTopicsOfPerson(ctx, tx, urn, ms(at))
	if err != nil {
		return fmt.Errorf("topics of person: %w", err)
	}
	if len(topics) > 0 {
		shares := topic.SplitCost(micros, len(topics))
		for i, t := range topics {
			if err := s.recordCost(ctx, tx, topicCost(t, "profile read", topic.ProfileReads, shares[i], at), at); err != nil {
				return fmt.Errorf("record upstream cost of topic %s: %w", t.ID, err)
			}
		}
		return nil
	}
	searches, err := s.searchesOfAuthor(ctx, tx, urn)
	if err != nil {
		return fmt.Errorf("searches of author: %w", err)
	}
	shares := topic.SplitCost(micros, len(searches))
	for i, sr := range searches {
		c := credits.Cost{AccountID: sr.account, Feature: credits.SearchCreate, Action: "profile read", Reference: sr.id,
			SearchID: sr.id, Micros: shares[i], At: at}
		if err := s.recordCost(ctx, tx, c, at); err != nil {
			return fmt.Errorf("record upstream cost of search %s: %w", sr.id, err)
		}
	}
	return nil
}

// activeTopicsOfPerson are the active topics, unexpired at (Unix ms), that
// the person urn engaged with or wrote a post of, by id. Active topics are
// few: each is probed by key.
func (s *Store) activeTopicsOfPerson(ctx context.Context, tx *sql.Tx, urn string, at int64) ([]topic.Topic, error) {
	rows, err := s.queryTx(ctx, tx,
		`SELECT `+topicColumns+` FROM topics t
		  WHERE t.status = 'ACTIVE' AND t.expires_at > $2
		    AND (EXISTS (SELECT 1 FROM topic_engagers g
		                  WHERE g.topic_id = t.id AND g.person_id = (SELECT p.id FROM pronet_people p WHERE p.urn = $1))
		      OR EXISTS (SELECT 1 FROM pronet_posts po JOIN topic_posts tp ON tp.post_urn = po.urn
		                  WHERE po.author_urn = $1 AND tp.topic_id = t.id))
		  ORDER BY t.id`, urn, at)
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

// searchRef names a saved search and its account.
type searchRef struct{ id, account string }

// searchesOfAuthor are the saved searches, not deleted, whose results the
// person urn wrote, by id.
func (s *Store) searchesOfAuthor(ctx context.Context, tx *sql.Tx, urn string) ([]searchRef, error) {
	rows, err := s.queryTx(ctx, tx,
		`SELECT s.id, s.account_id FROM pronet_search_authors a JOIN searches s ON s.id = a.search_id
		  WHERE a.person_urn = $1 AND s.status <> 'deleted'
		  ORDER BY s.id`, urn)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []searchRef
	for rows.Next() {
		var r searchRef
		if err := rows.Scan(&r.id, &r.account); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TopicUpstreamCost is what a topic's collection cost at the vendor over
// [from, to], in millionths of a USD, in all and per interval.
type TopicUpstreamCost struct {
	Total      int64
	ByInterval map[topic.Interval]int64
}

// TopicUpstreamCost sums the topic's cost rows over [from, to].
func (s *Store) TopicUpstreamCost(ctx context.Context, topicID string, from, to time.Time) (TopicUpstreamCost, error) {
	out := TopicUpstreamCost{ByInterval: map[topic.Interval]int64{}}
	rows, err := s.read.QueryContext(ctx,
		`SELECT interval, SUM(cost_micros) FROM upstream_costs
		  WHERE topic_id = $1 AND created_at >= $2 AND created_at <= $3
		  GROUP BY interval`, topicID, ms(from), ms(to))
	if err != nil {
		return out, fmt.Errorf("store: topic upstream cost: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			iv string
			n  int64
		)
		if err := rows.Scan(&iv, &n); err != nil {
			return out, fmt.Errorf("store: topic upstream cost: %w", err)
		}
		out.ByInterval[topic.Interval(iv)] += n
		out.Total += n
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("store: topic upstream cost: %w", err)
	}
	return out, nil
}

package store

import (
	"context"
	"fmt"
)

// Topic engagers narrowed by an AuthorFilter on the engager's collected
// profile (AuthorFilter.MatchPerson), for the filtered engagers list and
// its CSV export. Without a filter the lists are TopicEngagers and
// TopicEngagersAfter.

// FilteredTopicEngagers is TopicEngagers narrowed by f: a page (from 1) of
// the engagers who pass, newest first, and how many pass (exact).
func (s *Store) FilteredTopicEngagers(ctx context.Context, topicID string, f AuthorFilter, page, pageSize int) ([]Engagement, int64, error) {
	if f.Empty() {
		return s.TopicEngagers(ctx, topicID, page, pageSize)
	}
	skip := int64(page-1) * int64(pageSize)
	out := []Engagement{}
	var total int64
	var after *resultKey
	for {
		es, last, err := s.engagerBatch(ctx, topicID, f, after, filterBatch)
		if err != nil {
			return nil, 0, fmt.Errorf("store: topic engagers: %w", err)
		}
		for _, e := range es {
			if total >= skip && len(out) < pageSize {
				out = append(out, e)
			}
			total++
		}
		if last == nil {
			return out, total, nil
		}
		after = last
	}
}

// FilteredTopicEngagersAfter is TopicEngagersAfter narrowed by f.
func (s *Store) FilteredTopicEngagersAfter(ctx context.Context, topicID string, f AuthorFilter, cursor string, pageSize int) (items []Engagement, next string, total int64, err error) {
	if f.Empty() {
		return s.TopicEngagersAfter(ctx, topicID, cursor, pageSize)
	}
	at, person, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", 0, err
	}
	items = []Engagement{}
	after := &resultKey{at, person}
	for len(items) <= pageSize && after != nil {
		var es []Engagement
		es, after, err = s.engagerBatch(ctx, topicID, f, after, filterBatch)
		if err != nil {
			return nil, "", 0, fmt.Errorf("store: topic engagers: %w", err)
		}
		items = append(items, es...)
	}
	if len(items) > pageSize {
		items = items[:pageSize]
		last := items[pageSize-1]
		next = encodeCursor(ms(last.CreatedAt), last.Person.URN)
	}
	if total, err = s.countEngagers(ctx, topicID, f); err != nil {
		return nil, "", 0, fmt.Errorf("store: count topic engagers: %w", err)
	}
	return items, next, total, nil
}

// EngagerExport reads every engager of a topic who passes a filter, newest
// first, one batch per statement (as ResultExport does).
type EngagerExport struct {
	s       *Store
	topicID string
	f       AuthorFilter
	batch   int
	after   *resultKey
	done    bool
}

// ExportTopicEngagers starts an export of a topic's engagers who pass f, read
// batch rows at a time.
func (s *Store) ExportTopicEngagers(topicID string, f AuthorFilter, batch int) *EngagerExport {
	return &EngagerExport{s: s, topicID: topicID, f: f, batch: max(batch, 1)}
}

// Next returns the next engagers who pass the filter; none when the export
// is done.
func (e *EngagerExport) Next(ctx context.Context) ([]Engagement, error) {
	for !e.done {
		es, last, err := e.s.engagerBatch(ctx, e.topicID, e.f, e.after, e.batch)
		if err != nil {
			return nil, fmt.Errorf("store: export engagers of topic %s: %w", e.topicID, err)
		}
		e.after, e.done = last, last == nil
		if len(es) > 0 {
			return es, nil
		}
	}
	return nil, nil
}

// engagerBatch reads up to limit engagers after `after` (from the newest
// when nil) that pass f's SQL conditions and returns those who pass f, with
// the key of the last row read: nil when the read reached the end.
func (s *Store) engagerBatch(ctx context.Context, topicID string, f AuthorFilter, after *resultKey, limit int) ([]Engagement, *resultKey, error) {
	t := textTests{s: s, args: []any{topicID}}
	where := `g.topic_id = $1`
	if after != nil {
		t.args = append(t.args, after.at, after.id)
		where += fmt.Sprintf(` AND (g.latest_at, g.person_urn) < ($%d, $%d)`, len(t.args)-1, len(t.args))
	}
	if !f.Empty() {
		where += ` AND ` + t.personConds(f)
	}
	t.args = append(t.args, limit)
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+fmt.Sprintf(engagementColumns, "g.latest_at")+`
		   FROM topic_engagers g
		   JOIN pronet_engagements e ON e.id = g.engagement_id
		   JOIN pronet_people p ON p.urn = g.person_urn
		  WHERE `+where+fmt.Sprintf(` ORDER BY g.latest_at DESC, g.person_urn DESC LIMIT $%d`, len(t.args)), t.args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var (
		out  []Engagement
		last resultKey
		n    int
	)
	for rows.Next() {
		e, err := scanEngagement(rows)
		if err != nil {
			return nil, nil, err
		}
		n++
		last = resultKey{ms(e.CreatedAt), e.Person.URN}
		if f.MatchPerson(e.Person) {
			out = append(out, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if n < limit {
		return out, nil, nil
	}
	return out, &last, nil
}

// countEngagers counts a topic's engagers who pass f.
func (s *Store) countEngagers(ctx context.Context, topicID string, f AuthorFilter) (int64, error) {
	t := textTests{s: s, args: []any{topicID}}
	rows, err := s.read.QueryContext(ctx,
		`SELECT p.job_title, p.headline, p.company, p.industry, p.country
		   FROM topic_engagers g JOIN pronet_people p ON p.urn = g.person_urn
		  WHERE g.topic_id = $1 AND `+t.personConds(f), t.args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var p Person
		if err := rows.Scan(&p.JobTitle, &p.Headline, &p.Company, &p.Industry, &p.Country); err != nil {
			return 0, err
		}
		if f.MatchPerson(p) {
			n++
		}
	}
	return n, rows.Err()
}

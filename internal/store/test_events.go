package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/workflow"
)

// The newest real events of each trigger's source, as the payloads their
// executions get, for test runs (workflow.NewTestEvent). Each answers
// ErrNotFound when the source has none.

// LatestAccountNewPostPayload is the new-post payload of the most recently
// published result of any of the account's searches (what fires a
// new-post workflow that links none). Each search's newest result is one
// probe of its results index, so an account with many results costs what
// one with few does.
func (s *Store) LatestAccountNewPostPayload(ctx context.Context, accountID string) (map[string]any, error) {
	var searchID string
	err := s.read.QueryRowContext(ctx, `SELECT id FROM (
			SELECT s.id, (SELECT MAX(r.published_at) FROM search_results r WHERE r.search_id = s.id) AS latest
			  FROM searches s WHERE s.account_id = $1 AND s.deleted_at IS NULL) q
		WHERE latest IS NOT NULL ORDER BY latest DESC, id DESC LIMIT 1`, accountID).Scan(&searchID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: latest result of account %s: %w", accountID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: latest result of account %s: %w", accountID, err)
	}
	return s.LatestNewPostPayload(ctx, searchID)
}

// LatestEngagementPayload is the engagement payload of the account's
// topic's newest engagement: its newest engager's (one probe of the
// engagers index), as the engagement trigger fires it.
func (s *Store) LatestEngagementPayload(ctx context.Context, accountID, topicID string) (map[string]any, error) {
	if !ident.Valid(topicID) {
		return nil, fmt.Errorf("store: latest engagement of topic %q: %w", topicID, ErrNotFound)
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT po.record, `+fmt.Sprintf(engagementColumns, "te.created_at")+`
		   FROM (SELECT engagement_id FROM topic_engagers WHERE topic_id = $1 ORDER BY latest_at DESC, person_urn DESC LIMIT 1) g
		   JOIN topics t ON t.id = $1 AND t.account_id = $2
		   JOIN topic_engagements te ON te.topic_id = $1 AND te.engagement_id = g.engagement_id
		   JOIN pronet_engagements e ON e.id = te.engagement_id
		   JOIN pronet_people p ON p.urn = e.person_urn
		   JOIN pronet_posts po ON po.urn = e.post_urn`, topicID, accountID)
	if err != nil {
		return nil, fmt.Errorf("store: latest engagement of topic %s: %w", topicID, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: latest engagement of topic %s: %w", topicID, err)
		}
		return nil, fmt.Errorf("store: latest engagement of topic %s: %w", topicID, ErrNotFound)
	}
	var post []byte
	e, err := scanEngagement(rows, &post)
	if err != nil {
		return nil, fmt.Errorf("store: latest engagement of topic %s: %w", topicID, err)
	}
	return engagementPayload(topicID, e, post), nil
}

// LatestWebhookPayload is the payload of the last delivery the workflow's
// webhook received: the trigger of its newest execution that is neither a
// test run nor of another trigger kind.
func (s *Store) LatestWebhookPayload(ctx context.Context, workflowID string) (map[string]any, error) {
	if !ident.Valid(workflowID) {
		return nil, fmt.Errorf("store: latest delivery of %q: %w", workflowID, ErrNotFound)
	}
	var raw []byte
	err := s.read.QueryRowContext(ctx, `SELECT trigger FROM workflow_executions
		WHERE workflow_id = $1 AND event_name = $2 AND test_config IS NULL
		ORDER BY created_at DESC, id DESC LIMIT 1`, workflowID, workflow.TriggerWebhook).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: latest delivery of %s: %w", workflowID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: latest delivery of %s: %w", workflowID, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("store: latest delivery of %s: %w", workflowID, err)
	}
	return out, nil
}

-- +goose Up
-- A topic's link to an engagement is the engagement trigger's outbox
-- event: pending until the workflow dispatcher has seen it. One row per
-- linked engagement either way, and the separate events took three B-tree
-- entries per engagement in hydration's transaction; a pending link takes
-- one, in a partial index that empties as the dispatcher goes.
ALTER TABLE topic_engagements ADD COLUMN pending INTEGER;
UPDATE topic_engagements SET pending = 1
 WHERE EXISTS (SELECT 1 FROM engagement_events ev
                WHERE ev.topic_id = topic_engagements.topic_id AND ev.engagement_id = topic_engagements.engagement_id
                  AND ev.processed_at IS NULL);
CREATE INDEX topic_engagements_pending ON topic_engagements (created_at, topic_id, engagement_id) WHERE pending = 1;
DROP TABLE engagement_events;

-- +goose Down
CREATE TABLE engagement_events (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    topic_id      TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    engagement_id TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    processed_at  INTEGER
);
CREATE INDEX engagement_events_pending ON engagement_events (created_at) WHERE processed_at IS NULL;
INSERT INTO engagement_events (id, account_id, topic_id, engagement_id, created_at, processed_at)
SELECT lower(hex(randomblob(16))), t.account_id, te.topic_id, te.engagement_id, te.created_at,
       CASE WHEN te.pending = 1 THEN NULL ELSE te.created_at END
  FROM topic_engagements te JOIN topics t ON t.id = te.topic_id;
DROP INDEX topic_engagements_pending;
ALTER TABLE topic_engagements DROP COLUMN pending;

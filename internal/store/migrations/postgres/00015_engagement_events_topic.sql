-- +goose Up
-- Nothing reads engagement events by topic (the dispatcher takes pending
-- events by time; topics are never deleted, only marked so), and every
-- engagement a topic links wrote an entry into this index.
DROP INDEX engagement_events_topic;

-- +goose Down
CREATE INDEX engagement_events_topic ON engagement_events (topic_id, id);

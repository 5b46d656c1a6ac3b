-- +goose Up
-- Recovery in seconds (docs/decisions.md): every process start has an id,
-- stamped on each claim it makes next to the lease it already takes, and
-- (PostgreSQL) a heartbeat. A claim whose owner stopped beating is handed
-- back at once instead of when its lease ends.
CREATE TABLE processes (
    id           TEXT PRIMARY KEY,
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);
ALTER TABLE searches ADD COLUMN lease_owner TEXT;
ALTER TABLE topics ADD COLUMN lease_owner TEXT;
ALTER TABLE pronet_posts ADD COLUMN lease_owner TEXT;
ALTER TABLE pronet_people ADD COLUMN lease_owner TEXT;
ALTER TABLE workflow_executions ADD COLUMN lease_owner TEXT;
-- Finished work clears its owner, so these hold the claims in flight only.
CREATE INDEX searches_lease_owner ON searches (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX topics_lease_owner ON topics (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX pronet_posts_lease_owner ON pronet_posts (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX pronet_people_lease_owner ON pronet_people (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX workflow_executions_lease_owner ON workflow_executions (lease_owner) WHERE lease_owner IS NOT NULL;

-- +goose Down
DROP INDEX workflow_executions_lease_owner;
DROP INDEX pronet_people_lease_owner;
DROP INDEX pronet_posts_lease_owner;
DROP INDEX topics_lease_owner;
DROP INDEX searches_lease_owner;
ALTER TABLE workflow_executions DROP COLUMN lease_owner;
ALTER TABLE pronet_people DROP COLUMN lease_owner;
ALTER TABLE pronet_posts DROP COLUMN lease_owner;
ALTER TABLE topics DROP COLUMN lease_owner;
ALTER TABLE searches DROP COLUMN lease_owner;
DROP TABLE processes;

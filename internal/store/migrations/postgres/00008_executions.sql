-- +goose Up
-- Workflow executions and their steps: the engine's state. An execution is
-- due while running with resume_at passed (a lost worker's lease, the end
-- of a delay); claim names the worker entitled to advance it.
CREATE TABLE workflow_executions (
    id          UUID PRIMARY KEY,
    workflow_id UUID NOT NULL REFERENCES workflows (id),
    account_id  UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    version     BIGINT NOT NULL,
    definition  JSONB NOT NULL,
    event_name  TEXT NOT NULL,
    event_key   TEXT,
    trigger     JSONB NOT NULL,
    test_config JSONB,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    error       TEXT,
    rerun_of    TEXT,
    claim       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    started_at  BIGINT NOT NULL,
    ended_at    BIGINT,
    resume_at   BIGINT
);
CREATE UNIQUE INDEX workflow_executions_event ON workflow_executions (workflow_id, event_key) WHERE event_key IS NOT NULL;
CREATE INDEX workflow_executions_list ON workflow_executions (workflow_id, created_at);
CREATE INDEX workflow_executions_due ON workflow_executions (resume_at) WHERE status = 'running';
CREATE INDEX workflow_executions_created ON workflow_executions (created_at);

CREATE TABLE workflow_steps (
    execution_id  UUID NOT NULL REFERENCES workflow_executions (id) ON DELETE CASCADE,
    step_key      TEXT NOT NULL,
    seq           BIGINT NOT NULL,
    step_id       TEXT NOT NULL,
    step_name     TEXT NOT NULL DEFAULT '',
    operation     TEXT NOT NULL,
    status        TEXT NOT NULL,
    attempts      TEXT NOT NULL DEFAULT '[]',
    started_at    BIGINT,
    ended_at      BIGINT,
    input         TEXT,
    output        TEXT,
    mapped_output TEXT,
    error         TEXT,
    resume_at     BIGINT,
    PRIMARY KEY (execution_id, step_key)
);

-- Since when the workflow fires (published and enabled); NULL while it
-- does not. Outbox events collected before it are not its events.
ALTER TABLE workflows ADD COLUMN armed_at BIGINT;

-- When a scheduled trigger fires next (NULL unless the workflow is a
-- published, enabled scheduled workflow).
ALTER TABLE workflows ADD COLUMN next_fire_at BIGINT;
CREATE INDEX workflows_next_fire ON workflows (next_fire_at) WHERE next_fire_at IS NOT NULL;

-- Engagement events are taken by the engagement trigger like search
-- events: marked processed in the transaction that fires workflows on them.
ALTER TABLE engagement_events ADD COLUMN processed_at BIGINT;
CREATE INDEX engagement_events_pending ON engagement_events (created_at) WHERE processed_at IS NULL;

-- +goose Down
DROP INDEX engagement_events_pending;
ALTER TABLE engagement_events DROP COLUMN processed_at;
DROP INDEX workflows_next_fire;
ALTER TABLE workflows DROP COLUMN next_fire_at;
ALTER TABLE workflows DROP COLUMN armed_at;
DROP TABLE workflow_steps;
DROP TABLE workflow_executions;

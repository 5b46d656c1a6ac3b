-- +goose Up
-- Workflow executions and their steps: the engine's state. An execution is
-- due while running with resume_at passed (a lost worker's lease, the end
-- of a delay); claim names the worker entitled to advance it.
CREATE TABLE workflow_executions (
    id          TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows (id),
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    definition  TEXT NOT NULL,
    event_name  TEXT NOT NULL,
    event_key   TEXT,
    trigger     TEXT NOT NULL,
    test_config TEXT,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    error       TEXT,
    rerun_of    TEXT,
    claim       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    resume_at   INTEGER
);
CREATE UNIQUE INDEX workflow_executions_event ON workflow_executions (workflow_id, event_key) WHERE event_key IS NOT NULL;
CREATE INDEX workflow_executions_list ON workflow_executions (workflow_id, created_at);
CREATE INDEX workflow_executions_due ON workflow_executions (resume_at) WHERE status = 'running';
CREATE INDEX workflow_executions_created ON workflow_executions (created_at);

CREATE TABLE workflow_steps (
    execution_id  TEXT NOT NULL REFERENCES workflow_executions (id) ON DELETE CASCADE,
    step_key      TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    step_id       TEXT NOT NULL,
    step_name     TEXT NOT NULL DEFAULT '',
    operation     TEXT NOT NULL,
    status        TEXT NOT NULL,
    attempts      TEXT NOT NULL DEFAULT '[]',
    started_at    INTEGER,
    ended_at      INTEGER,
    input         TEXT,
    output        TEXT,
    mapped_output TEXT,
    error         TEXT,
    resume_at     INTEGER,
    PRIMARY KEY (execution_id, step_key)
);

-- Since when the workflow fires (published and enabled); NULL while it
-- does not. Outbox events collected before it are not its events.
ALTER TABLE workflows ADD COLUMN armed_at INTEGER;

-- When a scheduled trigger fires next (NULL unless the workflow is a
-- published, enabled scheduled workflow).
ALTER TABLE workflows ADD COLUMN next_fire_at INTEGER;
CREATE INDEX workflows_next_fire ON workflows (next_fire_at) WHERE next_fire_at IS NOT NULL;

-- Engagement events are taken by the engagement trigger like search
-- events: marked processed in the transaction that fires workflows on them.
ALTER TABLE engagement_events ADD COLUMN processed_at INTEGER;
CREATE INDEX engagement_events_pending ON engagement_events (created_at) WHERE processed_at IS NULL;

-- +goose Down
DROP INDEX engagement_events_pending;
ALTER TABLE engagement_events DROP COLUMN processed_at;
DROP INDEX workflows_next_fire;
ALTER TABLE workflows DROP COLUMN next_fire_at;
ALTER TABLE workflows DROP COLUMN armed_at;
DROP TABLE workflow_steps;
DROP TABLE workflow_executions;

-- +goose Up
-- Workflows: the live definition, its draft and the account's secrets.
CREATE TABLE workflows (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    definition     TEXT NOT NULL,
    -- Counts changes of the live definition.
    version        INTEGER NOT NULL DEFAULT 1,
    status         TEXT NOT NULL CHECK (status IN ('DRAFT', 'PUBLISHED')),
    enabled        INTEGER NOT NULL DEFAULT 0,
    search_id      TEXT REFERENCES searches (id),
    -- The trigger, kept beside the definition for the engine's lookups.
    trigger_kind   TEXT NOT NULL,
    topic_id       TEXT,
    -- A webhook trigger's URL token (32 random bytes) and its Standard
    -- Webhooks signing secret, sealed.
    webhook_token  TEXT UNIQUE,
    webhook_secret BLOB,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX workflows_account ON workflows (account_id, created_at) WHERE deleted_at IS NULL;
CREATE INDEX workflows_trigger ON workflows (trigger_kind) WHERE deleted_at IS NULL AND status = 'PUBLISHED' AND enabled;

CREATE TABLE workflow_drafts (
    workflow_id   TEXT PRIMARY KEY REFERENCES workflows (id) ON DELETE CASCADE,
    id            TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    definition    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- Values are sealed with the service key (AES-GCM, bound to account and name).
CREATE TABLE secrets (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    value      BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, name)
);

-- +goose Down
DROP TABLE secrets;
DROP TABLE workflow_drafts;
DROP TABLE workflows;

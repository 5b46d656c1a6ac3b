-- +goose Up
-- Workflows: the live definition, its draft and the account's secrets.
CREATE TABLE workflows (
    id             UUID PRIMARY KEY,
    account_id     UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    definition     JSONB NOT NULL,
    -- Counts changes of the live definition.
    version        BIGINT NOT NULL DEFAULT 1,
    status         TEXT NOT NULL CHECK (status IN ('DRAFT', 'PUBLISHED')),
    enabled        BOOLEAN NOT NULL DEFAULT FALSE,
    search_id      UUID REFERENCES searches (id),
    -- The trigger, kept beside the definition for the engine's lookups.
    trigger_kind   TEXT NOT NULL,
    topic_id       UUID,
    -- A webhook trigger's URL token (32 random bytes) and its Standard
    -- Webhooks signing secret, sealed.
    webhook_token  TEXT UNIQUE,
    webhook_secret BYTEA,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    deleted_at     BIGINT
);
CREATE INDEX workflows_account ON workflows (account_id, created_at) WHERE deleted_at IS NULL;
CREATE INDEX workflows_trigger ON workflows (trigger_kind) WHERE deleted_at IS NULL AND status = 'PUBLISHED' AND enabled;

CREATE TABLE workflow_drafts (
    workflow_id   UUID PRIMARY KEY REFERENCES workflows (id) ON DELETE CASCADE,
    id            UUID NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    definition    JSONB NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

-- Values are sealed with the service key (AES-GCM, bound to account and name).
CREATE TABLE secrets (
    account_id UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    value      BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, name)
);

-- +goose Down
DROP TABLE secrets;
DROP TABLE workflow_drafts;
DROP TABLE workflows;

-- +goose Up
CREATE TABLE searches (
    id              UUID PRIMARY KEY,
    account_id      UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    kind            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('active', 'paused', 'completed', 'deleted')),
    definition      JSONB NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    deleted_at      BIGINT,
    total_results   BIGINT NOT NULL DEFAULT 0,
    last_result_at  BIGINT,
    -- Scheduling: a search is due when active and next_run_at has passed.
    -- Claiming a run moves next_run_at a lease ahead, so a run whose process
    -- died is picked up again when the lease expires.
    next_run_at     BIGINT,
    last_run_at     BIGINT,
    last_error      TEXT,
    failures        INTEGER NOT NULL DEFAULT 0,
    watermark       TEXT NOT NULL DEFAULT '',
    profile_user_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX searches_account ON searches (account_id, created_at);
CREATE INDEX searches_due ON searches (next_run_at) WHERE status = 'active';

CREATE TABLE search_results (
    search_id    UUID NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    post_id      TEXT NOT NULL,
    published_at BIGINT NOT NULL,
    collected_at BIGINT NOT NULL,
    item         JSONB NOT NULL,
    PRIMARY KEY (search_id, post_id)
);
-- Newest first, keyset-paged: a deep page costs what the first does.
CREATE INDEX search_results_page ON search_results (search_id, published_at DESC, post_id DESC);
CREATE INDEX search_results_collected ON search_results (search_id, collected_at);

-- The outbox: one row per newly collected result, written in the same
-- transaction as the result, so that workflows fire exactly once per result.
CREATE TABLE events (
    id           UUID PRIMARY KEY,
    account_id   UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    search_id    UUID,
    subject_id   TEXT NOT NULL,
    payload      JSONB NOT NULL,
    created_at   BIGINT NOT NULL,
    processed_at BIGINT
);
CREATE INDEX events_pending ON events (created_at) WHERE processed_at IS NULL;

-- +goose Down
DROP TABLE events;
DROP TABLE search_results;
DROP TABLE searches;

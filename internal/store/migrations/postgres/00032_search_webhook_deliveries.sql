-- +goose Up
-- A saved search's webhook deliveries: SaveRun writes one row per batch of
-- a run's new results (at most 100) for a search with a webhook_url, in the
-- run's transaction; the deliverer claims due rows (next_attempt_at passed),
-- moving next_attempt_at a lease ahead, so a delivery whose process died is
-- claimed again. The row's id is the webhook-id every attempt repeats.
CREATE TABLE search_deliveries (
    id               UUID PRIMARY KEY,
    search_id        UUID NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    run_at           BIGINT NOT NULL,
    post_ids         TEXT NOT NULL,
    results_count    INTEGER NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    next_attempt_at  BIGINT,
    last_attempt_at  BIGINT,
    last_status_code INTEGER,
    last_error       TEXT
);
CREATE INDEX search_deliveries_due ON search_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX search_deliveries_search ON search_deliveries (search_id, created_at, id);

-- +goose Down
DROP TABLE search_deliveries;

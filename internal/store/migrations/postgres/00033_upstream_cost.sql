-- +goose Up
-- What the upstream vendor billed for an operation, in millionths of a USD
-- (source.Micros), beside the credits it charged: written with the spend,
-- in its transaction (docs/decisions.md, "Upstream cost").
ALTER TABLE credit_ledger ADD COLUMN upstream_cost_micros BIGINT NOT NULL DEFAULT 0;
-- The cost of operations that charged no credits (a failed lookup the
-- vendor still billed, a saved search's run, a workflow step's upstream
-- calls) and of topic collection, whose calls are shared: a topic's
-- discovery is its own, a post's hydration is split evenly between the
-- active topics linking it, each share a row naming the topic and the
-- interval. The ledger's amount > 0 check keeps these out of it.
CREATE TABLE upstream_costs (
    id              UUID PRIMARY KEY,
    account_id      UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    feature         TEXT NOT NULL,
    action          TEXT NOT NULL DEFAULT '',
    reference       TEXT NOT NULL DEFAULT '',
    workflow_id     UUID,
    saved_search_id UUID,
    topic_id        UUID REFERENCES topics (id) ON DELETE CASCADE,
    interval        TEXT NOT NULL DEFAULT '',
    cost_micros     BIGINT NOT NULL CHECK (cost_micros > 0),
    created_at      BIGINT NOT NULL
);
CREATE INDEX upstream_costs_account_time ON upstream_costs (account_id, created_at);
CREATE INDEX upstream_costs_topic_time ON upstream_costs (topic_id, created_at) WHERE topic_id IS NOT NULL;

-- +goose Down
DROP TABLE upstream_costs;
ALTER TABLE credit_ledger DROP COLUMN upstream_cost_micros;

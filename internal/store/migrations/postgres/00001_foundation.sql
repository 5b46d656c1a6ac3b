-- +goose Up
-- Timestamps are Unix milliseconds (UTC) on both engines so that one set of
-- queries orders and compares them the same way.
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE accounts (
    id              UUID PRIMARY KEY,
    name            TEXT NOT NULL,
    plan            TEXT NOT NULL CHECK (plan IN ('STARTER', 'ENTERPRISE', 'CUSTOM')),
    monthly_credits BIGINT CHECK (monthly_credits >= 0),
    created_at      BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id           UUID PRIMARY KEY,
    account_id   UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    prefix       TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    permissions  TEXT NOT NULL,
    full_archive BOOLEAN NOT NULL DEFAULT FALSE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- One row per account and billing month; spending is a conditional UPDATE of
-- used, so the balance can never go below zero.
CREATE TABLE credit_periods (
    account_id   UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    period_start BIGINT NOT NULL,
    allocation   BIGINT NOT NULL,
    used         BIGINT NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= allocation),
    PRIMARY KEY (account_id, period_start)
);

CREATE TABLE credit_ledger (
    id         UUID PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    feature    TEXT NOT NULL,
    amount     BIGINT NOT NULL CHECK (amount > 0),
    reference  TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX credit_ledger_account_time ON credit_ledger (account_id, created_at);

CREATE UNLOGGED TABLE rate_windows (
    key_id       UUID NOT NULL,
    window_start BIGINT NOT NULL,
    hits         BIGINT NOT NULL,
    PRIMARY KEY (key_id, window_start)
);

-- +goose Down
DROP TABLE rate_windows;
DROP TABLE credit_ledger;
DROP TABLE credit_periods;
DROP TABLE api_keys;
DROP TABLE accounts;
DROP TABLE settings;

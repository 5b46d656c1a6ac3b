-- +goose Up
-- The web console's sessions (issue 39). id is the SHA-256 (hex) of the
-- random token in the trawl_session cookie, so the table never holds a
-- usable token. A session belongs to the key it signed in with and ends
-- with it (ON DELETE CASCADE; revocation is checked on every request).
CREATE TABLE console_sessions (
    id         TEXT PRIMARY KEY,
    key_id     TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    csrf       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX console_sessions_expires ON console_sessions (expires_at);
-- The overview's recent failed executions of an account.
CREATE INDEX workflow_executions_account_failed ON workflow_executions (account_id, created_at) WHERE status = 'failed';

-- +goose Down
DROP INDEX workflow_executions_account_failed;
DROP TABLE console_sessions;

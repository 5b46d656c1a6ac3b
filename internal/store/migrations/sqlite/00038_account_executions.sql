-- +goose Up
-- The console's executions list (store.AccountExecutions): an account's
-- executions across its workflows, newest first, paged by (created_at, id).
-- Without it the list walks every account's executions by created_at.
CREATE INDEX workflow_executions_account_page ON workflow_executions (account_id, created_at, id);

-- +goose Down
DROP INDEX workflow_executions_account_page;

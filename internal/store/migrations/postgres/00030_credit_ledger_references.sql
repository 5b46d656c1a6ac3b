-- +goose Up
-- Each spend names what it paid for, so that GET /v1/credits/usage can list
-- it as the hosted API does: the action (the endpoint or the workflow step),
-- and the workflow or saved search it belongs to. Written with the spend, in
-- its transaction (docs/decisions.md, "Account and credit endpoints").
ALTER TABLE credit_ledger ADD COLUMN action TEXT NOT NULL DEFAULT '';
ALTER TABLE credit_ledger ADD COLUMN workflow_id UUID;
ALTER TABLE credit_ledger ADD COLUMN saved_search_id UUID;
-- Earlier spends: a search's creation referenced the search; a workflow
-- step referenced "<execution id>/<step key>".
UPDATE credit_ledger SET saved_search_id = reference::uuid
 WHERE feature = 'search_create'
   AND reference ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
UPDATE credit_ledger l SET workflow_id = x.workflow_id
  FROM workflow_executions x
 WHERE l.feature = 'workflow_execution' AND x.id::text = split_part(l.reference, '/', 1);

-- +goose Down
ALTER TABLE credit_ledger DROP COLUMN saved_search_id;
ALTER TABLE credit_ledger DROP COLUMN workflow_id;
ALTER TABLE credit_ledger DROP COLUMN action;

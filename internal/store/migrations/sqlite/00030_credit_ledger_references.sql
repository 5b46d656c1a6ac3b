-- +goose Up
-- Each spend names what it paid for, so that GET /v1/credits/usage can list
-- it as the hosted API does: the action (the endpoint or the workflow step),
-- and the workflow or saved search it belongs to. Written with the spend, in
-- its transaction (docs/decisions.md, "Account and credit endpoints").
ALTER TABLE credit_ledger ADD COLUMN action TEXT NOT NULL DEFAULT '';
ALTER TABLE credit_ledger ADD COLUMN workflow_id TEXT;
ALTER TABLE credit_ledger ADD COLUMN saved_search_id TEXT;
-- Earlier spends: a search's creation referenced the search; a workflow
-- step referenced "<execution id>/<step key>".
UPDATE credit_ledger SET saved_search_id = reference
 WHERE feature = 'search_create' AND reference <> '';
UPDATE credit_ledger SET workflow_id = (
    SELECT x.workflow_id FROM workflow_executions x
     WHERE x.id = substr(credit_ledger.reference, 1, instr(credit_ledger.reference, '/') - 1))
 WHERE feature = 'workflow_execution' AND instr(reference, '/') > 0;

-- +goose Down
ALTER TABLE credit_ledger DROP COLUMN saved_search_id;
ALTER TABLE credit_ledger DROP COLUMN workflow_id;
ALTER TABLE credit_ledger DROP COLUMN action;

-- +goose Up
-- An execution's trigger is the payload that fired it, a webhook's as its
-- sender sent it: jsonb refuses a string with \u0000, which JSON allows,
-- so a third party's delivery would be lost. The column keeps the JSON
-- text as written (the store writes and reads it whole; nothing queries
-- into it).
ALTER TABLE workflow_executions ALTER COLUMN trigger TYPE TEXT USING trigger::text;

-- +goose Down
-- A trigger with \u0000 has no jsonb form: going down turns each into
-- \ufffd (the same shape, so the JSON stays valid) rather than failing.
ALTER TABLE workflow_executions ALTER COLUMN trigger TYPE JSONB USING replace(trigger, '\u0000', '\ufffd')::jsonb;

-- +goose Up
-- A publish now leaves the draft, equal to what went live (docs/decisions.md,
-- "Drafts survive publishing"); before, it deleted it. Every published
-- workflow without a draft gets the one a publish leaves today: its live
-- name, description and definition, last modified when the workflow was.
-- The id is a UUIDv7 of that time, as the store makes them.
INSERT INTO workflow_drafts (workflow_id, id, name, description, definition, created_at, updated_at)
SELECT w.id,
       lower(substr(printf('%012x', w.updated_at), 1, 8) || '-' || substr(printf('%012x', w.updated_at), 9, 4)
             || '-7' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)
             || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
       w.name, w.description, w.definition, w.updated_at, w.updated_at
  FROM workflows w
 WHERE w.status = 'PUBLISHED' AND w.deleted_at IS NULL
   AND NOT EXISTS (SELECT 1 FROM workflow_drafts d WHERE d.workflow_id = w.id);

-- +goose Down
-- The drafts are valid under the code before this one too (it deletes a
-- draft at the next publish): nothing to undo.
SELECT 1;

-- +goose Up
-- Every live definition of a workflow is a numbered version, kept with its
-- change summary (docs/decisions.md, "Workflow versions and publishing");
-- workflows.version is the number of the live one, and an execution
-- records the number it ran. Each workflow gets its live definition as the
-- version of its current number, published when the workflow last changed.
CREATE TABLE workflow_versions (
    id             TEXT PRIMARY KEY,
    workflow_id    TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    number         INTEGER NOT NULL,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    definition     TEXT NOT NULL,
    change_summary TEXT,
    published_at   INTEGER NOT NULL,
    UNIQUE (workflow_id, number)
);
INSERT INTO workflow_versions (id, workflow_id, number, name, description, definition, published_at)
SELECT lower(substr(printf('%012x', w.updated_at), 1, 8) || '-' || substr(printf('%012x', w.updated_at), 9, 4)
             || '-7' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)
             || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
       w.id, w.version, w.name, w.description, w.definition, w.updated_at
  FROM workflows w;

-- +goose Down
DROP TABLE workflow_versions;

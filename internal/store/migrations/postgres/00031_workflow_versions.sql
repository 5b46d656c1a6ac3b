-- +goose Up
-- Every live definition of a workflow is a numbered version, kept with its
-- change summary (docs/decisions.md, "Workflow versions and publishing");
-- workflows.version is the number of the live one, and an execution
-- records the number it ran. Each workflow gets its live definition as the
-- version of its current number, published when the workflow last changed;
-- the id is a UUIDv7 of that time, as the store makes them.
CREATE TABLE workflow_versions (
    id             UUID PRIMARY KEY,
    workflow_id    UUID NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    number         BIGINT NOT NULL,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    definition     JSONB NOT NULL,
    change_summary TEXT,
    published_at   BIGINT NOT NULL,
    UNIQUE (workflow_id, number)
);
INSERT INTO workflow_versions (id, workflow_id, number, name, description, definition, published_at)
SELECT CAST(substr(lpad(to_hex(w.updated_at), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(w.updated_at), 12, '0'), 9, 4)
            || '-7' || substr(CAST(gen_random_uuid() AS TEXT), 16) AS UUID),
       w.id, w.version, w.name, w.description, w.definition, w.updated_at
  FROM workflows w;

-- +goose Down
DROP TABLE workflow_versions;

-- +goose Up
-- The executions list answers its exact total from counters kept by
-- triggers, whatever writes the executions (engine, dispatch, rerun,
-- cancel, retention), instead of counting a workflow's executions per page:
-- a workflow with a million executions would count a million index entries.
CREATE TABLE workflow_execution_counts (
    workflow_id TEXT NOT NULL,
    status      TEXT NOT NULL,
    event_name  TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (workflow_id, status, event_name)
) WITHOUT ROWID;
INSERT INTO workflow_execution_counts (workflow_id, status, event_name, n)
    SELECT workflow_id, status, event_name, COUNT(*) FROM workflow_executions GROUP BY workflow_id, status, event_name;

-- +goose StatementBegin
CREATE TRIGGER workflow_execution_counts_insert AFTER INSERT ON workflow_executions BEGIN
    INSERT INTO workflow_execution_counts (workflow_id, status, event_name, n) VALUES (new.workflow_id, new.status, new.event_name, 1)
        ON CONFLICT (workflow_id, status, event_name) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER workflow_execution_counts_delete AFTER DELETE ON workflow_executions BEGIN
    UPDATE workflow_execution_counts SET n = n - 1
     WHERE workflow_id = old.workflow_id AND status = old.status AND event_name = old.event_name;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER workflow_execution_counts_update AFTER UPDATE OF status, event_name, workflow_id ON workflow_executions
    WHEN old.status <> new.status OR old.event_name <> new.event_name OR old.workflow_id <> new.workflow_id BEGIN
    UPDATE workflow_execution_counts SET n = n - 1
     WHERE workflow_id = old.workflow_id AND status = old.status AND event_name = old.event_name;
    INSERT INTO workflow_execution_counts (workflow_id, status, event_name, n) VALUES (new.workflow_id, new.status, new.event_name, 1)
        ON CONFLICT (workflow_id, status, event_name) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- A page is read from an index in the list's order (newest first, id
-- breaking ties), with or without a status filter, never sorting a
-- workflow's executions.
CREATE INDEX workflow_executions_page ON workflow_executions (workflow_id, created_at, id);
CREATE INDEX workflow_executions_status_page ON workflow_executions (workflow_id, status, created_at, id);
DROP INDEX workflow_executions_list;

-- +goose Down
CREATE INDEX workflow_executions_list ON workflow_executions (workflow_id, created_at);
DROP INDEX workflow_executions_status_page;
DROP INDEX workflow_executions_page;
DROP TRIGGER workflow_execution_counts_update;
DROP TRIGGER workflow_execution_counts_delete;
DROP TRIGGER workflow_execution_counts_insert;
DROP TABLE workflow_execution_counts;

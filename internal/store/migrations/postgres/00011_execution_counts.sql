-- +goose Up
-- The executions list answers its exact total from counters kept by a
-- trigger, whatever writes the executions (engine, dispatch, rerun, cancel,
-- retention), instead of counting a workflow's executions per page: a
-- workflow with a million executions would count a million index entries.
-- Each backend adds to its own slot (its pid), so concurrent executions of
-- one workflow never wait on one another's counter row; the list sums the
-- slots, and retention folds them.
CREATE TABLE workflow_execution_counts (
    workflow_id UUID NOT NULL,
    status      TEXT NOT NULL,
    event_name  TEXT NOT NULL,
    slot        INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (workflow_id, status, event_name, slot)
);
INSERT INTO workflow_execution_counts (workflow_id, status, event_name, slot, n)
    SELECT workflow_id, status, event_name, 0, COUNT(*) FROM workflow_executions GROUP BY workflow_id, status, event_name;

-- +goose StatementBegin
CREATE FUNCTION workflow_execution_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO workflow_execution_counts (workflow_id, status, event_name, slot, n)
            VALUES (OLD.workflow_id, OLD.status, OLD.event_name, pg_backend_pid(), -1)
            ON CONFLICT (workflow_id, status, event_name, slot) DO UPDATE SET n = workflow_execution_counts.n - 1;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO workflow_execution_counts (workflow_id, status, event_name, slot, n)
            VALUES (NEW.workflow_id, NEW.status, NEW.event_name, pg_backend_pid(), 1)
            ON CONFLICT (workflow_id, status, event_name, slot) DO UPDATE SET n = workflow_execution_counts.n + 1;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER workflow_execution_counts_change AFTER INSERT OR DELETE ON workflow_executions
    FOR EACH ROW EXECUTE FUNCTION workflow_execution_count();
CREATE TRIGGER workflow_execution_counts_update AFTER UPDATE OF status, event_name, workflow_id ON workflow_executions
    FOR EACH ROW WHEN (OLD.status <> NEW.status OR OLD.event_name <> NEW.event_name OR OLD.workflow_id <> NEW.workflow_id)
    EXECUTE FUNCTION workflow_execution_count();

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
DROP TRIGGER workflow_execution_counts_update ON workflow_executions;
DROP TRIGGER workflow_execution_counts_change ON workflow_executions;
DROP FUNCTION workflow_execution_count();
DROP TABLE workflow_execution_counts;

-- +goose Up
-- Social mapping keeps a copy of the folded filter columns (mapping_people)
-- in memory, so that filtering an engager costs a few comparisons instead
-- of an index probe. Every write to mapping_people is logged here with the
-- writing transaction's id; a copy refreshed under a snapshot whose xmin
-- was X has seen every row of transactions below X, so its next refresh
-- reads the rows at or above X (a few, re-read harmlessly). Pruning (the
-- topic scheduler's tick) keeps the newest rows and records the largest
-- transaction id it deleted: a copy whose X is not above it reads the table
-- again.
CREATE TABLE mapping_people_log (
    seq BIGSERIAL PRIMARY KEY,
    id  BIGINT NOT NULL,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX mapping_people_log_xid ON mapping_people_log (xid);
CREATE TABLE mapping_people_log_pruned (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    upto  xid8 NOT NULL
);
INSERT INTO mapping_people_log_pruned (one, upto) VALUES (1, '0');
-- +goose StatementBegin
CREATE FUNCTION mapping_people_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO mapping_people_log (id) VALUES (OLD.id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
        INSERT INTO mapping_people_log (id) VALUES (NEW.id);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_people_logged AFTER INSERT OR UPDATE OR DELETE ON mapping_people
    FOR EACH ROW EXECUTE FUNCTION mapping_people_logged();

-- +goose Down
DROP TRIGGER mapping_people_logged ON mapping_people;
DROP FUNCTION mapping_people_logged();
DROP TABLE mapping_people_log_pruned;
DROP TABLE mapping_people_log;

-- +goose Up
-- Social mapping keeps a copy of the packed engagements (mapping_engagers)
-- in memory as well, so that a query reads no row per qualifying post.
-- Every write to mapping_engagers is logged with the writing transaction's
-- id, as mapping_people's are (00013 says why that misses nothing).
CREATE TABLE mapping_engagers_log (
    seq BIGSERIAL PRIMARY KEY,
    id  BIGINT NOT NULL,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX mapping_engagers_log_xid ON mapping_engagers_log (xid);
CREATE TABLE mapping_engagers_log_pruned (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    upto  xid8 NOT NULL
);
INSERT INTO mapping_engagers_log_pruned (one, upto) VALUES (1, '0');
-- +goose StatementBegin
CREATE FUNCTION mapping_engagers_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO mapping_engagers_log (id) VALUES (OLD.post_id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.post_id <> OLD.post_id) THEN
        INSERT INTO mapping_engagers_log (id) VALUES (NEW.post_id);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_engagers_logged AFTER INSERT OR UPDATE OR DELETE ON mapping_engagers
    FOR EACH ROW EXECUTE FUNCTION mapping_engagers_logged();

-- +goose Down
DROP TRIGGER mapping_engagers_logged ON mapping_engagers;
DROP FUNCTION mapping_engagers_logged();
DROP TABLE mapping_engagers_log_pruned;
DROP TABLE mapping_engagers_log;

-- +goose Up
-- Social mapping keeps a copy of the packed engagements (mapping_engagers)
-- in memory as well, so that a query reads no row per qualifying post.
-- Every write to mapping_engagers is logged, as mapping_people's are
-- (00013): in commit order, pruned by the topic scheduler's tick, a copy
-- behind the pruned point reading the table again.
CREATE TABLE mapping_engagers_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id  INTEGER NOT NULL
);
CREATE TABLE mapping_engagers_log_pruned (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    upto  INTEGER NOT NULL
);
INSERT INTO mapping_engagers_log_pruned (one, upto) VALUES (1, 0);
-- +goose StatementBegin
CREATE TRIGGER mapping_engagers_log_insert AFTER INSERT ON mapping_engagers BEGIN
    INSERT INTO mapping_engagers_log (id) VALUES (new.post_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_engagers_log_update AFTER UPDATE ON mapping_engagers BEGIN
    INSERT INTO mapping_engagers_log (id) VALUES (old.post_id);
    INSERT INTO mapping_engagers_log (id) SELECT new.post_id WHERE new.post_id <> old.post_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_engagers_log_delete AFTER DELETE ON mapping_engagers BEGIN
    INSERT INTO mapping_engagers_log (id) VALUES (old.post_id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mapping_engagers_log_delete;
DROP TRIGGER mapping_engagers_log_update;
DROP TRIGGER mapping_engagers_log_insert;
DROP TABLE mapping_engagers_log_pruned;
DROP TABLE mapping_engagers_log;

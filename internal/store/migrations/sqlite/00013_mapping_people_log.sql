-- +goose Up
-- Social mapping keeps a copy of the folded filter columns (mapping_people)
-- in memory, so that filtering an engager costs a few comparisons instead
-- of an index probe. Every write to mapping_people is logged here, in
-- commit order (one writer), and a query first applies what was logged
-- after the copy's position. Pruning (the topic scheduler's tick) keeps
-- the newest rows and records how far it deleted: a copy behind that point
-- reads the table again.
CREATE TABLE mapping_people_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id  INTEGER NOT NULL
);
CREATE TABLE mapping_people_log_pruned (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    upto  INTEGER NOT NULL
);
INSERT INTO mapping_people_log_pruned (one, upto) VALUES (1, 0);
-- +goose StatementBegin
CREATE TRIGGER mapping_people_log_insert AFTER INSERT ON mapping_people BEGIN
    INSERT INTO mapping_people_log (id) VALUES (new.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_people_log_update AFTER UPDATE ON mapping_people BEGIN
    INSERT INTO mapping_people_log (id) VALUES (old.id);
    INSERT INTO mapping_people_log (id) SELECT new.id WHERE new.id <> old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_people_log_delete AFTER DELETE ON mapping_people BEGIN
    INSERT INTO mapping_people_log (id) VALUES (old.id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mapping_people_log_delete;
DROP TRIGGER mapping_people_log_update;
DROP TRIGGER mapping_people_log_insert;
DROP TABLE mapping_people_log_pruned;
DROP TABLE mapping_people_log;

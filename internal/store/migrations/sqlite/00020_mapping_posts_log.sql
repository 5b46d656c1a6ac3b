-- +goose Up
-- Creator discovery keeps each post's date and author's person id in
-- memory, as social mapping keeps the packed engagements (00014): reading
-- them per qualifying post, then each author's person id, was most of a
-- query. What changes either is logged by post id: a post stored, moved in
-- time, given another author or deleted, and a person (an author) whose
-- URN or id changed or who was deleted. A person stored after their posts
-- is not logged (hydration stores people by the hundred and would pay a
-- lookup each): the copy marks posts whose author was no person when it
-- read them, and a query looks those up.
CREATE TABLE mapping_posts_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id  INTEGER NOT NULL
);
CREATE TABLE mapping_posts_log_pruned (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    upto  INTEGER NOT NULL
);
INSERT INTO mapping_posts_log_pruned (one, upto) VALUES (1, 0);
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_log_insert AFTER INSERT ON mapping_posts BEGIN
    INSERT INTO mapping_posts_log (id) VALUES (new.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_log_update AFTER UPDATE OF id, posted_at, author_urn ON mapping_posts
    WHEN old.id <> new.id OR old.posted_at <> new.posted_at OR old.author_urn <> new.author_urn BEGIN
    INSERT INTO mapping_posts_log (id) VALUES (old.id);
    INSERT INTO mapping_posts_log (id) SELECT new.id WHERE new.id <> old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_log_delete AFTER DELETE ON mapping_posts BEGIN
    INSERT INTO mapping_posts_log (id) VALUES (old.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_log_author AFTER UPDATE OF id, urn ON pronet_people
    WHEN old.id IS NOT new.id OR old.urn <> new.urn BEGIN
    INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts WHERE author_urn IN (old.urn, new.urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_log_author_delete AFTER DELETE ON pronet_people BEGIN
    INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts WHERE author_urn = old.urn;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mapping_posts_log_author_delete;
DROP TRIGGER mapping_posts_log_author;
DROP TRIGGER mapping_posts_log_delete;
DROP TRIGGER mapping_posts_log_update;
DROP TRIGGER mapping_posts_log_insert;
DROP TABLE mapping_posts_log_pruned;
DROP TABLE mapping_posts_log;

-- +goose Up
-- Social mapping reads what collection precomputes when it stores posts,
-- engagements and profiles (docs/decisions.md, "Social mapping and creator
-- discovery"). Go computes it (the keyword index cuts text exactly as the
-- keyword count does, and folds case with Go's Unicode tables); the
-- triggers below only take stale rows out of the way, so that whatever
-- writes the pool, a query never reads a stale precomputation: a post,
-- person or engagement list without one is read from the pool tables.

-- One row per post with an integer id (the keyword index's rowid).
-- pending = 1 while the keyword index does not hold the post's current
-- text: the writer indexes new posts in the same transaction; Migrate
-- indexes the rest; queries read such posts' text.
CREATE TABLE mapping_posts (
    id         INTEGER PRIMARY KEY,
    urn        TEXT NOT NULL UNIQUE,
    posted_at  INTEGER NOT NULL,
    author_urn TEXT NOT NULL,
    pending    INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX mapping_posts_pending ON mapping_posts (id) WHERE pending = 1;
INSERT INTO mapping_posts (urn, posted_at, author_urn) SELECT urn, posted_at, author_urn FROM pronet_posts ORDER BY rowid;

-- The keyword index (mapping.IndexText): lexemes made of [a-z0-9_], which
-- the ascii tokenizer keeps whole and unchanged.
CREATE VIRTUAL TABLE mapping_terms USING fts5 (terms, content = '', contentless_delete = 1,
    tokenize = "ascii tokenchars '_'");

-- Each post's engagements, packed: 16 bytes each, big-endian engaged_at
-- then person id * 2 + (1 for a comment), sorted (empty for a post without
-- any); no row while stale.
CREATE TABLE mapping_engagers (
    post_id  INTEGER PRIMARY KEY,
    engagers BLOB NOT NULL
);
INSERT INTO mapping_engagers (post_id, engagers)
    SELECT m.id, unhex(group_concat(printf('%016x%016x', e.engaged_at, p.id * 2 + (e.type = 'comment')), ''
                                     ORDER BY e.engaged_at, p.id * 2 + (e.type = 'comment')))
      FROM pronet_engagements e JOIN mapping_posts m ON m.urn = e.post_urn JOIN pronet_people p ON p.urn = e.person_urn
     GROUP BY m.id;
INSERT INTO mapping_engagers (post_id, engagers)
    SELECT id, x'' FROM mapping_posts m WHERE NOT EXISTS (SELECT 1 FROM pronet_engagements e WHERE e.post_urn = m.urn);

-- The filter columns of people whose profile was stored, folded as
-- mapping.Filters.Match compares them: title lower-cased (NULL when the
-- profile has none: the headline stands in, and Go decides), size,
-- industry and country by mapping.FoldKey, the domain lower-cased. People
-- without a row are decided in Go. Existing rows are folded here where SQL
-- folds exactly as Go does: ASCII values (upper() and lower() fold ASCII
-- only); the others wait for their next profile read.
CREATE TABLE mapping_people (
    id        INTEGER PRIMARY KEY,
    title     TEXT,
    domain    TEXT NOT NULL,
    size      TEXT NOT NULL,
    industry  TEXT NOT NULL,
    country   TEXT NOT NULL,
    followers INTEGER
);
INSERT INTO mapping_people (id, title, domain, size, industry, country, followers)
    SELECT id, CASE WHEN job_title = '' THEN NULL ELSE lower(job_title) END, lower(company_domain), upper(company_size),
           upper(industry), upper(country), followers
      FROM pronet_people
     WHERE id IS NOT NULL
       AND length(CAST(job_title AS BLOB)) = length(job_title) AND length(CAST(company_domain AS BLOB)) = length(company_domain)
       AND length(CAST(company_size AS BLOB)) = length(company_size) AND length(CAST(industry AS BLOB)) = length(industry)
       AND length(CAST(country AS BLOB)) = length(country);

-- +goose StatementBegin
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts BEGIN
    INSERT INTO mapping_posts (urn, posted_at, author_urn) VALUES (new.urn, new.posted_at, new.author_urn);
    INSERT INTO mapping_engagers (post_id, engagers)
        SELECT id, x'' FROM mapping_posts WHERE urn = new.urn AND NOT EXISTS (SELECT 1 FROM pronet_engagements WHERE post_urn = new.urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts
    WHEN old.posted_at <> new.posted_at OR old.author_urn IS NOT new.author_urn BEGIN
    UPDATE mapping_posts SET posted_at = new.posted_at, author_urn = new.author_urn WHERE urn = new.urn;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_text AFTER UPDATE OF record ON pronet_posts WHEN old.text IS NOT new.text BEGIN
    DELETE FROM mapping_terms WHERE rowid = (SELECT id FROM mapping_posts WHERE urn = new.urn AND pending = 0);
    UPDATE mapping_posts SET pending = 1 WHERE urn = new.urn;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_delete AFTER DELETE ON pronet_posts BEGIN
    DELETE FROM mapping_terms WHERE rowid = (SELECT id FROM mapping_posts WHERE urn = old.urn AND pending = 0);
    DELETE FROM mapping_engagers WHERE post_id = (SELECT id FROM mapping_posts WHERE urn = old.urn);
    DELETE FROM mapping_posts WHERE urn = old.urn;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_engagers_insert AFTER INSERT ON pronet_engagements BEGIN
    DELETE FROM mapping_engagers WHERE post_id = (SELECT id FROM mapping_posts WHERE urn = new.post_urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_engagers_update AFTER UPDATE OF post_urn, person_urn, type, engaged_at ON pronet_engagements BEGIN
    DELETE FROM mapping_engagers WHERE post_id IN (SELECT id FROM mapping_posts WHERE urn IN (old.post_urn, new.post_urn));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_engagers_delete AFTER DELETE ON pronet_engagements BEGIN
    DELETE FROM mapping_engagers WHERE post_id = (SELECT id FROM mapping_posts WHERE urn = old.post_urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_people_update AFTER UPDATE OF job_title, company_domain, company_size, industry, country, followers, id
    ON pronet_people BEGIN
    DELETE FROM mapping_people WHERE id IN (old.id, new.id);
END;
-- +goose StatementEnd
-- Packed engagements name people by id (ids are given once; this is only
-- so that nothing can make a list stale unseen).
-- +goose StatementBegin
CREATE TRIGGER mapping_people_id AFTER UPDATE OF id ON pronet_people WHEN old.id IS NOT NULL AND old.id IS NOT new.id BEGIN
    DELETE FROM mapping_engagers WHERE post_id IN
        (SELECT m.id FROM pronet_engagements e JOIN mapping_posts m ON m.urn = e.post_urn WHERE e.person_urn = new.urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_people_delete AFTER DELETE ON pronet_people BEGIN
    DELETE FROM mapping_people WHERE id = old.id;
END;
-- +goose StatementEnd

-- The full-text index over the raw text is replaced by mapping_terms.
DROP TRIGGER pronet_posts_fts_delete;
DROP TRIGGER pronet_posts_fts_update;
DROP TRIGGER pronet_posts_fts_insert;
DROP TABLE pronet_posts_fts;

-- +goose Down
CREATE VIRTUAL TABLE pronet_posts_fts USING fts5 (text, content = 'pronet_posts', content_rowid = 'rowid', tokenize = 'unicode61');
INSERT INTO pronet_posts_fts (rowid, text) SELECT rowid, text FROM pronet_posts;
-- +goose StatementBegin
CREATE TRIGGER pronet_posts_fts_insert AFTER INSERT ON pronet_posts BEGIN
    INSERT INTO pronet_posts_fts (rowid, text) VALUES (new.rowid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER pronet_posts_fts_update AFTER UPDATE OF record ON pronet_posts BEGIN
    INSERT INTO pronet_posts_fts (pronet_posts_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO pronet_posts_fts (rowid, text) VALUES (new.rowid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER pronet_posts_fts_delete AFTER DELETE ON pronet_posts BEGIN
    INSERT INTO pronet_posts_fts (pronet_posts_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
-- +goose StatementEnd
DROP TRIGGER mapping_people_id;
DROP TRIGGER mapping_people_delete;
DROP TRIGGER mapping_people_update;
DROP TRIGGER mapping_engagers_delete;
DROP TRIGGER mapping_engagers_update;
DROP TRIGGER mapping_engagers_insert;
DROP TRIGGER mapping_posts_delete;
DROP TRIGGER mapping_posts_text;
DROP TRIGGER mapping_posts_update;
DROP TRIGGER mapping_posts_insert;
DROP TABLE mapping_people;
DROP TABLE mapping_engagers;
DROP TABLE mapping_terms;
DROP TABLE mapping_posts;

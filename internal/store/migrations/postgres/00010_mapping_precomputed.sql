-- +goose Up
-- Social mapping reads what collection precomputes when it stores posts,
-- engagements and profiles (docs/decisions.md, "Social mapping and creator
-- discovery"). Go computes it (the keyword index cuts text exactly as the
-- keyword count does, and folds case with Go's Unicode tables); the
-- triggers below only take stale rows out of the way, so that whatever
-- writes the pool, a query never reads a stale precomputation: a post,
-- person or engagement list without one is read from the pool tables.

-- mapping_posts (a narrow copy of the posts kept by a trigger, with a
-- tsvector of the raw text) becomes one row per post with an integer id
-- and the keyword index (mapping.IndexText) as a tsvector of verbatim
-- lexemes. pending while the index does not hold the post's current text:
-- the writer indexes new posts in the same transaction; Migrate indexes
-- the rest; queries read such posts' text.
DROP TRIGGER mapping_posts_delete ON pronet_posts;
DROP TRIGGER mapping_posts_update ON pronet_posts;
DROP TRIGGER mapping_posts_insert ON pronet_posts;
DROP FUNCTION mapping_posts_sync();
DROP TABLE mapping_posts;
CREATE TABLE mapping_posts (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    urn        TEXT NOT NULL UNIQUE,
    posted_at  BIGINT NOT NULL,
    author_urn TEXT NOT NULL,
    pending    BOOLEAN NOT NULL DEFAULT TRUE,
    terms      TSVECTOR
);
INSERT INTO mapping_posts (urn, posted_at, author_urn) SELECT urn, posted_at, author_urn FROM pronet_posts ORDER BY first_seen_at, urn;
CREATE INDEX mapping_posts_terms ON mapping_posts USING GIN (terms);
CREATE INDEX mapping_posts_pending ON mapping_posts (id) WHERE pending;

-- Each post's engagements, packed: 16 bytes each, big-endian engaged_at
-- then person id * 2 + (1 for a comment), sorted (empty for a post without
-- any); no row while stale.
CREATE TABLE mapping_engagers (
    post_id  BIGINT PRIMARY KEY,
    engagers BYTEA NOT NULL
);
INSERT INTO mapping_engagers (post_id, engagers)
    SELECT m.id, string_agg(int8send(e.engaged_at) || int8send(p.id * 2 + CASE WHEN e.type = 'comment' THEN 1 ELSE 0 END), ''::bytea
                            ORDER BY e.engaged_at, p.id * 2 + CASE WHEN e.type = 'comment' THEN 1 ELSE 0 END)
      FROM pronet_engagements e JOIN mapping_posts m ON m.urn = e.post_urn JOIN pronet_people p ON p.urn = e.person_urn
     GROUP BY m.id;
INSERT INTO mapping_engagers (post_id, engagers)
    SELECT id, ''::bytea FROM mapping_posts m WHERE NOT EXISTS (SELECT 1 FROM pronet_engagements e WHERE e.post_urn = m.urn);

-- The filter columns of people whose profile was stored, folded as
-- mapping.Filters.Match compares them: title lower-cased (NULL when the
-- profile has none: the headline stands in, and Go decides), size,
-- industry and country by mapping.FoldKey, the domain lower-cased. People
-- without a row are decided in Go. Existing rows are folded here where SQL
-- folds exactly as Go does: ASCII values, with translate() (lower() and
-- upper() depend on the locale); the others wait for their next profile read.
CREATE TABLE mapping_people (
    id        BIGINT PRIMARY KEY,
    title     TEXT,
    domain    TEXT NOT NULL,
    size      TEXT NOT NULL,
    industry  TEXT NOT NULL,
    country   TEXT NOT NULL,
    followers BIGINT
);
INSERT INTO mapping_people (id, title, domain, size, industry, country, followers)
    SELECT id,
           CASE WHEN job_title = '' THEN NULL ELSE translate(job_title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') END,
           translate(company_domain, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
           translate(company_size, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
           translate(industry, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
           translate(country, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
           followers
      FROM pronet_people
     WHERE octet_length(job_title) = char_length(job_title) AND octet_length(company_domain) = char_length(company_domain)
       AND octet_length(company_size) = char_length(company_size) AND octet_length(industry) = char_length(industry)
       AND octet_length(country) = char_length(country);

-- +goose StatementBegin
CREATE FUNCTION mapping_posts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mapping_posts (urn, posted_at, author_urn) VALUES (NEW.urn, NEW.posted_at, NEW.author_urn);
        INSERT INTO mapping_engagers (post_id, engagers)
            SELECT id, ''::bytea FROM mapping_posts WHERE urn = NEW.urn
               AND NOT EXISTS (SELECT 1 FROM pronet_engagements WHERE post_urn = NEW.urn);
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE mapping_posts SET posted_at = NEW.posted_at, author_urn = NEW.author_urn,
               pending = pending OR OLD.text IS DISTINCT FROM NEW.text,
               terms = CASE WHEN OLD.text IS DISTINCT FROM NEW.text THEN NULL ELSE terms END
         WHERE urn = NEW.urn;
    ELSE
        DELETE FROM mapping_engagers WHERE post_id = (SELECT id FROM mapping_posts WHERE urn = OLD.urn);
        DELETE FROM mapping_posts WHERE urn = OLD.urn;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts FOR EACH ROW EXECUTE FUNCTION mapping_posts_sync();
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts FOR EACH ROW
    WHEN (OLD.text IS DISTINCT FROM NEW.text OR OLD.posted_at IS DISTINCT FROM NEW.posted_at OR OLD.author_urn IS DISTINCT FROM NEW.author_urn)
    EXECUTE FUNCTION mapping_posts_sync();
CREATE TRIGGER mapping_posts_delete AFTER DELETE ON pronet_posts FOR EACH ROW EXECUTE FUNCTION mapping_posts_sync();

-- Engagements are written many to a statement: the engagement lists of the
-- posts a statement touched go, once per statement. The posts are locked
-- first, as the writer that packs a list does (SaveHydration), so that a
-- list packed by a transaction that has not committed yet cannot miss the
-- engagements of this one and outlive its DELETE.
-- +goose StatementBegin
CREATE FUNCTION mapping_engagers_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM 1 FROM pronet_posts WHERE urn IN (SELECT post_urn FROM changed_new) ORDER BY urn FOR UPDATE;
        DELETE FROM mapping_engagers WHERE post_id IN
            (SELECT m.id FROM mapping_posts m WHERE m.urn IN (SELECT DISTINCT post_urn FROM changed_new));
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM 1 FROM pronet_posts WHERE urn IN (SELECT post_urn FROM changed_old) ORDER BY urn FOR UPDATE;
        DELETE FROM mapping_engagers WHERE post_id IN
            (SELECT m.id FROM mapping_posts m WHERE m.urn IN (SELECT DISTINCT post_urn FROM changed_old));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_engagers_insert AFTER INSERT ON pronet_engagements REFERENCING NEW TABLE AS changed_new
    FOR EACH STATEMENT EXECUTE FUNCTION mapping_engagers_stale();
CREATE TRIGGER mapping_engagers_update AFTER UPDATE ON pronet_engagements REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new
    FOR EACH STATEMENT EXECUTE FUNCTION mapping_engagers_stale();
CREATE TRIGGER mapping_engagers_delete AFTER DELETE ON pronet_engagements REFERENCING OLD TABLE AS changed_old
    FOR EACH STATEMENT EXECUTE FUNCTION mapping_engagers_stale();

-- +goose StatementBegin
CREATE FUNCTION mapping_people_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mapping_people WHERE id = OLD.id;
    IF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id THEN
        DELETE FROM mapping_people WHERE id = NEW.id;
        -- Packed engagements name people by id (ids are given once; this
        -- is only so that nothing can make a list stale unseen).
        DELETE FROM mapping_engagers WHERE post_id IN
            (SELECT m.id FROM pronet_engagements e JOIN mapping_posts m ON m.urn = e.post_urn WHERE e.person_urn = NEW.urn);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_people_update AFTER UPDATE OF job_title, company_domain, company_size, industry, country, followers, id
    ON pronet_people FOR EACH ROW EXECUTE FUNCTION mapping_people_stale();
CREATE TRIGGER mapping_people_delete AFTER DELETE ON pronet_people FOR EACH ROW EXECUTE FUNCTION mapping_people_stale();

-- +goose Down
DROP TRIGGER mapping_people_delete ON pronet_people;
DROP TRIGGER mapping_people_update ON pronet_people;
DROP FUNCTION mapping_people_stale();
DROP TRIGGER mapping_engagers_delete ON pronet_engagements;
DROP TRIGGER mapping_engagers_update ON pronet_engagements;
DROP TRIGGER mapping_engagers_insert ON pronet_engagements;
DROP FUNCTION mapping_engagers_stale();
DROP TRIGGER mapping_posts_delete ON pronet_posts;
DROP TRIGGER mapping_posts_update ON pronet_posts;
DROP TRIGGER mapping_posts_insert ON pronet_posts;
DROP FUNCTION mapping_posts_sync();
DROP TABLE mapping_people;
DROP TABLE mapping_engagers;
DROP TABLE mapping_posts;
-- As migration 00007 left it.
CREATE TABLE mapping_posts (
    urn         TEXT PRIMARY KEY,
    posted_at   BIGINT NOT NULL,
    author_urn  TEXT NOT NULL,
    text        TEXT NOT NULL,
    text_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(text, '[^[:alnum:]_]+', ' ', 'g'))) STORED
);
INSERT INTO mapping_posts (urn, posted_at, author_urn, text) SELECT urn, posted_at, author_urn, text FROM pronet_posts;
CREATE INDEX mapping_posts_text_search ON mapping_posts USING GIN (text_search);
-- +goose StatementBegin
CREATE FUNCTION mapping_posts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM mapping_posts WHERE urn = OLD.urn;
        RETURN NULL;
    END IF;
    INSERT INTO mapping_posts (urn, posted_at, author_urn, text) VALUES (NEW.urn, NEW.posted_at, NEW.author_urn, NEW.text)
    ON CONFLICT (urn) DO UPDATE SET posted_at = excluded.posted_at, author_urn = excluded.author_urn, text = excluded.text;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts FOR EACH ROW EXECUTE FUNCTION mapping_posts_sync();
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts FOR EACH ROW
    WHEN (OLD.record IS DISTINCT FROM NEW.record OR OLD.posted_at IS DISTINCT FROM NEW.posted_at)
    EXECUTE FUNCTION mapping_posts_sync();
CREATE TRIGGER mapping_posts_delete AFTER DELETE ON pronet_posts FOR EACH ROW EXECUTE FUNCTION mapping_posts_sync();

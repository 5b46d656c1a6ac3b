-- +goose Up
-- How many results of a search each author profile (source, username, bio,
-- location: what an author filter reads) wrote, kept as results are
-- stored (they are never deleted one by one). A filtered results table
-- counts its total over these rows, a few per author, instead of reading
-- every result: a million results took seconds a page (bench/console).
CREATE TABLE search_result_authors (
    search_id   UUID NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    username    TEXT NOT NULL,
    description TEXT NOT NULL,
    location    TEXT NOT NULL,
    results     BIGINT NOT NULL
);
-- Bios and locations are hashed in the key: a B-tree entry must stay under
-- 2.7 kB whatever an upstream sends.
CREATE UNIQUE INDEX search_result_authors_key
    ON search_result_authors (search_id, source, username, md5(description), md5(location));

INSERT INTO search_result_authors (search_id, source, username, description, location, results)
SELECT search_id, COALESCE(item->>'source', ''), COALESCE(item->'author'->>'username', ''),
       COALESCE(item->'author'->>'description', ''), COALESCE(item->'author'->>'location', ''), COUNT(*)
  FROM search_results GROUP BY 1, 2, 3, 4, 5;

-- +goose Down
DROP TABLE search_result_authors;

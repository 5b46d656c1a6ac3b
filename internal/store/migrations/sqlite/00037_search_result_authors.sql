-- +goose Up
-- How many results of a search each author profile (source, username, bio,
-- location: what an author filter reads) wrote, kept as results are
-- stored (they are never deleted one by one). A filtered results table
-- counts its total over these rows, a few per author, instead of reading
-- every result: a million results took 28 s a page (bench/console).
CREATE TABLE search_result_authors (
    search_id   TEXT NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    username    TEXT NOT NULL,
    description TEXT NOT NULL,
    location    TEXT NOT NULL,
    results     INTEGER NOT NULL,
    PRIMARY KEY (search_id, source, username, description, location)
) WITHOUT ROWID;

INSERT INTO search_result_authors (search_id, source, username, description, location, results)
SELECT search_id, COALESCE(json_extract(item, '$.source'), ''), COALESCE(json_extract(item, '$.author.username'), ''),
       COALESCE(json_extract(item, '$.author.description'), ''), COALESCE(json_extract(item, '$.author.location'), ''), COUNT(*)
  FROM search_results GROUP BY 1, 2, 3, 4, 5;

-- +goose Down
DROP TABLE search_result_authors;

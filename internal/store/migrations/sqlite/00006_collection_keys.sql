-- +goose Up
-- Hydration writes: people get an integer id in the order they are first
-- seen, and a topic's engagers are keyed by it, so that the engagers new to
-- a topic (most of a hydration's) are appended at the end of the table
-- instead of landing on a random page each (keyed by the person's URN, one
-- hydration dirtied a page of topic_engagers per engager).
ALTER TABLE pronet_people ADD COLUMN id INTEGER;
UPDATE pronet_people SET id = rowid;
CREATE UNIQUE INDEX pronet_people_id ON pronet_people (id);
-- Writers assign ids themselves (the next after the largest, in the write
-- transaction); a row inserted without one gets the next.
-- +goose StatementBegin
CREATE TRIGGER pronet_people_id AFTER INSERT ON pronet_people WHEN new.id IS NULL BEGIN
    UPDATE pronet_people SET id = (SELECT COALESCE(MAX(id), 0) + 1 FROM pronet_people) WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

CREATE TABLE topic_engagers_new (
    topic_id      TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    person_id     INTEGER NOT NULL,
    person_urn    TEXT NOT NULL,
    engagement_id TEXT NOT NULL,
    latest_at     INTEGER NOT NULL,
    PRIMARY KEY (topic_id, person_id)
) WITHOUT ROWID;
INSERT INTO topic_engagers_new (topic_id, person_id, person_urn, engagement_id, latest_at)
    SELECT g.topic_id, p.id, g.person_urn, g.engagement_id, g.latest_at
      FROM topic_engagers g JOIN pronet_people p ON p.urn = g.person_urn;
DROP TABLE topic_engagers;
ALTER TABLE topic_engagers_new RENAME TO topic_engagers;
-- In ascending order (pages are read backwards): the newest engagers are
-- appended at the end, where SQLite fills pages, not inserted before the
-- first row, which splits pages half full.
CREATE INDEX topic_engagers_page ON topic_engagers (topic_id, latest_at, person_urn);

DROP INDEX topic_engagements_post;
CREATE INDEX topic_engagements_post ON topic_engagements (topic_id, post_urn, created_at, engagement_id);

-- +goose Down
DROP INDEX topic_engagements_post;
CREATE INDEX topic_engagements_post ON topic_engagements (topic_id, post_urn, created_at DESC, engagement_id DESC);
CREATE TABLE topic_engagers_old (
    topic_id      TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    person_urn    TEXT NOT NULL,
    engagement_id TEXT NOT NULL,
    latest_at     INTEGER NOT NULL,
    PRIMARY KEY (topic_id, person_urn)
);
INSERT INTO topic_engagers_old (topic_id, person_urn, engagement_id, latest_at)
    SELECT topic_id, person_urn, engagement_id, latest_at FROM topic_engagers;
DROP TABLE topic_engagers;
ALTER TABLE topic_engagers_old RENAME TO topic_engagers;
CREATE INDEX topic_engagers_page ON topic_engagers (topic_id, latest_at DESC, person_urn DESC);
DROP TRIGGER pronet_people_id;
DROP INDEX pronet_people_id;
ALTER TABLE pronet_people DROP COLUMN id;

-- +goose Up
-- A person whose profile shows no title is filtered on their headline, as
-- mapping.Filters.Match does; their folded title is now the headline
-- lower-cased instead of NULL ("Go decides"), so that social mapping's
-- copy decides them in memory. Existing rows are folded here where SQL
-- folds as Go does (ASCII headlines, with translate(): lower() depends on
-- the locale); the others stay NULL until their next profile read, and are
-- decided in Go meanwhile. A new headline of such a person drops their
-- folded row, as a new title does.
UPDATE mapping_people m
   SET title = translate(p.headline, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
  FROM pronet_people p
 WHERE p.id = m.id AND m.title IS NULL AND p.job_title = '' AND octet_length(p.headline) = char_length(p.headline);
CREATE TRIGGER mapping_people_headline AFTER UPDATE OF headline ON pronet_people
    FOR EACH ROW WHEN (NEW.job_title = '' AND NEW.headline IS DISTINCT FROM OLD.headline)
    EXECUTE FUNCTION mapping_people_stale();

-- +goose Down
DROP TRIGGER mapping_people_headline ON pronet_people;
UPDATE mapping_people SET title = NULL WHERE id IN (SELECT id FROM pronet_people WHERE job_title = '');

-- +goose Up
-- A person whose profile shows no title is filtered on their headline, as
-- mapping.Filters.Match does; their folded title is now the headline
-- lower-cased instead of NULL ("Go decides"), so that social mapping's
-- copy decides them in memory. Existing rows are folded here where SQL
-- folds as Go does (ASCII headlines); the others stay NULL until their next
-- profile read, and are decided in Go meanwhile. A new headline of such a
-- person drops their folded row, as a new title does.
UPDATE mapping_people SET title = (SELECT lower(p.headline) FROM pronet_people p WHERE p.id = mapping_people.id)
 WHERE title IS NULL
   AND EXISTS (SELECT 1 FROM pronet_people p WHERE p.id = mapping_people.id AND p.job_title = ''
                  AND length(CAST(p.headline AS BLOB)) = length(p.headline));
-- +goose StatementBegin
CREATE TRIGGER mapping_people_headline AFTER UPDATE OF headline ON pronet_people
    WHEN new.job_title = '' AND new.headline IS NOT old.headline BEGIN
    DELETE FROM mapping_people WHERE id = new.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mapping_people_headline;
UPDATE mapping_people SET title = NULL WHERE id IN (SELECT id FROM pronet_people WHERE job_title = '');

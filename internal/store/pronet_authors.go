package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/topic"
)

// KnownAuthors implements search.People: the current title (once the
// member's profile has been read) and follower count of the members among
// urns that the people table holds.
func (s *Store) KnownAuthors(ctx context.Context, urns []string) (map[string]search.KnownAuthor, error) {
	out := make(map[string]search.KnownAuthor, len(urns))
	for args := range inChunks(urns) {
		rows, err := s.read.QueryContext(ctx,
			`SELECT urn, job_title, profile_fetched_at IS NOT NULL, followers FROM pronet_people WHERE urn IN (`+inList(0, len(args))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: known authors: %w", err)
		}
		for rows.Next() {
			var (
				urn       string
				a         search.KnownAuthor
				followers sql.NullInt64
			)
			if err := rows.Scan(&urn, &a.JobTitle, &a.TitleKnown, &followers); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: known authors: %w", err)
			}
			if followers.Valid {
				n := int(followers.Int64)
				a.Followers = &n
			}
			out[urn] = a
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: known authors: %w", err)
		}
	}
	return out, nil
}

// SeePronetAuthors implements search.People: the authors become people as
// topic engagers do (new ones get their profile read, known ones when it is
// old), so results can be told apart by their authors' firmographics; and
// the searches they wrote results of are noted, to pay for those reads
// (splitProfileCost).
func (s *Store) SeePronetAuthors(ctx context.Context, authors []search.PronetAuthor, at time.Time) error {
	people := make([]topic.Engager, 0, len(authors))
	type link struct{ urn, search string }
	var links []link
	seen := map[link]bool{}
	for _, a := range authors {
		people = append(people, topic.Engager{URN: a.URN, Username: a.Username, FullName: a.FullName,
			Headline: a.Headline, ProfileURL: a.ProfileURL, Avatar: a.Avatar})
		if l := (link{a.URN, a.SearchID}); a.URN != "" && a.SearchID != "" && !seen[l] {
			seen[l] = true
			links = append(links, l)
		}
	}
	people = topic.UniqueEngagers(people)
	if len(people) == 0 {
		return nil
	}
	// In key order, as upsertPeople locks people.
	slices.SortFunc(links, func(a, b link) int { return cmp.Or(strings.Compare(a.urn, b.urn), strings.Compare(a.search, b.search)) })
	if err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.upsertPeople(ctx, tx, people, at); err != nil {
			return err
		}
		return s.batchInsert(ctx, tx, `INSERT INTO pronet_search_authors (person_urn, search_id) VALUES `,
			`ON CONFLICT (person_urn, search_id) DO NOTHING`, 2, len(links),
			func(i int) []any { return []any{links[i].urn, links[i].search} }, nil)
	}); err != nil {
		return fmt.Errorf("store: see pronet authors: %w", err)
	}
	return nil
}

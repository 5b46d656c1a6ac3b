package store

import (
	"context"
	"database/sql"
	"fmt"
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
// old), so results can be told apart by their authors' firmographics.
func (s *Store) SeePronetAuthors(ctx context.Context, authors []search.PronetAuthor, at time.Time) error {
	people := make([]topic.Engager, 0, len(authors))
	for _, a := range authors {
		people = append(people, topic.Engager{URN: a.URN, Username: a.Username, FullName: a.FullName,
			Headline: a.Headline, ProfileURL: a.ProfileURL, Avatar: a.Avatar})
	}
	people = topic.UniqueEngagers(people)
	if len(people) == 0 {
		return nil
	}
	if err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := s.upsertPeople(ctx, tx, people, at)
		return err
	}); err != nil {
		return fmt.Errorf("store: see pronet authors: %w", err)
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/topic"
)

// upsertPeople stores people seen engaging or posting: new ones get their
// profile read at once, known ones again when it is older than
// topic.ProfileRefresh. A known person's row is rewritten only when that
// changes something (most engagers seen again change nothing). Rows are
// locked in key order, so that concurrent transactions sharing people
// cannot deadlock on PostgreSQL. On SQLite it returns every one of people
// as stored now, by URN (SaveHydration links a post's first engagements
// from it): the known ones are read first, so that only they cross from the
// database, and the new ones have the ids the writer gave them.
func (s *Store) upsertPeople(ctx context.Context, tx *sql.Tx, people []topic.Engager, at time.Time) (map[string]knownPerson, error) {
	slices.SortFunc(people, func(a, b topic.Engager) int { return strings.Compare(a.URN, b.URN) })
	ids, err := s.personIDs(ctx, tx)
	if err != nil {
		return nil, err
	}
	var out map[string]knownPerson
	if s.dialect == SQLite {
		urns := make([]string, len(people))
		for i, p := range people {
			urns[i] = p.URN
		}
		if out, err = s.peopleOf(ctx, tx, urns); err != nil {
			return nil, err
		}
		for i, p := range people {
			switch k, ok := out[p.URN]; {
			case !ok:
				out[p.URN] = knownPerson{id: ids.next + int64(i), headline: p.Headline, isNew: true}
			case p.Headline != "":
				k.headline = p.Headline
				out[p.URN] = k
			}
		}
	}
	err = s.batchInsert(ctx, tx,
		`INSERT INTO pronet_people (`+ids.column+`urn, username, full_name, first_name, last_name, headline, avatar, pronet_url, first_seen_at, profile_due_at) VALUES `,
		`ON CONFLICT (urn) DO UPDATE SET
		     headline = CASE WHEN excluded.headline <> '' THEN excluded.headline ELSE pronet_people.headline END,
		     profile_due_at = CASE WHEN pronet_people.profile_due_at IS NULL
		                            AND pronet_people.profile_fetched_at < excluded.first_seen_at - `+profileRefreshMS+`
		                           THEN excluded.first_seen_at ELSE pronet_people.profile_due_at END
		  WHERE (excluded.headline <> '' AND excluded.headline <> pronet_people.headline)
		     OR (pronet_people.profile_due_at IS NULL AND pronet_people.profile_fetched_at < excluded.first_seen_at - `+profileRefreshMS+`)`,
		ids.n+10, len(people),
		func(i int) []any {
			p := people[i]
			first, last := topic.SplitName(p.FullName)
			return ids.row(i, p.URN, p.Username, p.FullName, first, last, p.Headline, p.Avatar, p.ProfileURL, ms(at), ms(at))
		}, nil)
	if err != nil {
		return nil, fmt.Errorf("store people: %w", err)
	}
	return out, nil
}

// personIDs gives the people a write transaction inserts their ids: the
// next ones after the largest, in the order they are first seen. On SQLite
// the writer assigns them (one writer at a time: the largest cannot change
// under it); on PostgreSQL the column's identity does. Rows that turn out
// to be stored already keep theirs.
func (s *Store) personIDs(ctx context.Context, tx *sql.Tx) (personIDs, error) {
	if s.dialect != SQLite {
		return personIDs{}, nil
	}
	var last int64
	if err := s.queryRowTx(ctx, tx, `SELECT COALESCE(MAX(id), 0) FROM pronet_people`).Scan(&last); err != nil {
		return personIDs{}, fmt.Errorf("last person id: %w", err)
	}
	return personIDs{column: "id, ", n: 1, next: last + 1}, nil
}

// knownPerson is what collection reads of a stored person: the id
// social mapping knows them by, and what a topic's job titles match.
type knownPerson struct {
	id              int64
	title, headline string
	isNew           bool // stored by this transaction
}

// peopleOf reads stored people by URN, in one statement whatever their
// number.
func (s *Store) peopleOf(ctx context.Context, tx *sql.Tx, urns []string) (map[string]knownPerson, error) {
	out := make(map[string]knownPerson, len(urns))
	list, err := json.Marshal(urns)
	if err != nil {
		return nil, err
	}
	rows, err := s.queryTx(ctx, tx, `SELECT urn, id, job_title, headline FROM pronet_people WHERE urn IN (`+s.jsonTextList(1)+`)`, string(list))
	if err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			urn string
			p   knownPerson
		)
		if err := rows.Scan(&urn, &p.id, &p.title, &p.headline); err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		out[urn] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	return out, nil
}

// personIDs is the id column of a people INSERT: none on PostgreSQL.
type personIDs struct {
	column string
	n      int
	next   int64
}

// row returns the values of the i-th row inserted, its id first.
func (p personIDs) row(i int, values ...any) []any {
	if p.n == 0 {
		return values
	}
	return append([]any{p.next + int64(i)}, values...)
}

// SaveProfile implements topic.Repository: the person's firmographics from
// their pronet profile, trusted for topic.ProfileRefresh, their filter
// columns folded for social mapping, and what the read cost
// (splitProfileCost), in one transaction.
func (s *Store) SaveProfile(ctx context.Context, p topic.Profile, at time.Time, upstreamCost int64) error {
	var followers any
	if p.Followers != nil {
		followers = *p.Followers
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE pronet_people SET
		     username = CASE WHEN $2 <> '' THEN $2 ELSE username END,
		     full_name = CASE WHEN $3 <> '' THEN $3 ELSE full_name END,
		     first_name = $4, last_name = $5,
		     headline = CASE WHEN $6 <> '' THEN $6 ELSE headline END,
		     job_title = $7, company = $8, company_domain = $9, company_size = $10, industry = $11, country = $12,
		     followers = $13, avatar = CASE WHEN $14 <> '' THEN $14 ELSE avatar END,
		     pronet_url = CASE WHEN $15 <> '' THEN $15 ELSE pronet_url END,
		     profile_fetched_at = $16, profile_due_at = NULL, profile_failures = 0, company_logo = $17, lease_owner = NULL
		  WHERE urn = $1`,
			p.URN, p.Username, p.FullName, p.FirstName, p.LastName, p.Headline, p.JobTitle, p.Company, p.CompanyDomain,
			p.CompanySize, p.Industry, p.Country, followers, p.Avatar, p.PronetURL, ms(at), p.CompanyLogo); err != nil {
			return err
		}
		if err := s.foldPeople(ctx, tx, []string{p.URN}); err != nil {
			return err
		}
		return s.splitProfileCost(ctx, tx, p.URN, upstreamCost, at)
	})
	if err != nil {
		return fmt.Errorf("store: save profile %s: %w", p.URN, err)
	}
	return nil
}

// RecordProfileFailure implements topic.Repository: next zero gives up on
// the profile (the member does not exist) until they engage again after
// topic.ProfileRefresh. What the failed read cost is recorded with it
// (splitProfileCost): the vendor bills misses too.
func (s *Store) RecordProfileFailure(ctx context.Context, urn string, at time.Time, next time.Time, upstreamCost int64) error {
	// Given up on, the profile counts as read at at.
	var due, fetched any = nil, ms(at)
	if !next.IsZero() {
		due, fetched = ms(next), nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE pronet_people SET profile_due_at = $2, profile_failures = profile_failures + 1, lease_owner = NULL,
			        profile_fetched_at = COALESCE($3, profile_fetched_at)
			  WHERE urn = $1`, urn, due, fetched); err != nil {
			return err
		}
		return s.splitProfileCost(ctx, tx, urn, upstreamCost, at)
	})
	if err != nil {
		return fmt.Errorf("store: record profile failure %s: %w", urn, err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

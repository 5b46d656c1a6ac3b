package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/topic"
)

// Bulk loaders of topic data, for benchmarks only (BenchmarkClaimDuePosts,
// bench/topicengagers): collection never calls them. They write the rows a
// topic's discoveries and hydrations leave behind, with multi-row INSERTs in
// one transaction per call, but charge no credits, record no billing, write
// no outbox events and enqueue no jobs.

// SeedPost is a post SeedTopicPosts stores and links to a topic.
type SeedPost struct {
	topic.Post
	// LinkedAt is when the topic linked it (and the service first saw it).
	LinkedAt time.Time
	// Interval is the discovery that linked it: initial or rediscovery.
	Interval topic.Interval
	// Stage is its next hydration, due at DueAt; "" (and a zero DueAt)
	// when its follow-ups are done.
	Stage topic.Interval
	DueAt time.Time
	// HydratedAt is its last hydration; zero when it has had none.
	HydratedAt time.Time
}

// SeedTopicPosts stores posts and links them to a topic, for benchmarks
// only (see above). Posts already stored keep their row; links the topic
// has are skipped. The new links are added to the topic's posts_count,
// which is returned.
func (s *Store) SeedTopicPosts(ctx context.Context, topicID string, posts []SeedPost) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := s.batchInsert(ctx, tx,
			`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at, hydrate_stage, next_hydrate_at, last_hydrated_at) VALUES `,
			`ON CONFLICT (urn) DO NOTHING`, 8, len(posts),
			func(i int) []any {
				p := posts[i]
				return []any{p.URN, ms(p.PostedAt), string(p.Record), ms(p.LinkedAt), ms(p.LinkedAt),
					seedString(string(p.Stage)), seedTime(p.DueAt), seedTime(p.HydratedAt)}
			}, nil)
		if err != nil {
			return fmt.Errorf("store posts: %w", err)
		}
		var linked int64
		err = s.batchInsert(ctx, tx,
			`INSERT INTO topic_posts (topic_id, post_urn, linked_at, discovery_interval) VALUES `,
			`ON CONFLICT (topic_id, post_urn) DO NOTHING RETURNING post_urn`, 4, len(posts),
			func(i int) []any {
				return []any{topicID, posts[i].URN, ms(posts[i].LinkedAt), string(posts[i].Interval)}
			},
			func(rows *sql.Rows) error {
				var urn string
				linked++
				return rows.Scan(&urn)
			})
		if err != nil {
			return fmt.Errorf("link posts: %w", err)
		}
		err = tx.QueryRowContext(ctx,
			`UPDATE topics SET posts_count = posts_count + $2 WHERE id = $1 RETURNING posts_count`, topicID, linked).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: seed posts of topic %s: %w", topicID, err)
	}
	return total, nil
}

// SeedEngagement is an engagement SeedTopicEngagements stores and links.
type SeedEngagement struct {
	PostURN string
	// Person is stored as if their profile had been read when the
	// engagement was linked; a person already stored keeps their row.
	Person       topic.Profile
	Type         string // like or comment
	ReactionType string
	Text         string
	CommentURN   string
	At           time.Time // engaged_at
	Interval     topic.Interval
}

// SeedTopicEngagements stores engagements of posts already stored (see
// SeedTopicPosts) with their people and links them to a topic at `at`, for
// benchmarks only (see above): the topic's engagements, its deduplicated
// engagers (each person's latest engagement) and the engagement counters
// come out as hydrations leave them. Engagements already stored, by (post,
// person, type), are skipped. It returns the topic's engagements_count.
func (s *Store) SeedTopicEngagements(ctx context.Context, topicID string, at time.Time, es []SeedEngagement) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		people := make([]topic.Profile, 0, len(es))
		seen := make(map[string]bool, len(es))
		for _, e := range es {
			if !seen[e.Person.URN] {
				seen[e.Person.URN] = true
				people = append(people, e.Person)
			}
		}
		pids, err := s.personIDs(ctx, tx)
		if err != nil {
			return err
		}
		err = s.batchInsert(ctx, tx,
			`INSERT INTO pronet_people (`+pids.column+`urn, username, full_name, first_name, last_name, headline, job_title, company,
			     company_domain, company_size, industry, country, followers, avatar, pronet_url, first_seen_at, profile_fetched_at) VALUES `,
			`ON CONFLICT (urn) DO NOTHING`, pids.n+17, len(people),
			func(i int) []any {
				p := people[i]
				var followers any
				if p.Followers != nil {
					followers = *p.Followers
				}
				return pids.row(i, p.URN, p.Username, p.FullName, p.FirstName, p.LastName, p.Headline, p.JobTitle, p.Company,
					p.CompanyDomain, p.CompanySize, p.Industry, p.Country, followers, p.Avatar, p.PronetURL, ms(at), ms(at))
			}, nil)
		if err != nil {
			return fmt.Errorf("store people: %w", err)
		}
		urns := make([]string, len(people))
		for i, p := range people {
			urns[i] = p.URN
		}
		known, err := s.peopleOf(ctx, tx, urns)
		if err != nil {
			return err
		}
		ids := make([]string, len(es))
		index := make(map[string]int, len(es))
		for i := range es {
			ids[i] = ident.New()
			index[ids[i]] = i
		}
		var inserted []int
		err = s.batchInsert(ctx, tx,
			`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, reaction_type, text, comment_urn, engaged_at, first_seen_at, discovery_interval) VALUES `,
			`ON CONFLICT (post_urn, person_urn, type) DO NOTHING RETURNING id`, 10, len(es),
			func(i int) []any {
				e := es[i]
				return []any{ids[i], e.PostURN, e.Person.URN, e.Type, e.ReactionType, e.Text, e.CommentURN, ms(e.At), ms(at), string(e.Interval)}
			},
			func(rows *sql.Rows) error {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				i, ok := index[id]
				if !ok {
					return fmt.Errorf("unexpected engagement id %s", id)
				}
				inserted = append(inserted, i)
				return nil
			})
		if err != nil {
			return fmt.Errorf("store engagements: %w", err)
		}
		err = s.batchInsert(ctx, tx,
			`INSERT INTO topic_engagements (topic_id, engagement_id, post_urn, person_urn, created_at) VALUES `,
			`ON CONFLICT (topic_id, engagement_id) DO NOTHING`, 5, len(inserted),
			func(j int) []any {
				i := inserted[j]
				return []any{topicID, ids[i], es[i].PostURN, es[i].Person.URN, ms(at)}
			}, nil)
		if err != nil {
			return fmt.Errorf("link engagements: %w", err)
		}
		// Each person's latest engagement.
		cs := make([]candidate, len(inserted))
		for j, i := range inserted {
			cs[j] = candidate{id: ids[i], person: es[i].Person.URN, personID: known[es[i].Person.URN].id, engaged: ms(es[i].At)}
		}
		newEngagers, err := s.updateEngagers(ctx, tx, topicID, latestPerPerson(cs))
		if err != nil {
			return err
		}
		perPost := map[string]int{}
		var order []string
		for _, i := range inserted {
			if perPost[es[i].PostURN] == 0 {
				order = append(order, es[i].PostURN)
			}
			perPost[es[i].PostURN]++
		}
		for _, urn := range order {
			if _, err := tx.ExecContext(ctx, `UPDATE pronet_posts SET engagements_count = engagements_count + $2 WHERE urn = $1`,
				urn, perPost[urn]); err != nil {
				return fmt.Errorf("count post engagements: %w", err)
			}
		}
		err = tx.QueryRowContext(ctx,
			`UPDATE topics SET engagements_count = engagements_count + $2, engagers_count = engagers_count + $3
			  WHERE id = $1 RETURNING engagements_count`,
			topicID, len(inserted), newEngagers).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: seed engagements of topic %s: %w", topicID, err)
	}
	return total, nil
}

func seedString(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func seedTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

// SyntheticTopicData makes realistic pronet posts (about 1.5 KB of JSON
// each) and people (profile read, firmographics filled) for benchmarks.
// Post n and person n are the same whenever they are asked for; distinct
// n give distinct URNs.
type SyntheticTopicData struct {
	base  time.Time
	texts []string
}

// NewSyntheticTopicData returns the generator of posts published from base on,
// one a minute.
func NewSyntheticTopicData(base time.Time) SyntheticTopicData {
	words := strings.Fields(`we just closed our series b to help revenue teams find the people already talking
		about their category; huge thanks to our customers, our investors and the team that shipped
		twelve releases this quarter #sales #revops #startups #hiring`)
	texts := make([]string, 53)
	for i := range texts {
		var sb strings.Builder
		for j := 0; sb.Len() < 500+i*7; j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[(i*5+j)%len(words)])
		}
		texts[i] = sb.String()
	}
	return SyntheticTopicData{base: base, texts: texts}
}

// SyntheticPostURN is the URN of post n: a 19-digit activity id, larger for
// larger n.
func SyntheticPostURN(n int) string {
	return strconv.FormatInt(7_300_000_000_000_000_000+int64(n)*8192, 10)
}

// SyntheticPersonURN is the URN of person n: a member id shaped like the
// pronet's ("ACoAA…", 39 characters), in no particular order.
func SyntheticPersonURN(n int) string {
	var b [32]byte
	x := uint64(n)
	for i := range 4 {
		binary.BigEndian.PutUint64(b[i*8:], splitmix64(x+uint64(i)<<62))
	}
	// The first 8 bytes are a bijection of n: distinct n, distinct URNs.
	return "ACoAA" + base64.RawURLEncoding.EncodeToString(b[:])[:34]
}

// splitmix64 is a bijective mix of 64 bits (Steele, Lea and Flood).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

var (
	seedFirstNames = []string{"Ana", "Ben", "Chloé", "Dev", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi", "Luca", "Maya", "Noah", "Olga", "Priya"}
	seedLastNames  = []string{"Silva", "Okafor", "Müller", "Tanaka", "Kowalski", "Haddad", "Nguyen", "García", "Johansson", "Rossi", "Patel", "Dubois", "Kim"}
	seedTitles     = []string{"Head of Sales", "Account Executive", "VP Marketing", "Founder & CEO", "Software Engineer", "RevOps Manager", "Product Manager", "SDR", "CTO", "Growth Lead"}
	seedCompanies  = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Tyrell", "Soylent", "Cyberdyne"}
	seedSizes      = []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"}
	seedIndustries = []string{"Software Development", "Financial Services", "Marketing Services", "IT Services and IT Consulting", "Staffing and Recruiting"}
	seedCountries  = []string{"United States", "United Kingdom", "Germany", "France", "India", "Brazil", "Canada", "Netherlands"}
)

// Post returns post n, published n minutes after base.
func (g SyntheticTopicData) Post(n int) topic.Post {
	urn := SyntheticPostURN(n)
	posted := g.base.Add(time.Duration(n) * time.Minute)
	author := g.Person(n % 7919)
	rec := pronet.Post{
		Text:                g.texts[n%len(g.texts)],
		EntityType:          "post",
		PostURL:             "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/",
		PostedAt:            "1d",
		PostedDate:          posted.Format(time.RFC3339),
		PostedDateTimestamp: posted.UnixMilli(),
		URN:                 urn,
		TotalReactionCount:  40 + n%700,
		LikeCount:           30 + n%500,
		EmpathyCount:        n % 40,
		PraiseCount:         n % 30,
		AppreciationCount:   n % 20,
		InterestCount:       n % 10,
		FunnyCount:          n % 5,
		CommentsCount:       n % 90,
		RepostsCount:        n % 25,
		Author: pronet.PostAuthor{
			ID: int64(100_000 + n%7919), FirstName: author.FirstName, LastName: author.LastName, Headline: author.Headline,
			Username: author.Username, URL: author.PronetURL, URN: author.URN,
			ProfilePictures: []pronet.Picture{{Width: 100, Height: 100, URL: author.Avatar}, {Width: 400, Height: 400, URL: author.Avatar + "?s=400"}},
		},
		Image: []pronet.Image{{URL: "https://media.licdn.com/dms/image/v2/D4E22AQ" + urn + "/feedshare-shrink_800/0/" + strconv.Itoa(n)}},
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err) // plain values: cannot fail
	}
	return topic.Post{URN: urn, PostedAt: posted, Record: raw}
}

// Person returns person n with their profile read.
func (g SyntheticTopicData) Person(n int) topic.Profile {
	first, last := seedFirstNames[n%len(seedFirstNames)], seedLastNames[(n/7)%len(seedLastNames)]
	username := strings.ToLower(first+"-"+last) + "-" + strconv.Itoa(n)
	title, company := seedTitles[(n/3)%len(seedTitles)], seedCompanies[(n/11)%len(seedCompanies)]
	followers := int64(50 + n%20_000)
	domain := strings.ToLower(strings.ReplaceAll(company, " ", "")) + ".com"
	return topic.Profile{
		URN: SyntheticPersonURN(n), Username: username, FullName: first + " " + last, FirstName: first, LastName: last,
		Headline: title + " at " + company + " | helping teams grow", JobTitle: title, Company: company,
		CompanyDomain: domain, CompanySize: seedSizes[n%len(seedSizes)], Industry: seedIndustries[n%len(seedIndustries)],
		Country: seedCountries[n%len(seedCountries)], Followers: &followers,
		Avatar:    "https://media.licdn.com/dms/image/v2/C4D03AQ" + strconv.Itoa(n) + "/profile-displayphoto-shrink_100_100/0/",
		PronetURL: "https://www.linkedin.com/in/" + username,
	}
}

package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestFirstHydrationAsLater: on SQLite a post's first hydration links and
// packs what it stores without reading the post back; it must store, link
// and pack what a hydration of a post that already has engagements does
// (on PostgreSQL both read back). The same
// read goes to two posts, one of them with an engagement already: a person
// who reacted and commented twice (the second comment is the same
// engagement), one who only commented, one whose headline the topic's job
// titles leave out, and a known person whose title, read from their
// profile, the topic keeps.
func TestFirstHydrationAsLater(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		s := storetest.Open(t, engine, clock.NewFake(mapNow).Now)
		a := newAccount(t, s, auth.PlanEnterprise)
		tp := &topic.Topic{AccountID: a.ID, Name: "revops", Definition: topic.Definition{Keywords: []string{"revops"},
			JobTitles: []string{"RevOps"}, TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
		if err := s.CreateTopic(ctx, tp, 0); err != nil {
			t.Fatal(err)
		}
		var posts []topic.Post
		for _, key := range []string{"F1", "F2"} {
			p := fxPost{Key: key, Author: "D", Text: "revops in practice", Posted: mapNow.Add(-time.Hour), Reactions: 4, Comments: 1}
			posts = append(posts, topic.Post{URN: fxPostURN(key), PostedAt: p.Posted, Record: fxRecord(p), Author: fxEngager("D")})
		}
		run := topic.DiscoveryRun{TopicID: tp.ID, At: mapNow.Add(-time.Hour), Interval: topic.Initial, Posts: posts,
			NextRunAt: mapNow.Add(day), Allocation: fxAllocation}
		if out, err := s.SaveDiscovery(ctx, run); err != nil || out.Linked != 2 {
			t.Fatalf("discovery: %+v, %v", out, err)
		}
		if err := s.SaveProfile(ctx, topic.Profile{URN: fxPersonURN("D"), JobTitle: "Head of RevOps"}, mapNow.Add(-time.Hour), 0); err != nil {
			t.Fatal(err)
		}
		person := func(key, headline string) topic.Engager {
			e := fxEngager(key)
			e.Headline = headline
			return e
		}
		hydrate := func(post string, at time.Time, found ...topic.Found) topic.HydrationOutcome {
			t.Helper()
			out, err := s.SaveHydration(ctx, topic.Hydration{PostURN: fxPostURN(post), At: at, Stage: topic.Initial, Found: found,
				Allocations: map[string]int64{a.ID: fxAllocation}})
			if err != nil {
				t.Fatalf("hydration of %s: %v", post, err)
			}
			return out
		}
		// F2 has an engagement already: its hydration below is not its first.
		hydrate("F2", mapNow.Add(-30*time.Minute), topic.Found{Person: person("Z", "RevOps lead"), Type: "like", ReactionType: "LIKE"})

		read := []topic.Found{
			{Person: person("A", "RevOps at Acme"), Type: "like", ReactionType: "PRAISE"},
			{Person: person("A", "RevOps at Acme"), Type: "comment", Text: "first", At: mapNow.Add(-2 * time.Minute)},
			{Person: person("A", "RevOps at Acme"), Type: "comment", Text: "second", At: mapNow.Add(-time.Minute)},
			{Person: person("B", "Engineer"), Type: "like", ReactionType: "LIKE"},
			{Person: person("D", ""), Type: "like", ReactionType: "LIKE"},
			{Person: person("E", "RevOps, EMEA"), Type: "comment", Text: "only", At: mapNow.Add(-3 * time.Minute)},
		}
		for _, post := range []string{"F1", "F2"} {
			out := hydrate(post, mapNow, read...)
			if out.NewEngagements != 5 || out.Linked != 4 || len(out.Blocked) > 0 {
				t.Errorf("post %s: %+v, want 5 new engagements, 4 linked", post, out)
			}
			items, total, err := s.PostEngagements(ctx, tp.ID, fxPostURN(post), 1, 100)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range items {
				if e.Person.URN != fxPersonURN("Z") {
					got = append(got, fmt.Sprintf("%s %s %q", e.Person.URN, e.Type, e.Text))
				}
			}
			slices.Sort(got)
			want := []string{
				fmt.Sprintf("%s comment %q", fxPersonURN("A"), "first"),
				fmt.Sprintf("%s like %q", fxPersonURN("A"), ""),
				fmt.Sprintf("%s like %q", fxPersonURN("D"), ""),
				fmt.Sprintf("%s comment %q", fxPersonURN("E"), "only"),
			}
			if !slices.Equal(got, want) || int(total) != len(items) {
				t.Errorf("post %s links %v (total %d), want %v", post, got, total, want)
			}
		}
		engagers, total, err := s.TopicEngagers(ctx, tp.ID, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		if total != 4 || len(engagers) != 4 { // A, D, E and Z
			t.Errorf("topic engagers: %d (total %d), want 4", len(engagers), total)
		}
		// Social mapping reads the packed engagements of both posts (E's
		// latest engagement is a comment).
		checkOracle(t, s, mapping.NewEngine(s.MappingPool()), "first hydrations")
	})
}

// TestConcurrentHydrationsSharePeople: hydrations of different posts run
// side by side (the job workers run several at once), each with the same
// people new to the service. Whichever stores a person first, every
// hydration stores and links all of its engagements, and each person is
// stored once.
func TestConcurrentHydrationsSharePeople(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		const (
			posts  = 8
			people = 40
			rounds = 3
		)
		ctx := context.Background()
		s := storetest.Open(t, engine, clock.NewFake(mapNow).Now)
		a := newAccount(t, s, auth.PlanEnterprise)
		tp := &topic.Topic{AccountID: a.ID, Name: "revops", Definition: topic.Definition{Keywords: []string{"revops"},
			TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
		if err := s.CreateTopic(ctx, tp, 0); err != nil {
			t.Fatal(err)
		}
		run := topic.DiscoveryRun{TopicID: tp.ID, At: mapNow.Add(-time.Hour), Interval: topic.Initial,
			NextRunAt: mapNow.Add(day), Allocation: fxAllocation}
		for i := range posts * rounds {
			p := fxPost{Key: fmt.Sprintf("F%d", i+1), Text: "revops", Posted: mapNow.Add(-time.Hour)}
			run.Posts = append(run.Posts, topic.Post{URN: fxPostURN(p.Key), PostedAt: p.Posted, Record: fxRecord(p)})
		}
		if out, err := s.SaveDiscovery(ctx, run); err != nil || out.Linked != posts*rounds {
			t.Fatalf("discovery: %+v, %v", out, err)
		}
		for round := range rounds {
			var found []topic.Found
			for i := range people {
				found = append(found, topic.Found{Person: fxEngager(fmt.Sprintf("R%dN%d", round, i)), Type: "like", ReactionType: "LIKE"})
			}
			var wg sync.WaitGroup
			errs := make([]error, posts)
			outs := make([]topic.HydrationOutcome, posts)
			for i := range posts {
				wg.Go(func() {
					outs[i], errs[i] = s.SaveHydration(ctx, topic.Hydration{PostURN: run.Posts[round*posts+i].URN, At: mapNow,
						Stage: topic.Initial, Found: found, Allocations: map[string]int64{a.ID: fxAllocation}})
				})
			}
			wg.Wait()
			for i := range posts {
				if errs[i] != nil || outs[i].NewEngagements != people || outs[i].Linked != people {
					t.Errorf("round %d, post %d: %+v, %v; want %d new and linked", round, i, outs[i], errs[i], people)
				}
			}
		}
		var stored int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM pronet_people`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != people*rounds {
			t.Errorf("%d people stored, want %d", stored, people*rounds)
		}
	})
}

package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestProfileReadCost: what reading a person's profile cost is split exactly
// between the saved searches whose results they wrote (the first by id taking
// the odd micro), a failed read included; a deleted search pays no more; an
// active topic showing the person takes the whole cost under "profiles"; a
// person no one shows costs no one.
func TestProfileReadCost(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(mapNow)
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanEnterprise)
		var ids []string
		for _, name := range []string{"one", "two"} {
			sr := search.Search{AccountID: a.ID, Name: name, Kind: search.KindPosts, Status: search.StatusActive,
				Definition: search.Definition{Keywords: []string{"crm"}, Frequency: search.Daily}}
			if err := s.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, sr.ID)
		}
		first, second := ids[0], ids[1]
		if second < first {
			first, second = second, first
		}
		x, nobody := fxEngager("D"), fxEngager("E")
		author := func(e topic.Engager, searchID string) search.PronetAuthor {
			return search.PronetAuthor{URN: e.URN, Username: e.Username, FullName: e.FullName, SearchID: searchID}
		}
		for _, id := range ids {
			if err := s.SeePronetAuthors(ctx, []search.PronetAuthor{author(x, id), author(nobody, "")}, clk.Now()); err != nil {
				t.Fatal(err)
			}
		}
		perSearch := func() map[string]int64 {
			t.Helper()
			rows, err := s.DB().QueryContext(ctx,
				`SELECT saved_search_id, SUM(cost_micros) FROM upstream_costs WHERE feature = 'search_create' GROUP BY saved_search_id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			out := map[string]int64{}
			for rows.Next() {
				var (
					id string
					n  int64
				)
				if err := rows.Scan(&id, &n); err != nil {
					t.Fatal(err)
				}
				out[id] = n
			}
			return out
		}
		check := func(step string, want map[string]int64) {
			t.Helper()
			got := perSearch()
			if len(got) != len(want) || got[first] != want[first] || got[second] != want[second] {
				t.Errorf("%s: costs by search %v, want %v", step, got, want)
			}
		}

		if err := s.RecordProfileFailure(ctx, x.URN, clk.Now(), clk.Now().Add(time.Hour), 1001); err != nil {
			t.Fatal(err)
		}
		check("failed read", map[string]int64{first: 501, second: 500})
		if err := s.SaveProfile(ctx, topic.Profile{URN: x.URN, JobTitle: "CRO"}, clk.Now(), 3); err != nil {
			t.Fatal(err)
		}
		check("read", map[string]int64{first: 503, second: 501})
		if err := s.SaveProfile(ctx, topic.Profile{URN: nobody.URN}, clk.Now(), 50); err != nil {
			t.Fatal(err)
		}
		check("read of a person no one shows", map[string]int64{first: 503, second: 501})
		if err := s.DeleteSearch(ctx, a.ID, first); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveProfile(ctx, topic.Profile{URN: x.URN}, clk.Now(), 7); err != nil {
			t.Fatal(err)
		}
		check("read after a search's deletion", map[string]int64{first: 503, second: 508})
		usage, err := s.Usage(ctx, a.ID, mapNow.Add(-time.Hour), mapNow.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got := usage.UpstreamByFeature[credits.SearchCreate]; got != 1011 || usage.UpstreamCost != 1011 {
			t.Errorf("usage: search_create %d, all %d, want 1011", got, usage.UpstreamCost)
		}

		// A topic linking a post the person wrote: the topic's, under "profiles".
		tp := &topic.Topic{AccountID: a.ID, Name: "revops", Definition: topic.Definition{Keywords: []string{"revops"},
			TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
		if err := s.CreateTopic(ctx, tp, 0); err != nil {
			t.Fatal(err)
		}
		p := fxPost{Key: "F1", Author: "D", Text: "revops in practice", Posted: mapNow.Add(-time.Hour)}
		run := topic.DiscoveryRun{TopicID: tp.ID, At: clk.Now(), Interval: topic.Initial, NextRunAt: mapNow.Add(day), Allocation: fxAllocation,
			Posts: []topic.Post{{URN: fxPostURN("F1"), PostedAt: p.Posted, Record: fxRecord(p), Author: x}}}
		if out, err := s.SaveDiscovery(ctx, run); err != nil || out.Linked != 1 {
			t.Fatalf("discovery: %+v, %v", out, err)
		}
		if err := s.RecordProfileFailure(ctx, x.URN, clk.Now(), time.Time{}, 9); err != nil {
			t.Fatal(err)
		}
		check("read of a topic's author", map[string]int64{first: 503, second: 508})
		cost, err := s.TopicUpstreamCost(ctx, tp.ID, mapNow.Add(-time.Hour), mapNow.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if cost.Total != 9 || cost.ByInterval[topic.ProfileReads] != 9 {
			t.Errorf("topic cost %+v, want 9 under %s", cost, topic.ProfileReads)
		}
	})
}

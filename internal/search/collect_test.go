package search_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/microblog"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// fakeMicroblog serves posts with increasing ids; err, when set, fails the
// next call.
type fakeMicroblog struct {
	mu       sync.Mutex
	posts    []source.Item // newest last
	err      error
	sinceIDs []string
}

func (f *fakeMicroblog) publish(n int, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		id := strconv.Itoa(1_000_000 + len(f.posts))
		f.posts = append(f.posts, source.Item{ID: id, Source: "microblog", PublishedAt: at, Content: source.Content{Text: "post " + id}})
	}
}

func (f *fakeMicroblog) page(sinceID string, max int) (microblog.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sinceIDs = append(f.sinceIDs, sinceID)
	if err := f.err; err != nil {
		f.err = nil
		return microblog.Page{}, err
	}
	var pg microblog.Page
	for i := len(f.posts) - 1; i >= 0 && len(pg.Items) < max; i-- {
		if sinceID == "" || search.NewerID(f.posts[i].ID, sinceID) {
			pg.Items = append(pg.Items, f.posts[i])
		}
	}
	return pg, nil
}

func (f *fakeMicroblog) Search(_ context.Context, p microblog.SearchParams) (microblog.Page, error) {
	return f.page(p.SinceID, p.MaxResults)
}

func (f *fakeMicroblog) UserByUsername(_ context.Context, u string) (microblog.User, error) {
	return microblog.User{ID: "42", Username: u}, nil
}

func (f *fakeMicroblog) UserTweets(_ context.Context, _ string, p microblog.TimelineParams) (microblog.Page, error) {
	return f.page(p.SinceID, p.MaxResults)
}

type fixture struct {
	st   *store.Store
	clk  *clock.Fake
	mb   *fakeMicroblog
	col  *search.Collector
	acct auth.Account
}

func newFixture(t *testing.T, engine store.Dialect) *fixture {
	clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	st := storetest.Open(t, engine, clk.Now)
	f := &fixture{st: st, clk: clk, mb: &fakeMicroblog{}}
	f.col = &search.Collector{Repo: st, Microblog: f.mb, Now: clk.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	f.acct = auth.Account{Name: "a", Plan: auth.PlanCustom}
	if err := st.CreateAccount(context.Background(), &f.acct); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) create(t *testing.T, freq search.Frequency, max int) search.Search {
	s := search.Search{AccountID: f.acct.ID, Name: "s", Kind: search.KindPosts, Definition: search.Definition{
		Keywords: []string{"crm"}, TimeFrame: "past-week", MaxResults: max, Frequency: freq, SearchType: "Latest"}}
	if err := f.st.CreateSearch(context.Background(), &s, credits.Charge{}, 0); err != nil {
		t.Fatal(err)
	}
	return s
}

func forEachEngine(t *testing.T, body func(t *testing.T, engine store.Dialect)) {
	for _, e := range storetest.Engines() {
		t.Run(string(e), func(t *testing.T) { body(t, e) })
	}
}

// scheduler returns a scheduler that runs claimed searches at once.
func (f *fixture) scheduler(ran *[]string) *search.Scheduler {
	return &search.Scheduler{Repo: f.st, Lease: 10 * time.Minute,
		Enqueue: func(ctx context.Context, args river.JobArgs, _ *river.InsertOpts) error {
			id := args.(search.RunArgs).SearchID
			*ran = append(*ran, id)
			_, err := f.col.Run(ctx, id)
			return err
		}}
}

func TestScheduleFollowsFrequencyAndStatus(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		f := newFixture(t, engine)
		f.mb.publish(5, f.clk.Now())
		hourly := f.create(t, search.Hourly, 100)
		daily := f.create(t, search.Daily, 100)
		var ran []string
		sched := f.scheduler(&ran)

		// Both run right after creation.
		if err := sched.ScanDue(ctx, f.clk.Now()); err != nil || len(ran) != 2 {
			t.Fatalf("first scan ran %v, %v", ran, err)
		}
		// An hour later only the hourly one is due; it collects what is new.
		f.mb.publish(3, f.clk.Now())
		f.clk.Advance(time.Hour)
		ran = nil
		if err := sched.ScanDue(ctx, f.clk.Now()); err != nil || len(ran) != 1 || ran[0] != hourly.ID {
			t.Fatalf("after an hour ran %v, %v; want only the hourly search", ran, err)
		}
		got, _ := f.st.SearchByID(ctx, hourly.ID)
		if got.TotalResults != 8 || got.Watermark != "1000007" {
			t.Fatalf("hourly search = %d results, watermark %s", got.TotalResults, got.Watermark)
		}
		// Paused searches never come due; resumed ones run at the next scan.
		d, _ := f.st.AccountSearch(ctx, f.acct.ID, daily.ID)
		d.Status = search.StatusPaused
		if err := f.st.UpdateSearch(ctx, &d, false, 0); err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(48 * time.Hour)
		ran = nil
		sched.ScanDue(ctx, f.clk.Now())
		if len(ran) != 1 || ran[0] != hourly.ID {
			t.Fatalf("with the daily search paused, ran %v", ran)
		}
		// A deleted search stops at once, even mid-run.
		if err := f.st.DeleteSearch(ctx, f.acct.ID, hourly.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.col.Run(ctx, hourly.ID); !errors.Is(err, search.ErrNotRunnable) {
			t.Fatalf("run of a deleted search: %v", err)
		}
		f.clk.Advance(time.Hour)
		ran = nil
		sched.ScanDue(ctx, f.clk.Now())
		if len(ran) != 0 {
			t.Fatalf("deleted search ran: %v", ran)
		}
	})
}

func TestFailedRunsBackOffAndRateLimitsDelay(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		f := newFixture(t, engine)
		s := f.create(t, search.Daily, 50)
		f.mb.err = &source.UpstreamError{Source: "microblog", Status: 503, Err: errors.New("down")}
		if _, err := f.col.Run(ctx, s.ID); err == nil {
			t.Fatal("run with a failing upstream succeeded")
		}
		got, _ := f.st.SearchByID(ctx, s.ID)
		if got.Failures != 1 || got.LastError == "" || !got.NextRunAt.Equal(f.clk.Now().Add(time.Minute)) {
			t.Fatalf("after a failure: failures %d, error %q, next %v", got.Failures, got.LastError, got.NextRunAt)
		}
		reset := f.clk.Now().Add(7 * time.Minute)
		f.mb.err = &source.RateLimitError{Source: "microblog", ResetAt: reset}
		f.col.Run(ctx, s.ID)
		got, _ = f.st.SearchByID(ctx, s.ID)
		if got.Failures != 1 || !got.NextRunAt.Equal(reset) {
			t.Fatalf("after a rate limit: failures %d, next %v; want 1 and the reset time", got.Failures, got.NextRunAt)
		}
		f.mb.publish(2, f.clk.Now())
		if _, err := f.col.Run(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
		got, _ = f.st.SearchByID(ctx, s.ID)
		if got.Failures != 0 || got.LastError != "" || got.TotalResults != 2 || !got.NextRunAt.Equal(f.clk.Now().AddDate(0, 0, 1)) {
			t.Fatalf("after recovery: %+v", got)
		}
	})
}

func TestOverlappingRunsStoreEachPostOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		f := newFixture(t, engine)
		f.mb.publish(60, f.clk.Now())
		s := f.create(t, search.Daily, 100)
		var wg sync.WaitGroup
		news := make([]int, 6)
		for i := range news {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := f.col.Run(ctx, s.ID)
				if err != nil {
					t.Error(err)
				}
				news[i] = out.NewResults
			}()
		}
		wg.Wait()
		total := 0
		for _, n := range news {
			total += n
		}
		got, _ := f.st.SearchByID(ctx, s.ID)
		events, err := f.st.PendingEvents(ctx, f.acct.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if total != 60 || got.TotalResults != 60 || len(events) != 60 {
			t.Fatalf("6 overlapping runs stored %d (total_results %d, events %d); want 60 each", total, got.TotalResults, len(events))
		}
		seen := map[string]bool{}
		for _, e := range events {
			if seen[e.SubjectID] || e.Kind != store.EventNewPost || e.SearchID != s.ID {
				t.Fatalf("event %+v duplicated or wrong", e)
			}
			var p struct {
				Text   string `json:"text"`
				Result struct {
					ID string `json:"id"`
				} `json:"result"`
			}
			if err := json.Unmarshal(e.Payload, &p); err != nil || p.Result.ID != e.SubjectID || p.Text != "post "+e.SubjectID {
				t.Fatalf("event payload %s does not carry its post (%v)", e.Payload, err)
			}
			seen[e.SubjectID] = true
		}
	})
}

func TestClaimIsExclusiveAndLeased(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		f := newFixture(t, engine)
		for range 30 {
			f.create(t, search.Daily, 10)
		}
		var (
			mu      sync.Mutex
			claimed = map[string]int{}
			wg      sync.WaitGroup
		)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids, err := f.st.ClaimDue(ctx, f.clk.Now(), 10*time.Minute, 100)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				for _, id := range ids {
					claimed[id]++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		if len(claimed) != 30 {
			t.Fatalf("claimed %d searches, want 30", len(claimed))
		}
		for id, n := range claimed {
			if n != 1 {
				t.Fatalf("search %s claimed %d times", id, n)
			}
		}
		// Claimed runs that never report back are claimed again after the lease.
		if ids, _ := f.st.ClaimDue(ctx, f.clk.Now().Add(9*time.Minute), 10*time.Minute, 100); len(ids) != 0 {
			t.Fatalf("claimed again within the lease: %d", len(ids))
		}
		if ids, _ := f.st.ClaimDue(ctx, f.clk.Now().Add(11*time.Minute), 10*time.Minute, 100); len(ids) != 30 {
			t.Fatalf("claimed %d after the lease, want 30", len(ids))
		}
	})
}

func TestNewerID(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"10", "9", true}, {"9", "10", false}, {"123", "123", false}, {"124", "123", true}, {"1", "", true}, {"", "1", false}} {
		if got := search.NewerID(c.a, c.b); got != c.want {
			t.Errorf("NewerID(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestListAndResultPaging(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		f := newFixture(t, engine)
		var ids []string
		for range 5 {
			ids = append(ids, f.create(t, search.Daily, 100).ID)
			f.clk.Advance(time.Second)
		}
		// Searches come newest first, two at a time, each once.
		var listed []string
		cursor := ""
		for {
			page, err := f.st.ListSearches(ctx, f.acct.ID, "", 2, cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page.Searches {
				listed = append(listed, s.ID)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if len(listed) != 5 || listed[0] != ids[4] || listed[4] != ids[0] {
			t.Fatalf("listed %v, want %v newest first", listed, ids)
		}

		// Ten posts over ten minutes; from keeps the last four and counts them.
		start := f.clk.Now()
		for i := range 10 {
			f.mb.publish(1, start.Add(time.Duration(i)*time.Minute))
		}
		if _, err := f.col.Run(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		s, _ := f.st.SearchByID(ctx, ids[0])
		page, err := f.st.Results(ctx, s, 3, "", start.Add(6*time.Minute))
		if err != nil || len(page.Items) != 3 || page.TotalCount != 4 || page.NextCursor == "" {
			t.Fatalf("first page from minute 6 = %d items, total %d, cursor %q, %v", len(page.Items), page.TotalCount, page.NextCursor, err)
		}
		next, err := f.st.Results(ctx, s, 3, page.NextCursor, start.Add(6*time.Minute))
		if err != nil || len(next.Items) != 1 || next.NextCursor != "" || next.Items[0].PublishedAt != start.Add(6*time.Minute) {
			t.Fatalf("second page = %+v, %v", next, err)
		}
		if all, _ := f.st.Results(ctx, s, 50, "", time.Time{}); all.TotalCount != 10 || len(all.Items) != 10 {
			t.Fatalf("all results: %d items, total %d", len(all.Items), all.TotalCount)
		}
	})
}

package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
)

// measureCreators times creator discovery on each scenario's keywords,
// window and filters (the authors are those of the qualifying posts
// published in the window). The benchmark does not count creators itself:
// it checks that every call of a query gives the same total.
func measureCreators(ctx context.Context, st *store.Store, eng *mapping.Engine, sc []scenario, only *regexp.Regexp, p pageSpec, o options, out io.Writer) error {
	fmt.Fprintf(out, "creator discovery, page %d of %d (totals not checked against the generator):\n", p.page, p.size)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tcalls\tp50\tp95\tmax\tfirst call\tcreators (total)\tp95 <= 50 ms\t")
	for _, s := range sc {
		if !only.MatchString(s.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "measuring creators of %s\n", s.name)
		q := s.q
		q.Page, q.PageSize = p.page, p.size
		n := o.reps
		var (
			l     []time.Duration
			first time.Duration
		)
		total := int64(-1)
		if err := forgetMatches(ctx, st, eng); err != nil {
			return err
		}
		for i := 0; i < o.warmup+n; i++ {
			start := time.Now()
			_, t, err := eng.DiscoverCreators(ctx, q, benchNow, maxCandidates)
			took := time.Since(start)
			if err != nil {
				return fmt.Errorf("creators of %s: %w", s.name, err)
			}
			if total >= 0 && t != total {
				return fmt.Errorf("creators of %s: total %d, then %d", s.name, total, t)
			}
			total = t
			if i == 0 {
				n, first = calls(n, o.budget, took), took
			}
			if i >= o.warmup {
				l = append(l, took)
			}
		}
		slices.Sort(l)
		ok := "yes"
		if percentile(l, 95) > target {
			ok = "NO"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t\n", s.name, len(l), ms(percentile(l, 50)), ms(percentile(l, 95)),
			ms(l[len(l)-1]), ms(first), total, ok)
	}
	return tw.Flush()
}

type result struct {
	sc        int
	page      pageSpec
	latencies []time.Duration
	steps     []mapping.Steps // of the timed calls
	total     int64
	// first is the call before the warm-up, with the keyword matches
	// forgotten (the keyword index asked), and firstMatch its match step;
	// firstShared a call after the timed ones with only this process's
	// forgotten, as another process's first call (PostgreSQL shares them).
	first, firstMatch, firstShared time.Duration
}

// maxCandidates lets every query through: the benchmark measures what
// TRAWL_MAPPING_MAX_CANDIDATES should be.
const maxCandidates = math.MaxInt32

// measure times warmup+n sequential calls for the scenario's page and keeps
// the last n; the first call starts with the keyword matches forgotten
// (mapping.Engine.ForgetKeywordMatches) and is reported apart. Every answer must
// have the exact total and a well-formed page: the right length, one
// result per person, newest first, each passing the filters; the check is
// not timed.
func measure(ctx context.Context, st *store.Store, eng *mapping.Engine, sc []scenario, i int, p pageSpec, want int64, warmup, n int, budget time.Duration) (result, error) {
	q := sc[i].q
	q.Page, q.PageSize = p.page, p.size
	res := result{sc: i, page: p, latencies: make([]time.Duration, 0, n), total: want}
	var steps mapping.Steps
	ctx = mapping.WithSteps(ctx, &steps)
	if err := forgetMatches(ctx, st, eng); err != nil {
		return result{}, err
	}
	for i := 0; i < warmup+n; i++ {
		start := time.Now()
		page, total, err := eng.SocialMapping(ctx, q, benchNow, maxCandidates)
		took := time.Since(start)
		if err != nil {
			return result{}, err
		}
		if total != want {
			return result{}, fmt.Errorf("total %d, want %d", total, want)
		}
		if err := checkPage(q, page, total); err != nil {
			return result{}, err
		}
		if i == 0 {
			n = calls(n, budget, took)
			res.first, res.firstMatch = took, steps.Match
		}
		if i >= warmup {
			res.latencies = append(res.latencies, took)
			res.steps = append(res.steps, steps)
		}
	}
	eng.ForgetKeywordMatches()
	start := time.Now()
	if _, total, err := eng.SocialMapping(ctx, q, benchNow, maxCandidates); err != nil || total != want {
		return result{}, fmt.Errorf("total %d, want %d: %v", total, want, err)
	}
	res.firstShared = time.Since(start)
	return res, nil
}

// forgetMatches empties the keyword matches of this process and those the
// processes share, so that the next call asks the keyword index.
func forgetMatches(ctx context.Context, st *store.Store, eng *mapping.Engine) error {
	eng.ForgetKeywordMatches()
	return st.ForgetSharedKeywordMatches(ctx)
}

// calls is how many timed calls fit in the budget, at least 5 and at most n.
func calls(n int, budget, took time.Duration) int {
	return min(n, max(5, int(budget/max(took, time.Microsecond))))
}

func checkPage(q mapping.Query, page []mapping.Result, total int64) error {
	want := max(0, min(int64(q.PageSize), total-int64((q.Page-1)*q.PageSize)))
	if int64(len(page)) != want {
		return fmt.Errorf("page has %d results, want %d", len(page), want)
	}
	seen := map[string]bool{}
	for i, r := range page {
		if seen[r.Person.URN] {
			return fmt.Errorf("%s twice on the page", r.Person.URN)
		}
		seen[r.Person.URN] = true
		if i > 0 && r.EngagedAt.After(page[i-1].EngagedAt) {
			return fmt.Errorf("result %d is newer than the one before", i)
		}
		if !q.Filters.Match(r.Person) {
			return fmt.Errorf("%s does not pass the filters", r.Person.URN)
		}
		if r.PostText == "" || mapping.Hits(r.PostText, q.Keywords) < q.MinHits() {
			return fmt.Errorf("the post of result %d does not qualify", i)
		}
	}
	return nil
}

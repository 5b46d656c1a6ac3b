package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
)

func printResults(out io.Writer, sc []scenario, t *truth, rows []result) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tpage\tcalls\tp50\tp95\tmax\tfirst call\tshared first\tposts\tengagements\tpeople (total)\tp95 <= 50 ms\t")
	for _, r := range rows {
		l := slices.Clone(r.latencies)
		slices.Sort(l)
		ok := "yes"
		if percentile(l, 95) > target {
			ok = "NO"
		}
		fmt.Fprintf(tw, "%s\t%d of %d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t\n", sc[r.sc].name, r.page.page, r.page.size, len(l),
			ms(percentile(l, 50)), ms(percentile(l, 95)), ms(l[len(l)-1]), ms(r.first), ms(r.firstShared), t.posts[r.sc], t.engagements[r.sc], r.total, ok)
	}
	tw.Flush()
	fmt.Fprintln(out, "totals exact: every answer's total equals the benchmark's own count over the generated data")
	fmt.Fprintln(out, "first call: before the warm-up, with the keyword matches forgotten (the keyword index asked); not in p50/p95")
	fmt.Fprintln(out, "shared first: after the timed calls, with this process's keyword matches forgotten but not those the processes share (PostgreSQL; SQLite asks the index again)")
	for i, s := range sc {
		if slices.ContainsFunc(rows, func(r result) bool { return r.sc == i }) {
			fmt.Fprintf(out, "  %-28s %s\n", s.name+":", describe(s.q))
		}
	}
}

// percentile of sorted latencies, nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// printSplit prints the p50 of each step of the timed calls
// (mapping.Steps) for every query and page.
func printSplit(out io.Writer, sc []scenario, rows []result) {
	fmt.Fprintln(out, "where the time goes (p50 of each step over the timed calls, mapping.Steps):")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tpage\tposts\tengagements\tpeople\tkeyword match\tper person\tfilters (alongside the match)\tsort + page\tcall p50\tµs per engagement\tmatch, first call\t")
	for _, r := range rows {
		step := func(f func(mapping.Steps) time.Duration) time.Duration {
			l := make([]time.Duration, len(r.steps))
			for i, st := range r.steps {
				l[i] = f(st)
			}
			slices.Sort(l)
			return percentile(l, 50)
		}
		l := slices.Clone(r.latencies)
		slices.Sort(l)
		call, last := percentile(l, 50), r.steps[len(r.steps)-1]
		per := "-"
		if last.Engagements > 0 {
			per = fmt.Sprintf("%.2f", float64(call.Microseconds())/float64(last.Engagements))
		}
		fmt.Fprintf(tw, "%s\t%d of %d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", sc[r.sc].name, r.page.page, r.page.size,
			last.Posts, last.Engagements, last.People,
			ms(step(func(s mapping.Steps) time.Duration { return s.Match })),
			ms(step(func(s mapping.Steps) time.Duration { return s.PerPerson })),
			ms(step(func(s mapping.Steps) time.Duration { return s.Filters })),
			ms(step(func(s mapping.Steps) time.Duration { return s.Page })), ms(call), per, ms(r.firstMatch))
	}
	tw.Flush()
}

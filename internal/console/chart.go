package console

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

// The Overview's chart of credits per day by feature, drawn on the server
// as SVG (no script, no third-party library): one slot per day of the
// period, a stacked bar on each day with spends, a legend, and a title and
// description for screen readers. The same figures go in a table beside it.

// Chart geometry, in SVG user units.
const (
	chartLeft    = 48 // room for the y axis labels
	chartRight   = 16
	chartTop     = 20  // room for the top label
	chartPlot    = 200 // the bars' full height
	chartAxis    = 28  // room under the bars for the day labels
	chartSlot    = 24  // one day's width
	chartBar     = 16  // a bar's width within its slot
	legendItem   = 170 // one legend entry's width
	legendRow    = 22  // one legend row's height
	legendPerRow = 4
)

// chartPalette colours the features in order (Okabe-Ito first: told apart
// by most colour-blind readers).
var chartPalette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
	"#F0E442", "#000000", "#999999", "#882255", "#44AA99"}

// chartDay is one day's spends, per feature in the chart's feature order.
type chartDay struct {
	Day     time.Time
	Credits []int64
	Total   int64
}

// creditsChart is the chart and its figures.
type creditsChart struct {
	From, To time.Time // the first and last day shown (UTC midnights)
	Features []string
	Colors   []string
	Days     []chartDay // the days with spends, oldest first
	Total    int64
	Max      int64 // the largest day's total: the full bar height
	SVG      template.HTML
}

// newCreditsChart draws the spends of rows over the days from..to (both
// UTC days, included).
func newCreditsChart(from, to time.Time, rows []store.DayCredits) creditsChart {
	ch := creditsChart{From: utcDay(from), To: utcDay(to)}
	// Features in the usage summary's order; others (none today) after.
	present := map[string]bool{}
	for _, r := range rows {
		present[string(r.Feature)] = true
	}
	for _, f := range credits.Features() {
		if present[string(f)] {
			ch.Features = append(ch.Features, string(f))
			delete(present, string(f))
		}
	}
	var rest []string
	for f := range present {
		rest = append(rest, f)
	}
	slices.Sort(rest)
	ch.Features = append(ch.Features, rest...)
	for i := range ch.Features {
		ch.Colors = append(ch.Colors, chartPalette[i%len(chartPalette)])
	}
	byDay := map[time.Time]*chartDay{}
	for _, r := range rows {
		day := utcDay(r.Day)
		if day.Before(ch.From) || day.After(ch.To) || r.Credits <= 0 {
			continue
		}
		d, ok := byDay[day]
		if !ok {
			d = &chartDay{Day: day, Credits: make([]int64, len(ch.Features))}
			byDay[day] = d
		}
		d.Credits[slices.Index(ch.Features, string(r.Feature))] += r.Credits
		d.Total += r.Credits
		ch.Total += r.Credits
	}
	for _, d := range byDay {
		ch.Days = append(ch.Days, *d)
		ch.Max = max(ch.Max, d.Total)
	}
	slices.SortFunc(ch.Days, func(a, b chartDay) int { return a.Day.Compare(b.Day) })
	ch.SVG = ch.draw()
	return ch
}

func utcDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// slots is the number of days shown.
func (ch creditsChart) slots() int { return int(ch.To.Sub(ch.From).Hours()/24) + 1 }

// barHeight is v's height: proportional to v, the largest day full height.
func (ch creditsChart) barHeight(v int64) float64 {
	if ch.Max == 0 {
		return 0
	}
	return float64(v) * chartPlot / float64(ch.Max)
}

// draw writes the SVG; every text in it is escaped.
func (ch creditsChart) draw() template.HTML {
	esc := template.HTMLEscapeString
	slots := ch.slots()
	plotW := slots * chartSlot
	legendRows := (len(ch.Features) + legendPerRow - 1) / legendPerRow
	width := chartLeft + max(plotW, legendPerRow*legendItem) + chartRight
	base := chartTop + chartPlot
	height := base + chartAxis + legendRows*legendRow + 8
	period := ch.From.Format(time.DateOnly) + " to " + ch.To.Format(time.DateOnly)

	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="credits-chart" xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="credits-chart-title credits-chart-desc" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="11">`,
		width, height, width, height)
	fmt.Fprintf(&b, `<title id="credits-chart-title">Credits per day by feature, %s</title>`, esc(period))
	fmt.Fprintf(&b, `<desc id="credits-chart-desc">%s</desc>`, esc(ch.describe()))
	// The axes: the baseline and the top line with their values.
	fmt.Fprintf(&b, `<g class="axis" stroke="#767676" stroke-width="1"><line x1="%d" y1="%d" x2="%d" y2="%d"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke-dasharray="3 3"/></g>`,
		chartLeft, base, chartLeft+plotW, base, chartLeft, chartTop, chartLeft+plotW, chartTop)
	fmt.Fprintf(&b, `<g class="axis-labels" fill="#333" text-anchor="end"><text x="%d" y="%d">0</text><text x="%d" y="%d" class="max">%d</text></g>`,
		chartLeft-6, base+4, chartLeft-6, chartTop+4, ch.Max)
	// Day labels: every day when they fit, else every other one.
	step := 1
	if slots > 16 {
		step = 2
	}
	b.WriteString(`<g class="day-labels" fill="#333" text-anchor="middle">`)
	for i := 0; i < slots; i += step {
		day := ch.From.AddDate(0, 0, i)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%d</text>`, chartLeft+i*chartSlot+chartSlot/2, base+16, day.Day())
	}
	b.WriteString(`</g>`)
	for _, d := range ch.Days {
		i := int(d.Day.Sub(ch.From).Hours() / 24)
		x := chartLeft + i*chartSlot + (chartSlot-chartBar)/2
		fmt.Fprintf(&b, `<g class="day" data-day="%s" data-total="%d">`, d.Day.Format(time.DateOnly), d.Total)
		y := float64(base)
		for f, v := range d.Credits {
			if v == 0 {
				continue
			}
			h := ch.barHeight(v)
			y -= h
			fmt.Fprintf(&b, `<rect class="bar" data-feature="%s" data-credits="%d" x="%d" y="%.2f" width="%d" height="%.2f" fill="%s"><title>%s, %s: %d credits</title></rect>`,
				esc(ch.Features[f]), v, x, y, chartBar, h, ch.Colors[f], d.Day.Format(time.DateOnly), esc(ch.Features[f]), v)
		}
		b.WriteString(`</g>`)
	}
	if len(ch.Days) == 0 {
		fmt.Fprintf(&b, `<text class="empty" x="%d" y="%d" text-anchor="middle" fill="#333">No credits spent in this period.</text>`, chartLeft+plotW/2, chartTop+chartPlot/2)
	}
	b.WriteString(`<g class="legend" fill="#333">`)
	for f, name := range ch.Features {
		x := chartLeft + (f%legendPerRow)*legendItem
		y := base + chartAxis + (f/legendPerRow)*legendRow
		fmt.Fprintf(&b, `<g class="key" data-feature="%s"><rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text></g>`,
			esc(name), x, y, ch.Colors[f], x+16, y+10, esc(name))
	}
	b.WriteString(`</g></svg>`)
	return template.HTML(b.String()) //nolint:gosec // built here, every text escaped
}

// describe is the chart in one sentence, for its <desc>.
func (ch creditsChart) describe() string {
	if len(ch.Days) == 0 {
		return "No credits were spent in this period."
	}
	top := ch.Days[0]
	for _, d := range ch.Days {
		if d.Total > top.Total {
			top = d
		}
	}
	return fmt.Sprintf("%d credits over %d days with spends, across %s. The largest day was %s with %d credits.",
		ch.Total, len(ch.Days), strings.Join(ch.Features, ", "), top.Day.Format(time.DateOnly), top.Total)
}

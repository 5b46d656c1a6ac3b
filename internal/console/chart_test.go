package console

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

// svgNode is a parsed SVG element, enough to read the chart's structure.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// all lists the elements under n (n included) that match.
func (n svgNode) all(match func(svgNode) bool) []svgNode {
	var out []svgNode
	if match(n) {
		out = append(out, n)
	}
	for _, c := range n.Children {
		out = append(out, c.all(match)...)
	}
	return out
}

func byClass(class string) func(svgNode) bool {
	return func(n svgNode) bool { return n.attr("class") == class }
}

func parseChart(t *testing.T, ch creditsChart) svgNode {
	t.Helper()
	var root svgNode
	if err := xml.Unmarshal([]byte(ch.SVG), &root); err != nil {
		t.Fatalf("the chart is not well-formed XML: %v\n%s", err, ch.SVG)
	}
	if root.XMLName.Local != "svg" || root.attr("role") != "img" || root.attr("id") != "credits-chart" {
		t.Fatalf("root = <%s role=%q id=%q>", root.XMLName.Local, root.attr("role"), root.attr("id"))
	}
	return root
}

func day(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }

func TestCreditsChart(t *testing.T) {
	rows := []store.DayCredits{
		{Day: day(2), Feature: credits.SearchCreate, Credits: 2},
		{Day: day(2), Feature: credits.WorkflowExecution, Credits: 6},
		{Day: day(5), Feature: credits.SearchCreate, Credits: 4},
		{Day: day(9), Feature: credits.ProfileEnrich, Credits: 1},
	}
	ch := newCreditsChart(day(1), day(10).Add(15*time.Hour), rows)
	root := parseChart(t, ch)

	// Title and description name the period and the figures.
	titles := root.all(func(n svgNode) bool { return n.attr("id") == "credits-chart-title" })
	descs := root.all(func(n svgNode) bool { return n.attr("id") == "credits-chart-desc" })
	if len(titles) != 1 || !strings.Contains(titles[0].Text, "2026-11-01 to 2026-11-10") {
		t.Errorf("title = %+v, want one naming the period", titles)
	}
	if len(descs) != 1 || !strings.Contains(descs[0].Text, "13 credits over 3 days") || !strings.Contains(descs[0].Text, "2026-11-02 with 8 credits") {
		t.Errorf("desc = %+v", descs)
	}

	// One group per day with spends, one bar per feature of that day.
	days := root.all(byClass("day"))
	if len(days) != 3 {
		t.Fatalf("%d day groups, want 3 (days with spends only)", len(days))
	}
	wantBars := map[string]map[string]int{
		"2026-11-02": {"search_create": 2, "workflow_execution": 6},
		"2026-11-05": {"search_create": 4},
		"2026-11-09": {"profile_enrich": 1},
	}
	var unit float64 // height per credit: the same for every bar
	for _, g := range days {
		want := wantBars[g.attr("data-day")]
		bars := g.all(byClass("bar"))
		if len(bars) != len(want) {
			t.Errorf("day %s: %d bars, want %d", g.attr("data-day"), len(bars), len(want))
		}
		bottom := float64(chartTop + chartPlot)
		for _, bar := range bars {
			n, _ := strconv.Atoi(bar.attr("data-credits"))
			if want[bar.attr("data-feature")] != n {
				t.Errorf("day %s: bar %s of %d credits, want %d", g.attr("data-day"), bar.attr("data-feature"), n, want[bar.attr("data-feature")])
			}
			h, _ := strconv.ParseFloat(bar.attr("height"), 64)
			y, _ := strconv.ParseFloat(bar.attr("y"), 64)
			if unit == 0 {
				unit = h / float64(n)
			}
			if math.Abs(h-unit*float64(n)) > 0.02 {
				t.Errorf("day %s: bar %s of %d credits is %.2f high; %.2f per credit elsewhere", g.attr("data-day"), bar.attr("data-feature"), n, h, unit)
			}
			// Stacked: each bar sits on the one below it.
			if math.Abs(y+h-bottom) > 0.02 {
				t.Errorf("day %s: bar %s ends at %.2f, the stack's top is %.2f", g.attr("data-day"), bar.attr("data-feature"), y+h, bottom)
			}
			bottom = y
		}
	}
	// The largest day is the plot's full height.
	if math.Abs(unit*8-chartPlot) > 0.02 {
		t.Errorf("the largest day (8 credits) is %.2f high, want %d", unit*8, chartPlot)
	}
	// Later days lie further right.
	x := func(g svgNode) float64 { v, _ := strconv.ParseFloat(g.all(byClass("bar"))[0].attr("x"), 64); return v }
	if !(x(days[0]) < x(days[1]) && x(days[1]) < x(days[2])) {
		t.Errorf("bars not in day order: x %.0f, %.0f, %.0f", x(days[0]), x(days[1]), x(days[2]))
	}
	// A legend entry per feature, in the usage summary's order.
	keys := root.all(byClass("key"))
	var names []string
	for _, k := range keys {
		names = append(names, k.attr("data-feature"))
	}
	if strings.Join(names, ",") != "search_create,profile_enrich,workflow_execution" {
		t.Errorf("legend = %v", names)
	}
	if len(ch.Days) != 3 || ch.Days[0].Total != 8 || ch.Total != 13 {
		t.Errorf("figures: %d days, first total %d, total %d", len(ch.Days), ch.Days[0].Total, ch.Total)
	}
}

func TestCreditsChartEscapes(t *testing.T) {
	ch := newCreditsChart(day(1), day(3), []store.DayCredits{{Day: day(2), Feature: `<script>&"x"`, Credits: 3}})
	if strings.Contains(string(ch.SVG), "<script>") {
		t.Fatalf("a feature name reached the SVG unescaped:\n%s", ch.SVG)
	}
	root := parseChart(t, ch)
	bars := root.all(byClass("bar"))
	if len(bars) != 1 || bars[0].attr("data-feature") != `<script>&"x"` {
		t.Errorf("bars = %+v, want one whose feature reads back as given", bars)
	}
}

func TestCreditsChartEmptyPeriod(t *testing.T) {
	ch := newCreditsChart(day(1), day(1), nil)
	root := parseChart(t, ch)
	if n := len(root.all(byClass("day"))); n != 0 {
		t.Errorf("%d day groups in an empty period", n)
	}
	if n := len(root.all(byClass("bar"))); n != 0 {
		t.Errorf("%d bars in an empty period", n)
	}
	if e := root.all(byClass("empty")); len(e) != 1 || !strings.Contains(e[0].Text, "No credits") {
		t.Errorf("the empty chart says %+v", e)
	}
	if ch.Total != 0 || len(ch.Days) != 0 {
		t.Errorf("figures of an empty period: %+v", ch)
	}
	// Spends outside the period are not drawn.
	out := newCreditsChart(day(5), day(6), []store.DayCredits{{Day: day(4), Feature: credits.SearchCreate, Credits: 1}})
	if len(out.Days) != 0 {
		t.Errorf("a spend before the period is drawn: %+v", out.Days)
	}
}

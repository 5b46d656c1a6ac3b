package console

// The drawing of a laid-out workflow graph (graph.go) as SVG text.

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/trawlhq/trawl/internal/workflow"
)

// Colours, as presentation attributes (the CSP forbids style attributes);
// assets/graph.css may refine them through the classes.
const (
	graphInk      = "#1f2328"
	graphMuted    = "#57606a"
	graphLine     = "#6e7781"
	graphBackLine = "#6639ba"
	graphError    = "#b42318"
)

// graphWriter accumulates the drawing and the box it covers.
type graphWriter struct {
	b                      strings.Builder
	minX, minY, maxX, maxY float64
}

func (w *graphWriter) cover(x, y float64) {
	w.minX, w.minY = math.Min(w.minX, x), math.Min(w.minY, y)
	w.maxX, w.maxY = math.Max(w.maxX, x), math.Max(w.maxY, y)
}

// printf writes format with args; strings among args must already be
// escaped (graphEsc); numbers go through graphNum.
func (w *graphWriter) printf(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

func (g *graphLayout) svg() string {
	w := &graphWriter{minX: 0, minY: 0, maxX: g.contentWidth(), maxY: 0}
	p := g.prefix
	w.printf(`<defs>`)
	for _, m := range []struct{ id, fill string }{{"arrow", graphLine}, {"back", graphBackLine}} {
		w.printf(`<marker id="%s-%s" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="%s"/></marker>`, p, m.id, m.fill)
	}
	w.printf(`</defs><g class="edges" fill="none" stroke-width="1.5">`)
	type label struct {
		x, y        float64
		text, title string
	}
	var labels []label
	backs := 0
	for _, e := range g.edges {
		from, to := g.nodes[e.from], g.nodes[e.to]
		var d string
		var lx, ly float64
		class, colour, marker := "edge", graphLine, "arrow"
		if e.back {
			class, colour, marker = "edge back", graphBackLine, "back"
			var pts [][2]float64
			d, pts = g.backPath(e, backs)
			backs++
			for _, q := range pts {
				w.cover(q[0], q[1])
			}
			lx, ly = pts[2][0], (pts[2][1]+pts[3][1])/2
		} else {
			pts := [][2]float64{{from.x + graphNodeW/2 + e.sOff, from.y + graphNodeH}}
			for k, x := range e.dummyX {
				top := float64(from.row+1+k) * (graphNodeH + graphGapY)
				pts = append(pts, [2]float64{x, top}, [2]float64{x, top + graphNodeH})
			}
			pts = append(pts, [2]float64{to.x + graphNodeW/2 + e.eOff, to.y})
			d = "M" + graphPt(pts[0][0], pts[0][1])
			for k := 1; k < len(pts); k++ {
				a, b := pts[k-1], pts[k]
				if k%2 == 0 { // down through a row it crosses
					d += "L" + graphPt(b[0], b[1])
					continue
				}
				mid := (a[1] + b[1]) / 2
				d += "C" + graphPt(a[0], mid) + " " + graphPt(b[0], mid) + " " + graphPt(b[0], b[1])
			}
			// The label sits in the gap nearest the middle of the path, or
			// above the target when the path shares its way there.
			s := 2 * (len(e.dummyX) / 2)
			if e.shared {
				s = len(pts) - 2
			}
			lx, ly = (pts[s][0]+pts[s+1][0])/2, (pts[s][1]+pts[s+1][1])/2
		}
		switch cond := graphEdgeCondition(e.def); cond {
		case workflow.EdgeIf, workflow.EdgeElse, workflow.EdgeMatch, workflow.EdgeLoop, workflow.EdgeCompleted:
			class += " " + cond
		}
		w.printf(`<path class="%s" data-from="%s" data-to="%s" d="%s" stroke="%s" marker-end="url(#%s-%s)"/>`,
			class, graphEsc(g.nodeRef(e.from)), graphEsc(g.nodeRef(e.to)), d, colour, p, marker)
		if text := graphEdgeLabel(e.def); text != "" {
			labels = append(labels, label{lx, ly, text, g.edgeText(e)})
		}
	}
	w.printf(`</g><g class="nodes">`)
	for i := range g.nodes {
		g.drawNode(w, i)
	}
	w.printf(`</g><g class="edge-labels" font-size="11" text-anchor="middle">`)
	for _, l := range labels {
		text := graphClip(l.text, graphEdgeRunes)
		lw := 6.4*float64(len([]rune(text))) + 10
		w.cover(l.x-lw/2, l.y-9)
		w.cover(l.x+lw/2, l.y+9)
		w.printf(`<g class="edge-label"><title>%s</title><rect x="%s" y="%s" width="%s" height="16" rx="3" fill="#ffffff" fill-opacity="0.92"/><text x="%s" y="%s" fill="%s">%s</text></g>`,
			graphEsc(l.title), graphNum(l.x-lw/2), graphNum(l.y-8), graphNum(lw), graphNum(l.x), graphNum(l.y+4), graphInk, graphEsc(text))
	}
	w.printf(`</g>`)

	x, y := w.minX-graphPad, w.minY-graphPad
	wd, ht := w.maxX-w.minX+2*graphPad, w.maxY-w.minY+2*graphPad
	var head strings.Builder
	fmt.Fprintf(&head, `<svg xmlns="http://www.w3.org/2000/svg" class="workflow-graph" role="img" aria-labelledby="%s-title" aria-describedby="%s-desc" viewBox="%s %s %s %s" width="100%%" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
		p, p, graphNum(x), graphNum(y), graphNum(wd), graphNum(ht))
	fmt.Fprintf(&head, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, p, graphEsc(g.summary()), p, graphEsc(g.description()))
	return head.String() + w.b.String() + `</svg>`
}

// backPath routes a back edge from the source's right side through the
// gaps: up into the gap above the source's row, right past every row it
// passes, up to the gap below the target's row, and into the target's
// right side; a step's edge to itself is a small loop on its right. The
// corners are rounded; pts are the corners (pts[2]-pts[3] the climb).
func (g *graphLayout) backPath(e graphEdge, k int) (string, [][2]float64) {
	from, to := g.nodes[e.from], g.nodes[e.to]
	x0, y0 := from.x+graphNodeW, from.y+graphNodeH/2
	if e.from == e.to {
		c := x0 + 30
		pts := [][2]float64{{x0, y0 + 8}, {c, y0 + 24}, {c, y0 - 4}, {c, y0 - 24}, {x0, y0 - 8}}
		return "M" + graphPt(x0, y0+8) + "C" + graphPt(c, y0+24) + " " + graphPt(c, y0-24) + " " + graphPt(x0, y0-8), pts
	}
	x3, y3 := to.x+graphNodeW, to.y+graphNodeH/2
	c1, c3 := x0+graphGapX/2, x3+graphGapX/2
	r := math.Max(c1, c3)
	for row := to.row + 1; row < from.row; row++ {
		r = math.Max(r, g.right[row]+graphGapX/2)
	}
	r += 14 * float64(k%4)
	yA, yB := from.y-graphGapY/4, to.y+graphNodeH+graphGapY/4
	pts := [][2]float64{{x0, y0}, {c1, y0}, {c1, yA}, {r, yA}, {r, yB}, {c3, yB}, {c3, y3}, {x3, y3}}
	return graphRounded(pts, 8), pts[1:]
}

// graphRounded draws a polyline whose corners are arcs of radius rad.
func graphRounded(pts [][2]float64, rad float64) string {
	d := "M" + graphPt(pts[0][0], pts[0][1])
	for i := 1; i < len(pts)-1; i++ {
		p, c, n := pts[i-1], pts[i], pts[i+1]
		r := math.Min(rad, math.Min(math.Hypot(c[0]-p[0], c[1]-p[1]), math.Hypot(n[0]-c[0], n[1]-c[1]))/2)
		a := graphToward(c, p, r)
		b := graphToward(c, n, r)
		d += "L" + graphPt(a[0], a[1]) + "Q" + graphPt(c[0], c[1]) + " " + graphPt(b[0], b[1])
	}
	last := pts[len(pts)-1]
	return d + "L" + graphPt(last[0], last[1])
}

// graphToward is the point at distance r from c toward p.
func graphToward(c, p [2]float64, r float64) [2]float64 {
	l := math.Hypot(p[0]-c[0], p[1]-c[1])
	if l == 0 {
		return c
	}
	return [2]float64{c[0] + (p[0]-c[0])*r/l, c[1] + (p[1]-c[1])*r/l}
}

func (g *graphLayout) drawNode(w *graphWriter, i int) {
	n := g.nodes[i]
	class, fill, stroke, dash := "node action", "#ffffff", graphLine, ""
	switch n.kind {
	case graphTrigger:
		class, fill, stroke = "node trigger", "#ddf4ff", "#0969da"
	case graphMissing:
		class, fill, stroke, dash = "node missing", "#f6f8fa", graphMuted, ` stroke-dasharray="6 4"`
	}
	ink := graphInk
	title := n.name
	if n.kind != graphTrigger && n.id != n.name {
		title += " (" + n.id + ")"
	}
	title += ", " + n.sub
	if n.err != "" {
		class += " error"
		fill, stroke, ink = "#fef3f2", graphError, graphError
		title += ". Error: " + n.err
	}
	w.cover(n.x, n.y)
	w.cover(n.x+graphNodeW, n.y+graphNodeH)
	w.printf(`<g class="%s" data-step="%s"><title>%s</title>`, class, graphEsc(g.nodeRef(i)), graphEsc(title))
	w.printf(`<rect x="%s" y="%s" width="%s" height="%s" rx="8" fill="%s" stroke="%s" stroke-width="%s"%s/>`,
		graphNum(n.x), graphNum(n.y), graphNum(graphNodeW), graphNum(graphNodeH), fill, stroke, map[bool]string{true: "2", false: "1.5"}[n.err != ""], dash)
	name := n.name
	if n.err != "" {
		name = "⚠ " + name
	}
	w.printf(`<text x="%s" y="%s" font-size="13" font-weight="600" fill="%s">%s</text>`, graphNum(n.x+12), graphNum(n.y+21), ink, graphEsc(graphClip(name, graphNameRunes)))
	w.printf(`<text x="%s" y="%s" font-size="11" fill="%s">%s</text></g>`, graphNum(n.x+12), graphNum(n.y+38), graphMuted, graphEsc(graphClip(n.sub, graphKindRunes)))
}

// empty is the drawing of a definition without steps.
func (g *graphLayout) empty() template.HTML {
	p := g.prefix
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" class="workflow-graph empty" role="img" aria-labelledby="%s-title" aria-describedby="%s-desc" viewBox="0 0 320 64" width="320" height="64" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`+
		`<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`+
		`<rect x="1" y="1" width="318" height="62" rx="8" fill="#f6f8fa" stroke="%s" stroke-dasharray="6 4"/>`+
		`<text x="160" y="38" font-size="14" text-anchor="middle" fill="%s">No steps yet</text></svg>`,
		p, p, p, graphEsc(g.summary()), p, graphEsc("The workflow has no steps and no edges yet; its trigger is "+g.def.TriggerKind()+"."), graphMuted, graphInk))
}

// summary is the graph's accessible name.
func (g *graphLayout) summary() string {
	s := fmt.Sprintf("Workflow graph: trigger %s, %s, %s", g.def.TriggerKind(), graphPlural(len(g.def.Actions), "step"), graphPlural(len(g.def.Edges), "edge"))
	missing, marked := 0, 0
	for _, n := range g.nodes {
		if n.kind == graphMissing {
			missing++
		}
		if n.err != "" {
			marked++
		}
	}
	if missing > 0 {
		s += ", " + graphPlural(missing, "missing step")
	}
	if marked > 0 {
		s += ", " + graphPlural(marked, "step") + " with errors"
	}
	return s
}

// description says in words everything the drawing shows.
func (g *graphLayout) description() string {
	var b strings.Builder
	for i, n := range g.nodes {
		switch n.kind {
		case graphTrigger:
			b.WriteString("Trigger " + n.sub + ".")
		case graphMissing:
			b.WriteString(" Missing step " + n.name + ".")
		default:
			fmt.Fprintf(&b, " Step %s: %s.", g.nodeRef(i), n.sub)
			if n.name != n.id {
				b.WriteString(" Named " + n.name + ".")
			}
		}
		if n.err != "" {
			b.WriteString(" Error: " + n.err)
			if !strings.HasSuffix(n.err, ".") {
				b.WriteString(".")
			}
		}
	}
	for _, e := range g.edges {
		b.WriteString(" Edge " + g.edgeText(e) + ".")
	}
	return b.String()
}

// edgeText describes an edge in words: "big to hot, if".
func (g *graphLayout) edgeText(e graphEdge) string {
	s := g.nodeRef(e.from) + " to " + g.nodeRef(e.to)
	if c := graphEdgeCondition(e.def); c != "" {
		s += ", " + c
		if e.def.Conditional.Ref != "" {
			s += " when " + e.def.Conditional.Ref
		}
	}
	if e.def.Name != "" {
		s += ", named " + e.def.Name
	}
	if e.back {
		s += ", back up"
	}
	return s
}

// edgeLabel is what an edge shows at its middle: its condition, a match's
// expression, its name.
func graphEdgeLabel(e workflow.Edge) string {
	var parts []string
	if c := graphEdgeCondition(e); c != "" {
		if c == workflow.EdgeMatch && e.Conditional.Ref != "" {
			c += " " + e.Conditional.Ref
		}
		parts = append(parts, c)
	}
	if e.Name != "" {
		parts = append(parts, e.Name)
	}
	return strings.Join(parts, " · ")
}

func graphEdgeCondition(e workflow.Edge) string {
	if e.Conditional == nil {
		return ""
	}
	return e.Conditional.Type
}

// nodeRef names a node in words and in data-step: "trigger" or its id.
func (g *graphLayout) nodeRef(i int) string {
	switch n := g.nodes[i]; {
	case n.kind == graphTrigger:
		return "trigger"
	case n.id == "":
		return "(no id)"
	default:
		return n.id
	}
}

func graphPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// clip shortens s to n characters, the last an ellipsis, after turning
// control characters into spaces.
func graphClip(s string, n int) string {
	r := []rune(strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return ' '
		}
		return c
	}, s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// esc escapes s for XML text and attribute values alike (quotes too);
// characters XML cannot hold become U+FFFD.
func graphEsc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// num writes a coordinate with at most one decimal.
func graphNum(v float64) string {
	v = math.Round(v*10) / 10
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func graphPt(x, y float64) string { return graphNum(x) + "," + graphNum(y) }

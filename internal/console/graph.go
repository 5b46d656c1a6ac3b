package console

// The workflow graph of the definition editor, laid out on the server:
// the trigger on top, each step one layer below its deepest predecessor
// (longest path over the forward edges), edges that lead back (loops,
// cycles) routed up the right-hand side, wide layers wrapped onto more
// rows, long edges given a slot in each row they cross. graph_svg.go
// draws the result.

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"math"
	"sort"

	"github.com/trawlhq/trawl/internal/workflow"
)

// Geometry of the workflow graph in SVG user units. The viewBox is at
// least graphPerRow nodes wide, so every graph is drawn at about the same
// scale and a 20-step workflow stays readable on a 1280 px screen.
const (
	graphNodeW     = 184.0
	graphNodeH     = 50.0
	graphGapX      = 28.0
	graphGapY      = 64.0
	graphDummyW    = 16.0 // the slot a long edge takes in a row it crosses
	graphPerRow    = 5    // real nodes per row; a wider layer wraps onto more rows
	graphPad       = 16.0
	graphNameRunes = 21
	graphKindRunes = 26
	graphEdgeRunes = 26
)

// Kinds of node.
const (
	graphTrigger = iota
	graphAction
	graphMissing
)

type graphNode struct {
	kind       int
	id         string // step id; "" for the trigger
	name, sub  string // the label's two lines, untruncated
	err        string // the message of a marked node
	layer, row int
	x, y       float64 // top-left corner
}

type graphEdge struct {
	def      workflow.Edge
	from, to int       // node indexes
	back     bool      // drawn as a curve returning upward (loops, cycles)
	shared   bool      // shares its slots in the rows it crosses
	dummyX   []float64 // where it crosses each row between its ends
	sOff     float64   // where it leaves the source's bottom, from its centre
	eOff     float64   // where it enters the target's top, from its centre
}

// graphItem is one slot of a row: a node, or the long edges from one
// node crossing the row (they share the slot, so a fan-out stays narrow).
type graphItem struct {
	node  int // -1 for edges crossing
	edges []int
	key   float64
}

type graphLayout struct {
	def    workflow.Definition
	nodes  []graphNode
	edges  []graphEdge
	out    [][]int // node → edges leaving it, in definition order
	in     [][]int // node → forward edges entering it
	rows   [][]graphItem
	right  []float64 // row → right edge of its last item
	prefix string    // of the ids in the SVG, unique per drawing
}

// workflowGraph draws def as an SVG: the trigger, each action, each edge.
// marked: step id (or "trigger") → a message; such nodes are drawn as errors.
func workflowGraph(def workflow.Definition, marked map[string]string) template.HTML {
	g := newGraphLayout(def, marked)
	if len(def.Actions) == 0 && len(def.Edges) == 0 {
		return g.empty()
	}
	g.rank()
	g.order()
	g.ports()
	return template.HTML(g.svg())
}

// newGraph makes a node of the trigger, of each action and of each step
// an edge names that does not exist, and resolves the edges to them.
func newGraphLayout(def workflow.Definition, marked map[string]string) *graphLayout {
	g := &graphLayout{def: def}
	trig := graphNode{kind: graphTrigger, name: "Trigger", sub: def.TriggerKind(), err: marked["trigger"]}
	if trig.err == "" {
		trig.err = marked[workflow.Source]
	}
	g.nodes = append(g.nodes, trig)
	byID := map[string]int{}
	for _, a := range def.Actions {
		n := graphNode{kind: graphAction, id: a.ID, name: a.Name, sub: a.Kind, err: marked[a.ID]}
		if n.name == "" {
			n.name = a.ID
		}
		if n.name == "" {
			n.name = "(no id)"
		}
		if _, dup := byID[a.ID]; !dup {
			byID[a.ID] = len(g.nodes)
		}
		g.nodes = append(g.nodes, n)
	}
	missing := map[string]int{}
	resolve := func(id string) int {
		if id == workflow.Source {
			return 0
		}
		if i, ok := byID[id]; ok {
			return i
		}
		if i, ok := missing[id]; ok {
			return i
		}
		name := id
		if name == "" {
			name = "(no id)"
		}
		missing[id] = len(g.nodes)
		g.nodes = append(g.nodes, graphNode{kind: graphMissing, id: id, name: name, sub: "missing step", err: marked[id]})
		return missing[id]
	}
	for _, e := range def.Edges {
		g.edges = append(g.edges, graphEdge{def: e, from: resolve(e.From), to: resolve(e.To)})
	}
	g.out = make([][]int, len(g.nodes))
	g.in = make([][]int, len(g.nodes))
	for i, e := range g.edges {
		g.out[e.from] = append(g.out[e.from], i)
	}
	g.prefix = g.hash(marked)
	return g
}

// hash names the drawing's ids after what it draws, so that the output is
// deterministic and two different graphs on one page do not share ids.
func (g *graphLayout) hash(marked map[string]string) string {
	h := fnv.New64a()
	for _, n := range g.nodes {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%s\x00", n.kind, n.id, n.name, n.sub, n.err)
	}
	for _, e := range g.edges {
		fmt.Fprintf(h, "%d\x00%d\x00%s\x00%s\x00", e.from, e.to, e.def.Name, graphEdgeCondition(e.def))
	}
	return fmt.Sprintf("wfg-%012x", h.Sum64()&0xffffffffffff)
}

// rank finds the back edges (an edge into a step on the current path of a
// depth-first walk from the trigger, or into the trigger itself) and puts
// each node in the layer after its deepest predecessor over the others.
func (g *graphLayout) rank() {
	n := len(g.nodes)
	state := make([]int8, n) // 0 new, 1 on the path, 2 done
	var post []int
	type frame struct{ v, next int }
	for root := 0; root < n; root++ {
		if state[root] != 0 {
			continue
		}
		state[root] = 1
		stack := []frame{{v: root}}
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(g.out[top.v]) {
				state[top.v] = 2
				post = append(post, top.v)
				stack = stack[:len(stack)-1]
				continue
			}
			ei := g.out[top.v][top.next]
			top.next++
			w := g.edges[ei].to
			switch {
			case w == 0 || state[w] == 1:
				g.edges[ei].back = true
			case state[w] == 0:
				state[w] = 1
				stack = append(stack, frame{v: w})
			}
		}
	}
	for i := range g.nodes {
		if i > 0 {
			g.nodes[i].layer = 1
		}
	}
	// Reverse post-order is a topological order of the forward edges.
	for k := len(post) - 1; k >= 0; k-- {
		u := post[k]
		for _, ei := range g.out[u] {
			e := g.edges[ei]
			if !e.back && g.nodes[e.to].layer < g.nodes[u].layer+1 {
				g.nodes[e.to].layer = g.nodes[u].layer + 1
			}
		}
	}
	for i, e := range g.edges {
		if !e.back {
			g.in[e.to] = append(g.in[e.to], i)
		}
	}
}

// order splits the layers into rows, orders each row under the average
// position of what leads into it (ties: definition order) and spreads the
// row evenly across the width.
func (g *graphLayout) order() {
	maxLayer := 0
	for _, n := range g.nodes {
		maxLayer = max(maxLayer, n.layer)
	}
	layers := make([][]int, maxLayer+1)
	for i, n := range g.nodes {
		layers[n.layer] = append(layers[n.layer], i)
	}
	// First pass, nodes only: which row each node goes to.
	pos := make([]float64, len(g.nodes))
	keys := make([]float64, len(g.nodes))
	for _, ns := range layers {
		for _, v := range ns {
			keys[v] = math.Inf(1)
			if len(g.in[v]) > 0 {
				sum := 0.0
				for _, ei := range g.in[v] {
					sum += pos[g.edges[ei].from]
				}
				keys[v] = sum / float64(len(g.in[v]))
			}
		}
		sort.SliceStable(ns, func(a, b int) bool { return keys[ns[a]] < keys[ns[b]] })
		for k, v := range ns {
			if k%graphPerRow == 0 {
				g.rows = append(g.rows, nil)
			}
			r := len(g.rows) - 1
			g.nodes[v].row = r
			g.rows[r] = append(g.rows[r], graphItem{node: v})
			pos[v] = (float64(k) + 0.5) / float64(len(ns))
		}
	}
	// Long edges take a slot in each row they cross, one per source.
	type crossing struct{ from, row int }
	slots := map[crossing]int{}
	for i, e := range g.edges {
		if e.back {
			continue
		}
		for r := g.nodes[e.from].row + 1; r < g.nodes[e.to].row; r++ {
			k, ok := slots[crossing{e.from, r}]
			if !ok {
				k = len(g.rows[r])
				slots[crossing{e.from, r}] = k
				g.rows[r] = append(g.rows[r], graphItem{node: -1})
			}
			g.rows[r][k].edges = append(g.rows[r][k].edges, i)
		}
		if d := g.nodes[e.to].row - g.nodes[e.from].row - 1; d > 0 {
			g.edges[i].dummyX = make([]float64, d)
		}
	}
	width := g.contentWidth()
	for r, row := range g.rows {
		for k := range row {
			row[k].key = g.itemKey(row[k], r)
		}
		sort.SliceStable(row, func(a, b int) bool { return row[a].key < row[b].key })
		x := (width - graphRowWidth(row)) / 2
		y := float64(r) * (graphNodeH + graphGapY)
		for _, it := range row {
			if it.node >= 0 {
				g.nodes[it.node].x, g.nodes[it.node].y = x, y
				x += graphNodeW + graphGapX
				continue
			}
			for _, ei := range it.edges {
				e := &g.edges[ei]
				e.dummyX[r-g.nodes[e.from].row-1] = x + graphDummyW/2
				e.shared = e.shared || len(it.edges) > 1
			}
			x += graphDummyW + graphGapX
		}
		g.right = append(g.right, x-graphGapX)
	}
}

// itemKey is where an item of row r wants to be: under the average x of
// what leads into it in row r-1; things nothing leads into go last.
func (g *graphLayout) itemKey(it graphItem, r int) float64 {
	if it.node < 0 {
		return g.xAbove(it.edges[0], r)
	}
	if len(g.in[it.node]) == 0 {
		return math.Inf(1)
	}
	sum := 0.0
	for _, ei := range g.in[it.node] {
		sum += g.xAbove(ei, r)
	}
	return sum / float64(len(g.in[it.node]))
}

// xAbove is the x where forward edge ei crosses row r-1 (row r-1 is placed).
func (g *graphLayout) xAbove(ei, r int) float64 {
	e := g.edges[ei]
	from := g.nodes[e.from]
	if from.row == r-1 {
		return from.x + graphNodeW/2
	}
	return e.dummyX[r-from.row-2]
}

func graphRowWidth(row []graphItem) float64 {
	w := 0.0
	for _, it := range row {
		if it.node >= 0 {
			w += graphNodeW
		} else {
			w += graphDummyW
		}
	}
	return w + graphGapX*float64(max(len(row)-1, 0))
}

func (g *graphLayout) contentWidth() float64 {
	w := graphPerRow*(graphNodeW+graphGapX) - graphGapX
	for _, row := range g.rows {
		w = max(w, graphRowWidth(row))
	}
	return w
}

// ports spreads the forward edges leaving (entering) a node along its
// bottom (top), in the order of where they go to (come from), so that
// branches do not start at one point.
func (g *graphLayout) ports() {
	for v := range g.nodes {
		var outs []int
		for _, ei := range g.out[v] {
			if !g.edges[ei].back {
				outs = append(outs, ei)
			}
		}
		sort.SliceStable(outs, func(a, b int) bool { return g.nextX(outs[a]) < g.nextX(outs[b]) })
		// Edges sharing their first slot leave from one port.
		port := make([]int, len(outs))
		for k := 1; k < len(outs); k++ {
			port[k] = port[k-1]
			if !g.edges[outs[k]].shared || g.nextX(outs[k]) != g.nextX(outs[k-1]) {
				port[k]++
			}
		}
		for k, ei := range outs {
			g.edges[ei].sOff = graphPortOffset(port[k], port[len(port)-1]+1)
		}
		ins := g.in[v]
		sort.SliceStable(ins, func(a, b int) bool { return g.prevX(ins[a]) < g.prevX(ins[b]) })
		for k, ei := range ins {
			g.edges[ei].eOff = graphPortOffset(k, len(ins))
		}
	}
}

func graphPortOffset(k, n int) float64 {
	step := math.Min(18, (graphNodeW-24)/float64(n))
	return (float64(k) - float64(n-1)/2) * step
}

func (g *graphLayout) nextX(ei int) float64 {
	e := g.edges[ei]
	if len(e.dummyX) > 0 {
		return e.dummyX[0]
	}
	return g.nodes[e.to].x
}

func (g *graphLayout) prevX(ei int) float64 {
	e := g.edges[ei]
	if len(e.dummyX) > 0 {
		return e.dummyX[len(e.dummyX)-1]
	}
	return g.nodes[e.from].x
}

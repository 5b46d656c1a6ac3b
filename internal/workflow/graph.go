package workflow

import (
	"strconv"

	"github.com/trawlhq/trawl/internal/action"
)

// graph checks the edges: they join existing nodes, branch and loop steps
// have the edges they need, every action is reachable from $source, and
// the only cycles are a loop body's edges back to its loop. It records
// what runs upstream of each action for the template check.
func (c *check) graph() {
	kind := func(id string) string {
		if i, ok := c.byID[id]; ok {
			return c.def.Actions[i].Kind
		}
		return ""
	}
	out := map[string][]int{} // node → indexes of valid edges leaving it
	type key struct{ from, to, typ string }
	seen := map[key]int{}
	for i, e := range c.def.Edges {
		at := "/edges/" + strconv.Itoa(i)
		ok := true
		if _, known := c.byID[e.From]; !known && e.From != Source {
			c.add(at+"/from", "names no action (nor $source)")
			ok = false
		}
		if _, known := c.byID[e.To]; !known {
			if e.To == Source {
				c.add(at+"/to", "cannot be $source, which only starts the graph")
			} else {
				c.add(at+"/to", "names no action")
			}
			ok = false
		}
		typ := ""
		if e.Conditional != nil {
			typ = e.Conditional.Type
			if !c.conditionFits(at, e, kind(e.From)) {
				ok = false
			}
		}
		if ok {
			k := key{e.From, e.To, typ}
			if j, dup := seen[k]; dup {
				c.add(at, "repeats /edges/%d", j)
				continue
			}
			seen[k] = i
			out[e.From] = append(out[e.From], i)
		}
	}

	// What leaves branch and loop steps.
	loops := map[string]string{}     // loop id → its body's first step
	completed := map[string]string{} // loop id → the step after it
	for id, i := range c.byID {
		switch c.def.Actions[i].Kind {
		case action.KindIf:
			n := map[string]int{}
			for _, ei := range out[id] {
				n[c.edgeType(ei)]++
			}
			if n[EdgeIf] != 1 || n[EdgeElse] != 1 || len(out[id]) != 2 {
				c.add("/actions/"+strconv.Itoa(i), "is a builtin:if and needs exactly one edge with conditional.type if and one with else leaving it (it has %d if, %d else, %d others)",
					n[EdgeIf], n[EdgeElse], len(out[id])-n[EdgeIf]-n[EdgeElse])
			}
		case action.KindLoop:
			n := map[string]int{}
			for _, ei := range out[id] {
				t := c.edgeType(ei)
				n[t]++
				switch t {
				case EdgeLoop:
					loops[id] = c.def.Edges[ei].To
				case EdgeCompleted:
					completed[id] = c.def.Edges[ei].To
				}
			}
			if n[EdgeLoop] != 1 || n[EdgeCompleted] > 1 || len(out[id]) != n[EdgeLoop]+n[EdgeCompleted] {
				c.add("/actions/"+strconv.Itoa(i), "is a builtin:loop and needs exactly one edge with conditional.type loop (to its body) and at most one with completed leaving it, and no others")
			}
		}
	}

	// Loop bodies: what the loop edge reaches without passing the loop
	// again. Edges from a body back to its loop end an iteration.
	back := map[int]bool{}
	c.inLoop = map[string]bool{}
	for loop, first := range loops {
		body := c.reach(out, first, loop, nil)
		for n := range body {
			c.inLoop[n] = true
			for _, ei := range out[n] {
				if c.def.Edges[ei].To == loop {
					back[ei] = true
				}
			}
		}
		if after, ok := completed[loop]; ok {
			for n := range c.reach(out, after, loop, back) {
				if body[n] {
					c.add("/actions/"+strconv.Itoa(c.byID[n]), "is both inside loop %s (behind its loop edge) and after it (behind its completed edge)", loop)
					break
				}
			}
		}
	}

	// Every action reachable from $source.
	reached := c.reach(out, Source, "", nil)
	for i, a := range c.def.Actions {
		if _, ok := c.byID[a.ID]; ok && c.byID[a.ID] == i && !reached[a.ID] {
			c.add("/actions/"+strconv.Itoa(i), "is not reachable from $source: add an edge to it from $source or from a step that runs")
		}
	}

	// No cycle but loop iterations: with back edges left out, the graph
	// must be acyclic (Kahn's algorithm); what remains lies on a cycle.
	indeg := map[string]int{}
	for _, edges := range out {
		for _, ei := range edges {
			if !back[ei] {
				indeg[c.def.Edges[ei].To]++
			}
		}
	}
	order := []string{Source}
	for id := range c.byID {
		if indeg[id] == 0 {
			order = append(order, id)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, ei := range out[order[k]] {
			if back[ei] {
				continue
			}
			to := c.def.Edges[ei].To
			if indeg[to]--; indeg[to] == 0 {
				order = append(order, to)
			}
		}
	}
	if len(order) != len(c.byID)+1 {
		c.cycle(indeg, back)
		return
	}

	// Upstream of each action: every node with a path to it.
	c.upstream = map[string]map[string]bool{}
	for _, n := range order {
		if c.upstream[n] == nil {
			c.upstream[n] = map[string]bool{}
		}
		for _, ei := range out[n] {
			if back[ei] {
				continue
			}
			to := c.def.Edges[ei].To
			if c.upstream[to] == nil {
				c.upstream[to] = map[string]bool{}
			}
			c.upstream[to][n] = true
			for u := range c.upstream[n] {
				c.upstream[to][u] = true
			}
		}
	}
	c.graphOK = true
}

// cycle reports one edge of a cycle among the nodes Kahn's algorithm left
// (indeg > 0). Each such node has an edge from another such node, so
// walking those edges backwards must come round to a node twice.
func (c *check) cycle(indeg map[string]int, back map[int]bool) {
	into := func(n string) int {
		for i, e := range c.def.Edges {
			if e.To == n && !back[i] && indeg[e.From] > 0 && c.hasAction(e.From) {
				return i
			}
		}
		return -1
	}
	var n string
	for id := range c.byID {
		if indeg[id] > 0 {
			n = id
			break
		}
	}
	visited := map[string]bool{}
	for !visited[n] {
		visited[n] = true
		i := into(n)
		if i < 0 {
			return
		}
		n = c.def.Edges[i].From
	}
	// n is on the cycle; report the edge that enters it.
	i := into(n)
	e := c.def.Edges[i]
	c.add("/edges/"+strconv.Itoa(i), "closes a cycle (%s → %s); only a loop body may lead back, to its builtin:loop", e.From, e.To)
}

func (c *check) edgeType(i int) string {
	if c.def.Edges[i].Conditional == nil {
		return ""
	}
	return c.def.Edges[i].Conditional.Type
}

// conditionFits checks that an edge's condition suits the step it leaves.
func (c *check) conditionFits(at string, e Edge, fromKind string) bool {
	at += "/conditional"
	switch t := e.Conditional.Type; t {
	case EdgeIf, EdgeElse:
		if fromKind != action.KindIf {
			c.add(at+"/type", "%s edges leave a builtin:if only", t)
			return false
		}
	case EdgeLoop, EdgeCompleted:
		if fromKind != action.KindLoop {
			c.add(at+"/type", "%s edges leave a builtin:loop only", t)
			return false
		}
	case EdgeMatch:
		if e.From == Source {
			c.add(at+"/type", "match edges leave a step, not $source")
			return false
		}
		if e.Conditional.Ref == "" {
			c.add(at+"/ref", "is required for a match edge: an expression over the step's output, such as output.status == 200")
			return false
		}
		return true
	default:
		c.add(at+"/type", "must be one of if, else, match, loop, completed")
		return false
	}
	if e.Conditional.Ref != "" {
		c.add(at+"/ref", "is only used by match edges")
		return false
	}
	return true
}

// reach returns the nodes reachable from start over out's edges, not
// entering stop and not taking skip's edges.
func (c *check) reach(out map[string][]int, start, stop string, skip map[int]bool) map[string]bool {
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, ei := range out[n] {
			to := c.def.Edges[ei].To
			if skip[ei] || to == stop || seen[to] {
				continue
			}
			seen[to] = true
			queue = append(queue, to)
		}
	}
	return seen
}

// templates compiles every template of every action input and match edge,
// and checks that each reads only steps that run before it.
func (c *check) templates() {
	for i, a := range c.def.Actions {
		at := "/actions/" + strconv.Itoa(i) + "/inputs"
		for _, name := range sortedKeys(a.Inputs) {
			c.walkTemplates(at+"/"+escape(name), a.Inputs[name], a.ID)
		}
	}
	for i, e := range c.def.Edges {
		if e.Conditional == nil || e.Conditional.Type != EdgeMatch || e.Conditional.Ref == "" {
			continue
		}
		_, refs, err := compileExpr(e.Conditional.Ref, varOutput)
		if err != nil {
			c.add("/edges/"+strconv.Itoa(i)+"/conditional/ref", "does not compile: %s", firstLine(err.Error()))
			continue
		}
		c.references("/edges/"+strconv.Itoa(i)+"/conditional/ref", refs, e.From, true)
	}
}

func (c *check) walkTemplates(ptr string, val any, step string) {
	switch v := val.(type) {
	case string:
		if !hasTemplate(v) {
			return
		}
		_, refs, err := compileTemplate(v)
		if err != nil {
			c.add(ptr, "%v", err)
			return
		}
		c.references(ptr, refs, step, false)
	case []any:
		for i, x := range v {
			c.walkTemplates(ptr+"/"+strconv.Itoa(i), x, step)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			c.walkTemplates(ptr+"/"+escape(k), v[k], step)
		}
	}
}

// references checks what an expression at ptr reads: steps upstream of
// step (or step itself, for a match edge leaving it), and loop only
// inside a loop body.
func (c *check) references(ptr string, refs references, step string, selfOK bool) {
	if refs.dynamicStep {
		c.add(ptr, "reads steps without a literal step id; write steps.<id>.output")
	}
	if refs.loop && !c.inLoop[step] {
		c.add(ptr, "reads loop, which exists only in the body of a builtin:loop")
	}
	for _, id := range refs.steps {
		switch {
		case !c.hasAction(id):
			c.add(ptr, "reads steps.%s, but there is no action %s", id, id)
		case !c.graphOK:
			// The graph is broken; its problems are already listed.
		case id == step && selfOK:
		case id == step:
			c.add(ptr, "reads steps.%s, its own output, which does not exist yet", id)
		case !c.upstream[step][id]:
			c.add(ptr, "reads steps.%s, which does not run before %s (it must be upstream of it)", id, step)
		}
	}
}

func (c *check) hasAction(id string) bool { _, ok := c.byID[id]; return ok }

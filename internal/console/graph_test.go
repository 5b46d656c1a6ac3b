package console

import (
	"encoding/json"
	"encoding/xml"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/workflow"
)

// svgEl is an element of a drawn graph, parsed back with encoding/xml.
type svgEl struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []svgEl    `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (e svgEl) attr(name string) string {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (e svgEl) hasClass(c string) bool { return slices.Contains(strings.Fields(e.attr("class")), c) }

// all lists the elements under e (e included) that match.
func (e svgEl) all(match func(svgEl) bool) []svgEl {
	var out []svgEl
	if match(e) {
		out = append(out, e)
	}
	for _, c := range e.Children {
		out = append(out, c.all(match)...)
	}
	return out
}

// child is e's first child element called name.
func (e svgEl) child(name string) svgEl {
	for _, c := range e.Children {
		if c.XMLName.Local == name {
			return c
		}
	}
	return svgEl{}
}

func (e svgEl) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.XMLName.Local, name, e.attr(name), err)
	}
	return v
}

// drawn is a graph as the tests read it.
type drawn struct {
	root  svgEl
	raw   string
	nodes map[string]svgEl // data-step → node group
	edges []svgEl          // the edges' paths, in definition order
}

func draw(t *testing.T, def workflow.Definition, marked map[string]string) drawn {
	t.Helper()
	raw := string(workflowGraph(def, marked))
	var d drawn
	d.raw = raw
	dec := xml.NewDecoder(strings.NewReader(raw))
	dec.Strict = true
	if err := dec.Decode(&d.root); err != nil {
		t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, raw)
	}
	d.nodes = map[string]svgEl{}
	for _, n := range d.root.all(func(e svgEl) bool { return e.hasClass("node") }) {
		d.nodes[n.attr("data-step")] = n
	}
	d.edges = d.root.all(func(e svgEl) bool { return e.XMLName.Local == "path" && e.hasClass("edge") })
	return d
}

// y is the top of a node's box.
func (d drawn) y(t *testing.T, step string) float64 {
	t.Helper()
	n, ok := d.nodes[step]
	if !ok {
		t.Fatalf("no node %q is drawn", step)
	}
	return n.child("rect").num(t, "y")
}

func (d drawn) labels() []string {
	var out []string
	for _, l := range d.root.all(func(e svgEl) bool { return e.hasClass("edge-label") }) {
		out = append(out, l.child("text").Text)
	}
	return out
}

func mustDefinition(t testing.TB, js string) workflow.Definition {
	t.Helper()
	var d workflow.Definition
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// loopDef loops over items: body b then c, c back to the loop; after the
// loop, done.
const loopDef = `{"trigger":{"kind":"workflows/webhook"},
 "actions":[{"id":"l","kind":"builtin:loop","name":"Each lead"},{"id":"b","kind":"builtin:set"},{"id":"c","kind":"builtin:set"},{"id":"done","kind":"builtin:exit"}],
 "edges":[{"from":"$source","to":"l"},{"from":"l","to":"b","conditional":{"type":"loop"}},{"from":"b","to":"c"},{"from":"c","to":"l"},{"from":"l","to":"done","conditional":{"type":"completed"}}]}`

func TestWorkflowGraphDrawsEveryStepAndEdgeOfTheExamples(t *testing.T) {
	examples, err := workflow.Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			def := ex.Workflow
			d := draw(t, def, nil)
			if d.root.XMLName.Local != "svg" || d.root.attr("role") != "img" || d.root.attr("width") != "100%" {
				t.Fatalf("root <%s role=%q width=%q>, want <svg role=img width=100%%>", d.root.XMLName.Local, d.root.attr("role"), d.root.attr("width"))
			}
			title := d.root.child("title")
			if d.root.attr("aria-labelledby") != title.attr("id") || title.attr("id") == "" {
				t.Errorf("aria-labelledby %q does not name the <title> (id %q)", d.root.attr("aria-labelledby"), title.attr("id"))
			}
			want := "Workflow graph: trigger " + def.TriggerKind() + ", " + strconv.Itoa(len(def.Actions)) + " step"
			if !strings.HasPrefix(title.Text, want) || !strings.Contains(title.Text, strconv.Itoa(len(def.Edges))+" edge") {
				t.Errorf("title %q, want it to start %q and count %d edges", title.Text, want, len(def.Edges))
			}
			if desc := d.root.child("desc"); desc.attr("id") != d.root.attr("aria-describedby") || !strings.Contains(desc.Text, def.Actions[0].ID) {
				t.Errorf("desc %q (id %q) is not the graph's description naming its steps", desc.Text, desc.attr("id"))
			}
			if len(d.nodes) != len(def.Actions)+1 {
				t.Errorf("%d nodes drawn, want %d (the trigger and each action)", len(d.nodes), len(def.Actions)+1)
			}
			if !d.nodes["trigger"].hasClass("trigger") {
				t.Error("no trigger node")
			}
			if len(d.edges) != len(def.Edges) {
				t.Fatalf("%d edge paths, want %d", len(d.edges), len(def.Edges))
			}
			for _, e := range d.edges {
				if e.hasClass("back") {
					t.Errorf("edge %s → %s drawn as a back edge in an acyclic example", e.attr("data-from"), e.attr("data-to"))
				}
				if !strings.HasPrefix(e.attr("marker-end"), "url(#") {
					t.Errorf("edge %s → %s has no arrow", e.attr("data-from"), e.attr("data-to"))
				}
				// Each step sits below every step leading into it.
				if d.y(t, e.attr("data-to")) <= d.y(t, e.attr("data-from")) {
					t.Errorf("%s is not below %s", e.attr("data-to"), e.attr("data-from"))
				}
			}
		})
	}
}

func TestWorkflowGraphLayersAStepBelowItsDeepestPredecessor(t *testing.T) {
	// a → b → c, and a → c directly: c goes below b, not beside it.
	def := mustDefinition(t, `{"actions":[{"id":"a","kind":"builtin:set"},{"id":"b","kind":"builtin:set"},{"id":"c","kind":"builtin:set"}],
	 "edges":[{"from":"$source","to":"a"},{"from":"a","to":"c","name":"skip"},{"from":"a","to":"b"},{"from":"b","to":"c"}]}`)
	d := draw(t, def, nil)
	if !(d.y(t, "trigger") < d.y(t, "a") && d.y(t, "a") < d.y(t, "b") && d.y(t, "b") < d.y(t, "c")) {
		t.Errorf("layers trigger %v, a %v, b %v, c %v: want each below the one before", d.y(t, "trigger"), d.y(t, "a"), d.y(t, "b"), d.y(t, "c"))
	}
	if !slices.Contains(d.labels(), "skip") {
		t.Errorf("labels %q, want the edge's name skip", d.labels())
	}
	// Siblings share a row, spread apart.
	sib := mustDefinition(t, `{"actions":[{"id":"x","kind":"builtin:set"},{"id":"y","kind":"builtin:set"}],"edges":[{"from":"$source","to":"x"},{"from":"$source","to":"y"}]}`)
	s := draw(t, sib, nil)
	xs := func(step string) float64 { return s.nodes[step].child("rect").num(t, "x") }
	if s.y(t, "x") != s.y(t, "y") || xs("x") >= xs("y") {
		t.Errorf("siblings at (%v,%v) and (%v,%v): want one row, in definition order", xs("x"), s.y(t, "x"), xs("y"), s.y(t, "y"))
	}
}

func TestWorkflowGraphDrawsALoopAsABackEdge(t *testing.T) {
	d := draw(t, mustDefinition(t, loopDef), nil)
	var back []svgEl
	for _, e := range d.edges {
		if e.hasClass("back") {
			back = append(back, e)
		}
	}
	if len(back) != 1 || back[0].attr("data-from") != "c" || back[0].attr("data-to") != "l" {
		t.Fatalf("back edges %v, want only c → l", back)
	}
	if !(d.y(t, "l") < d.y(t, "b") && d.y(t, "b") < d.y(t, "c")) {
		t.Error("the loop body is not drawn below its loop")
	}
	if d.y(t, "done") <= d.y(t, "l") {
		t.Error("the step after the loop is not below it")
	}
	for _, want := range []string{"loop", "completed"} {
		if !slices.Contains(d.labels(), want) {
			t.Errorf("labels %q lack %q", d.labels(), want)
		}
	}
	if !d.edges[1].hasClass("loop") || !d.edges[4].hasClass("completed") {
		t.Error("the loop's edges do not carry their condition as a class")
	}
	if !strings.Contains(d.nodes["l"].child("title").Text, "Each lead (l), builtin:loop") {
		t.Errorf("node title %q, want name, id and kind", d.nodes["l"].child("title").Text)
	}
	// A cycle without a loop step, and a step's edge to itself, are drawn
	// the same way, not as a layering that never ends.
	cyc := draw(t, mustDefinition(t, `{"actions":[{"id":"a","kind":"builtin:set"},{"id":"b","kind":"builtin:set"}],
	 "edges":[{"from":"$source","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"a"},{"from":"b","to":"b"},{"from":"a","to":"$source"}]}`), nil)
	for i, e := range cyc.edges {
		if wantBack := i >= 2; e.hasClass("back") != wantBack {
			t.Errorf("edge %d (%s → %s) back=%v, want %v", i, e.attr("data-from"), e.attr("data-to"), !wantBack, wantBack)
		}
	}
}

func TestWorkflowGraphMarksStepsWithErrors(t *testing.T) {
	msg := "reads steps.x, but there is no action x"
	d := draw(t, mustDefinition(t, loopDef), map[string]string{"b": msg, "trigger": "must be one of workflows/new-post"})
	for step, n := range d.nodes {
		wantErr := step == "b" || step == "trigger"
		if n.hasClass("error") != wantErr {
			t.Errorf("node %s error class %v, want %v", step, !wantErr, wantErr)
		}
	}
	if title := d.nodes["b"].child("title").Text; !strings.Contains(title, msg) {
		t.Errorf("marked node's title %q lacks the message", title)
	}
	if stroke := d.nodes["b"].child("rect").attr("stroke"); stroke != graphError {
		t.Errorf("marked node stroke %q, want the error colour %s", stroke, graphError)
	}
	if !strings.Contains(d.root.child("desc").Text, msg) || !strings.Contains(d.root.child("title").Text, "2 steps with errors") {
		t.Errorf("the accessible name and description do not tell of the errors: %q / %q", d.root.child("title").Text, d.root.child("desc").Text)
	}
}

func TestWorkflowGraphEscapesLabels(t *testing.T) {
	hostile := `<script>alert("x")</script>`
	def := workflow.Definition{
		Trigger: &workflow.Trigger{Kind: `workflows/<b>"new"`},
		Actions: []workflow.Action{{ID: `a"b`, Kind: `k'<i>`, Name: hostile}, {ID: "c", Kind: "builtin:set", Name: "tab\there & \x01 there"}},
		Edges:   []workflow.Edge{{From: workflow.Source, To: `a"b`, Name: "</svg><svg onload=alert(1)>"}, {From: `a"b`, To: "c", Conditional: &workflow.Conditional{Type: `match"`, Ref: `output.x == "<y>"`}}},
	}
	d := draw(t, def, map[string]string{"c": "</title><script>"})
	for _, bad := range []string{"<script", "<b>", "<i>", "</svg><svg", "<y>"} {
		if strings.Contains(d.raw, bad) {
			t.Errorf("the SVG holds %q unescaped", bad)
		}
	}
	n, ok := d.nodes[`a"b`]
	if !ok {
		t.Fatalf("no node with the id a\"b; nodes %v", d.nodes)
	}
	if title := n.child("title").Text; !strings.Contains(title, hostile) {
		t.Errorf("title %q does not read back the full name", title)
	}
	if texts := n.all(func(e svgEl) bool { return e.XMLName.Local == "text" }); len(texts) != 2 || !strings.HasSuffix(texts[0].Text, "…") {
		t.Errorf("the long name is not shortened with an ellipsis: %v", texts)
	}
	if !strings.Contains(d.nodes["c"].child("title").Text, "</title><script>") {
		t.Error("the message does not read back from the title")
	}
}

func TestWorkflowGraphDrawsMissingSteps(t *testing.T) {
	def := mustDefinition(t, `{"actions":[{"id":"a","kind":"builtin:set"},{"id":"lonely","kind":"builtin:set"},{"id":"a","kind":"builtin:exit"}],
	 "edges":[{"from":"$source","to":"a"},{"from":"a","to":"ghost"},{"from":"nowhere","to":"a"},{"from":"a","to":"ghost","name":"again"},{"from":"","to":""}]}`)
	d := draw(t, def, nil)
	for _, id := range []string{"ghost", "nowhere", "(no id)"} {
		n, ok := d.nodes[id]
		if !ok || !n.hasClass("missing") || n.child("rect").attr("stroke-dasharray") == "" {
			t.Errorf("no dashed missing node %q", id)
		}
	}
	if len(d.edges) != len(def.Edges) {
		t.Errorf("%d edges drawn, want %d", len(d.edges), len(def.Edges))
	}
	if !d.nodes["lonely"].hasClass("action") || !strings.Contains(d.root.child("title").Text, "3 missing steps") {
		t.Errorf("the unreachable step or the missing count is not shown: %q", d.root.child("title").Text)
	}
	if n := len(d.root.all(func(e svgEl) bool { return e.hasClass("node") })); n != 7 {
		t.Errorf("%d nodes, want 7 (trigger, 3 actions, 3 missing)", n)
	}
}

func TestWorkflowGraphEmpty(t *testing.T) {
	d := draw(t, workflow.Definition{}, nil)
	if texts := d.root.all(func(e svgEl) bool { return e.XMLName.Local == "text" }); len(texts) != 1 || texts[0].Text != "No steps yet" {
		t.Errorf("empty graph says %v, want No steps yet", texts)
	}
	if d.root.attr("role") != "img" || d.root.child("title").Text != "Workflow graph: trigger workflows/new-post, 0 steps, 0 edges" {
		t.Errorf("empty graph's title %q", d.root.child("title").Text)
	}
}

func TestWorkflowGraphIsDeterministic(t *testing.T) {
	def := graphChain(40, 3)
	marked := map[string]string{}
	for i := 0; i < 40; i += 3 {
		marked["s"+strconv.Itoa(i)] = "bad " + strconv.Itoa(i)
	}
	first := workflowGraph(def, marked)
	for range 5 {
		if again := workflowGraph(graphChain(40, 3), marked); again != first {
			t.Fatal("the same definition drew two different SVGs")
		}
	}
	if other := workflowGraph(mustDefinition(t, loopDef), nil); strings.Contains(string(other), draw(t, def, marked).root.child("title").attr("id")) {
		t.Error("two different graphs share their ids; they could not sit on one page")
	}
}

func TestWorkflowGraphStaysReadableWhenLarge(t *testing.T) {
	// 20 steps straight off the trigger wrap onto rows of graphPerRow, so
	// the drawing is about as wide as a 1280 px screen's content.
	var fan workflow.Definition
	for i := range 20 {
		id := "f" + strconv.Itoa(i)
		fan.Actions = append(fan.Actions, workflow.Action{ID: id, Kind: "builtin:set"})
		fan.Edges = append(fan.Edges, workflow.Edge{From: workflow.Source, To: id})
	}
	d := draw(t, fan, nil)
	if w := viewBoxWidth(t, d.root); w > 1120 {
		t.Errorf("20 sibling steps are %v units wide; at 1280 px they would be shrunk unreadably", w)
	}
	big := graphChain(100, 4)
	d = draw(t, big, nil)
	if len(d.nodes) != 101 || len(d.edges) != len(big.Edges) {
		t.Errorf("%d nodes and %d edges for 100 steps and %d edges", len(d.nodes), len(d.edges), len(big.Edges))
	}
	if len(d.raw) > 200_000 {
		t.Errorf("100 steps take %d bytes of SVG", len(d.raw))
	}
	if w := viewBoxWidth(t, d.root); w > 1400 {
		t.Errorf("100 steps are %v units wide", w)
	}
}

func viewBoxWidth(t *testing.T, root svgEl) float64 {
	t.Helper()
	f := strings.Fields(root.attr("viewBox"))
	if len(f) != 4 {
		t.Fatalf("viewBox %q", root.attr("viewBox"))
	}
	w, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// graphChain is n steps s0..s(n-1) after the trigger, each even step also
// skipping ahead to step i+fan, and every 7th step leading back 3 steps.
func graphChain(n, fan int) workflow.Definition {
	var d workflow.Definition
	for i := range n {
		id := "s" + strconv.Itoa(i)
		d.Actions = append(d.Actions, workflow.Action{ID: id, Kind: "builtin:set", Name: "Step number " + strconv.Itoa(i)})
		from := workflow.Source
		if i > 0 {
			from = "s" + strconv.Itoa(i-1)
		}
		d.Edges = append(d.Edges, workflow.Edge{From: from, To: id})
		if i+fan < n && i%2 == 0 {
			d.Edges = append(d.Edges, workflow.Edge{From: id, To: "s" + strconv.Itoa(i+fan), Name: "skip"})
		}
		if i%7 == 6 {
			d.Edges = append(d.Edges, workflow.Edge{From: id, To: "s" + strconv.Itoa(i-3), Conditional: &workflow.Conditional{Type: workflow.EdgeLoop}})
		}
	}
	return d
}

// FuzzWorkflowGraph draws arbitrary definitions: never a panic, always
// well-formed XML with one path per edge.
func FuzzWorkflowGraph(f *testing.F) {
	f.Add(loopDef)
	f.Add(`{"actions":[{"id":"a","kind":"builtin:if"}],"edges":[{"from":"a","to":"a"},{"from":"$source","to":"$source"},{"from":"x","to":"y"}]}`)
	f.Add(`{"actions":[{"id":"","name":"\u0000<&>"},{"id":""}],"edges":[{"from":"","to":"","conditional":{"type":"match","ref":"\ud800"}}]}`)
	f.Add(`{"trigger":{"kind":"workflows/scheduled-trigger"},"actions":[],"edges":[]}`)
	f.Fuzz(func(t *testing.T, js string) {
		var def workflow.Definition
		if json.Unmarshal([]byte(js), &def) != nil || len(def.Actions)+len(def.Edges) > 500 {
			return
		}
		marked := map[string]string{"trigger": js}
		for _, a := range def.Actions {
			marked[a.ID] = a.Name
		}
		raw := string(workflowGraph(def, marked))
		dec := xml.NewDecoder(strings.NewReader(raw))
		dec.Strict = true
		var root svgEl
		if err := dec.Decode(&root); err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, raw)
		}
		if len(def.Actions)+len(def.Edges) > 0 {
			paths := root.all(func(e svgEl) bool { return e.XMLName.Local == "path" && e.hasClass("edge") })
			if len(paths) != len(def.Edges) {
				t.Fatalf("%d paths for %d edges", len(paths), len(def.Edges))
			}
		}
	})
}

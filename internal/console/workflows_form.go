package console

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/workflow"
)

// The definition editor is one plain form: the trigger, one fieldset per
// action (plus a blank one that adds an action), one per edge (plus two
// blank ones), each with a Remove box, so it works without JavaScript. The
// form is turned into the definition the API gets, and the API's problems,
// which point into that definition, back into the inputs they name.

// field is one input of a form: its id (also its name), value and the
// message shown at it.
type field struct{ ID, Value, Error string }

// Problem is the field's message for the shared field-error template.
func (f field) Problem() fieldProblem { return fieldProblem{ID: f.ID, Message: f.Error} }

type actionForm struct {
	Index                                                   int
	New                                                     bool
	ID, Kind, Name, Inputs, MaxAttempts, BackoffMS, Timeout field
}

type edgeForm struct {
	Index               int
	New                 bool
	From, To, Cond, Ref field
	Name                string // kept as it was; the form does not edit it
}

// editorForm is the definition form, as shown or as submitted.
type editorForm struct {
	Name          field
	Description   field
	TriggerKind   field
	TriggerInputs field
	Actions       []actionForm
	Edges         []edgeForm
	Columns       field
}

// newEditorForm shows def (the draft or the live definition) named name.
func newEditorForm(name, description string, def workflow.Definition) editorForm {
	f := editorForm{Name: field{ID: "name", Value: name}, Description: field{ID: "description", Value: description}}
	f.TriggerKind = field{ID: "trigger-kind", Value: def.TriggerKind()}
	var in map[string]any
	if def.Trigger != nil {
		in = def.Trigger.Inputs
	}
	f.TriggerInputs = field{ID: "trigger-inputs", Value: jsonText(in, "{}")}
	for i, a := range def.Actions {
		af := newActionForm(i)
		af.ID.Value, af.Kind.Value, af.Name.Value = a.ID, a.Kind, a.Name
		af.Inputs.Value = jsonText(a.Inputs, "{}")
		if a.Retry != nil {
			af.MaxAttempts.Value = strconv.Itoa(a.Retry.MaxAttempts)
			if a.Retry.BackoffMS != 0 {
				af.BackoffMS.Value = strconv.FormatInt(a.Retry.BackoffMS, 10)
			}
		}
		if a.TimeoutMS != nil {
			af.Timeout.Value = strconv.FormatInt(*a.TimeoutMS, 10)
		}
		f.Actions = append(f.Actions, af)
	}
	for i, e := range def.Edges {
		ef := newEdgeForm(i)
		ef.From.Value, ef.To.Value, ef.Name = e.From, e.To, e.Name
		if e.Conditional != nil {
			ef.Cond.Value, ef.Ref.Value = e.Conditional.Type, e.Conditional.Ref
		}
		f.Edges = append(f.Edges, ef)
	}
	f.Columns = field{ID: "columns", Value: "[]"}
	if len(def.ColumnConfig) > 0 {
		f.Columns.Value = jsonText(def.ColumnConfig, "[]")
	}
	f.addBlanks()
	return f
}

func newActionForm(i int) actionForm {
	p := "action-" + strconv.Itoa(i) + "-"
	return actionForm{Index: i, ID: field{ID: p + "id"}, Kind: field{ID: p + "kind"}, Name: field{ID: p + "name"},
		Inputs: field{ID: p + "inputs"}, MaxAttempts: field{ID: p + "retry-max"}, BackoffMS: field{ID: p + "retry-backoff"},
		Timeout: field{ID: p + "timeout"}}
}

func newEdgeForm(i int) edgeForm {
	p := "edge-" + strconv.Itoa(i) + "-"
	return edgeForm{Index: i, From: field{ID: p + "from"}, To: field{ID: p + "to"}, Cond: field{ID: p + "cond"}, Ref: field{ID: p + "ref"}}
}

// blankEdges is how many empty edge rows the form offers.
const blankEdges = 2

// addBlanks appends the empty action and edges that add to the definition.
func (f *editorForm) addBlanks() {
	a := newActionForm(len(f.Actions))
	a.New, a.Inputs.Value = true, "{}"
	f.Actions = append(f.Actions, a)
	for range blankEdges {
		e := newEdgeForm(len(f.Edges))
		e.New = true
		f.Edges = append(f.Edges, e)
	}
}

// jsonText is v as the textarea shows it: indented, and with < > & as
// typed (html/template escapes the page, not the JSON).
func jsonText(v any, empty string) string {
	if v == nil {
		return empty
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return empty
	}
	out := strings.TrimSpace(b.String())
	if out == "null" {
		return empty
	}
	return out
}

// parseEditorForm reads a submitted editor: removed and blank rows dropped,
// the rest numbered as the definition will be, so the API's pointers name
// the rows shown again.
func parseEditorForm(form url.Values) editorForm {
	f := editorForm{Name: field{ID: "name", Value: form.Get("name")}, Description: field{ID: "description", Value: form.Get("description")},
		TriggerKind:   field{ID: "trigger-kind", Value: form.Get("trigger-kind")},
		TriggerInputs: field{ID: "trigger-inputs", Value: form.Get("trigger-inputs")},
		Columns:       field{ID: "columns", Value: form.Get("columns")}}
	n, _ := strconv.Atoi(form.Get("action-count"))
	for i := range min(n, workflow.MaxActions+1) {
		p := "action-" + strconv.Itoa(i) + "-"
		if form.Get(p+"remove") != "" {
			continue
		}
		id, kind, name, in := strings.TrimSpace(form.Get(p+"id")), form.Get(p+"kind"), form.Get(p+"name"), strings.TrimSpace(form.Get(p+"inputs"))
		if id == "" && kind == "" && name == "" && (in == "" || in == "{}") {
			continue
		}
		a := newActionForm(len(f.Actions))
		a.ID.Value, a.Kind.Value, a.Name.Value, a.Inputs.Value = id, kind, name, form.Get(p+"inputs")
		a.MaxAttempts.Value = strings.TrimSpace(form.Get(p + "retry-max"))
		a.BackoffMS.Value = strings.TrimSpace(form.Get(p + "retry-backoff"))
		a.Timeout.Value = strings.TrimSpace(form.Get(p + "timeout"))
		f.Actions = append(f.Actions, a)
	}
	n, _ = strconv.Atoi(form.Get("edge-count"))
	for i := range min(n, 10*workflow.MaxActions) {
		p := "edge-" + strconv.Itoa(i) + "-"
		from, to := strings.TrimSpace(form.Get(p+"from")), strings.TrimSpace(form.Get(p+"to"))
		if form.Get(p+"remove") != "" || from == "" && to == "" {
			continue
		}
		e := newEdgeForm(len(f.Edges))
		e.From.Value, e.To.Value, e.Name = from, to, form.Get(p+"name")
		e.Cond.Value, e.Ref.Value = form.Get(p+"cond"), strings.TrimSpace(form.Get(p+"ref"))
		f.Edges = append(f.Edges, e)
	}
	return f
}

// definition is the form as a definition; false when an input could not
// be read (not JSON, not a number), each such input with its message: the
// API is not asked with a definition the user did not write.
func (f *editorForm) definition() (workflow.Definition, bool) {
	ok := true
	def := workflow.Definition{Actions: []workflow.Action{}, Edges: []workflow.Edge{}}
	def.Trigger = &workflow.Trigger{Kind: f.TriggerKind.Value}
	if !jsonObject(&f.TriggerInputs, &def.Trigger.Inputs) {
		ok = false
	}
	for i := range f.Actions {
		a := &f.Actions[i]
		if a.New {
			continue
		}
		act := workflow.Action{ID: a.ID.Value, Kind: a.Kind.Value, Name: a.Name.Value}
		if !jsonObject(&a.Inputs, &act.Inputs) {
			ok = false
		}
		maxAttempts, okMax := whole(&a.MaxAttempts)
		backoff, okBackoff := whole(&a.BackoffMS)
		timeout, okTimeout := whole(&a.Timeout)
		ok = ok && okMax && okBackoff && okTimeout
		if maxAttempts != nil || backoff != nil {
			act.Retry = &workflow.Retry{}
			if maxAttempts != nil {
				act.Retry.MaxAttempts = int(*maxAttempts)
			}
			if backoff != nil {
				act.Retry.BackoffMS = *backoff
			}
		}
		act.TimeoutMS = timeout
		def.Actions = append(def.Actions, act)
	}
	for _, e := range f.Edges {
		if e.New {
			continue
		}
		edge := workflow.Edge{From: e.From.Value, To: e.To.Value, Name: e.Name}
		if e.Cond.Value != "" || e.Ref.Value != "" {
			edge.Conditional = &workflow.Conditional{Type: e.Cond.Value, Ref: e.Ref.Value}
		}
		def.Edges = append(def.Edges, edge)
	}
	if v := strings.TrimSpace(f.Columns.Value); v != "" && v != "[]" {
		if err := json.Unmarshal([]byte(v), &def.ColumnConfig); err != nil {
			f.Columns.Error, ok = "is not a JSON array of columns ({\"id\", \"stepId\", \"fieldPath\", \"label\"}): "+err.Error(), false
		}
	}
	return def, ok
}

// jsonObject reads a textarea holding a JSON object into v ("" is none).
func jsonObject(f *field, v *map[string]any) bool {
	text := strings.TrimSpace(f.Value)
	if text == "" {
		return true
	}
	var raw any
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		f.Error = "is not valid JSON: " + err.Error()
		return false
	}
	obj, isObj := raw.(map[string]any)
	if !isObj {
		f.Error = "must be a JSON object, such as {\"name\": \"value\"}"
		return false
	}
	*v = obj
	return true
}

// whole reads a whole number input ("" is none).
func whole(f *field) (*int64, bool) {
	if f.Value == "" {
		return nil, true
	}
	n, err := strconv.ParseInt(f.Value, 10, 64)
	if err != nil {
		f.Error = "must be a whole number"
		return nil, false
	}
	return &n, true
}

// fieldPointer is an API field path as a JSON pointer into the body:
// "body.workflow.actions[2].inputs.url" → "/workflow/actions/2/inputs/url".
func fieldPointer(path string) string {
	path, _ = strings.CutPrefix(path, "body")
	path = indexes.ReplaceAllStringFunc(path, func(m string) string { return "." + m[1:len(m)-1] })
	return strings.ReplaceAll(path, ".", "/")
}

var (
	actionPtr = regexp.MustCompile(`^/actions/([0-9]+)(/[^/]+)?(/[^/]+)?`)
	edgePtr   = regexp.MustCompile(`^/edges/([0-9]+)(/[^/]+)?(/[^/]+)?`)
)

// placeProblem puts each of the API's field messages at the input it
// points to (the first message per input), keeps the rest in Unplaced, and
// returns the graph's marks: a step id or "trigger" → its first message.
// def is the definition the pointers point into.
func (f *editorForm) placeProblem(p apiProblem, def workflow.Definition, extra map[string]*field) (apiProblem, map[string]string) {
	marked := map[string]string{}
	p.Unplaced = nil
	for _, fp := range p.Fields {
		ptr := fp.Pointer
		if ptr == "" {
			ptr = fieldPointer(fp.Field)
		}
		target, node := f.target(ptr, def, extra)
		if node != "" && marked[node] == "" {
			marked[node] = fp.Message
		}
		if target == nil {
			p.Unplaced = append(p.Unplaced, fp)
			continue
		}
		if target.Error == "" {
			target.Error = fp.Message
		} else if !strings.Contains(target.Error, fp.Message) {
			target.Error += "; " + fp.Message
		}
	}
	return p, marked
}

// target is the input a pointer names and the graph node it is in.
func (f *editorForm) target(ptr string, def workflow.Definition, extra map[string]*field) (*field, string) {
	for prefix, fd := range extra {
		if ptr == prefix || strings.HasPrefix(ptr, prefix+"/") {
			return fd, ""
		}
	}
	ptr, _ = strings.CutPrefix(ptr, "/draft")
	switch ptr {
	case "/name":
		return &f.Name, ""
	case "/description":
		return &f.Description, ""
	}
	ptr, found := strings.CutPrefix(ptr, "/workflow")
	if !found {
		return nil, ""
	}
	switch {
	case ptr == "/trigger" || strings.HasPrefix(ptr, "/trigger/kind"):
		return &f.TriggerKind, "trigger"
	case strings.HasPrefix(ptr, "/trigger/"):
		return &f.TriggerInputs, "trigger"
	case strings.HasPrefix(ptr, "/column_config"):
		return &f.Columns, ""
	}
	if m := actionPtr.FindStringSubmatch(ptr); m != nil {
		i, _ := strconv.Atoi(m[1])
		if i >= len(f.Actions) || f.Actions[i].New {
			return nil, ""
		}
		node := ""
		if i < len(def.Actions) {
			node = def.Actions[i].ID
		}
		a := &f.Actions[i]
		switch m[2] {
		case "/kind":
			return &a.Kind, node
		case "/name":
			return &a.Name, node
		case "/inputs":
			return &a.Inputs, node
		case "/timeout_ms":
			return &a.Timeout, node
		case "/retry":
			if m[3] == "/backoff_ms" {
				return &a.BackoffMS, node
			}
			return &a.MaxAttempts, node
		}
		return &a.ID, node
	}
	if m := edgePtr.FindStringSubmatch(ptr); m != nil {
		i, _ := strconv.Atoi(m[1])
		if i >= len(f.Edges) || f.Edges[i].New {
			return nil, ""
		}
		e := &f.Edges[i]
		switch {
		case m[2] == "/to":
			return &e.To, ""
		case m[2] == "/conditional" && m[3] == "/ref":
			return &e.Ref, ""
		case m[2] == "/conditional":
			return &e.Cond, ""
		}
		return &e.From, ""
	}
	return nil, ""
}

// localMarks are the graph's marks of inputs the console could not read.
func (f editorForm) localMarks(def workflow.Definition) map[string]string {
	marked := map[string]string{}
	if f.TriggerInputs.Error != "" {
		marked["trigger"] = "inputs " + f.TriggerInputs.Error
	}
	for i, a := range f.Actions {
		if a.New || i >= len(def.Actions) {
			continue
		}
		for _, fd := range []field{a.Inputs, a.MaxAttempts, a.BackoffMS, a.Timeout} {
			if fd.Error != "" && marked[def.Actions[i].ID] == "" {
				marked[def.Actions[i].ID] = fd.Error
			}
		}
	}
	return marked
}

package workflow

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/trawlhq/trawl/internal/action"
)

// Program is a definition with every template and match condition
// compiled, ready to run many executions.
type Program struct {
	Definition Definition
	templates  map[string]template // by template text
	matches    map[int]*vm.Program // match edge index → condition
	byID       map[string]int      // action id → index
}

// Compile compiles a definition that passed validation.
func Compile(def Definition) (*Program, error) {
	p := &Program{Definition: def, templates: map[string]template{}, matches: map[int]*vm.Program{}, byID: map[string]int{}}
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case string:
			if !hasTemplate(x) {
				return nil
			}
			if _, ok := p.templates[x]; ok {
				return nil
			}
			t, _, err := compileTemplate(x)
			if err != nil {
				return err
			}
			p.templates[x] = t
		case []any:
			for _, y := range x {
				if err := walk(y); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, y := range x {
				if err := walk(y); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i, a := range def.Actions {
		p.byID[a.ID] = i
		if err := walk(map[string]any(a.Inputs)); err != nil {
			return nil, fmt.Errorf("workflow: action %s: %w", a.ID, err)
		}
	}
	for i, e := range def.Edges {
		if e.Conditional != nil && e.Conditional.Type == EdgeMatch {
			prog, _, err := compileExpr(e.Conditional.Ref, varOutput)
			if err != nil {
				return nil, fmt.Errorf("workflow: edge %d: %w", i, err)
			}
			p.matches[i] = prog
		}
	}
	return p, nil
}

// Action returns the action of that id.
func (p *Program) Action(id string) (Action, bool) {
	i, ok := p.byID[id]
	if !ok {
		return Action{}, false
	}
	return p.Definition.Actions[i], true
}

// Env is what templates read while an execution runs.
type Env map[string]any

// Resolve evaluates the templates of an action's inputs.
func (p *Program) Resolve(inputs map[string]any, env Env) (map[string]any, error) {
	out := make(map[string]any, len(inputs))
	for k, v := range inputs {
		r, err := p.resolve(v, env)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", k, err)
		}
		out[k] = r
	}
	return out, nil
}

func (p *Program) resolve(v any, env Env) (any, error) {
	switch x := v.(type) {
	case string:
		t, ok := p.templates[x]
		if !ok {
			return x, nil
		}
		return t.eval(env)
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			r, err := p.resolve(y, env)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, y := range x {
			r, err := p.resolve(y, env)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// Match evaluates the condition of match edge i against the output of the
// step it leaves.
func (p *Program) Match(i int, env Env, output any) (bool, error) {
	prog, ok := p.matches[i]
	if !ok {
		return false, fmt.Errorf("workflow: edge %d is not a match edge", i)
	}
	scope := make(map[string]any, len(env)+1)
	for k, v := range env {
		scope[k] = v
	}
	scope[varOutput] = output
	v, err := expr.Run(prog, scope)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("condition %q gave %s, not a boolean", p.Definition.Edges[i].Conditional.Ref, action.JSONTypeName(v))
	}
	return b, nil
}

// eval runs a template: one whole expression keeps its value's type;
// otherwise the parts are joined as text (maps and arrays as JSON).
func (t template) eval(env Env) (any, error) {
	if t.whole {
		return runExpr(t.parts[0], env)
	}
	var b strings.Builder
	for _, part := range t.parts {
		if part.code == "" {
			b.WriteString(part.text)
			continue
		}
		v, err := runExpr(part, env)
		if err != nil {
			return nil, err
		}
		b.WriteString(text(v))
	}
	return b.String(), nil
}

func runExpr(p templatePart, env Env) (any, error) {
	v, err := expr.Run(p.prog, map[string]any(env))
	if err != nil {
		return nil, fmt.Errorf("{{ %s }}: %s", p.code, firstLine(err.Error()))
	}
	return normalize(v), nil
}

// normalize turns what expressions yield into JSON values (ints become
// numbers, typed slices and maps become []any and map[string]any).
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, float64, map[string]any, []any:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return fmt.Sprint(v)
	}
	return out
}

func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

package workflow

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// A template is an input string with {{ expr }} holes (expr-lang). A value
// that is exactly one template keeps the expression's type; text around
// templates makes the value a string.
type template struct {
	parts []templatePart
	whole bool
}

type templatePart struct {
	text string
	code string // "" for text
	prog *vm.Program
}

// hasTemplate tells whether s holds a template.
func hasTemplate(s string) bool { return strings.Contains(s, "{{") }

var errUnclosed = errors.New("has {{ without a closing }}")

// parseTemplate splits s into text and expressions. An expression ends at
// the first }} after its {{.
func parseTemplate(s string) (template, error) {
	var t template
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if rest != "" {
				t.parts = append(t.parts, templatePart{text: rest})
			}
			break
		}
		if i > 0 {
			t.parts = append(t.parts, templatePart{text: rest[:i]})
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return template{}, errUnclosed
		}
		code := strings.TrimSpace(rest[i+2 : i+2+j])
		if code == "" {
			return template{}, errors.New("has an empty {{ }}")
		}
		t.parts = append(t.parts, templatePart{code: code})
		rest = rest[i+2+j+2:]
	}
	t.whole = len(t.parts) == 1 && t.parts[0].code != ""
	return t, nil
}

// Variables a template may read.
const (
	varTrigger   = "trigger"
	varSteps     = "steps"
	varWorkflow  = "workflow"
	varExecution = "execution"
	varNow       = "now"
	varLoop      = "loop"
	varOutput    = "output" // match edges: the output of the step they leave
)

// compileEnv declares the variables for the compiler; values are replaced
// at run time.
func compileEnv(extra ...string) map[string]any {
	env := map[string]any{
		varTrigger: map[string]any{}, varSteps: map[string]any{}, varWorkflow: map[string]any{},
		varExecution: map[string]any{}, varNow: time.Time{}, varLoop: map[string]any{},
	}
	for _, name := range extra {
		env[name] = map[string]any{}
	}
	return env
}

// References are what an expression reads that the validator must check.
type references struct {
	steps       []string // step ids read as steps.<id> or steps["id"]
	dynamicStep bool     // steps read without a literal id
	loop        bool     // loop.item / loop.index read
}

type refCollector struct {
	refs      *references
	stepsSeen int
	stepsIdx  int
}

func (c *refCollector) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		switch n.Value {
		case varSteps:
			c.stepsSeen++
		case varLoop:
			c.refs.loop = true
		}
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == varSteps {
			if p, ok := n.Property.(*ast.StringNode); ok {
				c.refs.steps = append(c.refs.steps, p.Value)
				c.stepsIdx++
			}
		}
	}
}

// compileExpr compiles one expression with the memory budget and node
// limit on and the impure now() builtin off (now is a variable fixed per
// execution), and reports what it reads.
func compileExpr(code string, extra ...string) (*vm.Program, references, error) {
	var refs references
	c := &refCollector{refs: &refs}
	prog, err := expr.Compile(code, expr.Env(compileEnv(extra...)), expr.DisableBuiltin("now"),
		expr.MaxNodes(1000), expr.Patch(c))
	if err != nil {
		return nil, references{}, err
	}
	refs.dynamicStep = c.stepsSeen != c.stepsIdx
	return prog, refs, nil
}

// compileTemplate parses and compiles every expression of s.
func compileTemplate(s string) (template, references, error) {
	t, err := parseTemplate(s)
	if err != nil {
		return template{}, references{}, err
	}
	var all references
	for i := range t.parts {
		p := &t.parts[i]
		if p.code == "" {
			continue
		}
		prog, refs, err := compileExpr(p.code)
		if err != nil {
			return template{}, references{}, fmt.Errorf("template {{ %s }} does not compile: %s", p.code, firstLine(err.Error()))
		}
		p.prog = prog
		all.steps = append(all.steps, refs.steps...)
		all.dynamicStep = all.dynamicStep || refs.dynamicStep
		all.loop = all.loop || refs.loop
	}
	return t, all, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Package action declares the kinds of steps a workflow can take. Each kind
// lives in its own file with its catalogue entry (inputs, output schema,
// category, cost) beside its code, and the catalogue is built from them.
package action

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
)

// Category groups actions in the catalogue.
type Category string

// The canonical categories of the spec.
const (
	CategoryAI          Category = "ai"
	CategoryEnrichment  Category = "enrichment"
	CategoryCRM         Category = "crm"
	CategoryMessaging   Category = "messaging"
	CategorySocial      Category = "social"
	CategoryControlFlow Category = "control_flow"
	CategoryUtility     Category = "utility"
	CategoryIntegration Category = "integration"
	CategoryOther       Category = "other"
)

// Categories lists the canonical categories in the spec's order.
func Categories() []Category {
	return []Category{CategoryAI, CategoryEnrichment, CategoryCRM, CategoryMessaging, CategorySocial,
		CategoryControlFlow, CategoryUtility, CategoryIntegration, CategoryOther}
}

// legacyCategories are the older spellings the catalogue filter still accepts.
var legacyCategories = map[string]Category{
	"control-flow": CategoryControlFlow,
	"integrations": CategoryIntegration,
	"utilities":    CategoryUtility,
	"database":     CategoryIntegration,
}

// ParseCategory reads a catalogue filter: a canonical category or a legacy
// alias, in any case.
func ParseCategory(s string) (Category, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if c, ok := legacyCategories[s]; ok {
		return c, true
	}
	if slices.Contains(Categories(), Category(s)) {
		return Category(s), true
	}
	return "", false
}

// CategoryNames lists every value ParseCategory accepts, canonical first.
func CategoryNames() []string {
	var out []string
	for _, c := range Categories() {
		out = append(out, string(c))
	}
	legacy := make([]string, 0, len(legacyCategories))
	for k := range legacyCategories {
		legacy = append(legacy, k)
	}
	slices.Sort(legacy)
	return append(out, legacy...)
}

// InputType is the type of an action input, in the catalogue's spelling.
type InputType string

// Input types of the catalogue.
const (
	TypeString      InputType = "string"
	TypeNumber      InputType = "number"
	TypeBoolean     InputType = "boolean"
	TypeStringArray InputType = "string[]"
	TypeObject      InputType = "object"
	TypeEnum        InputType = "enum"
	// TypeAny takes any JSON value (a loop's items may be an array or a
	// template that yields one).
	TypeAny InputType = "any"
)

// Input declares one input of an action.
type Input struct {
	Name     string    `json:"name"`
	Title    string    `json:"title"`
	Required bool      `json:"required"`
	Type     InputType `json:"type"`
	Options  []string  `json:"options,omitempty"`
	// Secret marks an input whose value names an account secret
	// (POST /v1/secrets); the secret's value is read when the step runs
	// and never appears in an execution log.
	Secret bool `json:"secret,omitempty"`
	// Permission is what the key that saves, publishes, enables or tests
	// a workflow must carry when the input is given (secrets:read on
	// secret inputs: a step that sends a secret can send it anywhere).
	Permission  auth.Permission `json:"permission,omitempty" doc:"The permission the key saving, publishing, enabling or testing the workflow needs when this input is given."`
	Description string          `json:"description,omitempty"`
}

// CreditUnit says what an action's creditCost pays for.
type CreditUnit string

// Credit units.
const (
	// PerExecution is paid as the step starts, whatever comes of it.
	PerExecution CreditUnit = "execution"
	// PerResult is paid once the step completes, as an endpoint that
	// charges nothing when it fails.
	PerResult CreditUnit = "result"
	// PerItem is paid once the step completes, for each item of the
	// output array CreditItems, as an endpoint that charges per item.
	PerItem CreditUnit = "item"
)

// Spec is an action's catalogue entry.
type Spec struct {
	Kind        string   `json:"kind"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Category    Category `json:"category"`
	CreditCost  int64    `json:"creditCost"`
	// CreditPer is what CreditCost pays for; CreditItems names the output
	// array whose items are counted when it is item.
	CreditPer   CreditUnit `json:"creditPer" enum:"execution,result,item" doc:"What creditCost pays for: execution (as the step starts), result (once it completes) or item (each item of the output array creditItems, as the endpoint charges)."`
	CreditItems string     `json:"creditItems,omitempty" doc:"The output array whose items are charged, when creditPer is item."`
	// Endpoint is the API endpoint the step stands for: a key may put
	// the step in a workflow only if it may call the endpoint.
	Endpoint string `json:"endpoint,omitempty" doc:"The API endpoint the step does the work of: saving, publishing, enabling or testing a workflow with this step needs that endpoint's permission and plan."`
	// Connection is the connection type the step acts through: the
	// account's connection of that type (POST /v1/integrations/{type}).
	Connection string  `json:"connection,omitempty" doc:"The connection type (POST /v1/integrations/{type}) the step acts through; the account's connection of that type is used when the step runs."`
	Inputs     []Input `json:"inputs"`
	// Outputs is a JSON Schema of what the step outputs.
	Outputs map[string]any `json:"outputs"`
	// Run is the executor of an action that acts through a connection,
	// declared with its entry; nil for kinds whose executor is built
	// elsewhere (Executors, the engine's control flow, app's metered ones).
	Run Executor `json:"-"`
	// Check adds rules that span inputs (one of two inputs required, say).
	// An input that is one whole template is passed as Dynamic: present,
	// its value known only when the step runs.
	Check func(inputs map[string]any) []Problem `json:"-"`
}

// Input returns the declared input of that name.
func (s Spec) Input(name string) (Input, bool) {
	for _, in := range s.Inputs {
		if in.Name == name {
			return in, true
		}
	}
	return Input{}, false
}

// UpfrontCost is what a step pays as it starts.
func (s Spec) UpfrontCost() int64 {
	if s.CreditPer == PerExecution {
		return s.CreditCost
	}
	return 0
}

// ResultCost is what a step pays for the output it completed with.
func (s Spec) ResultCost(out map[string]any) int64 {
	switch s.CreditPer {
	case PerResult:
		return s.CreditCost
	case PerItem:
		items, _ := out[s.CreditItems].([]any)
		return s.CreditCost * int64(len(items))
	}
	return 0
}

// Dynamic stands for an input value that a template computes at run time.
type Dynamic struct{}

// Problem is a rule an action's inputs break; Input names the input ("" for
// the action as a whole).
type Problem struct {
	Input   string
	Message string
}

func problemf(input, format string, args ...any) Problem {
	return Problem{Input: input, Message: fmt.Sprintf(format, args...)}
}

// Catalogue is the set of action kinds a workflow may use.
type Catalogue struct {
	specs []Spec
	index map[string]int
}

// NewCatalogue builds the catalogue from every action this package declares.
func NewCatalogue() *Catalogue {
	return NewCatalogueOf(
		ifSpec(), filterSpec(), loopSpec(), delaySpec(), exitSpec(),
		setSpec(),
		httpRequestSpec(), slackSpec(), sendEmailSpec(),
		personEnrichmentSpec(),
		pronetPostCommentsSpec(), microblogUserSpec(),
		genericAgentSpec(),
	).with(integrationSpecs()...)
}

// with adds entries to the catalogue.
func (c *Catalogue) with(specs ...Spec) *Catalogue {
	return NewCatalogueOf(append(c.specs, specs...)...)
}

// NewCatalogueOf builds a catalogue of these entries (tests build one
// with an entry of their own).
func NewCatalogueOf(specs ...Spec) *Catalogue {
	c := &Catalogue{specs: specs, index: make(map[string]int, len(specs))}
	for i, s := range specs {
		c.index[s.Kind] = i
		if s.CreditPer == "" {
			specs[i].CreditPer = PerExecution
		}
		for j, in := range s.Inputs {
			if in.Secret {
				specs[i].Inputs[j].Permission = auth.PermSecretsRead
			}
		}
	}
	return c
}

// Lookup returns the entry of an action kind.
func (c *Catalogue) Lookup(kind string) (Spec, bool) {
	i, ok := c.index[kind]
	if !ok {
		return Spec{}, false
	}
	return c.specs[i], true
}

// List returns the entries of a category ("" for all), in catalogue order.
func (c *Catalogue) List(category Category) []Spec {
	out := make([]Spec, 0, len(c.specs))
	for _, s := range c.specs {
		if category == "" || s.Category == category {
			out = append(out, s)
		}
	}
	return out
}

// Kinds lists every action kind.
func (c *Catalogue) Kinds() []string {
	out := make([]string, 0, len(c.specs))
	for _, s := range c.specs {
		out = append(out, s.Kind)
	}
	return out
}

// object is a JSON Schema of an object with these properties.
func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func typed(t string, description string) map[string]any {
	s := map[string]any{"type": t}
	if description != "" {
		s["description"] = description
	}
	return s
}

// isTemplate tells whether a string holds a {{ template }}, whose value
// is known only when the step runs.
func isTemplate(s string) bool { return strings.Contains(s, "{{") }

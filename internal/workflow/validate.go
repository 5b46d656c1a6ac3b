package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/trawlhq/trawl/internal/action"
)

// Limits of a definition.
const (
	MaxActions         = 100
	MaxDefinitionBytes = 1 << 20
	MaxColumns         = 100
	minTimeoutMS       = 100
	maxTimeoutMS       = 600_000
	maxBackoffMS       = 3_600_000
	maxAttempts        = 10
	maxNameLength      = 255
)

// Problem is one rule a definition breaks, at a JSON pointer into the
// request body (/workflow/actions/2/inputs/url).
type Problem struct {
	Pointer string
	Message string
}

// Lookup answers the questions validation asks of the account's data.
type Lookup interface {
	// TopicExists tells whether the account has this topic (not deleted).
	TopicExists(ctx context.Context, id string) (bool, error)
	// SecretExists tells whether the account has a secret of this name.
	SecretExists(ctx context.Context, name string) (bool, error)
}

// Validator checks definitions against the catalogue and the account's data.
type Validator struct {
	Catalogue *action.Catalogue
}

var actionIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// cronParser reads the 5-field cron of scheduled triggers (and @hourly-style
// descriptors).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule reads a scheduled trigger's cron and time zone.
func ParseSchedule(spec, zone string) (cron.Schedule, *time.Location, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" || strings.EqualFold(zone, "local") {
		return nil, nil, fmt.Errorf("timezone %q is not an IANA time zone such as Europe/Berlin", zone)
	}
	s, err := cronParser.Parse(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("cron %q does not parse: %v", spec, err)
	}
	return s, loc, nil
}

// Validate lists every problem of a definition (none: nil). root is the
// pointer of the definition in the body ("/workflow"). The error is for
// failures to look things up, not for problems.
func (v *Validator) Validate(ctx context.Context, def Definition, root string, look Lookup) ([]Problem, error) {
	c := &check{v: v, ctx: ctx, def: def, root: root, look: look}
	if raw, err := json.Marshal(def); err == nil && len(raw) > MaxDefinitionBytes {
		c.add("", "is %d bytes; at most %d are allowed", len(raw), MaxDefinitionBytes)
		return c.problems, nil
	}
	c.trigger()
	c.actions()
	if len(c.byID) == len(def.Actions) {
		// The graph rules need unique ids; until then they would only echo
		// the duplicates.
		c.graph()
		c.templates()
	}
	c.columns()
	return c.problems, c.err
}

type check struct {
	v        *Validator
	ctx      context.Context
	def      Definition
	root     string
	look     Lookup
	problems []Problem
	err      error
	byID     map[string]int // action id → index
	// Filled by graph: the upstream steps of each action and the loop
	// bodies each action is in.
	upstream map[string]map[string]bool
	inLoop   map[string]bool
	graphOK  bool
}

func (c *check) add(ptr, format string, args ...any) {
	c.problems = append(c.problems, Problem{Pointer: c.root + ptr, Message: fmt.Sprintf(format, args...)})
}

func (c *check) exists(what string, f func() (bool, error)) bool {
	if c.err != nil {
		return true
	}
	ok, err := f()
	if err != nil {
		c.err = fmt.Errorf("workflow: look up %s: %w", what, err)
		return true
	}
	return ok
}

func (c *check) trigger() {
	t := c.def.Trigger
	if t == nil {
		return
	}
	in := t.Inputs
	keys, known := TriggerInputNames(t.Kind)
	if !known {
		c.add("/trigger/kind", "must be one of %s", strings.Join(TriggerKinds(), ", "))
		return
	}
	for _, k := range sortedKeys(in) {
		if !slices.Contains(keys, k) {
			if len(keys) == 0 {
				c.add("/trigger/inputs/"+escape(k), "is not an input of %s, which takes none", t.Kind)
			} else {
				c.add("/trigger/inputs/"+escape(k), "is not an input of %s (it takes %s)", t.Kind, strings.Join(keys, ", "))
			}
		}
	}
	switch t.Kind {
	case TriggerWebhook:
		if v, ok := in["verify_signature"]; ok {
			if _, isBool := v.(bool); !isBool {
				c.add("/trigger/inputs/verify_signature", "must be a boolean")
			}
		}
	case TriggerEngagement:
		id, ok := in["topic_id"].(string)
		switch {
		case in["topic_id"] == nil:
			c.add("/trigger/inputs/topic_id", "is required: the topic whose new engagements start executions")
		case !ok:
			c.add("/trigger/inputs/topic_id", "must be a string")
		case !c.exists("topic", func() (bool, error) { return c.look.TopicExists(c.ctx, id) }):
			c.add("/trigger/inputs/topic_id", "names no topic of this account")
		}
	case TriggerScheduled:
		spec, ok := in["cron"].(string)
		if !ok {
			c.add("/trigger/inputs/cron", "is required: a 5-field cron expression such as 0 9 * * 1-5")
			return
		}
		zone := "UTC"
		if z, present := in["timezone"]; present {
			if zs, ok := z.(string); ok {
				zone = zs
			} else {
				c.add("/trigger/inputs/timezone", "must be a string")
				return
			}
		}
		if _, err := cronParser.Parse(spec); err != nil {
			c.add("/trigger/inputs/cron", "must be a 5-field cron expression (minute hour day-of-month month day-of-week), such as 0 9 * * 1-5: %v", err)
		}
		if _, err := time.LoadLocation(zone); err != nil || strings.EqualFold(zone, "local") || zone == "" {
			c.add("/trigger/inputs/timezone", "must be an IANA time zone such as Europe/Berlin or UTC")
		}
	}
}

func (c *check) actions() {
	if len(c.def.Actions) > MaxActions {
		c.add("/actions", "holds %d actions; at most %d are allowed", len(c.def.Actions), MaxActions)
	}
	c.byID = make(map[string]int, len(c.def.Actions))
	for i, a := range c.def.Actions {
		at := "/actions/" + strconv.Itoa(i)
		switch {
		case !actionIDRE.MatchString(a.ID):
			c.add(at+"/id", "must be 1-64 letters, digits, _ or - (and not $source)")
		default:
			if j, dup := c.byID[a.ID]; dup {
				c.add(at+"/id", "repeats the id of /actions/%d; ids must be unique", j)
			} else {
				c.byID[a.ID] = i
			}
		}
		if len([]rune(a.Name)) > maxNameLength {
			c.add(at+"/name", "must be at most %d characters", maxNameLength)
		}
		if a.Retry != nil {
			if a.Retry.MaxAttempts < 1 || a.Retry.MaxAttempts > maxAttempts {
				c.add(at+"/retry/max_attempts", "must be 1-%d", maxAttempts)
			}
			if a.Retry.BackoffMS < 0 || a.Retry.BackoffMS > maxBackoffMS {
				c.add(at+"/retry/backoff_ms", "must be 0-%d", maxBackoffMS)
			}
		}
		if a.TimeoutMS != nil && (*a.TimeoutMS < minTimeoutMS || *a.TimeoutMS > maxTimeoutMS) {
			c.add(at+"/timeout_ms", "must be %d-%d", minTimeoutMS, maxTimeoutMS)
		}
		spec, ok := c.v.Catalogue.Lookup(a.Kind)
		if !ok {
			c.add(at+"/kind", "is not an action kind; GET /v1/workflows/actions lists them")
			continue
		}
		c.inputs(at, spec, a.Inputs)
	}
}

// inputs checks an action's inputs against its catalogue entry. Templates
// are compiled later, once the graph is known.
func (c *check) inputs(at string, spec action.Spec, in map[string]any) {
	seen := make(map[string]any, len(in))
	for _, name := range sortedKeys(in) {
		val := in[name]
		ptr := at + "/inputs/" + escape(name)
		decl, ok := spec.Input(name)
		if !ok {
			c.add(ptr, "is not an input of %s", spec.Kind)
			continue
		}
		if s, isString := val.(string); isString && hasTemplate(s) {
			if decl.Secret {
				c.add(ptr, "must name a secret literally; templates are not allowed here")
				continue
			}
			if t, err := parseTemplate(s); err == nil && t.whole {
				seen[name] = action.Dynamic{}
				continue
			}
		}
		if msg := TypeProblem(decl, val); msg != "" {
			c.add(ptr, "%s", msg)
			continue
		}
		if decl.Secret {
			c.secrets(ptr, val)
		}
		seen[name] = val
	}
	for _, decl := range spec.Inputs {
		if _, ok := in[decl.Name]; decl.Required && (!ok || in[decl.Name] == nil) {
			c.add(at+"/inputs/"+escape(decl.Name), "is required by %s (%s)", spec.Kind, decl.Type)
		}
	}
	if spec.Check != nil {
		for _, p := range spec.Check(seen) {
			ptr := at + "/inputs"
			if p.Input != "" {
				ptr += "/" + escape(p.Input)
			}
			c.add(ptr, "%s", p.Message)
		}
	}
}

// secrets checks that a secret input names existing secrets: a string, or
// an object whose values are names (http_request's secret_headers). A
// name is checked when the workflow is saved, not first when it runs.
func (c *check) secrets(ptr string, val any) {
	names := map[string]string{}
	switch v := val.(type) {
	case string:
		names[ptr] = v
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok {
				names[ptr+"/"+escape(k)] = s
			}
		}
	}
	for _, p := range sortedKeys(names) {
		name := names[p]
		if hasTemplate(name) {
			c.add(strings.TrimPrefix(p, c.root), "must name a secret literally; templates are not allowed here")
			continue
		}
		if !c.exists("secret", func() (bool, error) { return c.look.SecretExists(c.ctx, name) }) {
			c.add(strings.TrimPrefix(p, c.root), "names no secret of this account (%q); create it with POST /v1/secrets", name)
		}
	}
}

// TypeProblem says how a value fails its declared input type ("" when it
// fits): literal values at write time, resolved ones when a step runs.
func TypeProblem(decl action.Input, val any) string {
	switch decl.Type {
	case action.TypeString:
		if _, ok := val.(string); !ok {
			return "must be a string"
		}
	case action.TypeNumber:
		if _, ok := val.(float64); !ok {
			return "must be a number"
		}
	case action.TypeBoolean:
		if _, ok := val.(bool); !ok {
			return "must be a boolean or a template such as {{ trigger.likes > 10 }}"
		}
	case action.TypeStringArray:
		a, ok := val.([]any)
		if !ok {
			return "must be an array of strings"
		}
		for _, x := range a {
			if _, ok := x.(string); !ok {
				return "must be an array of strings"
			}
		}
	case action.TypeObject:
		if _, ok := val.(map[string]any); !ok {
			return "must be an object"
		}
		if decl.Secret {
			for _, x := range val.(map[string]any) {
				if _, ok := x.(string); !ok {
					return "must map names to secret names (strings)"
				}
			}
		}
	case action.TypeEnum:
		s, ok := val.(string)
		if !ok || !slices.Contains(decl.Options, s) {
			return "must be one of " + strings.Join(decl.Options, ", ")
		}
	}
	return ""
}

func (c *check) columns() {
	if len(c.def.ColumnConfig) > MaxColumns {
		c.add("/column_config", "holds %d columns; at most %d are allowed", len(c.def.ColumnConfig), MaxColumns)
	}
	ids := map[string]bool{}
	for i, col := range c.def.ColumnConfig {
		at := "/column_config/" + strconv.Itoa(i)
		if strings.TrimSpace(col.ID) == "" {
			c.add(at+"/id", "is required")
		} else if ids[col.ID] {
			c.add(at+"/id", "repeats another column's id")
		}
		ids[col.ID] = true
		if _, ok := c.byID[col.StepID]; !ok {
			c.add(at+"/stepId", "names no action of this workflow")
		}
		if !validFieldPath(col.FieldPath) {
			c.add(at+"/fieldPath", "must be a dotted path into the step's output, such as prospect.job_title")
		}
		if len([]rune(col.Label)) > maxNameLength {
			c.add(at+"/label", "must be at most %d characters", maxNameLength)
		}
	}
}

func validFieldPath(p string) bool {
	if p == "" {
		return false
	}
	for _, seg := range strings.Split(p, ".") {
		if seg == "" || strings.ContainsAny(seg, " \t\n") {
			return false
		}
	}
	return true
}

// escape makes a JSON pointer token of a key (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

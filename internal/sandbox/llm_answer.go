package sandbox

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/action"
)

// answerBudget is about how many values an answer holds beyond what the
// schema requires: optional members and extra items stop there.
const answerBudget = 200

var answerWords = []string{
	"pipeline", "revenue", "outreach", "signal", "account", "prospect", "meeting", "intent",
	"hiring", "growth", "budget", "renewal", "champion", "expansion", "pilot", "demo",
	"founder", "sales", "marketing", "partner", "launch", "feedback", "priority", "follow-up",
}

var answerNames = []string{"ada", "grace", "alan", "linus", "barbara", "ken", "margaret", "dennis"}

// GenerateAnswer makes a value that matches s, deterministically from
// seed: enums pick a member, required members are always present,
// optional ones while the budget lasts, numbers and lengths keep their
// bounds, and strings with a format (email, date-time, date, uri, uuid,
// hostname) have that shape.
func GenerateAnswer(s *action.Schema, seed uint64) any {
	g := &answerGen{r: newRNG(seed), budget: answerBudget}
	return g.value(s, "")
}

type answerGen struct {
	r      *rng
	budget int
}

func (g *answerGen) value(s *action.Schema, name string) any {
	g.budget--
	if s == nil {
		return g.text(&action.Schema{}, name)
	}
	if s.HasEnum {
		return s.Enum[g.r.intn(len(s.Enum))]
	}
	switch g.pickType(s) {
	case "object":
		return g.object(s)
	case "array":
		return g.array(s, name)
	case "integer":
		return g.integer(s)
	case "number":
		return g.number(s)
	case "boolean":
		return g.r.chance(0.5)
	case "null":
		return nil
	}
	return g.text(s, name)
}

// pickType chooses among the allowed types: not null when another is
// allowed, and only types whose smallest value fits the budget unless
// none does.
func (g *answerGen) pickType(s *action.Schema) string {
	if len(s.Types) == 0 {
		return "string"
	}
	var fit []string
	for _, t := range s.Types {
		if t == "null" && len(s.Types) > 1 {
			continue
		}
		one := *s
		one.Types = []string{t}
		if one.MinimalSize() <= max(g.budget, 1) {
			fit = append(fit, t)
		}
	}
	if len(fit) == 0 {
		best, size := s.Types[0], math.MaxInt
		for _, t := range s.Types {
			one := *s
			one.Types = []string{t}
			if n := one.MinimalSize(); n < size {
				best, size = t, n
			}
		}
		return best
	}
	return fit[g.r.intn(len(fit))]
}

func (g *answerGen) object(s *action.Schema) map[string]any {
	out := map[string]any{}
	for _, name := range s.Required {
		sub, ok := s.Properties[name]
		if !ok {
			sub = s.Additional
		}
		out[name] = g.value(sub, name)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, done := out[name]; done {
			continue
		}
		sub := s.Properties[name]
		if sub.MinimalSize() > g.budget {
			continue
		}
		out[name] = g.value(sub, name)
	}
	return out
}

func (g *answerGen) array(s *action.Schema, name string) []any {
	lo, hi := 1, 3
	if s.MinItems != nil {
		lo, hi = *s.MinItems, max(*s.MinItems, 3)
	}
	if s.MaxItems != nil {
		hi = min(hi, *s.MaxItems)
		lo = min(lo, hi)
	}
	n := g.r.between(lo, hi)
	each := 1
	if s.Items != nil {
		each = s.Items.MinimalSize()
	}
	for n > lo && n*each > g.budget {
		n--
	}
	out := make([]any, 0, n)
	for range n {
		out = append(out, g.value(s.Items, strings.TrimSuffix(name, "s")))
	}
	return out
}

// bounds are a number's range: the schema's, or a small one near it.
func bounds(s *action.Schema) (float64, float64) {
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		return *s.Minimum, *s.Maximum
	case s.Minimum != nil:
		return *s.Minimum, *s.Minimum + 100
	case s.Maximum != nil:
		return *s.Maximum - 100, *s.Maximum
	}
	return 0, 100
}

func (g *answerGen) integer(s *action.Schema) float64 {
	lo, hi := bounds(s)
	lo, hi = math.Ceil(lo), math.Floor(hi)
	f := g.r.float()
	v := lo + math.Floor(f*(hi-lo+1))
	if math.IsInf(hi-lo+1, 0) {
		v = math.Floor(lo/2 + hi/2 + (2*f-1)*(hi/2-lo/2))
	}
	if math.IsNaN(v) || v < lo || v > hi {
		return lo
	}
	return v
}

func (g *answerGen) number(s *action.Schema) float64 {
	lo, hi := bounds(s)
	// From the middle out, so that no step overflows.
	v := lo/2 + hi/2 + (2*g.r.float()-1)*(hi/2-lo/2)
	if r := math.Round(v*100) / 100; r >= lo && r <= hi {
		v = r
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		return lo
	}
	return v
}

func (g *answerGen) text(s *action.Schema, name string) string {
	r := g.r
	word := func() string { return pick(r, answerWords) }
	var v string
	switch strings.ToLower(s.Format) {
	case "email":
		v = pick(r, answerNames) + "." + word() + "@example.com"
	case "date-time":
		v = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.intn(365*24*60)) * time.Minute).Format(time.RFC3339)
	case "date":
		v = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.intn(365)).Format(time.DateOnly)
	case "uri", "url":
		v = "https://example.com/" + word()
	case "uuid":
		v = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.next()>>32, r.next()>>48, r.next()>>52, r.next()>>52, r.next()>>16)
	case "hostname":
		v = word() + ".example.com"
	default:
		n := r.between(2, 5)
		parts := make([]string, 0, n+1)
		if name != "" {
			parts = append(parts, name)
		}
		for range n {
			parts = append(parts, word())
		}
		v = strings.Join(parts, " ")
	}
	if s.MinLength != nil {
		for utf8.RuneCountInString(v) < *s.MinLength {
			v += " " + word()
		}
	}
	if s.MaxLength != nil && len([]rune(v)) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v
}

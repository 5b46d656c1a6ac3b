package workflow

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/trawlhq/trawl/internal/action"
)

// FuzzValidate feeds arbitrary definitions to the validator: it must never
// panic, and a definition it accepts must have unique, well-formed ids.
func FuzzValidate(f *testing.F) {
	f.Add(validDef)
	f.Add(`{"actions":[{"id":"a","kind":"builtin:loop","inputs":{"items":"{{ trigger.x }}"}},{"id":"b","kind":"builtin:set","inputs":{"values":{"v":"{{ loop.item }}"}}}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"b","conditional":{"type":"loop"}},{"from":"b","to":"a"},{"from":"b","to":"b"}]}`)
	f.Add(`{"actions":[{"id":"a","kind":"builtin:if","inputs":{"condition":"{{ {{ }}"}}],"edges":[{"from":"a","to":"a","conditional":{"type":"match","ref":"steps"}}]}`)
	v := &Validator{Catalogue: action.NewCatalogue()}
	look := fakeLookup{topics: []string{"t1"}, secrets: []string{"SLACK"}}
	f.Fuzz(func(t *testing.T, js string) {
		var d Definition
		if json.Unmarshal([]byte(js), &d) != nil {
			return
		}
		ps, err := v.Validate(context.Background(), d, "/workflow", look)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > 0 {
			return
		}
		seen := map[string]bool{}
		for _, a := range d.Actions {
			if seen[a.ID] || !actionIDRE.MatchString(a.ID) {
				t.Fatalf("accepted a definition with id %q", a.ID)
			}
			seen[a.ID] = true
		}
	})
}

func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"{{ a }}", "x {{ b }} y", "{{", "}}{{}}", "{{ 1 }}{{ 2 }}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tp, err := parseTemplate(s)
		if err != nil {
			return
		}
		// Reassembling the parts gives back the input, spaces in holes aside.
		n := 0
		for _, p := range tp.parts {
			n += len(p.text) + len(p.code)
		}
		if n > len(s) {
			t.Fatalf("parts longer than the input: %q", s)
		}
	})
}

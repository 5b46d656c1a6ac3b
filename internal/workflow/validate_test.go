package workflow

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/action"
)

type fakeLookup struct{ topics, secrets []string }

func (f fakeLookup) TopicExists(_ context.Context, id string) (bool, error) {
	return slices.Contains(f.topics, id), nil
}
func (f fakeLookup) SecretExists(_ context.Context, name string) (bool, error) {
	return slices.Contains(f.secrets, name), nil
}

func validate(t *testing.T, js string) []Problem {
	t.Helper()
	var d Definition
	dec := json.NewDecoder(strings.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	v := &Validator{Catalogue: action.NewCatalogue()}
	ps, err := v.Validate(context.Background(), d, "/workflow", fakeLookup{topics: []string{"t1"}, secrets: []string{"SLACK"}})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// A workflow that uses most of what the validator knows, and is valid.
const validDef = `{
 "trigger": {"kind": "workflows/engagement", "inputs": {"topic_id": "t1"}},
 "actions": [
  {"id": "enrich", "kind": "person_enrichment", "name": "Enrich", "inputs": {"profile_url": "{{ trigger.prospect.pronet_url }}"}, "retry": {"max_attempts": 3, "backoff_ms": 500}, "timeout_ms": 5000},
  {"id": "senior", "kind": "builtin:if", "inputs": {"condition": "{{ steps.enrich.output.prospect.job_title contains 'VP' }}"}},
  {"id": "notify", "kind": "slack_send_channel_message", "inputs": {"webhook_url": "SLACK", "text": "New VP: {{ steps.enrich.output.prospect.full_name }}"}},
  {"id": "each", "kind": "builtin:loop", "inputs": {"items": "{{ steps.enrich.output.experience }}"}},
  {"id": "hook", "kind": "http_request", "inputs": {"method": "POST", "url": "https://crm.example.com/x", "body": {"company": "{{ loop.item.company_name }}", "n": "{{ loop.index }}"}}},
  {"id": "done", "kind": "builtin:set", "inputs": {"values": {"count": "{{ steps.each.output.count }}"}}}
 ],
 "edges": [
  {"from": "$source", "to": "enrich"},
  {"from": "enrich", "to": "senior"},
  {"from": "senior", "to": "notify", "conditional": {"type": "if"}},
  {"from": "senior", "to": "each", "conditional": {"type": "else"}},
  {"from": "each", "to": "hook", "conditional": {"type": "loop"}},
  {"from": "hook", "to": "each"},
  {"from": "each", "to": "done", "conditional": {"type": "completed"}}
 ],
 "column_config": [{"id": "c1", "stepId": "enrich", "fieldPath": "prospect.job_title", "label": "Title"}]
}`

func TestValidDefinition(t *testing.T) {
	if ps := validate(t, validDef); len(ps) != 0 {
		t.Fatalf("problems in a valid definition: %+v", ps)
	}
	if ps := validate(t, `{"actions": [], "edges": []}`); len(ps) != 0 {
		t.Fatalf("problems in an empty definition: %+v", ps)
	}
}

func TestValidationRules(t *testing.T) {
	cases := []struct {
		name, def, pointer, contains string
	}{
		{"bad id", `{"actions":[{"id":"a b","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a b"}]}`, "/workflow/actions/0/id", "letters"},
		{"source as id", `{"actions":[{"id":"$source","kind":"builtin:exit"}],"edges":[]}`, "/workflow/actions/0/id", "$source"},
		{"duplicate id", `{"actions":[{"id":"a","kind":"builtin:exit"},{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/1/id", "unique"},
		{"unknown kind", `{"actions":[{"id":"a","kind":"nope"}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/kind", "not an action kind"},
		{"edge from unknown", `{"actions":[{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"x","to":"a"}]}`, "/workflow/edges/1/from", "names no action"},
		{"edge to unknown", `{"actions":[{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"zz"}]}`, "/workflow/edges/1/to", "names no action"},
		{"edge to source", `{"actions":[{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"$source"}]}`, "/workflow/edges/1/to", "$source"},
		{"unreachable", `{"actions":[{"id":"a","kind":"builtin:exit"},{"id":"b","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/1", "not reachable"},
		{"cycle", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{}}},{"id":"b","kind":"builtin:set","inputs":{"values":{}}}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"a"}]}`, "/workflow/edges/", "cycle"},
		{"if without else", `{"actions":[{"id":"c","kind":"builtin:if","inputs":{"condition":true}},{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"c"},{"from":"c","to":"a","conditional":{"type":"if"}}]}`, "/workflow/actions/0", "exactly one edge"},
		{"if edge from non-if", `{"actions":[{"id":"a","kind":"builtin:exit"},{"id":"b","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"b","conditional":{"type":"if"}}]}`, "/workflow/edges/1/conditional/type", "builtin:if only"},
		{"loop without body", `{"actions":[{"id":"l","kind":"builtin:loop","inputs":{"items":[1]}}],"edges":[{"from":"$source","to":"l"}]}`, "/workflow/actions/0", "builtin:loop"},
		{"match without ref", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{}}},{"id":"b","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"b","conditional":{"type":"match"}}]}`, "/workflow/edges/1/conditional/ref", "required"},
		{"match ref bad", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{}}},{"id":"b","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"b","conditional":{"type":"match","ref":"output.x >"}}]}`, "/workflow/edges/1/conditional/ref", "compile"},
		{"missing input", `{"actions":[{"id":"h","kind":"http_request","inputs":{}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/url", "required"},
		{"wrong type", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":5}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/url", "string"},
		{"bad enum", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://a.example","method":"FETCH"}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/method", "one of"},
		{"unknown input", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://a.example","verb":"GET"}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/verb", "not an input"},
		{"bad url", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"ftp://a"}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/url", "http"},
		{"template does not compile", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://a.example/{{ trigger. }}"}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/url", "compile"},
		{"template unknown variable", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://a.example/{{ secret }}"}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/url", "unknown name"},
		{"template unclosed", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://a.example/{{ trigger.x"}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/url", "closing"},
		{"template downstream", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{"x":"{{ steps.b.output }}"}}},{"id":"b","kind":"builtin:set","inputs":{"values":{}}}],"edges":[{"from":"$source","to":"a"},{"from":"a","to":"b"}]}`, "/workflow/actions/0/inputs/values/x", "does not run before"},
		{"template sibling branch", `{"actions":[{"id":"c","kind":"builtin:if","inputs":{"condition":true}},{"id":"x","kind":"builtin:set","inputs":{"values":{}}},{"id":"y","kind":"builtin:set","inputs":{"values":{"v":"{{ steps.x.output }}"}}}],"edges":[{"from":"$source","to":"c"},{"from":"c","to":"x","conditional":{"type":"if"}},{"from":"c","to":"y","conditional":{"type":"else"}}]}`, "/workflow/actions/2/inputs/values/v", "does not run before"},
		{"template missing step", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{"x":"{{ steps.zz.output }}"}}}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/inputs/values/x", "no action zz"},
		{"template self", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{"x":"{{ steps.a.output }}"}}}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/inputs/values/x", "own output"},
		{"template dynamic step", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{"x":"{{ steps[trigger.id] }}"}}}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/inputs/values/x", "literal step id"},
		{"loop variable outside loop", `{"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{"x":"{{ loop.item }}"}}}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/inputs/values/x", "body of a builtin:loop"},
		{"secret missing", `{"actions":[{"id":"s","kind":"slack_send_channel_message","inputs":{"webhook_url":"NOPE","text":"hi"}}],"edges":[{"from":"$source","to":"s"}]}`, "/workflow/actions/0/inputs/webhook_url", "no secret"},
		{"secret template", `{"actions":[{"id":"s","kind":"slack_send_channel_message","inputs":{"webhook_url":"{{ trigger.x }}","text":"hi"}}],"edges":[{"from":"$source","to":"s"}]}`, "/workflow/actions/0/inputs/webhook_url", "literally"},
		{"secret header missing", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://example.com","secret_headers":{"Authorization":"NOPE"}}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/secret_headers/Authorization", "no secret"},
		{"secret header template", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://example.com","secret_headers":{"Authorization":"{{ trigger.x }}"}}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/secret_headers/Authorization", "literally"},
		{"slack needs text", `{"actions":[{"id":"s","kind":"slack_send_channel_message","inputs":{"webhook_url":"SLACK"}}],"edges":[{"from":"$source","to":"s"}]}`, "/workflow/actions/0/inputs/text", "required"},
		{"retry range", `{"actions":[{"id":"a","kind":"builtin:exit","retry":{"max_attempts":11}}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/retry/max_attempts", "1-10"},
		{"timeout range", `{"actions":[{"id":"a","kind":"builtin:exit","timeout_ms":5}],"edges":[{"from":"$source","to":"a"}]}`, "/workflow/actions/0/timeout_ms", "100-600000"},
		{"delay duration", `{"actions":[{"id":"d","kind":"builtin:delay","inputs":{"duration":"forever"}}],"edges":[{"from":"$source","to":"d"}]}`, "/workflow/actions/0/inputs/duration", "duration"},
		{"unknown trigger", `{"trigger":{"kind":"workflows/nope"},"actions":[],"edges":[]}`, "/workflow/trigger/kind", "one of"},
		{"trigger input unknown", `{"trigger":{"kind":"workflows/webhook","inputs":{"x":1}},"actions":[],"edges":[]}`, "/workflow/trigger/inputs/x", "not an input"},
		{"topic missing", `{"trigger":{"kind":"workflows/engagement","inputs":{}},"actions":[],"edges":[]}`, "/workflow/trigger/inputs/topic_id", "required"},
		{"topic of another account", `{"trigger":{"kind":"workflows/engagement","inputs":{"topic_id":"t2"}},"actions":[],"edges":[]}`, "/workflow/trigger/inputs/topic_id", "no topic"},
		{"cron bad", `{"trigger":{"kind":"workflows/scheduled-trigger","inputs":{"cron":"0 0 9 * * *"}},"actions":[],"edges":[]}`, "/workflow/trigger/inputs/cron", "5-field"},
		{"zone bad", `{"trigger":{"kind":"workflows/scheduled-trigger","inputs":{"cron":"0 9 * * 1-5","timezone":"Mars/Olympus"}},"actions":[],"edges":[]}`, "/workflow/trigger/inputs/timezone", "IANA"},
		{"column step", `{"actions":[],"edges":[],"column_config":[{"id":"c","stepId":"nope","fieldPath":"a.b","label":"L"}]}`, "/workflow/column_config/0/stepId", "no action"},
		{"column path", `{"actions":[{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"}],"column_config":[{"id":"c","stepId":"a","fieldPath":"a..b","label":"L"}]}`, "/workflow/column_config/0/fieldPath", "dotted"},
		{"duplicate edge", `{"actions":[{"id":"a","kind":"builtin:exit"}],"edges":[{"from":"$source","to":"a"},{"from":"$source","to":"a"}]}`, "/workflow/edges/1", "repeats"},
		{"key with slash", `{"actions":[{"id":"h","kind":"http_request","inputs":{"url":"https://a.example","headers":{"a/b":"x"}}}],"edges":[{"from":"$source","to":"h"}]}`, "/workflow/actions/0/inputs/headers", "header name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := validate(t, tc.def)
			for _, p := range ps {
				if strings.HasPrefix(p.Pointer, tc.pointer) && strings.Contains(p.Message, tc.contains) {
					return
				}
			}
			t.Fatalf("want a problem at %s containing %q; got %+v", tc.pointer, tc.contains, ps)
		})
	}
}

func TestTooManyActions(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"actions":[`)
	for i := range 101 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":"a` + strings.Repeat("x", i%3) + string(rune('0'+i%10)) + `","kind":"builtin:exit"}`)
	}
	b.WriteString(`],"edges":[]}`)
	ps := validate(t, b.String())
	if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Pointer == "/workflow/actions" }) {
		t.Fatalf("101 actions: %+v", ps[:min(3, len(ps))])
	}
}

func TestLoopBodyMustNotRunAfterLoop(t *testing.T) {
	ps := validate(t, `{"actions":[{"id":"l","kind":"builtin:loop","inputs":{"items":[1,2]}},{"id":"b","kind":"builtin:set","inputs":{"values":{}}}],
	 "edges":[{"from":"$source","to":"l"},{"from":"l","to":"b","conditional":{"type":"loop"}},{"from":"l","to":"b","conditional":{"type":"completed"}}]}`)
	if !slices.ContainsFunc(ps, func(p Problem) bool { return strings.Contains(p.Message, "both inside loop") }) {
		t.Fatalf("%+v", ps)
	}
}

func TestDraftSynced(t *testing.T) {
	var d1, d2 Definition
	_ = json.Unmarshal([]byte(validDef), &d1)
	_ = json.Unmarshal([]byte(validDef), &d2)
	w := Workflow{Name: "n", Description: "d", Definition: d1}
	dr := Draft{Name: "n", Description: "d", Definition: d2}
	if !dr.Synced(w) {
		t.Fatal("equal draft not synced")
	}
	dr.Definition.Actions[0].Name = "other"
	if dr.Synced(w) {
		t.Fatal("changed draft synced")
	}
}

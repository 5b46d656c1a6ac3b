package workflow

import (
	"encoding/json"
	"strings"
	"testing"
)

func definition(t *testing.T, js string) Definition {
	t.Helper()
	var d Definition
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// rec is a stored step record: key (step id plus #i per loop item), status.
func rec(seq int, key string, status StepStatus) Step {
	id, _, _ := strings.Cut(key, "#")
	return Step{Key: key, Seq: seq, StepID: id, Status: status}
}

func keys(steps []Step) string {
	var parts []string
	for _, st := range steps {
		parts = append(parts, st.Key+":"+string(st.Status))
	}
	return strings.Join(parts, " ")
}

// hot → loop each over square → count; else cold → never.
const branching = `{"actions":[
 {"id":"hot","kind":"builtin:if"},
 {"id":"each","kind":"builtin:loop"},
 {"id":"square","kind":"builtin:set","name":"Square"},
 {"id":"count","kind":"builtin:set"},
 {"id":"cold","kind":"builtin:exit"},
 {"id":"never","kind":"builtin:set"}],
 "edges":[{"from":"$source","to":"hot"},
  {"from":"hot","to":"each","conditional":{"type":"if"}},{"from":"hot","to":"cold","conditional":{"type":"else"}},
  {"from":"each","to":"square","conditional":{"type":"loop"}},{"from":"each","to":"count","conditional":{"type":"completed"}},
  {"from":"cold","to":"never"}]}`

func TestStepOrder(t *testing.T) {
	if got := strings.Join(StepOrder(definition(t, branching)), " "); got != "hot each square count cold never" {
		t.Errorf("branching: %s", got)
	}
	// The order of actions only breaks ties: c waits for b, b for a.
	chain := `{"actions":[{"id":"c","kind":"builtin:set"},{"id":"b","kind":"builtin:set"},{"id":"a","kind":"builtin:set"},{"id":"d","kind":"builtin:set"}],
	 "edges":[{"from":"$source","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"c"},{"from":"$source","to":"d"}]}`
	if got := strings.Join(StepOrder(definition(t, chain)), " "); got != "a b c d" {
		t.Errorf("chain: %s", got)
	}
}

func TestTimeline(t *testing.T) {
	chain := definition(t, `{"actions":[{"id":"fetch","kind":"http_request","name":"Fetch"},{"id":"crm","kind":"http_request"},{"id":"tell","kind":"builtin:set"}],
	 "edges":[{"from":"$source","to":"fetch"},{"from":"fetch","to":"crm"},{"from":"crm","to":"tell"}]}`)
	loops := definition(t, branching)
	for _, c := range []struct {
		name    string
		def     Definition
		status  ExecutionStatus
		records []Step
		want    string
	}{
		{"a failure skips what never ran", chain, ExecutionFailed,
			[]Step{rec(1, "fetch", StepFailed)},
			"fetch:failed crm:skipped tell:skipped"},
		{"a running execution has the rest pending", chain, ExecutionRunning,
			[]Step{rec(1, "fetch", StepCompleted), rec(2, "crm", StepRunning)},
			"fetch:completed crm:running tell:pending"},
		{"queued: nothing ran yet", chain, ExecutionRunning, nil,
			"fetch:pending crm:pending tell:pending"},
		{"records keep the order they ran in", chain, ExecutionCompleted,
			[]Step{rec(3, "tell", StepCompleted), rec(1, "fetch", StepCompleted), rec(2, "crm", StepCompleted)},
			"fetch:completed crm:completed tell:completed"},
		{"a branch not taken: the loop's body too", loops, ExecutionCompleted,
			[]Step{rec(1, "hot", StepCompleted), rec(2, "each", StepSkipped), rec(3, "count", StepSkipped), rec(4, "cold", StepCompleted), rec(5, "never", StepSkipped)},
			"hot:completed each:skipped square:skipped count:skipped cold:completed never:skipped"},
		{"a loop item fails: one record per item that ran, the rest skipped", loops, ExecutionFailed,
			[]Step{rec(1, "hot", StepCompleted), rec(2, "each", StepFailed), rec(3, "square#0", StepCompleted), rec(4, "square#1", StepFailed)},
			"hot:completed each:failed square#0:completed square#1:failed count:skipped cold:skipped never:skipped"},
		{"a loop left running by an ended execution is failed", loops, ExecutionFailed,
			[]Step{rec(1, "hot", StepCompleted), rec(2, "each", StepRunning), rec(3, "square#0", StepFailed)},
			"hot:completed each:failed square#0:failed count:skipped cold:skipped never:skipped"},
		{"a loop not reached yet", loops, ExecutionRunning,
			[]Step{rec(1, "hot", StepCompleted)},
			"hot:completed each:pending square:pending count:pending cold:pending never:pending"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Timeline(c.def, c.status, c.records)
			if keys(got) != c.want {
				t.Fatalf("got  %s\nwant %s", keys(got), c.want)
			}
			for _, st := range got {
				if st.Status == StepFailed && st.Error == nil && c.name == "a loop left running by an ended execution is failed" && st.StepID == "each" {
					t.Errorf("a loop shown failed has no error: %+v", st)
				}
				if st.Operation == "" && st.Seq == 0 {
					t.Errorf("a stand-in without its action kind: %+v", st)
				}
			}
		})
	}
	// Stand-ins carry the step's name and kind, and nothing that ran.
	got := Timeline(chain, ExecutionRunning, nil)
	if got[0].Name != "Fetch" || got[0].Operation != "http_request" || got[0].StartedAt != nil || got[0].Input != nil || got[0].Error != nil {
		t.Errorf("stand-in %+v", got[0])
	}
	// The stored records are not changed.
	records := []Step{rec(2, "each", StepRunning)}
	if Timeline(loops, ExecutionFailed, records); records[0].Status != StepRunning || records[0].Error != nil {
		t.Errorf("records changed: %+v", records[0])
	}
}

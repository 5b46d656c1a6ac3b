package workflow

import (
	"slices"

	"github.com/trawlhq/trawl/internal/action"
)

// StepOrder is the order in which the engine considers the steps of a
// definition: at each level, a step once every edge into it from that
// level is settled, ties going to the order of actions; a loop's body
// right after the loop. Each step id appears once.
func StepOrder(def Definition) []string {
	out := map[string][]int{}
	index := map[string]int{}
	for i, a := range def.Actions {
		index[a.ID] = i
	}
	for i, e := range def.Edges {
		out[e.From] = append(out[e.From], i)
	}
	isLoop := func(id string) bool {
		i, ok := index[id]
		return ok && def.Actions[i].Kind == action.KindLoop
	}
	edgeType := func(i int) string {
		if c := def.Edges[i].Conditional; c != nil {
			return c.Type
		}
		return ""
	}
	// Bodies, as the engine finds them: what a loop edge reaches without
	// passing the loop again; the edges back to the loop end an item.
	body := map[string]map[string]bool{}
	back := map[int]bool{}
	inBody := map[string]bool{}
	for _, a := range def.Actions {
		if a.Kind != action.KindLoop {
			continue
		}
		nodes := map[string]bool{}
		for _, ei := range out[a.ID] {
			if edgeType(ei) != EdgeLoop {
				continue
			}
			queue := []string{def.Edges[ei].To}
			nodes[queue[0]] = true
			for len(queue) > 0 {
				n := queue[0]
				queue = queue[1:]
				for _, ej := range out[n] {
					to := def.Edges[ej].To
					if to == a.ID {
						back[ej] = true
						continue
					}
					if !nodes[to] {
						nodes[to] = true
						queue = append(queue, to)
					}
				}
			}
		}
		body[a.ID] = nodes
		for n := range nodes {
			inBody[n] = true
		}
	}
	var order []string
	seen := map[string]bool{}
	var level func(nodes map[string]bool, start string)
	level = func(nodes map[string]bool, start string) {
		settled := map[int]bool{}
		for _, ei := range out[start] {
			if start == Source || edgeType(ei) == EdgeLoop {
				settled[ei] = true
			}
		}
		incoming := map[string][]int{}
		for i, e := range def.Edges {
			if nodes[e.To] && !back[i] && (nodes[e.From] || e.From == start) {
				incoming[e.To] = append(incoming[e.To], i)
			}
		}
		done := map[string]bool{}
		for {
			next := ""
			for _, a := range def.Actions {
				if nodes[a.ID] && !done[a.ID] && !slices.ContainsFunc(incoming[a.ID], func(ei int) bool { return !settled[ei] }) {
					next = a.ID
					break
				}
			}
			if next == "" {
				// Whatever a malformed graph leaves (a cycle), in the
				// order of actions.
				for _, a := range def.Actions {
					if nodes[a.ID] && !done[a.ID] {
						done[a.ID] = true
						if !seen[a.ID] {
							seen[a.ID] = true
							order = append(order, a.ID)
						}
					}
				}
				return
			}
			done[next] = true
			if !seen[next] {
				seen[next] = true
				order = append(order, next)
			}
			if isLoop(next) {
				level(body[next], next)
			}
			for _, ei := range out[next] {
				settled[ei] = true
			}
		}
	}
	top := map[string]bool{}
	for _, a := range def.Actions {
		if !inBody[a.ID] {
			top[a.ID] = true
		}
	}
	level(top, Source)
	// A step no level reaches (a body entered from nowhere) still appears.
	for _, a := range def.Actions {
		if !seen[a.ID] {
			seen[a.ID] = true
			order = append(order, a.ID)
		}
	}
	return order
}

// Timeline is every step of an execution's definition, each with the
// status it stands in, in order: the step records as they ran (one per
// loop item that reached the step), and for each step that has no record
// at all, one that says why: pending while the execution still runs,
// skipped once it has ended (it never ran, as after a failure). Such a
// step is placed after the records of the steps that come before it in
// StepOrder. A record still running in an ended execution (a loop whose
// body failed, as stored before the engine recorded that) is shown
// failed. Nothing here is stored: the records stay what the engine wrote,
// so replay after a crash sees exactly what it did before.
func Timeline(def Definition, status ExecutionStatus, records []Step) []Step {
	ended := status != ExecutionRunning
	order := StepOrder(def)
	pos := make(map[string]int, len(order))
	for i, id := range order {
		pos[id] = i
	}
	rank := func(id string) int {
		if p, ok := pos[id]; ok {
			return p
		}
		return len(order)
	}
	recs := slices.Clone(records)
	slices.SortStableFunc(recs, func(a, b Step) int { return a.Seq - b.Seq })
	has := map[string]bool{}
	for i, st := range recs {
		has[st.StepID] = true
		if ended && st.Status == StepRunning {
			recs[i].Status = StepFailed
			if recs[i].Error == nil {
				recs[i].Error = &StepError{Code: "EXECUTION_ENDED", Message: "the execution ended before this step did"}
			}
		}
	}
	missing := StepSkipped
	if !ended {
		missing = StepPending
	}
	// after[i] lists the stand-ins that follow recs[i-1] (after[0]: before
	// every record).
	after := make([][]Step, len(recs)+1)
	for _, id := range order {
		if has[id] {
			continue
		}
		a := def.Actions[slices.IndexFunc(def.Actions, func(a Action) bool { return a.ID == id })]
		anchor, best := 0, -1
		for i, st := range recs {
			if rank(st.StepID) < pos[id] && st.Seq > best {
				anchor, best = i+1, st.Seq
			}
		}
		after[anchor] = append(after[anchor], Step{Key: id, StepID: id, Name: a.Name, Operation: a.Kind, Status: missing})
	}
	out := make([]Step, 0, len(recs)+len(order))
	out = append(out, after[0]...)
	for i, st := range recs {
		out = append(out, st)
		out = append(out, after[i+1]...)
	}
	return out
}

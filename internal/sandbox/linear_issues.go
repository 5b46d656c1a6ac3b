package sandbox

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

var linearUUIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

var linearSlugRE = regexp.MustCompile(`[^a-z0-9]+`)

// createIssue is issueCreate(input: IssueCreateInput!): the issue takes
// the client's id when one is given (a UUID), and a second create with
// that id is refused, as Linear refuses it.
func (ws *linearWorkspace) createIssue(w http.ResponseWriter, in map[string]any) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	invalid := func(msg string) {
		linearError(w, http.StatusBadRequest, "Argument Validation Error", "invalid input", "INVALID_INPUT", msg)
	}
	if in == nil {
		invalid("input is required.")
		return
	}
	team := ws.team(str("teamId"))
	title := strings.TrimSpace(str("title"))
	id := str("id")
	switch {
	case str("teamId") == "":
		invalid("teamId must be a UUID.")
		return
	case title == "":
		invalid("title should not be empty.")
		return
	case len(title) > 255:
		invalid("title must be shorter than or equal to 255 characters.")
		return
	case id != "" && !linearUUIDRE.MatchString(id):
		invalid("id must be a UUID.")
		return
	case ws.issues[id] != nil:
		invalid("An issue with this id already exists.")
		return
	case team == nil:
		linearNotFound(w, "Team")
		return
	}
	prio := 0.0
	if p, ok := in["priority"]; ok && p != nil {
		f, isNum := p.(float64)
		if !isNum || f != float64(int(f)) || f < 0 || f > 4 {
			invalid("priority must not be greater than 4.")
			return
		}
		prio = f
	}
	state := team.States[1]
	if sid := str("stateId"); sid != "" {
		i := slices.IndexFunc(team.States, func(s map[string]any) bool { return s["id"] == sid })
		if i < 0 {
			linearNotFound(w, "WorkflowState")
			return
		}
		state = team.States[i]
	}
	var assignee any
	if aid := str("assigneeId"); aid != "" {
		i := slices.IndexFunc(ws.users, func(u map[string]any) bool { return u["id"] == aid })
		if i < 0 {
			linearNotFound(w, "User")
			return
		}
		assignee = map[string]any{"id": aid, "name": ws.users[i]["name"]}
	}
	labels := []any{}
	ids, _ := in["labelIds"].([]any)
	for _, l := range ids {
		i := slices.IndexFunc(ws.labels, func(x map[string]any) bool { return x["id"] == l })
		if i < 0 {
			linearNotFound(w, "IssueLabel")
			return
		}
		labels = append(labels, ws.labels[i])
	}
	if strings.HasPrefix(title, "flaky-") && !ws.flaky[title] {
		ws.flaky[title] = true
		linearRateLimited(w)
		return
	}
	if len(ws.issues) >= linearMaxIssues {
		invalid(fmt.Sprintf("The workspace has reached its limit of %d issues.", linearMaxIssues))
		return
	}
	if id == "" {
		id = uuidOfSeed(fmt.Sprintf("linear-issue:%s:%d", ws.key, len(ws.issues)))
	}
	ws.counts[team.Key]++
	n := ws.counts[team.Key]
	ident := fmt.Sprintf("%s-%d", team.Key, n)
	slug := strings.Trim(linearSlugRE.ReplaceAllString(strings.ToLower(title), "-"), "-")
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	issue := map[string]any{"id": id, "identifier": ident, "number": n, "title": title, "description": in["description"],
		"priority": prio, "url": "https://linear.app/sandbox/issue/" + ident + "/" + slug, "createdAt": now, "updatedAt": now,
		"team": map[string]any{"id": team.ID, "key": team.Key}, "state": state, "assignee": assignee,
		"labels": map[string]any{"nodes": labels}}
	ws.issues[id] = issue
	linearData(w, map[string]any{"issueCreate": map[string]any{"success": true, "lastSyncId": float64(len(ws.issues)), "issue": issue}})
}

package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Linear's GraphQL API, the operations Trawl sends and nothing more
// (docs/integrations/notion-linear-pipedrive.md): POST /graphql with
// {operationName, query, variables}; the operation is found by its name
// (Viewer, Teams, Users, TeamMembers, TeamStates, IssueCreate, Issue),
// never by parsing the query, and the answer holds every field of the
// objects Trawl selects. Each API key (the Authorization header's whole
// value) is its own workspace with teams ENG and OPS, three users, five
// workflow states per team and two labels. Faults, in Linear's shape
// ({"errors":[{"message","extensions":{"type","code",…}}]}): a key
// starting "invalid" gets 400 AUTHENTICATION_ERROR, "ratelimited" 400
// RATELIMITED; an issue titled "flaky-…" is refused once with RATELIMITED;
// a bad input is 400 INVALID_INPUT; an unknown id "Entity not found".

const linearMaxIssues = 10_000

type linearWorkspace struct {
	key    string
	teams  []linearTeam
	users  []map[string]any
	labels []map[string]any
	issues map[string]map[string]any
	counts map[string]int // issues per team key
	flaky  map[string]bool
}

type linearTeam struct {
	ID, Key, Name string
	States        []map[string]any
}

func newLinearWorkspace(key string) *linearWorkspace {
	ws := &linearWorkspace{key: key, issues: map[string]map[string]any{}, counts: map[string]int{}, flaky: map[string]bool{}}
	for _, t := range [][2]string{{"ENG", "Engineering"}, {"OPS", "Operations"}} {
		team := linearTeam{ID: uuidOfSeed("linear-team:" + key + t[0]), Key: t[0], Name: t[1]}
		for _, st := range [][2]string{{"Backlog", "backlog"}, {"Todo", "unstarted"}, {"In Progress", "started"}, {"Done", "completed"}, {"Canceled", "canceled"}} {
			team.States = append(team.States, map[string]any{"id": uuidOfSeed("linear-state:" + key + t[0] + st[0]), "name": st[0], "type": st[1]})
		}
		ws.teams = append(ws.teams, team)
	}
	for _, u := range [][2]string{{"Ada Lovelace", "ada@example.com"}, {"Grace Hopper", "grace@example.com"}, {"Alan Turing", "alan@example.com"}} {
		ws.users = append(ws.users, map[string]any{"id": uuidOfSeed("linear-user:" + key + u[1]), "name": u[0], "displayName": strings.Fields(u[0])[0], "email": u[1], "active": true})
	}
	for _, l := range []string{"Bug", "Feature"} {
		ws.labels = append(ws.labels, map[string]any{"id": uuidOfSeed("linear-label:" + key + l), "name": l})
	}
	return ws
}

func (s *Sandbox) linearHandler() http.Handler {
	var mu sync.Mutex
	spaces := map[string]*linearWorkspace{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimSpace(r.Header.Get("Authorization"))
		switch {
		case key == "" || strings.HasPrefix(key, "invalid") || strings.HasPrefix(key, "Bearer invalid"):
			linearError(w, http.StatusBadRequest, "Authentication required, not authenticated", "authentication error", "AUTHENTICATION_ERROR",
				"You need to authenticate to access this operation.")
			return
		case strings.HasPrefix(key, "ratelimited"):
			linearRateLimited(w)
			return
		}
		var req struct {
			OperationName string         `json:"operationName"`
			Query         string         `json:"query"`
			Variables     map[string]any `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || strings.TrimSpace(req.Query) == "" {
			linearError(w, http.StatusBadRequest, "Must provide query string.", "graphql error", "GRAPHQL_PARSE_FAILED", "")
			return
		}
		mu.Lock()
		defer mu.Unlock()
		ws := spaces[key]
		if ws == nil {
			ws = newLinearWorkspace(key)
			spaces[key] = ws
		}
		ws.serve(w, linearOperation(req.OperationName, req.Query), req.Variables)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"errors": []any{map[string]any{"message": "Not found"}}})
	})
	return mux
}

var linearOpRE = regexp.MustCompile(`^\s*(?:query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// linearOperation is the request's operation name, or the first
// operation's name in its query.
func linearOperation(name, query string) string {
	if name != "" {
		return name
	}
	if m := linearOpRE.FindStringSubmatch(query); m != nil {
		return m[1]
	}
	return ""
}

func linearError(w http.ResponseWriter, status int, msg, typ, code, user string) {
	ext := map[string]any{"type": typ, "code": code, "userError": true}
	if user != "" {
		ext["userPresentableMessage"] = user
	}
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"message": msg, "extensions": ext}}})
}

func linearRateLimited(w http.ResponseWriter) {
	w.Header().Set("X-RateLimit-Requests-Limit", "1500")
	w.Header().Set("X-RateLimit-Requests-Remaining", "0")
	w.Header().Set("X-RateLimit-Requests-Reset", fmt.Sprint(time.Now().Add(time.Second).UnixMilli()))
	w.Header().Set("Retry-After", "1")
	linearError(w, http.StatusBadRequest, "Rate limit exceeded", "ratelimited", "RATELIMITED", "You have exceeded the rate limit. Please try again later.")
}

func linearData(w http.ResponseWriter, data map[string]any) {
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// linearNotFound is Linear's answer about an id it does not know: 200,
// data null, the error beside it.
func linearNotFound(w http.ResponseWriter, what string) {
	writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []any{map[string]any{"message": "Entity not found: " + what,
		"extensions": map[string]any{"type": "invalid input", "code": "INPUT_ERROR", "userError": true,
			"userPresentableMessage": "Could not find referenced " + what + "."}}}})
}

func (ws *linearWorkspace) team(id string) *linearTeam {
	for i := range ws.teams {
		if ws.teams[i].ID == id || ws.teams[i].Key == id {
			return &ws.teams[i]
		}
	}
	return nil
}

func (ws *linearWorkspace) serve(w http.ResponseWriter, op string, vars map[string]any) {
	str := func(k string) string { s, _ := vars[k].(string); return s }
	switch op {
	case "Viewer":
		linearData(w, map[string]any{"viewer": ws.users[0]})
	case "Teams":
		nodes := []any{}
		for _, t := range ws.teams {
			nodes = append(nodes, map[string]any{"id": t.ID, "key": t.Key, "name": t.Name})
		}
		linearData(w, map[string]any{"teams": map[string]any{"nodes": nodes}})
	case "Users":
		linearData(w, map[string]any{"users": map[string]any{"nodes": ws.users}})
	case "TeamMembers", "TeamStates":
		t := ws.team(str("teamId"))
		if t == nil {
			linearNotFound(w, "Team")
			return
		}
		// Every user is in ENG; OPS has the first two.
		members := ws.users
		if t.Key == "OPS" {
			members = ws.users[:2]
		}
		linearData(w, map[string]any{"team": map[string]any{"id": t.ID, "members": map[string]any{"nodes": members},
			"states": map[string]any{"nodes": t.States}}})
	case "Issue":
		if is := ws.issues[str("id")]; is != nil {
			linearData(w, map[string]any{"issue": is})
			return
		}
		linearNotFound(w, "Issue")
	case "IssueCreate":
		in, _ := vars["input"].(map[string]any)
		ws.createIssue(w, in)
	default:
		linearError(w, http.StatusBadRequest, fmt.Sprintf("Unknown operation %q (the sandbox answers Viewer, Teams, Users, TeamMembers, TeamStates, Issue, IssueCreate).", op),
			"graphql error", "GRAPHQL_VALIDATION_FAILED", "")
	}
}

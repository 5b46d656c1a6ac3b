package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Notion's API, the subset Trawl's connections use
// (docs/integrations/notion-linear-pipedrive.md): GET /v1/users/me,
// POST /v1/search (databases), GET /v1/databases/{id}, POST
// /v1/databases/{id}/query (one equals filter), POST /v1/pages, PATCH and
// GET /v1/pages/{id}. Each bearer token is its own workspace holding two
// databases (Leads, Tasks) with every property type Trawl writes. Faults:
// a token starting "invalid" gets 401 unauthorized, "ratelimited" 429
// rate_limited; a page whose title starts "flaky-" is refused once with
// 429; an unknown id is 404 object_not_found; a value of the wrong shape,
// an unknown property or a text over 2,000 characters is 400
// validation_error.

const notionMaxPages = 10_000

type notionWorkspace struct {
	databases []*notionDB
	pages     map[string]*notionPage
	order     []string // page ids, by creation
	flaky     map[string]bool
}

type notionDB struct {
	ID, Title string
	Props     []notionPropDef
}

type notionPropDef struct {
	Name, Type string
	Options    []string
}

type notionPage struct {
	ID, DatabaseID string
	Created        time.Time
	Edited         time.Time
	Props          map[string]map[string]any
	Blocks         int
}

func (s *Sandbox) notionHandler() http.Handler {
	var mu sync.Mutex
	spaces := map[string]*notionWorkspace{}
	space := func(token string) *notionWorkspace {
		if ws := spaces[token]; ws != nil {
			return ws
		}
		ws := &notionWorkspace{pages: map[string]*notionPage{}, flaky: map[string]bool{}}
		ws.databases = []*notionDB{
			{ID: uuidOfSeed("notion-db-leads:" + token), Title: "Leads", Props: []notionPropDef{
				{Name: "Name", Type: "title"}, {Name: "Email", Type: "email"}, {Name: "Company", Type: "rich_text"},
				{Name: "Score", Type: "number"}, {Name: "Stage", Type: "select", Options: []string{"New", "Qualified", "Won"}},
				{Name: "Tags", Type: "multi_select", Options: []string{"vip", "partner"}}, {Name: "Website", Type: "url"},
				{Name: "Phone", Type: "phone_number"}, {Name: "Subscribed", Type: "checkbox"}, {Name: "Met", Type: "date"},
			}},
			{ID: uuidOfSeed("notion-db-tasks:" + token), Title: "Tasks", Props: []notionPropDef{
				{Name: "Task", Type: "title"}, {Name: "Done", Type: "checkbox"},
			}},
		}
		spaces[token] = ws
		return ws
	}
	// with authenticates, then runs h on the token's workspace under the lock.
	with := func(h func(w http.ResponseWriter, r *http.Request, ws *notionWorkspace)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			switch {
			case !ok || token == "" || strings.HasPrefix(token, "invalid"):
				notionError(w, http.StatusUnauthorized, "unauthorized", "API token is invalid.")
				return
			case strings.HasPrefix(token, "ratelimited"):
				w.Header().Set("Retry-After", "1")
				notionError(w, http.StatusTooManyRequests, "rate_limited", "You have been rate limited. Please try again in a few minutes.")
				return
			case r.Header.Get("Notion-Version") == "":
				notionError(w, http.StatusBadRequest, "missing_version", "Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.")
				return
			}
			mu.Lock()
			defer mu.Unlock()
			h(w, r, space(token))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/users/me", with(func(w http.ResponseWriter, r *http.Request, _ *notionWorkspace) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		writeJSON(w, http.StatusOK, map[string]any{"object": "user", "id": uuidOfSeed("notion-bot:" + token), "name": "Trawl",
			"avatar_url": nil, "type": "bot", "bot": map[string]any{"owner": map[string]any{"type": "workspace", "workspace": true}, "workspace_name": "Sandbox workspace"}})
	}))
	mux.HandleFunc("POST /v1/search", with(notionSearch))
	mux.HandleFunc("GET /v1/databases/{id}", with(func(w http.ResponseWriter, r *http.Request, ws *notionWorkspace) {
		if db := ws.database(r.PathValue("id")); db != nil {
			writeJSON(w, http.StatusOK, db.object())
			return
		}
		notionError(w, http.StatusNotFound, "object_not_found", "Could not find database with ID: "+r.PathValue("id")+". Make sure the relevant pages and databases are shared with your integration.")
	}))
	mux.HandleFunc("POST /v1/databases/{id}/query", with(notionQuery))
	mux.HandleFunc("POST /v1/pages", with(notionCreatePage))
	mux.HandleFunc("PATCH /v1/pages/{id}", with(notionUpdatePage))
	mux.HandleFunc("GET /v1/pages/{id}", with(func(w http.ResponseWriter, r *http.Request, ws *notionWorkspace) {
		if p := ws.pages[notionCanon(r.PathValue("id"))]; p != nil {
			writeJSON(w, http.StatusOK, p.object(ws.database(p.DatabaseID)))
			return
		}
		notionError(w, http.StatusNotFound, "object_not_found", "Could not find page with ID: "+r.PathValue("id")+". Make sure the relevant pages and databases are shared with your integration.")
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		notionError(w, http.StatusBadRequest, "invalid_request_url", "Invalid request URL.")
	})
	return mux
}

func notionError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"object": "error", "status": status, "code": code, "message": msg,
		"request_id": uuidOfSeed(fmt.Sprint(code, msg))})
}

var notionHexRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// notionCanon is an id in its dashed form (Notion takes both).
func notionCanon(id string) string {
	h := strings.ToLower(strings.ReplaceAll(id, "-", ""))
	if !notionHexRE.MatchString(h) {
		return id
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (ws *notionWorkspace) database(id string) *notionDB {
	id = notionCanon(id)
	for _, db := range ws.databases {
		if db.ID == id {
			return db
		}
	}
	return nil
}

func notionText(s string) []map[string]any {
	return []map[string]any{{"type": "text", "text": map[string]any{"content": s, "link": nil}, "plain_text": s, "href": nil}}
}

func (db *notionDB) object() map[string]any {
	props := map[string]any{}
	for i, p := range db.Props {
		def := map[string]any{}
		if p.Options != nil {
			opts := []map[string]any{}
			for j, o := range p.Options {
				opts = append(opts, map[string]any{"id": fmt.Sprintf("opt%d", j), "name": o, "color": "default"})
			}
			def["options"] = opts
		}
		props[p.Name] = map[string]any{"id": fmt.Sprintf("p%d", i), "name": p.Name, "type": p.Type, p.Type: def}
	}
	return map[string]any{"object": "database", "id": db.ID, "title": notionText(db.Title), "description": []any{},
		"url": "https://www.notion.so/" + strings.ReplaceAll(db.ID, "-", ""), "properties": props, "archived": false,
		"is_inline": false, "created_time": "2026-01-05T09:00:00.000Z", "last_edited_time": "2026-01-05T09:00:00.000Z"}
}

func notionSearch(w http.ResponseWriter, r *http.Request, ws *notionWorkspace) {
	var req struct {
		Query       string `json:"query"`
		StartCursor string `json:"start_cursor"`
		PageSize    int    `json:"page_size"`
		Filter      *struct {
			Property string `json:"property"`
			Value    string `json:"value"`
		} `json:"filter"`
	}
	if !notionDecode(w, r, &req) {
		return
	}
	if req.PageSize == 0 {
		req.PageSize = 100
	}
	if req.PageSize < 0 || req.PageSize > 100 {
		notionError(w, http.StatusBadRequest, "validation_error", "body failed validation: body.page_size should be less than or equal to `100`.")
		return
	}
	// Only databases are searched: the sandbox's pages live in them, and
	// Trawl asks for databases alone.
	var found []*notionDB
	for _, db := range ws.databases {
		if strings.Contains(strings.ToLower(db.Title), strings.ToLower(req.Query)) && (req.Filter == nil || req.Filter.Value == "database") {
			found = append(found, db)
		}
	}
	start := 0
	if req.StartCursor != "" {
		start = slices.IndexFunc(found, func(db *notionDB) bool { return db.ID == notionCanon(req.StartCursor) })
		if start < 0 {
			notionError(w, http.StatusBadRequest, "validation_error", "body failed validation: body.start_cursor is not a valid cursor.")
			return
		}
	}
	end := min(start+req.PageSize, len(found))
	results := []any{}
	for _, db := range found[start:end] {
		results = append(results, db.object())
	}
	var next any
	if end < len(found) {
		next = found[end].ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "results": results, "next_cursor": next, "has_more": next != nil,
		"type": "page_or_database", "page_or_database": map[string]any{}})
}

func notionDecode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		notionError(w, http.StatusBadRequest, "invalid_json", "Error parsing JSON body.")
		return false
	}
	return true
}

// uuidOfSeed is a version-4-shaped UUID that is a function of seed.
func uuidOfSeed(seed string) string {
	a, b := hashString(11, seed), hashString(12, seed)
	return fmt.Sprintf("%08x-%04x-4%03x-%x%03x-%012x", uint32(a), uint16(a>>32), uint16(a>>48)&0xfff,
		8+(b>>60)%4, uint16(b)&0xfff, b>>16&0xffffffffffff)
}

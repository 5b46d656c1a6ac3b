package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Attio's REST API v2, the subset Trawl's connections use
// (docs/integrations/salesforce-attio.md):
//
//	GET  /v2/self                                              the token's workspace
//	GET  /v2/objects/{object}/attributes                       an object's attributes
//	GET  /v2/objects/{object}/attributes/{attribute}/options   a select's options
//	POST /v2/objects/{object}/records                          create (uniqueness_conflict on a duplicate)
//	PUT  /v2/objects/{object}/records?matching_attribute=…     assert (create or update)
//	GET  /v2/objects/{object}/records/{record_id}              read
//	GET  /v2/lists                                             the workspace's lists
//	PUT  /v2/lists/{list}/entries                              assert an entry by parent record
//	POST /v2/lists/{list}/entries/query                        list entries
//
// Each token is its own workspace (people, companies, the lists
// "prospects" and "target_accounts"). A token starting "invalid" gets
// Attio's 401, one starting "ratelimited" its 429 with Retry-After: 1; an
// email or record id starting "flaky-" gets one 429 first; ids are UUIDs.

// attioMaxRecords caps the records of one workspace.
const attioMaxRecords = 10_000

// attioErr is Attio's error body.
type attioErr struct {
	StatusCode int    `json:"status_code"`
	Type       string `json:"type"`
	Code       string `json:"code"`
	Message    string `json:"message"`
}

func writeAttioError(w http.ResponseWriter, status int, code, msg string) {
	typ := "invalid_request_error"
	switch status {
	case http.StatusUnauthorized:
		typ = "auth_error"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	}
	writeJSON(w, status, attioErr{StatusCode: status, Type: typ, Code: code, Message: msg})
}

// attioRecord is a record of a workspace: its values by attribute slug,
// each a list (Attio's values are lists, single-valued or not).
type attioRecord struct {
	ID, Object string
	Values     map[string][]map[string]any
	Created    time.Time
}

// attioEntry is a list entry.
type attioEntry struct {
	ID, List, Parent, ParentObject string
	Values                         map[string][]map[string]any
	Created                        time.Time
}

type attioWorkspace struct {
	ID, Slug string
	records  map[string]*attioRecord  // by record id
	entries  map[string][]*attioEntry // by list slug
	n        int
}

type attioState struct {
	mu         sync.Mutex
	objects    map[string]*attioObjectSchema
	lists      map[string]*attioObjectSchema
	workspaces map[string]*attioWorkspace
	flaky      map[string]bool
	now        func() time.Time
}

func (s *Sandbox) attioHandler() http.Handler {
	st := &attioState{objects: attioObjects(), lists: attioLists(), workspaces: map[string]*attioWorkspace{}, flaky: map[string]bool{}, now: s.now}
	mux := http.NewServeMux()
	handle := func(pattern string, h func(ws *attioWorkspace, w http.ResponseWriter, r *http.Request)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			st.mu.Lock()
			defer st.mu.Unlock()
			if ws, ok := st.workspace(w, r); ok {
				h(ws, w, r)
			}
		})
	}
	handle("GET /v2/self", func(ws *attioWorkspace, w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"active": true, "scope": "record_permission:read-write object_configuration:read list_entry:read-write list_configuration:read",
			"client_id": attioUUID(ws.ID, "client"), "token_type": "Bearer", "exp": nil, "iat": 1_700_000_000, "sub": ws.ID, "aud": attioUUID(ws.ID, "client"),
			"iss": "attio.com", "authorized_by_workspace_member_id": attioUUID(ws.ID, "member"), "workspace_id": ws.ID,
			"workspace_name": "Sandbox " + ws.Slug, "workspace_slug": ws.Slug, "workspace_logo_url": nil})
	})
	handle("GET /v2/objects/{object}/attributes", st.attributes)
	handle("GET /v2/objects/{object}/attributes/{attribute}/options", st.options)
	handle("POST /v2/objects/{object}/records", func(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) { st.writeRecord(ws, w, r, false) })
	handle("PUT /v2/objects/{object}/records", func(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) { st.writeRecord(ws, w, r, true) })
	handle("GET /v2/objects/{object}/records/{record_id}", st.getRecord)
	handle("GET /v2/lists", st.listLists)
	handle("PUT /v2/lists/{list}/entries", st.assertEntry)
	handle("POST /v2/lists/{list}/entries/query", st.queryEntries)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeAttioError(w, http.StatusNotFound, "not_found", "Route "+r.Method+" "+r.URL.Path+" not found.")
	})
	return mux
}

// workspace authenticates the bearer: its workspace, or Attio's 401/429.
func (st *attioState) workspace(w http.ResponseWriter, r *http.Request) (*attioWorkspace, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	token = strings.TrimSpace(token)
	switch {
	case !ok || token == "" || strings.HasPrefix(token, "invalid"):
		writeAttioError(w, http.StatusUnauthorized, "unauthorized", "Invalid or expired access token.")
		return nil, false
	case strings.HasPrefix(token, "ratelimited"):
		w.Header().Set("Retry-After", "1")
		writeAttioError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit exceeded, please try again later")
		return nil, false
	}
	id := attioUUID("workspace", token)
	ws := st.workspaces[id]
	if ws == nil {
		ws = &attioWorkspace{ID: id, Slug: "sandbox-" + id[:8], records: map[string]*attioRecord{}, entries: map[string][]*attioEntry{}}
		st.workspaces[id] = ws
	}
	return ws, true
}

// flakyOnce answers one 429 for a key starting "flaky-" the first time.
func (st *attioState) flakyOnce(w http.ResponseWriter, keys ...string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k, "flaky-") && !st.flaky[k] {
			st.flaky[k] = true
			w.Header().Set("Retry-After", "0")
			writeAttioError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit exceeded, please try again later")
			return true
		}
	}
	return false
}

func (st *attioState) object(w http.ResponseWriter, r *http.Request) (*attioObjectSchema, bool) {
	o := st.objects[r.PathValue("object")]
	if o == nil {
		writeAttioError(w, http.StatusNotFound, "not_found", `Object with slug/ID "`+r.PathValue("object")+`" not found.`)
		return nil, false
	}
	return o, true
}

func (st *attioState) attributes(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	out := make([]map[string]any, 0, len(o.Attrs))
	for _, a := range o.Attrs {
		out = append(out, map[string]any{
			"id":    map[string]string{"workspace_id": ws.ID, "object_id": attioUUID(ws.ID, o.Slug), "attribute_id": attioUUID(ws.ID, o.Slug, a.Slug)},
			"title": a.Title, "description": nil, "api_slug": a.Slug, "type": a.Type,
			"is_system_attribute": a.System, "is_writable": a.Slug != "record_id", "is_required": a.Required, "is_unique": a.Unique,
			"is_multiselect": a.Multi, "is_default_value_enabled": false, "is_archived": false, "default_value": nil, "relationship": nil,
			"created_at": "2024-01-01T00:00:00.000000000Z", "config": map[string]any{"currency": map[string]any{"default_currency_code": nil, "display_type": nil}, "record_reference": map[string]any{"allowed_object_ids": nil}},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (st *attioState) options(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	a := o.attr(r.PathValue("attribute"))
	if a == nil || a.Type != "select" {
		writeAttioError(w, http.StatusNotFound, "not_found", `Select attribute with slug/ID "`+r.PathValue("attribute")+`" not found.`)
		return
	}
	out := make([]map[string]any, 0, len(a.Options))
	for _, opt := range a.Options {
		out = append(out, map[string]any{"id": map[string]string{"workspace_id": ws.ID, "object_id": attioUUID(ws.ID, o.Slug),
			"attribute_id": attioUUID(ws.ID, o.Slug, a.Slug), "option_id": attioUUID(ws.ID, o.Slug, a.Slug, opt)}, "title": opt, "is_archived": false})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// attioData reads a request body {"data": {...}} into out, or answers 400.
func attioData(w http.ResponseWriter, r *http.Request, out any) bool {
	var in struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Data) == 0 || json.Unmarshal(in.Data, out) != nil {
		writeAttioError(w, http.StatusBadRequest, "validation_type", "Body payload validation error: expected an object with a data object.")
		return false
	}
	return true
}

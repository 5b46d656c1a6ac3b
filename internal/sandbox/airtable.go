package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Airtable's Web API, the subset Trawl uses (docs/integrations/sheets-airtable.md):
//
//	GET   /v0/meta/whoami                  the token's user
//	GET   /v0/meta/bases                   bases the token may use
//	GET   /v0/meta/bases/{baseId}/tables   a base's schema
//	GET   /v0/{baseId}/{tableIdOrName}     list records
//	PATCH /v0/{baseId}/{tableIdOrName}     update records, or upsert with performUpsert
//
// Each token is its own workspace, seeded with two bases; a token starting
// "invalid" gets Airtable's 401, one starting "ratelimited" its 429 (with
// Retry-After: 1; Airtable itself asks for 30 s in its docs and sends no
// header), a merge value starting "flaky-" makes the first upsert about it
// answer 429, and a base id starting "missing-" is not found. A workspace
// holds at most atMaxRecords records.

const atMaxRecords = 10_000

type atField struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Type    string         `json:"type"`
	Options map[string]any `json:"options,omitempty"`
}

type atRecord struct {
	ID          string         `json:"id"`
	CreatedTime string         `json:"createdTime"`
	Fields      map[string]any `json:"fields"`
}

type atTable struct {
	ID, Name string
	Fields   []*atField
	Records  []*atRecord
}

type atBase struct {
	ID, Name string
	Tables   []*atTable
}

type atWorkspace struct {
	user    string
	bases   []*atBase
	next    uint64 // ids handed out
	records int
	flaky   map[string]bool
}

type atState struct {
	mu     sync.Mutex
	spaces map[string]*atWorkspace
	now    func() time.Time
}

func (s *Sandbox) airtableHandler() http.Handler {
	st := &atState{spaces: map[string]*atWorkspace{}, now: s.now}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v0/meta/whoami", st.with(func(w http.ResponseWriter, r *http.Request, ws *atWorkspace) {
		writeJSON(w, http.StatusOK, map[string]any{"id": ws.user, "scopes": []string{"data.records:read", "data.records:write", "schema.bases:read"}})
	}))
	mux.HandleFunc("GET /v0/meta/bases", st.with(func(w http.ResponseWriter, r *http.Request, ws *atWorkspace) {
		bases := []map[string]string{}
		for _, b := range ws.bases {
			bases = append(bases, map[string]string{"id": b.ID, "name": b.Name, "permissionLevel": "create"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"bases": bases})
	}))
	mux.HandleFunc("GET /v0/meta/bases/{base}/tables", st.with(func(w http.ResponseWriter, r *http.Request, ws *atWorkspace) {
		b := ws.base(w, r.PathValue("base"))
		if b == nil {
			return
		}
		tables := []map[string]any{}
		for _, t := range b.Tables {
			tables = append(tables, map[string]any{"id": t.ID, "name": t.Name, "primaryFieldId": t.Fields[0].ID, "fields": t.Fields,
				"views": []map[string]string{{"id": "viw" + t.ID[3:], "name": "Grid view", "type": "grid"}}})
		}
		writeJSON(w, http.StatusOK, map[string]any{"tables": tables})
	}))
	mux.HandleFunc("GET /v0/{base}/{table}", st.with(st.list))
	mux.HandleFunc("PATCH /v0/{base}/{table}", st.with(st.patch))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		atError(w, http.StatusNotFound, "NOT_FOUND", "Could not find what you are looking for")
	})
	return mux
}

func atError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"type": typ, "message": msg}})
}

// with authenticates the bearer token and hands its workspace to h.
func (st *atState) with(h func(w http.ResponseWriter, r *http.Request, ws *atWorkspace)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		tok = strings.TrimSpace(tok)
		switch {
		case !ok || tok == "" || strings.HasPrefix(tok, "invalid"):
			atError(w, http.StatusUnauthorized, "AUTHENTICATION_REQUIRED", "Authentication required")
			return
		case strings.HasPrefix(tok, "ratelimited"):
			w.Header().Set("Retry-After", "1")
			atError(w, http.StatusTooManyRequests, "RATE_LIMIT_REACHED", "Rate limit exceeded. Please try again later")
			return
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		ws, ok := st.spaces[tok]
		if !ok {
			ws = st.seed(tok)
			st.spaces[tok] = ws
		}
		h(w, r, ws)
	}
}

// id is a new Airtable id: the prefix and 14 letters and digits.
func (ws *atWorkspace) id(prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	ws.next++
	h := hashN(hashString(5, ws.user), ws.next)
	b := []byte(prefix)
	for len(b) < 17 {
		h = mix(h)
		b = append(b, alphabet[h%62])
	}
	return string(b)
}

// seed builds a token's workspace.
func (st *atState) seed(tok string) *atWorkspace {
	ws := &atWorkspace{flaky: map[string]bool{}}
	// The user, and so every id, is a function of the token.
	ws.user = "usr" + fmt.Sprintf("%016x", hashString(9, tok))[:14]
	f := func(name, typ string, opts map[string]any) *atField {
		return &atField{ID: ws.id("fld"), Name: name, Type: typ, Options: opts}
	}
	choices := func(names ...string) map[string]any {
		var cs []map[string]string
		for _, n := range names {
			cs = append(cs, map[string]string{"id": ws.id("sel"), "name": n, "color": "blueLight2"})
		}
		return map[string]any{"choices": cs}
	}
	ws.bases = []*atBase{
		{ID: ws.id("app"), Name: "Growth CRM", Tables: []*atTable{
			{ID: ws.id("tbl"), Name: "Leads", Fields: []*atField{
				f("Name", "singleLineText", nil), f("Email", "email", nil), f("Company", "singleLineText", nil),
				f("Status", "singleSelect", choices("New", "Contacted", "Qualified")),
				f("Score", "number", map[string]any{"precision": 0}),
			}},
			{ID: ws.id("tbl"), Name: "Companies", Fields: []*atField{f("Name", "singleLineText", nil), f("Domain", "url", nil)}},
		}},
		{ID: ws.id("app"), Name: "Content calendar", Tables: []*atTable{
			{ID: ws.id("tbl"), Name: "Posts", Fields: []*atField{f("Title", "singleLineText", nil), f("URL", "url", nil)}},
		}},
	}
	return ws
}

// base finds a base, or answers Airtable's 404.
func (ws *atWorkspace) base(w http.ResponseWriter, id string) *atBase {
	for _, b := range ws.bases {
		if b.ID == id {
			return b
		}
	}
	atError(w, http.StatusNotFound, "NOT_FOUND", "Could not find what you are looking for")
	return nil
}

// table finds a base's table by id or name, or answers Airtable's 404.
func (ws *atWorkspace) table(w http.ResponseWriter, r *http.Request) *atTable {
	b := ws.base(w, r.PathValue("base"))
	if b == nil {
		return nil
	}
	ref := r.PathValue("table")
	for _, t := range b.Tables {
		if t.ID == ref || t.Name == ref {
			return t
		}
	}
	atError(w, http.StatusNotFound, "TABLE_NOT_FOUND", fmt.Sprintf("Could not find table %s in application %s", ref, b.ID))
	return nil
}

// list answers list records (the first 100; the sandbox does not page).
func (st *atState) list(w http.ResponseWriter, r *http.Request, ws *atWorkspace) {
	t := ws.table(w, r)
	if t == nil {
		return
	}
	recs := t.Records
	if len(recs) > 100 {
		recs = recs[:100]
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": append([]*atRecord{}, recs...)})
}

// patch answers update records: by id, or, with performUpsert, matched on
// fieldsToMergeOn (created when none matches).
func (st *atState) patch(w http.ResponseWriter, r *http.Request, ws *atWorkspace) {
	t := ws.table(w, r)
	if t == nil {
		return
	}
	var body struct {
		PerformUpsert *struct {
			FieldsToMergeOn []string `json:"fieldsToMergeOn"`
		} `json:"performUpsert"`
		Records []struct {
			ID     string         `json:"id"`
			Fields map[string]any `json:"fields"`
		} `json:"records"`
		Typecast bool `json:"typecast"`
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || json.Unmarshal(raw, &body) != nil {
		atError(w, http.StatusUnprocessableEntity, "INVALID_REQUEST_UNKNOWN", "Invalid request: parameter validation failed. Check your request data.")
		return
	}
	if len(body.Records) == 0 || len(body.Records) > 10 {
		atError(w, http.StatusUnprocessableEntity, "INVALID_RECORDS", "You must provide an array of up to 10 record objects, each with a fields object.")
		return
	}
	var merge []*atField
	if body.PerformUpsert != nil {
		if n := len(body.PerformUpsert.FieldsToMergeOn); n == 0 || n > 3 {
			atError(w, http.StatusUnprocessableEntity, "INVALID_REQUEST_UNKNOWN", "performUpsert.fieldsToMergeOn must name between 1 and 3 fields.")
			return
		}
		for _, name := range body.PerformUpsert.FieldsToMergeOn {
			f := t.field(name)
			if f == nil {
				atError(w, http.StatusUnprocessableEntity, "UNKNOWN_FIELD_NAME", fmt.Sprintf("Unknown field name: %q", name))
				return
			}
			merge = append(merge, f)
		}
	}
	// Validate every record before writing any: Airtable applies a
	// request whole or not at all.
	type change struct {
		rec    *atRecord
		fields map[string]any
	}
	var changes []change
	created := 0
	for _, in := range body.Records {
		fields, ok := t.cast(w, in.Fields, body.Typecast)
		if !ok {
			return
		}
		var rec *atRecord
		switch {
		case merge != nil:
			for _, f := range merge {
				v, present := fields[f.Name]
				if s, _ := v.(string); !present || v == nil || s == "" {
					atError(w, http.StatusUnprocessableEntity, "INVALID_VALUE_FOR_COLUMN", fmt.Sprintf("Field %q is used in fieldsToMergeOn and must have a value in every record", f.Name))
					return
				}
				if s, _ := v.(string); strings.HasPrefix(s, "flaky-") && !ws.flaky[s] {
					ws.flaky[s] = true
					w.Header().Set("Retry-After", "1")
					atError(w, http.StatusTooManyRequests, "RATE_LIMIT_REACHED", "Rate limit exceeded. Please try again later")
					return
				}
			}
			var matches []*atRecord
			for _, old := range t.Records {
				if atMatches(old, fields, merge) {
					matches = append(matches, old)
				}
			}
			if len(matches) > 1 {
				atError(w, http.StatusUnprocessableEntity, "INVALID_VALUE_FOR_COLUMN", "More than one record matches the fieldsToMergeOn values; upsert needs at most one")
				return
			}
			if len(matches) == 1 {
				rec = matches[0]
			}
		case in.ID != "":
			for _, old := range t.Records {
				if old.ID == in.ID {
					rec = old
				}
			}
			if rec == nil {
				atError(w, http.StatusNotFound, "NOT_FOUND", "Could not find what you are looking for")
				return
			}
		default:
			atError(w, http.StatusUnprocessableEntity, "INVALID_RECORDS", "Each record needs an id unless performUpsert is given.")
			return
		}
		if rec == nil {
			created++
		}
		changes = append(changes, change{rec, fields})
	}
	if ws.records+created > atMaxRecords {
		atError(w, http.StatusUnprocessableEntity, "ROW_LIMIT_EXCEEDED", fmt.Sprintf("This workspace would exceed its limit of %d records.", atMaxRecords))
		return
	}
	out := map[string]any{"records": []*atRecord{}, "createdRecords": []string{}, "updatedRecords": []string{}}
	for _, c := range changes {
		if c.rec == nil {
			c.rec = &atRecord{ID: ws.id("rec"), CreatedTime: st.now().Format("2006-01-02T15:04:05.000Z"), Fields: map[string]any{}}
			t.Records = append(t.Records, c.rec)
			ws.records++
			out["createdRecords"] = append(out["createdRecords"].([]string), c.rec.ID)
		} else if merge != nil {
			out["updatedRecords"] = append(out["updatedRecords"].([]string), c.rec.ID)
		}
		for k, v := range c.fields {
			if v == nil {
				delete(c.rec.Fields, k)
			} else {
				c.rec.Fields[k] = v
			}
		}
		out["records"] = append(out["records"].([]*atRecord), c.rec)
	}
	if merge == nil {
		delete(out, "createdRecords")
		delete(out, "updatedRecords")
	}
	writeJSON(w, http.StatusOK, out)
}

func (t *atTable) field(name string) *atField {
	for _, f := range t.Fields {
		if f.Name == name || f.ID == name {
			return f
		}
	}
	return nil
}

func atMatches(rec *atRecord, fields map[string]any, merge []*atField) bool {
	for _, f := range merge {
		if fmt.Sprint(rec.Fields[f.Name]) != fmt.Sprint(fields[f.Name]) {
			return false
		}
	}
	return true
}

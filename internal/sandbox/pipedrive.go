package sandbox

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Pipedrive's API v1, the subset Trawl's connections use
// (docs/integrations/notion-linear-pipedrive.md): users/me, persons
// (search, get, create, update), organizations (search, create), leads
// (search, create), notes (list, create), personFields and
// organizationFields. Every answer is Pipedrive's envelope {success, data,
// additional_data}; errors are {success:false, error, error_info}. Each
// API token (x-api-token header or api_token query) is its own company.
// Faults: a token starting "invalid" gets 401, "ratelimited" 429 with
// Pipedrive's x-ratelimit-* headers and Retry-After: 1; the first request
// about an email, name or title starting "flaky-" gets 429 too; unknown
// ids are 404; a missing name or title, a malformed email, a lead without
// a person or organization are 400.

const pipedriveMaxRecords = 10_000

const pipedriveErrorInfo = "Please check developers.pipedrive.com for more information about Pipedrive API."

type pipedriveCompany struct {
	token   string
	nextID  int64
	persons map[int64]map[string]any
	orgs    map[int64]map[string]any
	leads   map[string]map[string]any
	notes   []map[string]any
	deals   map[int64]bool
	flaky   map[string]bool
}

// pipedriveFieldDef is a seeded field: standard ones by key, custom ones
// keyed by a 40-hex hash as Pipedrive keys them.
type pipedriveFieldDef struct {
	Key, Name, Type string
	Options         []string
}

var pipedrivePersonFields = []pipedriveFieldDef{
	{Key: "name", Name: "Name", Type: "varchar"}, {Key: "email", Name: "Email", Type: "varchar"},
	{Key: "phone", Name: "Phone", Type: "phone"}, {Key: "org_id", Name: "Organization", Type: "org"},
	{Key: "owner_id", Name: "Owner", Type: "user"},
	{Key: pipedriveKey("Lead source"), Name: "Lead source", Type: "enum", Options: []string{"Website", "Referral", "Event"}},
	{Key: pipedriveKey("Interests"), Name: "Interests", Type: "set", Options: []string{"AI", "CRM"}},
	{Key: pipedriveKey("LinkedIn URL"), Name: "LinkedIn URL", Type: "varchar"},
}

var pipedriveOrgFields = []pipedriveFieldDef{
	{Key: "name", Name: "Name", Type: "varchar"}, {Key: "address", Name: "Address", Type: "address"},
	{Key: "owner_id", Name: "Owner", Type: "user"},
	{Key: pipedriveKey("Industry"), Name: "Industry", Type: "enum", Options: []string{"Software", "Retail", "Finance"}},
}

func pipedriveKey(name string) string {
	var b [20]byte
	for i := 0; i < 20; i += 8 {
		h := hashString(uint64(40+i), name)
		for j := 0; j < 8 && i+j < 20; j++ {
			b[i+j] = byte(h >> (8 * j))
		}
	}
	return hex.EncodeToString(b[:])
}

func (s *Sandbox) pipedriveHandler() http.Handler {
	var mu sync.Mutex
	companies := map[string]*pipedriveCompany{}
	with := func(h func(w http.ResponseWriter, r *http.Request, c *pipedriveCompany)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			token := r.Header.Get("x-api-token")
			if token == "" {
				token = r.URL.Query().Get("api_token")
			}
			switch {
			case token == "" || strings.HasPrefix(token, "invalid"):
				writeJSON(w, http.StatusUnauthorized, map[string]any{"success": false, "error": "unauthorized access", "errorCode": 401, "error_info": pipedriveErrorInfo})
				return
			case strings.HasPrefix(token, "ratelimited"):
				pipedriveRateLimited(w)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			c := companies[token]
			if c == nil {
				c = &pipedriveCompany{token: token, nextID: 1, persons: map[int64]map[string]any{}, orgs: map[int64]map[string]any{},
					leads: map[string]map[string]any{}, deals: map[int64]bool{1: true}, flaky: map[string]bool{}}
				companies[token] = c
			}
			h(w, r, c)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/users/me", with(func(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
		id := int64(hashString(3, c.token)%9_000_000) + 1_000_000
		pipedriveOK(w, http.StatusOK, map[string]any{"id": id, "name": "Sandbox User", "email": "owner@example.com", "company_id": id + 1,
			"company_name": "Sandbox Co", "company_domain": "sandbox", "active_flag": true, "is_admin": 1, "lang": 1, "locale": "en_US",
			"timezone_name": "Europe/Tallinn", "default_currency": "EUR"}, nil)
	}))
	mux.HandleFunc("GET /v1/personFields", with(func(w http.ResponseWriter, r *http.Request, _ *pipedriveCompany) {
		pipedriveFieldsAnswer(w, r, pipedrivePersonFields)
	}))
	mux.HandleFunc("GET /v1/organizationFields", with(func(w http.ResponseWriter, r *http.Request, _ *pipedriveCompany) {
		pipedriveFieldsAnswer(w, r, pipedriveOrgFields)
	}))
	mux.HandleFunc("GET /v1/persons/search", with(pipedrivePersonSearch))
	mux.HandleFunc("GET /v1/persons/{id}", with(func(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
		if p := c.persons[pipedriveID(r.PathValue("id"))]; p != nil {
			pipedriveOK(w, http.StatusOK, p, nil)
			return
		}
		pipedriveFail(w, http.StatusNotFound, "Person not found")
	}))
	mux.HandleFunc("POST /v1/persons", with(func(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) { c.savePerson(w, r, nil) }))
	mux.HandleFunc("PUT /v1/persons/{id}", with(func(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
		p := c.persons[pipedriveID(r.PathValue("id"))]
		if p == nil {
			pipedriveFail(w, http.StatusNotFound, "Person not found")
			return
		}
		c.savePerson(w, r, p)
	}))
	mux.HandleFunc("GET /v1/organizations/search", with(pipedriveOrgSearch))
	mux.HandleFunc("POST /v1/organizations", with(pipedriveCreateOrg))
	mux.HandleFunc("GET /v1/leads/search", with(pipedriveLeadSearch))
	mux.HandleFunc("GET /v1/leads/{id}", with(func(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
		if l := c.leads[r.PathValue("id")]; l != nil {
			pipedriveOK(w, http.StatusOK, leadView(l), nil)
			return
		}
		pipedriveFail(w, http.StatusNotFound, "Lead not found")
	}))
	mux.HandleFunc("POST /v1/leads", with(pipedriveCreateLead))
	mux.HandleFunc("GET /v1/notes", with(pipedriveListNotes))
	mux.HandleFunc("POST /v1/notes", with(pipedriveCreateNote))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		pipedriveFail(w, http.StatusNotFound, "Unknown method .")
	})
	return mux
}

func pipedriveOK(w http.ResponseWriter, status int, data any, additional any) {
	writeJSON(w, status, map[string]any{"success": true, "data": data, "additional_data": additional})
}

func pipedriveFail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"success": false, "error": msg, "error_info": pipedriveErrorInfo, "data": nil, "additional_data": nil})
}

func pipedriveRateLimited(w http.ResponseWriter) {
	h := w.Header()
	h.Set("x-ratelimit-limit", "80")
	h.Set("x-ratelimit-remaining", "0")
	h.Set("x-ratelimit-reset", "1")
	h.Set("Retry-After", "1")
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"success": false, "error": "Request over limit", "errorCode": 429, "error_info": pipedriveErrorInfo})
}

// flakyOnce answers 429 the first time a key starting "flaky-" is asked about.
func (c *pipedriveCompany) flakyOnce(w http.ResponseWriter, key string) bool {
	if !strings.HasPrefix(key, "flaky-") || c.flaky[key] {
		return false
	}
	c.flaky[key] = true
	pipedriveRateLimited(w)
	return true
}

func pipedriveID(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// pipedriveNum reads an id of a JSON body (a number, or a string of one).
func pipedriveNum(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		return int64(x), x == float64(int64(x))
	case string:
		n := pipedriveID(x)
		return n, n >= 0
	}
	return 0, false
}

func pipedriveDecode(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body == nil {
		pipedriveFail(w, http.StatusBadRequest, "Invalid JSON body")
		return nil, false
	}
	return body, true
}

func pipedriveNow() string { return time.Now().UTC().Format("2006-01-02 15:04:05") }

func pipedriveFieldsAnswer(w http.ResponseWriter, r *http.Request, defs []pipedriveFieldDef) {
	start, _ := strconv.Atoi(r.URL.Query().Get("start"))
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	start = min(max(start, 0), len(defs))
	end := min(start+limit, len(defs))
	out := []any{}
	for i, d := range defs[start:end] {
		f := map[string]any{"id": start + i + 1, "key": d.Key, "name": d.Name, "field_type": d.Type, "edit_flag": len(d.Key) == 40,
			"active_flag": true, "mandatory_flag": d.Key == "name", "add_time": "2026-01-05 09:00:00"}
		if d.Options != nil {
			opts := []any{}
			for j, o := range d.Options {
				opts = append(opts, map[string]any{"id": (start+i+1)*100 + j + 1, "label": o})
			}
			f["options"] = opts
		}
		out = append(out, f)
	}
	pipedriveOK(w, http.StatusOK, out, map[string]any{"pagination": map[string]any{"start": start, "limit": limit,
		"more_items_in_collection": end < len(defs), "next_start": end}})
}

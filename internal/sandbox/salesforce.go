package sandbox

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Salesforce's REST API (v60.0; any vNN.N path is answered alike) and its
// OAuth token endpoint, the subset Trawl's connections use
// (docs/integrations/salesforce-attio.md):
//
//	POST  /services/oauth2/token                       refresh token flow (form)
//	GET   /services/data/vNN.N/sobjects                 Describe Global
//	GET   /services/data/vNN.N/limits                   org limits
//	GET   /services/data/vNN.N/sobjects/{o}/describe    an object's fields
//	POST  /services/data/vNN.N/sobjects/{o}             create
//	GET   /services/data/vNN.N/sobjects/{o}/{id}        read by id
//	GET   /services/data/vNN.N/sobjects/{o}/{f}/{v}     read by external id
//	PATCH /services/data/vNN.N/sobjects/{o}/{f}/{v}     upsert by external id
//
// Each org is its own state. An access token the sandbox issued names its
// org and expires after two hours; any other bearer is valid and names the
// org derived from it, except one starting "invalid" or "expired" (401
// INVALID_SESSION_ID). A token starting "ratelimited" gets 403
// REQUEST_LIMIT_EXCEEDED, as Salesforce signals an exhausted API limit. A
// record key starting "flaky-" gets one 503 SERVER_UNAVAILABLE first.

// salesforceTokenTTL is how long a token the sandbox issued is valid (the
// default session timeout of an org).
const salesforceTokenTTL = 2 * time.Hour

// salesforceMaxRecords caps the records of one org (STORAGE_LIMIT_EXCEEDED beyond).
const salesforceMaxRecords = 10_000

// sfError is one entry of Salesforce's error body (an array).
type sfError struct {
	Message   string   `json:"message"`
	ErrorCode string   `json:"errorCode"`
	Fields    []string `json:"fields,omitempty"`
}

func writeSFError(w http.ResponseWriter, status int, code, msg string, fields ...string) {
	writeJSON(w, status, []sfError{{Message: msg, ErrorCode: code, Fields: fields}})
}

// sfRecord is one record of an org.
type sfRecord struct {
	ID      string
	Object  string
	Fields  map[string]any
	Created time.Time
}

// sfOrg is one org's records.
type sfOrg struct {
	ID      string
	records map[string]*sfRecord // by 18-char id
	counts  map[string]uint64    // records made per object, for ids
}

// salesforceState is the sandbox's orgs and the tokens it issued.
type salesforceState struct {
	mu     sync.Mutex
	schema map[string]*sfObject
	orgs   map[string]*sfOrg
	issued map[string]sfIssued // access token → its org and issue time
	flaky  map[string]bool     // flaky- keys that already failed once
	n      uint64
	now    func() time.Time
}

type sfIssued struct {
	org string
	at  time.Time
}

func (s *Sandbox) salesforceHandler() http.Handler {
	st := &salesforceState{schema: salesforceSchema(), orgs: map[string]*sfOrg{}, issued: map[string]sfIssued{}, flaky: map[string]bool{}, now: s.now}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /services/oauth2/token", func(w http.ResponseWriter, r *http.Request) { s.salesforceToken(st, w, r) })
	api := func(pattern string, h func(org *sfOrg, w http.ResponseWriter, r *http.Request)) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.HandleFunc(method+" /services/data/{version}"+path, func(w http.ResponseWriter, r *http.Request) {
			if v := r.PathValue("version"); !strings.HasPrefix(v, "v") {
				writeSFError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
				return
			}
			st.mu.Lock()
			defer st.mu.Unlock()
			org, ok := s.salesforceOrg(st, w, r)
			if ok {
				h(org, w, r)
			}
		})
	}
	api("GET /sobjects", st.describeGlobal)
	api("GET /limits", st.limits)
	api("GET /sobjects/{object}/describe", st.describe)
	api("POST /sobjects/{object}", st.create)
	api("GET /sobjects/{object}/{id}", st.get)
	api("GET /sobjects/{object}/{field}/{value}", st.getByExternalID)
	api("PATCH /sobjects/{object}/{field}/{value}", st.upsert)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeSFError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
	})
	return mux
}

// salesforceOrg authenticates the request's bearer and returns its org,
// or answers Salesforce's 401 or 403.
func (s *Sandbox) salesforceOrg(st *salesforceState, w http.ResponseWriter, r *http.Request) (*sfOrg, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	token = strings.TrimSpace(token)
	issued, known := st.issued[token]
	switch {
	case !ok || token == "" || strings.HasPrefix(token, "invalid") || strings.HasPrefix(token, "expired") ||
		known && s.now().Sub(issued.at) > salesforceTokenTTL:
		writeSFError(w, http.StatusUnauthorized, "INVALID_SESSION_ID", "Session expired or invalid")
		return nil, false
	case strings.HasPrefix(token, "ratelimited"):
		writeSFError(w, http.StatusForbidden, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.")
		return nil, false
	}
	id := issued.org
	if !known {
		id = salesforceOrgID(token)
	}
	org := st.orgs[id]
	if org == nil {
		org = &sfOrg{ID: id, records: map[string]*sfRecord{}, counts: map[string]uint64{}}
		st.orgs[id] = org
	}
	return org, true
}

// salesforceOrgID is the org a credential names: the 15-character org id
// an access token starts with ("00D…!…"), else one derived from it.
func salesforceOrgID(cred string) string {
	if prefix, _, ok := strings.Cut(cred, "!"); ok && strings.HasPrefix(prefix, "00D") && salesforceIDOK(prefix) {
		return prefix
	}
	return salesforceID("00D", hashString(7, cred)%1_000_000_000)[:15]
}

// salesforceToken answers the OAuth 2.0 refresh token flow: a new access
// token of the refresh token's org, or invalid_grant for a refresh token
// starting "invalid".
func (s *Sandbox) salesforceToken(st *salesforceState, w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "malformed request"})
		return
	}
	refresh := r.PostForm.Get("refresh_token")
	switch {
	case r.PostForm.Get("grant_type") != "refresh_token":
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type", "error_description": "grant type not supported"})
		return
	case refresh == "" || strings.HasPrefix(refresh, "invalid") || strings.HasPrefix(refresh, "expired"):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "expired access/refresh token"})
		return
	}
	st.mu.Lock()
	st.n++
	org := salesforceOrgID(refresh)
	now := s.now()
	token := org + "!AQ" + strconv.FormatUint(hashN(hashString(3, refresh), st.n, uint64(now.UnixNano())), 36)
	st.issued[token] = sfIssued{org: org, at: now}
	st.mu.Unlock()
	host := "https://" + strings.ToLower(org) + ".my.salesforce.com"
	writeJSON(w, http.StatusOK, map[string]string{
		"access_token": token,
		"signature":    strconv.FormatUint(hashString(4, token), 36),
		"scope":        "refresh_token api",
		"instance_url": host,
		"id":           "https://login.salesforce.com/id/" + org + "/" + salesforceID("005", 1)[:15],
		"token_type":   "Bearer",
		"issued_at":    strconv.FormatInt(now.UnixMilli(), 10),
	})
}

package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Google Sheets API v4 and Drive API v3, the subset Trawl uses
// (docs/integrations/sheets-airtable.md), all under one base:
//
//	POST /token                                      OAuth 2.0 JWT bearer grant
//	GET  /drive/v3/files                             spreadsheets shared with the account
//	GET  /v4/spreadsheets/{id}                       metadata (sheets.properties)
//	GET  /v4/spreadsheets/{id}/values/{range}        read
//	PUT  /v4/spreadsheets/{id}/values/{range}        update
//	POST /v4/spreadsheets/{id}/values/{range}:append append
//
// The token endpoint checks the assertion's structure, claims (iss, scope,
// aud, iat, exp) and lifetime, and that its signature is an RS256 one of a
// 2048-bit key; it cannot check the signature itself (it never saw the
// public key) and so trusts iss. Each service account (iss) is its own
// Drive with two spreadsheets; an account whose email starts "invalid" is
// refused (invalid_grant), one starting "ratelimited" gets 429
// RESOURCE_EXHAUSTED on every API call, and a row value starting "flaky-"
// makes the first write about it answer 429.

// gsMaxRows bounds a sheet's rows (the account's workbook limit).
const gsMaxRows = 10_000

type gsSheet struct {
	ID    int64
	Title string
	Rows  [][]string
}

type gsSpreadsheet struct {
	ID     string
	Title  string
	Sheets []*gsSheet
}

// gsAccount is one service account's Drive.
type gsAccount struct {
	docs  []*gsSpreadsheet
	flaky map[string]bool // flaky- values already answered 429
}

type gsState struct {
	mu       sync.Mutex
	accounts map[string]*gsAccount
	now      func() time.Time
}

func (s *Sandbox) googleSheetsHandler() http.Handler {
	st := &gsState{accounts: map[string]*gsAccount{}, now: s.now}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", st.token)
	mux.HandleFunc("GET /drive/v3/files", st.withAccount(st.driveFiles))
	mux.HandleFunc("/v4/spreadsheets/", st.withAccount(st.spreadsheets))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		gsError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
	})
	return mux
}

// gsError writes Google's error body.
func gsError(w http.ResponseWriter, code int, status, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}

// account returns (seeding) the service account's Drive; st.mu is held.
func (st *gsState) account(email string) *gsAccount {
	if a, ok := st.accounts[email]; ok {
		return a
	}
	a := &gsAccount{flaky: map[string]bool{}, docs: []*gsSpreadsheet{
		{ID: gsSpreadsheetID(email, "Leads"), Title: "Leads", Sheets: []*gsSheet{
			{ID: 0, Title: "Sheet1", Rows: [][]string{{"Name", "Email", "Company", "Score"}, {"Ada Lovelace", "ada@example.com", "Analytical Engines", "90"}}},
			{ID: int64(hashString(3, email) % 2_000_000_000), Title: "Sheet 2", Rows: nil},
		}},
		{ID: gsSpreadsheetID(email, "Posts"), Title: "Posts", Sheets: []*gsSheet{{ID: 0, Title: "Sheet1"}}},
	}}
	st.accounts[email] = a
	return a
}

// gsSpreadsheetID is a 44-character id, as Google's are.
func gsSpreadsheetID(email, title string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := []byte{'1'}
	h := hashString(7, email+"\x00"+title)
	for len(b) < 44 {
		h = mix(h)
		b = append(b, alphabet[h%64])
	}
	return string(b)
}

// token answers the JWT bearer grant with an access token naming the account.
func (st *gsState) token(w http.ResponseWriter, r *http.Request) {
	fail := func(code, desc string) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
	}
	if err := r.ParseForm(); err != nil {
		fail("invalid_request", "Could not parse the request body.")
		return
	}
	if r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		fail("unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
		return
	}
	iss, ok := st.checkAssertion(r.PostForm.Get("assertion"))
	if !ok {
		fail("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")
		return
	}
	if strings.HasPrefix(iss, "invalid") {
		fail("invalid_grant", "Invalid JWT Signature.")
		return
	}
	enc := base64.RawURLEncoding.EncodeToString([]byte(iss))
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": fmt.Sprintf("ya29.sbx.%s.%016x", enc, hashString(11, iss)),
		"expires_in":   3599, "token_type": "Bearer",
	})
}

// checkAssertion verifies an assertion's shape and claims; it returns iss.
func (st *gsState) checkAssertion(a string) (string, bool) {
	parts := strings.Split(a, ".")
	if len(parts) != 3 || len(a) > 8192 {
		return "", false
	}
	dec := base64.RawURLEncoding
	var header struct{ Alg, Typ string }
	var claims struct {
		Iss, Scope, Aud string
		Iat, Exp        int64
	}
	h, err1 := dec.DecodeString(parts[0])
	c, err2 := dec.DecodeString(parts[1])
	sig, err3 := dec.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(h, &header) != nil || json.Unmarshal(c, &claims) != nil {
		return "", false
	}
	now := st.now().Unix()
	aud, err := url.Parse(claims.Aud)
	ok := header.Alg == "RS256" && len(sig) >= 256 && strings.Contains(claims.Iss, "@") &&
		strings.Contains(claims.Scope, "https://www.googleapis.com/auth/spreadsheets") &&
		err == nil && aud.Scheme == "https" &&
		claims.Exp > now && claims.Exp-claims.Iat <= 3600 && claims.Iat <= now+300
	return claims.Iss, ok
}

// withAccount authenticates a request's bearer token and applies the
// account's fault conventions before h.
func (st *gsState) withAccount(h func(w http.ResponseWriter, r *http.Request, a *gsAccount)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		email, ok := gsTokenAccount(tok)
		if !ok {
			gsError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
			return
		}
		if strings.HasPrefix(email, "ratelimited") {
			w.Header().Set("Retry-After", "1")
			gsError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com'.")
			return
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		h(w, r, st.account(email))
	}
}

// gsTokenAccount reads the account an access token of the sandbox names.
func gsTokenAccount(tok string) (string, bool) {
	rest, ok := strings.CutPrefix(tok, "ya29.sbx.")
	enc, sum, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return "", false
	}
	email, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || fmt.Sprintf("%016x", hashString(11, string(email))) != sum {
		return "", false
	}
	return string(email), true
}

// driveFiles answers files.list with the account's spreadsheets.
func (st *gsState) driveFiles(w http.ResponseWriter, r *http.Request, a *gsAccount) {
	q := r.URL.Query()
	files := []map[string]string{}
	if query := q.Get("q"); query == "" || strings.Contains(query, "application/vnd.google-apps.spreadsheet") {
		for _, d := range a.docs {
			files = append(files, map[string]string{"kind": "drive#file", "id": d.ID, "name": d.Title, "mimeType": "application/vnd.google-apps.spreadsheet"})
		}
	}
	size, err := strconv.Atoi(q.Get("pageSize"))
	if err != nil || size <= 0 || size > 1000 {
		size = 100
	}
	start, _ := strconv.Atoi(q.Get("pageToken"))
	if start < 0 || start > len(files) {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid Value")
		return
	}
	out := map[string]any{"kind": "drive#fileList", "incompleteSearch": false}
	end := min(start+size, len(files))
	out["files"] = files[start:end]
	if end < len(files) {
		out["nextPageToken"] = strconv.Itoa(end)
	}
	writeJSON(w, http.StatusOK, out)
}

// spreadsheets routes /v4/spreadsheets/{id}[/values/{range}[:append]].
func (st *gsState) spreadsheets(w http.ResponseWriter, r *http.Request, a *gsAccount) {
	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/v4/spreadsheets/"), "/")
	for i, sg := range segs {
		u, err := url.PathUnescape(sg)
		if err != nil {
			gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid path.")
			return
		}
		segs[i] = u
	}
	id := segs[0]
	switch {
	case strings.HasPrefix(id, "private-"):
		gsError(w, http.StatusForbidden, "PERMISSION_DENIED", "The caller does not have permission")
		return
	case strings.HasPrefix(id, "missing-"):
		gsError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
		return
	}
	var doc *gsSpreadsheet
	for _, d := range a.docs {
		if d.ID == id {
			doc = d
		}
	}
	if doc == nil {
		gsError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
		return
	}
	switch {
	case len(segs) == 1 && r.Method == http.MethodGet:
		gsMetadata(w, r, doc)
	case len(segs) == 3 && segs[1] == "values":
		st.values(w, r, a, doc, segs[2])
	default:
		gsError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
	}
}

// gsMetadata answers spreadsheets.get (fields=sheets.properties, or all).
func gsMetadata(w http.ResponseWriter, r *http.Request, d *gsSpreadsheet) {
	sheets := make([]map[string]any, len(d.Sheets))
	for i, sh := range d.Sheets {
		sheets[i] = map[string]any{"properties": map[string]any{
			"sheetId": sh.ID, "title": sh.Title, "index": i, "sheetType": "GRID",
			"gridProperties": map[string]any{"rowCount": max(1000, len(sh.Rows)), "columnCount": 26},
		}}
	}
	out := map[string]any{"sheets": sheets}
	if r.URL.Query().Get("fields") == "" {
		out["spreadsheetId"] = d.ID
		out["properties"] = map[string]any{"title": d.Title, "locale": "en_US", "timeZone": "Etc/GMT"}
		out["spreadsheetUrl"] = "https://docs.google.com/spreadsheets/d/" + d.ID + "/edit"
	}
	writeJSON(w, http.StatusOK, out)
}

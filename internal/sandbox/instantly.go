package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Instantly's API v2, the subset Trawl uses (docs/integrations/outreach.md):
// GET /api/v2/campaigns (cursor paging), POST /api/v2/leads and POST
// /api/v2/leads/list, authenticated by a bearer key. Each key is its own
// workspace with three seeded campaigns (UUID ids). Faults: a key
// starting "invalid" → 401, "ratelimited" → 429 (Retry-After: 1); a lead
// email starting "flaky-" → 429 once (Retry-After: 0); an unknown campaign → 404; a bad
// email or body → 400, in Instantly's error shape.

// instantlyError is Instantly's error body.
type instantlyError struct {
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
	Message    string `json:"message"`
}

func instantlyFail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, instantlyError{StatusCode: status, Error: http.StatusText(status), Message: msg})
}

// instantlyStatusCodes are the seeded campaigns' documented status codes.
var instantlyStatusCodes = map[string]int{"active": 1, "paused": 2, "draft": 0}

func (s *Sandbox) instantlyHandler() http.Handler {
	store := newOutreachStore(s.now, func(cred string) []*outreachCampaign {
		t := s.now().Add(-30 * 24 * time.Hour).Truncate(time.Millisecond)
		return []*outreachCampaign{
			{ID: uuidFrom(cred + "/c1"), Name: "Founders outreach", Status: "active", Created: t},
			{ID: uuidFrom(cred + "/c2"), Name: "Agency follow-up", Status: "paused", Created: t.Add(time.Hour)},
			{ID: uuidFrom(cred + "/c3"), Name: "Webinar invites", Status: "draft", Created: t.Add(2 * time.Hour)},
		}
	})
	leadJSON := func(c *outreachCampaign, l *outreachLead) map[string]any {
		out := map[string]any{"id": l.ID, "campaign": c.ID, "status": 1, "email_open_count": 0, "email_reply_count": 0,
			"timestamp_created": l.Created.Format(time.RFC3339Nano), "timestamp_updated": l.Created.Format(time.RFC3339Nano)}
		for k, v := range l.Fields {
			switch k {
			case "email", "first_name", "last_name", "company_name", "personalization", "website", "phone", "job_title":
				out[k] = v
			case "custom_variables":
				out["payload"] = v
			}
		}
		return out
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/campaigns", func(w http.ResponseWriter, r *http.Request) {
		key, ok := instantlyKey(w, r)
		if !ok {
			return
		}
		limit := 100
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100 {
				instantlyFail(w, http.StatusBadRequest, "querystring/limit must be an integer between 1 and 100")
				return
			}
			limit = n
		}
		after := r.URL.Query().Get("starting_after")
		store.with(key, func(ws *outreachWorkspace) {
			start := 0
			if after != "" {
				start = slices.IndexFunc(ws.campaigns, func(c *outreachCampaign) bool { return c.ID == after }) + 1
			}
			items := []map[string]any{}
			next := ""
			for i := start; i < len(ws.campaigns); i++ {
				if len(items) == limit {
					next = ws.campaigns[i-1].ID
					break
				}
				c := ws.campaigns[i]
				items = append(items, map[string]any{"id": c.ID, "name": c.Name, "status": instantlyStatusCodes[c.Status],
					"timestamp_created": c.Created.Format(time.RFC3339Nano), "timestamp_updated": c.Created.Format(time.RFC3339Nano),
					"organization": uuidFrom(key + "/org"), "pl_value": 100, "is_evergreen": false})
			}
			out := map[string]any{"items": items}
			if next != "" {
				out["next_starting_after"] = next
			}
			writeJSON(w, http.StatusOK, out)
		})
	})
	mux.HandleFunc("POST /api/v2/leads/list", func(w http.ResponseWriter, r *http.Request) {
		key, ok := instantlyKey(w, r)
		if !ok {
			return
		}
		var req struct {
			Campaign string   `json:"campaign"`
			Contacts []string `json:"contacts"`
			Limit    int      `json:"limit"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			instantlyFail(w, http.StatusBadRequest, "body must be a JSON object")
			return
		}
		if req.Limit == 0 {
			req.Limit = 100
		}
		if req.Limit < 1 || req.Limit > 100 {
			instantlyFail(w, http.StatusBadRequest, "body/limit must be <= 100")
			return
		}
		store.with(key, func(ws *outreachWorkspace) {
			items := []map[string]any{}
			for _, c := range ws.campaigns {
				if req.Campaign != "" && c.ID != req.Campaign {
					continue
				}
				for _, l := range c.order {
					if len(items) < req.Limit && (len(req.Contacts) == 0 || slices.ContainsFunc(req.Contacts, func(e string) bool { return strings.EqualFold(e, l.Key) })) {
						items = append(items, leadJSON(c, l))
					}
				}
			}
			writeJSON(w, http.StatusOK, map[string]any{"items": items})
		})
	})
	mux.HandleFunc("POST /api/v2/leads", func(w http.ResponseWriter, r *http.Request) {
		key, ok := instantlyKey(w, r)
		if !ok {
			return
		}
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			instantlyFail(w, http.StatusBadRequest, "body must be a JSON object")
			return
		}
		if msg := instantlyCheck(req); msg != "" {
			instantlyFail(w, http.StatusBadRequest, msg)
			return
		}
		email := normEmail(req["email"].(string))
		campaign, _ := req["campaign"].(string)
		store.with(key, func(ws *outreachWorkspace) {
			c := ws.byID[campaign]
			if c == nil {
				instantlyFail(w, http.StatusNotFound, "Campaign not found")
				return
			}
			if ws.flaky(email) {
				w.Header().Set("Retry-After", "0")
				instantlyFail(w, http.StatusTooManyRequests, "Rate limit exceeded, retry in 1 second")
				return
			}
			if l := c.leads[email]; l != nil && (req["skip_if_in_campaign"] == true || req["skip_if_in_workspace"] == true) {
				writeJSON(w, http.StatusOK, leadJSON(c, l)) // skipped: the lead as it is
				return
			}
			delete(req, "campaign")
			newID := func(seq int) string { return uuidFrom(fmt.Sprintf("%s/lead/%d", key, seq)) }
			l, _, full := ws.add(c, email, newID, req, s.now())
			if full {
				instantlyFail(w, http.StatusPaymentRequired, fmt.Sprintf("Lead limit of %d reached for this workspace", outreachMaxLeads))
				return
			}
			writeJSON(w, http.StatusOK, leadJSON(c, l))
		})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := instantlyKey(w, r); ok {
			instantlyFail(w, http.StatusNotFound, fmt.Sprintf("Route %s:%s not found", r.Method, r.URL.Path))
		}
	})
	return mux
}

// instantlyCheck validates a create-lead body as Instantly's schema does.
func instantlyCheck(req map[string]any) string {
	e, ok := req["email"].(string)
	switch {
	case !ok:
		return "body must have required property 'email'"
	case normEmail(e) == "":
		return `body/email must match format "email"`
	}
	if cv, ok := req["custom_variables"]; ok && cv != nil {
		m, ok := cv.(map[string]any)
		if !ok {
			return "body/custom_variables must be object"
		}
		for k, v := range m {
			switch v.(type) {
			case string, float64, bool, nil:
			default:
				return fmt.Sprintf("body/custom_variables/%s must be a string, number, boolean or null", k)
			}
		}
	}
	return ""
}

// instantlyKey returns the request's bearer key, or answers Instantly's
// 401 or, for a key starting "ratelimited", its 429.
func instantlyKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	key = strings.TrimSpace(key)
	switch {
	case !ok || key == "" || strings.HasPrefix(key, "invalid"):
		instantlyFail(w, http.StatusUnauthorized, "Invalid API key")
		return "", false
	case strings.HasPrefix(key, "ratelimited"):
		w.Header().Set("Retry-After", "1")
		instantlyFail(w, http.StatusTooManyRequests, "Rate limit exceeded, retry in 1 second")
		return "", false
	}
	return key, true
}

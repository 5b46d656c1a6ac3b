package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Smartlead's API v1, the subset Trawl uses (docs/integrations/outreach.md):
// GET /campaigns, POST /campaigns/{id}/leads and GET /campaigns/{id}/leads,
// authenticated by the api_key query parameter. Each key is its own
// account with three seeded campaigns. Faults: a key starting "invalid" →
// 401, "ratelimited" → 429 (Retry-After: 1); a lead email starting
// "flaky-" → 429 once (Retry-After: 0); an unknown campaign id → 404; a malformed body → 400.

// smartleadError is the JSON error body the sandbox answers.
type smartleadError struct {
	Message string `json:"message"`
}

func (s *Sandbox) smartleadHandler() http.Handler {
	store := newOutreachStore(s.now, func(cred string) []*outreachCampaign {
		base := 100_000 + int(hashString(3, cred)%800_000)
		t := s.now().Add(-30 * 24 * time.Hour).Truncate(time.Second)
		return []*outreachCampaign{
			{ID: strconv.Itoa(base), Name: "Founders outreach", Status: "ACTIVE", Created: t},
			{ID: strconv.Itoa(base + 1), Name: "Agency follow-up", Status: "PAUSED", Created: t.Add(time.Hour)},
			{ID: strconv.Itoa(base + 2), Name: "Webinar invites", Status: "DRAFTED", Created: t.Add(2 * time.Hour)},
		}
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /campaigns", func(w http.ResponseWriter, r *http.Request) {
		key, ok := smartleadKey(w, r)
		if !ok {
			return
		}
		var out []map[string]any
		store.with(key, func(ws *outreachWorkspace) {
			for _, c := range ws.campaigns {
				id, _ := strconv.Atoi(c.ID)
				out = append(out, map[string]any{
					"id": id, "user_id": 4242, "created_at": c.Created.Format(time.RFC3339Nano), "updated_at": c.Created.Format(time.RFC3339Nano),
					"status": c.Status, "name": c.Name, "track_settings": []string{}, "scheduler_cron_value": nil,
					"min_time_btwn_emails": 10, "max_leads_per_day": 20, "parent_campaign_id": nil, "client_id": nil,
				})
			}
		})
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /campaigns/{id}/leads", func(w http.ResponseWriter, r *http.Request) {
		key, ok := smartleadKey(w, r)
		if !ok {
			return
		}
		store.with(key, func(ws *outreachWorkspace) {
			c := ws.byID[r.PathValue("id")]
			if c == nil {
				writeJSON(w, http.StatusNotFound, smartleadError{"Campaign not found - Invalid campaign_id."})
				return
			}
			data := make([]map[string]any, 0, len(c.order))
			for _, l := range c.order {
				lead := map[string]any{"id": l.ID}
				for k, v := range l.Fields {
					lead[k] = v
				}
				data = append(data, map[string]any{"campaign_lead_map_id": l.ID, "status": "STARTED",
					"created_at": l.Created.Format(time.RFC3339Nano), "lead": lead})
			}
			writeJSON(w, http.StatusOK, map[string]any{"total_leads": strconv.Itoa(len(data)), "data": data, "offset": 0, "limit": len(data)})
		})
	})
	mux.HandleFunc("POST /campaigns/{id}/leads", func(w http.ResponseWriter, r *http.Request) {
		key, ok := smartleadKey(w, r)
		if !ok {
			return
		}
		var req struct {
			LeadList []map[string]any           `json:"lead_list"`
			Settings map[string]json.RawMessage `json:"settings"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, smartleadError{"Invalid JSON body"})
			return
		}
		if msg := smartleadCheck(req.LeadList, req.Settings); msg != "" {
			writeJSON(w, http.StatusBadRequest, smartleadError{msg})
			return
		}
		store.with(key, func(ws *outreachWorkspace) {
			c := ws.byID[r.PathValue("id")]
			if c == nil {
				writeJSON(w, http.StatusNotFound, smartleadError{"Campaign not found - Invalid campaign_id."})
				return
			}
			for _, l := range req.LeadList {
				if e, _ := l["email"].(string); ws.flaky(strings.ToLower(e)) {
					w.Header().Set("Retry-After", "0")
					writeJSON(w, http.StatusTooManyRequests, smartleadError{"Rate limit exceeded. Please retry after some time."})
					return
				}
			}
			ignoreOther := string(req.Settings["ignore_duplicate_leads_in_other_campaign"]) == "true"
			res := map[string]any{"ok": true, "total_leads": 0, "upload_count": 0, "block_count": 0, "duplicate_count": 0,
				"invalid_email_count": 0, "invalid_emails": []string{}, "already_added_to_campaign": 0, "unsubscribed_leads": []string{},
				"is_lead_limit_exhausted": false, "lead_import_stopped_count": 0, "bounce_count": 0}
			count := func(k string) { res[k] = res[k].(int) + 1 }
			seen := map[string]bool{}
			for _, l := range req.LeadList {
				raw, _ := l["email"].(string)
				email := normEmail(raw)
				switch {
				case email == "":
					count("invalid_email_count")
					res["invalid_emails"] = append(res["invalid_emails"].([]string), raw)
					continue
				case seen[email]:
					count("duplicate_count")
					continue
				case c.leads[email] != nil:
					count("already_added_to_campaign")
					continue
				case !ignoreOther && ws.inOther(c, email):
					count("duplicate_count")
					continue
				}
				seen[email] = true
				if _, _, full := ws.add(c, email, strconv.Itoa, l, s.now()); full {
					res["is_lead_limit_exhausted"] = true
					count("lead_import_stopped_count")
					continue
				}
				count("upload_count")
				count("total_leads")
			}
			writeJSON(w, http.StatusOK, res)
		})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, smartleadError{fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path)})
	})
	return mux
}

// smartleadCheck validates an add-leads body as Smartlead's validator
// does (its messages quote the offending path).
func smartleadCheck(leads []map[string]any, settings map[string]json.RawMessage) string {
	switch {
	case leads == nil:
		return `"lead_list" is required`
	case len(leads) == 0:
		return `"lead_list" must contain at least 1 items`
	case len(leads) > 400:
		return `"lead_list" must contain less than or equal to 400 items`
	}
	for k := range settings {
		switch k {
		case "ignore_global_block_list", "ignore_unsubscribe_list", "ignore_duplicate_leads_in_other_campaign",
			"ignore_community_bounce_list", "return_lead_ids":
		default:
			return fmt.Sprintf(`"settings.%s" is not allowed`, k)
		}
	}
	for i, l := range leads {
		if _, ok := l["email"].(string); !ok {
			return fmt.Sprintf(`"lead_list[%d].email" is required`, i)
		}
		if cf, ok := l["custom_fields"]; ok && cf != nil {
			m, ok := cf.(map[string]any)
			if !ok || len(m) > 200 {
				return fmt.Sprintf(`"lead_list[%d].custom_fields" must be of type object with at most 200 keys`, i)
			}
		}
	}
	return ""
}

// smartleadKey returns the request's api_key, or answers Smartlead's 401
// or, for a key starting "ratelimited", its 429.
func smartleadKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := strings.TrimSpace(r.URL.Query().Get("api_key"))
	switch {
	case key == "" || strings.HasPrefix(key, "invalid"):
		writeJSON(w, http.StatusUnauthorized, smartleadError{"Invalid API Key"})
		return "", false
	case strings.HasPrefix(key, "ratelimited"):
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, smartleadError{"Rate limit exceeded. Please retry after some time."})
		return "", false
	}
	return key, true
}

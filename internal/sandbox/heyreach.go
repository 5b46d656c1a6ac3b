package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// HeyReach's public API, the subset Trawl uses (docs/integrations/outreach.md):
// GET /auth/CheckApiKey, POST /campaign/GetAll, POST /list/GetAll, POST
// /list/AddLeadsToListV2, POST /campaign/AddLeadsToCampaignV2 and, to read
// state, POST /list/GetLeadsFromList and POST /campaign/GetLeadsFromCampaign,
// authenticated by the X-API-KEY header. Each key is its own workspace
// with three seeded campaigns (one a draft, which takes no leads) and
// two lists (numeric ids). Leads are keyed
// by their LinkedIn profile URL; adding one already there updates it
// (updatedLeadsCount). Faults: a key starting "invalid" → 401,
// "ratelimited" → 429 (Retry-After: 1); a profile whose slug starts
// "flaky-" → 429 once (Retry-After: 0); an unknown campaign or list → 404; a lead without
// a LinkedIn profile URL → 400.

// heyReachError is the sandbox's HeyReach error body.
type heyReachError struct {
	ErrorMessage string `json:"errorMessage"`
}

var heyReachFieldName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// heyReachLead is a lead of HeyReach's V2 add calls.
type heyReachLead struct {
	ProfileURL       string `json:"profileUrl"`
	FirstName        string `json:"firstName,omitempty"`
	LastName         string `json:"lastName,omitempty"`
	Location         string `json:"location,omitempty"`
	Summary          string `json:"summary,omitempty"`
	CompanyName      string `json:"companyName,omitempty"`
	Position         string `json:"position,omitempty"`
	About            string `json:"about,omitempty"`
	EmailAddress     string `json:"emailAddress,omitempty"`
	CustomUserFields []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"customUserFields,omitempty"`
}

func (s *Sandbox) heyReachHandler() http.Handler {
	store := newOutreachStore(s.now, func(cred string) []*outreachCampaign {
		base := 50_000 + int(hashString(5, cred)%400_000)
		t := s.now().Add(-30 * 24 * time.Hour).Truncate(time.Millisecond)
		return []*outreachCampaign{
			{ID: strconv.Itoa(base), Name: "Founders on LinkedIn", Status: "IN_PROGRESS", Created: t},
			{ID: strconv.Itoa(base + 1), Name: "Agency connect", Status: "PAUSED", Created: t.Add(time.Hour)},
			{ID: strconv.Itoa(base + 2), Name: "Next quarter", Status: "DRAFT", Created: t.Add(2 * time.Hour)},
			{ID: strconv.Itoa(base + 10), Name: "Event attendees", Status: "list:USER_LIST", Created: t},
			{ID: strconv.Itoa(base + 11), Name: "Target accounts", Status: "list:USER_LIST", Created: t.Add(time.Hour)},
		}
	})
	isList := func(c *outreachCampaign) bool { return strings.HasPrefix(c.Status, "list:") }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth/CheckApiKey", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := heyReachKey(w, r); ok {
			w.WriteHeader(http.StatusOK)
		}
	})
	getAll := func(lists bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			key, ok := heyReachKey(w, r)
			if !ok {
				return
			}
			var req struct{ Offset, Limit int }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Offset < 0 || req.Limit < 1 || req.Limit > 100 {
				writeJSON(w, http.StatusBadRequest, heyReachError{"Offset must be >= 0 and limit between 1 and 100"})
				return
			}
			store.with(key, func(ws *outreachWorkspace) {
				var all []map[string]any
				for _, c := range ws.campaigns {
					if isList(c) != lists {
						continue
					}
					id, _ := strconv.Atoi(c.ID)
					item := map[string]any{"id": id, "name": c.Name, "creationTime": c.Created.Format(time.RFC3339Nano)}
					if lists {
						item["listType"] = strings.TrimPrefix(c.Status, "list:")
						item["totalItemsCount"] = len(c.order)
						item["isDeleted"] = false
					} else {
						item["status"] = c.Status
						item["campaignAccountIds"] = []int{}
					}
					all = append(all, item)
				}
				items := []map[string]any{}
				for i := req.Offset; i < len(all) && len(items) < req.Limit; i++ {
					items = append(items, all[i])
				}
				writeJSON(w, http.StatusOK, map[string]any{"totalCount": len(all), "items": items})
			})
		}
	}
	mux.HandleFunc("POST /campaign/GetAll", getAll(false))
	mux.HandleFunc("POST /list/GetAll", getAll(true))
	getLeads := func(idField string, lists bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			key, ok := heyReachKey(w, r)
			if !ok {
				return
			}
			var req map[string]any
			_ = json.NewDecoder(r.Body).Decode(&req)
			id := fmt.Sprint(req[idField])
			store.with(key, func(ws *outreachWorkspace) {
				c := ws.byID[id]
				if c == nil || isList(c) != lists {
					writeJSON(w, http.StatusNotFound, heyReachError{"Not found"})
					return
				}
				items := []map[string]any{}
				for _, l := range c.order {
					it := map[string]any{"id": l.ID}
					for k, v := range l.Fields {
						it[k] = v
					}
					items = append(items, it)
				}
				writeJSON(w, http.StatusOK, map[string]any{"totalCount": len(items), "items": items})
			})
		}
	}
	mux.HandleFunc("POST /list/GetLeadsFromList", getLeads("listId", true))
	mux.HandleFunc("POST /campaign/GetLeadsFromCampaign", getLeads("campaignId", false))
	add := func(w http.ResponseWriter, r *http.Request, lists bool) {
		key, ok := heyReachKey(w, r)
		if !ok {
			return
		}
		var req struct {
			ListID          json.Number    `json:"listId"`
			CampaignID      json.Number    `json:"campaignId"`
			Leads           []heyReachLead `json:"leads"`
			AccountLeadPair []struct {
				LinkedInAccountID *int64        `json:"linkedInAccountId"`
				Lead              *heyReachLead `json:"lead"`
			} `json:"accountLeadPairs"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, heyReachError{"The request body is not valid JSON: " + err.Error()})
			return
		}
		id, leads := req.ListID.String(), req.Leads
		if !lists {
			id = req.CampaignID.String()
			leads = nil
			for _, p := range req.AccountLeadPair {
				if p.Lead == nil {
					writeJSON(w, http.StatusBadRequest, heyReachError{"Each account lead pair needs a lead"})
					return
				}
				leads = append(leads, *p.Lead)
			}
		}
		if len(leads) == 0 || len(leads) > 100 {
			writeJSON(w, http.StatusBadRequest, heyReachError{"Between 1 and 100 leads are required"})
			return
		}
		for _, l := range leads {
			if normProfileURL(l.ProfileURL) == "" {
				writeJSON(w, http.StatusBadRequest, heyReachError{fmt.Sprintf("Invalid LinkedIn profile url: %q", l.ProfileURL)})
				return
			}
			for _, f := range l.CustomUserFields {
				if !heyReachFieldName.MatchString(f.Name) {
					writeJSON(w, http.StatusBadRequest, heyReachError{fmt.Sprintf("Custom field name %q may hold only letters, digits and underscores", f.Name)})
					return
				}
			}
		}
		store.with(key, func(ws *outreachWorkspace) {
			c := ws.byID[id]
			if c == nil || isList(c) != lists {
				kind := "Campaign"
				if lists {
					kind = "List"
				}
				writeJSON(w, http.StatusNotFound, heyReachError{kind + " not found"})
				return
			}
			if c.Status == "DRAFT" { // HeyReach takes leads only into a started campaign
				writeJSON(w, http.StatusBadRequest, heyReachError{"Leads can only be added to a campaign that is in progress or paused"})
				return
			}
			for _, l := range leads {
				if ws.flaky(normProfileURL(l.ProfileURL)) {
					w.Header().Set("Retry-After", "0")
					writeJSON(w, http.StatusTooManyRequests, heyReachError{"Too many requests"})
					return
				}
			}
			counts := map[string]int{"addedLeadsCount": 0, "updatedLeadsCount": 0, "failedLeadsCount": 0}
			for _, l := range leads {
				raw, _ := json.Marshal(l)
				var fields map[string]any
				_ = json.Unmarshal(raw, &fields)
				k := normProfileURL(l.ProfileURL)
				existing, added, full := ws.add(c, k, strconv.Itoa, fields, s.now())
				switch {
				case full:
					counts["failedLeadsCount"]++
				case added:
					counts["addedLeadsCount"]++
				default:
					existing.Fields = fields
					counts["updatedLeadsCount"]++
				}
			}
			writeJSON(w, http.StatusOK, counts)
		})
	}
	mux.HandleFunc("POST /list/AddLeadsToListV2", func(w http.ResponseWriter, r *http.Request) { add(w, r, true) })
	mux.HandleFunc("POST /campaign/AddLeadsToCampaignV2", func(w http.ResponseWriter, r *http.Request) { add(w, r, false) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := heyReachKey(w, r); ok {
			writeJSON(w, http.StatusNotFound, heyReachError{"Not found"})
		}
	})
	return mux
}

// heyReachKey returns the X-API-KEY header, or answers HeyReach's 401 or,
// for a key starting "ratelimited", its 429.
func heyReachKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := strings.TrimSpace(r.Header.Get("X-API-KEY"))
	switch {
	case key == "" || strings.HasPrefix(key, "invalid"):
		writeJSON(w, http.StatusUnauthorized, heyReachError{"Invalid API key"})
		return "", false
	case strings.HasPrefix(key, "ratelimited"):
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, heyReachError{"Too many requests"})
		return "", false
	}
	return key, true
}

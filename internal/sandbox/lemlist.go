package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// lemlist's API, the subset Trawl uses (docs/integrations/outreach.md):
// GET /team, GET /campaigns (offset/limit), POST
// /campaigns/{campaignId}/leads/{email}?deduplicate=true and GET
// /leads/{email}, authenticated by HTTP Basic with an empty user and the
// key as password. Each key is its own team with three seeded campaigns
// (cam_… ids). lemlist's errors are plain text. Faults: a key starting
// "invalid" → 401, "ratelimited" → 429 (Retry-After: 1); a lead email
// starting "flaky-" → 429 once (Retry-After: 0); an unknown campaign → 404; a bad email →
// 400; a lead already in the campaign → 400 "Lead already in the
// campaign"; with deduplicate, a lead of another campaign → 400 "Lead
// already in other campaign".

func lemlistFail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg))
}

// lemlistID is a lemlist-style id: a prefix and 17 base-62 characters.
func lemlistID(prefix, seed string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var b strings.Builder
	b.WriteString(prefix)
	h := hashString(7, seed)
	for i := range 17 {
		if i%8 == 0 {
			h = hashN(h, uint64(i))
		}
		b.WriteByte(alphabet[h%62])
		h /= 62
	}
	return b.String()
}

func (s *Sandbox) lemlistHandler() http.Handler {
	store := newOutreachStore(s.now, func(cred string) []*outreachCampaign {
		t := s.now().Add(-30 * 24 * time.Hour).Truncate(time.Millisecond)
		return []*outreachCampaign{
			{ID: lemlistID("cam_", cred+"/1"), Name: "Founders outreach", Status: "running", Created: t},
			{ID: lemlistID("cam_", cred+"/2"), Name: "Agency follow-up", Status: "paused", Created: t.Add(time.Hour)},
			{ID: lemlistID("cam_", cred+"/3"), Name: "Webinar invites", Status: "draft", Created: t.Add(2 * time.Hour)},
		}
	})
	leadJSON := func(c *outreachCampaign, l *outreachLead) map[string]any {
		out := map[string]any{"_id": l.ID, "email": l.Key, "isPaused": false, "campaignId": c.ID, "campaignName": c.Name}
		for k, v := range l.Fields {
			out[k] = v
		}
		return out
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /team", func(w http.ResponseWriter, r *http.Request) {
		key, ok := lemlistKey(w, r)
		if !ok {
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"_id": lemlistID("tea_", key), "name": "Sandbox team",
			"userIds": []string{lemlistID("usr_", key)}, "createdBy": lemlistID("usr_", key),
			"createdAt": s.now().Add(-90 * 24 * time.Hour).Truncate(time.Millisecond).Format(time.RFC3339Nano),
			"beta":      []string{}, "invitedUsers": []any{}, "hooks": []any{}, "customDomain": ""})
	})
	mux.HandleFunc("GET /campaigns", func(w http.ResponseWriter, r *http.Request) {
		key, ok := lemlistKey(w, r)
		if !ok {
			return
		}
		offset, err1 := strconv.Atoi(lemlistQueryOr(r, "offset", "0"))
		limit, err2 := strconv.Atoi(lemlistQueryOr(r, "limit", "100"))
		if err1 != nil || err2 != nil || offset < 0 || limit < 1 || limit > 100 {
			lemlistFail(w, http.StatusBadRequest, "Invalid offset or limit")
			return
		}
		store.with(key, func(ws *outreachWorkspace) {
			out := []map[string]any{}
			for i := offset; i < len(ws.campaigns) && len(out) < limit; i++ {
				c := ws.campaigns[i]
				out = append(out, map[string]any{"_id": c.ID, "name": c.Name, "labels": []string{}, "status": c.Status,
					"createdAt": c.Created.Format(time.RFC3339Nano), "createdBy": lemlistID("usr_", key)})
			}
			writeJSON(w, http.StatusOK, out)
		})
	})
	mux.HandleFunc("GET /leads/{email}", func(w http.ResponseWriter, r *http.Request) {
		key, ok := lemlistKey(w, r)
		if !ok {
			return
		}
		email := normEmail(r.PathValue("email"))
		store.with(key, func(ws *outreachWorkspace) {
			for _, c := range ws.campaigns {
				if l := c.leads[email]; l != nil {
					writeJSON(w, http.StatusOK, leadJSON(c, l))
					return
				}
			}
			lemlistFail(w, http.StatusNotFound, "Lead not found")
		})
	})
	mux.HandleFunc("POST /campaigns/{id}/leads/{email}", func(w http.ResponseWriter, r *http.Request) {
		key, ok := lemlistKey(w, r)
		if !ok {
			return
		}
		raw, _ := url.PathUnescape(r.PathValue("email"))
		email := normEmail(raw)
		fields := map[string]any{}
		if r.ContentLength != 0 {
			if err := json.NewDecoder(r.Body).Decode(&fields); err != nil {
				lemlistFail(w, http.StatusBadRequest, "Invalid JSON body")
				return
			}
		}
		if email == "" {
			lemlistFail(w, http.StatusBadRequest, "Invalid email")
			return
		}
		for k, v := range fields {
			if _, ok := v.(string); !ok && v != nil {
				lemlistFail(w, http.StatusBadRequest, fmt.Sprintf("Invalid value for %s: must be a string", k))
				return
			}
		}
		dedupe := r.URL.Query().Get("deduplicate") == "true"
		store.with(key, func(ws *outreachWorkspace) {
			c := ws.byID[r.PathValue("id")]
			switch {
			case c == nil:
				lemlistFail(w, http.StatusNotFound, "Campaign not found")
			case ws.flaky(email):
				w.Header().Set("Retry-After", "0")
				lemlistFail(w, http.StatusTooManyRequests, "Too many requests, please retry later")
			case c.leads[email] != nil:
				lemlistFail(w, http.StatusBadRequest, "Lead already in the campaign")
			case dedupe && ws.inOther(c, email):
				lemlistFail(w, http.StatusBadRequest, "Lead already in other campaign")
			default:
				newID := func(seq int) string { return lemlistID("lea_", fmt.Sprintf("%s/%d", key, seq)) }
				l, _, full := ws.add(c, email, newID, fields, s.now())
				if full {
					lemlistFail(w, http.StatusPaymentRequired, "Lead limit reached for this team")
					return
				}
				writeJSON(w, http.StatusOK, leadJSON(c, l))
			}
		})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := lemlistKey(w, r); ok {
			lemlistFail(w, http.StatusNotFound, "Not Found")
		}
	})
	return mux
}

// lemlistQueryOr is the request's query parameter name, or def when absent.
func lemlistQueryOr(r *http.Request, name, def string) string {
	if s := r.URL.Query().Get(name); s != "" {
		return s
	}
	return def
}

// lemlistKey returns the Basic password (the API key), or answers
// lemlist's 401 or, for a key starting "ratelimited", its 429.
func lemlistKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	_, key, ok := r.BasicAuth()
	switch {
	case !ok || key == "" || strings.HasPrefix(key, "invalid"):
		lemlistFail(w, http.StatusUnauthorized, "Invalid API key")
		return "", false
	case strings.HasPrefix(key, "ratelimited"):
		w.Header().Set("Retry-After", "1")
		lemlistFail(w, http.StatusTooManyRequests, "Too many requests, please retry later")
		return "", false
	}
	return key, true
}

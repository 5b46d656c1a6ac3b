package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// X API v2 problem shapes.

type xParamError struct {
	Parameters map[string][]string `json:"parameters"`
	Message    string              `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"error":"encode"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeXInvalid is X's 400 for bad query parameters: every problem listed.
func writeXInvalid(w http.ResponseWriter, errs []xParamError) {
	writeJSON(w, http.StatusBadRequest, map[string]any{
		"errors": errs,
		"title":  "Invalid Request",
		"detail": "One or more parameters to your request was invalid.",
		"type":   "https://api.twitter.com/2/problems/invalid-request",
	})
}

func writeXProblem(w http.ResponseWriter, status int, title, detail string) {
	writeJSON(w, status, map[string]any{"title": title, "detail": detail, "type": "about:blank", "status": status})
}

func writeXUnavailable(w http.ResponseWriter) {
	writeXProblem(w, http.StatusServiceUnavailable, "Service Unavailable", "Service Unavailable")
}

// xRateWindow is X's rate-limit window.
const xRateWindow = 15 * time.Minute

// writeXRateLimited is X's 429; x-rate-limit-reset is the epoch second the window ends, as X sends it.
func writeXRateLimited(w http.ResponseWriter, now time.Time) {
	w.Header().Set("x-rate-limit-limit", "450")
	w.Header().Set("x-rate-limit-remaining", "0")
	w.Header().Set("x-rate-limit-reset", strconv.FormatInt(now.Truncate(xRateWindow).Add(xRateWindow).Unix(), 10))
	writeXProblem(w, http.StatusTooManyRequests, "Too Many Requests", "Too Many Requests")
}

// xNotFound is the in-body error X answers (with 200) for a user it cannot find.
func xNotFound(param, value, detail string) map[string]any {
	return map[string]any{
		"value":         value,
		"detail":        detail,
		"title":         "Not Found Error",
		"resource_type": "user",
		"parameter":     param,
		"resource_id":   value,
		"type":          "https://api.twitter.com/2/problems/resource-not-found",
	}
}

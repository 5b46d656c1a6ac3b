package apify

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const goodToken = "apify_api_GOODTOKEN123"

// actorFunc answers one actor run: the items it pushes, or a terminal failure status.
type actorFunc func(input map[string]any) (items []any, failStatus, failMsg string)

type fakeRun struct {
	id, actor, dataset string
	status, msg        string
	pollsLeft          int
}

// fakeApify follows Apify API v2's documented answers for the endpoints the adapter uses.
type fakeApify struct {
	t      testing.TB
	mu     sync.Mutex
	actors map[string]actorFunc
	// pollsBeforeDone is how many run reads answer RUNNING before the run finishes.
	pollsBeforeDone int
	// status429, when set, answers every request with 429 (and Retry-After when given).
	status429  bool
	retryAfter string
	status5xx  int // answer this many requests with 503 first
	runs       map[string]*fakeRun
	datasets   map[string][]any
	starts     map[string]int // actor → async runs started
	syncRuns   map[string]int
	aborts     []string
	waits      []string // waitForFinish values asked
	itemReads  []string // offset/limit of dataset reads
	inputs     []map[string]any
	srv        *httptest.Server
}

func newFake(t testing.TB) *fakeApify {
	f := &fakeApify{t: t, actors: map[string]actorFunc{}, runs: map[string]*fakeRun{}, datasets: map[string][]any{},
		starts: map[string]int{}, syncRuns: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func apifyErr(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"type":%q,"message":%q}}`, typ, msg)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeApify) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.status5xx > 0 {
		f.status5xx--
		apifyErr(w, http.StatusServiceUnavailable, "server-error", "try later")
		return
	}
	if f.status429 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		apifyErr(w, http.StatusTooManyRequests, "rate-limit-exceeded", "You have exceeded the rate limit")
		return
	}
	if r.URL.Query().Get("token") != "" {
		f.t.Errorf("token sent in the query string")
	}
	if r.Header.Get("Authorization") != "Bearer "+goodToken {
		apifyErr(w, http.StatusUnauthorized, "token-not-valid", "Authentication token is not valid.")
		return
	}
	path := r.URL.Path
	switch {
	case path == "/v2/users/me" && r.Method == http.MethodGet:
		writeJSON(w, 200, map[string]any{"data": map[string]any{"id": "u1", "username": "trawl"}})
	case strings.HasPrefix(path, "/v2/acts/") && r.Method == http.MethodPost:
		rest := strings.TrimPrefix(path, "/v2/acts/")
		actor, tail, _ := strings.Cut(rest, "/")
		fn, ok := f.actors[actor]
		if !ok {
			apifyErr(w, http.StatusNotFound, "record-not-found", "Actor was not found")
			return
		}
		var input map[string]any
		if err := json.NewDecoder(r.Body).Decode(&input); err != nil {
			apifyErr(w, 400, "invalid-input", err.Error())
			return
		}
		f.inputs = append(f.inputs, input)
		items, failStatus, failMsg := fn(input)
		switch tail {
		case "run-sync-get-dataset-items":
			f.syncRuns[actor]++
			if failStatus != "" {
				apifyErr(w, 400, "run-failed", "Actor run did not succeed (status: "+failStatus+"): "+failMsg)
				return
			}
			if items == nil {
				items = []any{}
			}
			writeJSON(w, 201, items)
		case "runs":
			f.starts[actor]++
			id := "run" + strconv.Itoa(len(f.runs)+1)
			ds := "ds" + strconv.Itoa(len(f.runs)+1)
			run := &fakeRun{id: id, actor: actor, dataset: ds, status: "READY", pollsLeft: f.pollsBeforeDone}
			if failStatus != "" {
				run.status, run.msg = failStatus, failMsg
			} else if f.pollsBeforeDone == 0 {
				run.status = "SUCCEEDED"
			}
			if items == nil {
				items = []any{}
			}
			f.datasets[ds] = items
			f.runs[id] = run
			writeJSON(w, 201, map[string]any{"data": f.runJSON(run)})
		default:
			apifyErr(w, 404, "page-not-found", "no such endpoint")
		}
	case strings.HasPrefix(path, "/v2/actor-runs/"):
		rest := strings.TrimPrefix(path, "/v2/actor-runs/")
		id, tail, _ := strings.Cut(rest, "/")
		run, ok := f.runs[id]
		if !ok {
			apifyErr(w, 404, "record-not-found", "Actor run was not found")
			return
		}
		if tail == "abort" && r.Method == http.MethodPost {
			f.aborts = append(f.aborts, id)
			run.status = "ABORTED"
			writeJSON(w, 200, map[string]any{"data": f.runJSON(run)})
			return
		}
		f.waits = append(f.waits, r.URL.Query().Get("waitForFinish"))
		if run.status == "READY" || run.status == "RUNNING" {
			if run.pollsLeft > 0 {
				run.pollsLeft--
				run.status = "RUNNING"
			} else {
				run.status = "SUCCEEDED"
			}
		}
		writeJSON(w, 200, map[string]any{"data": f.runJSON(run)})
	case strings.HasPrefix(path, "/v2/datasets/") && strings.HasSuffix(path, "/items"):
		ds := strings.TrimSuffix(strings.TrimPrefix(path, "/v2/datasets/"), "/items")
		items, ok := f.datasets[ds]
		if !ok {
			apifyErr(w, 404, "record-not-found", "Dataset was not found")
			return
		}
		q := r.URL.Query()
		off, _ := strconv.Atoi(q.Get("offset"))
		lim, err := strconv.Atoi(q.Get("limit"))
		if err != nil || lim <= 0 {
			lim = len(items)
		}
		f.itemReads = append(f.itemReads, fmt.Sprintf("%s@%d+%d", ds, off, lim))
		page := items[min(off, len(items)):min(off+lim, len(items))]
		w.Header().Set("X-Apify-Pagination-Total", strconv.Itoa(len(items)))
		w.Header().Set("X-Apify-Pagination-Offset", strconv.Itoa(off))
		writeJSON(w, 200, page)
	default:
		apifyErr(w, 404, "page-not-found", "no such endpoint")
	}
}

func (f *fakeApify) runJSON(r *fakeRun) map[string]any {
	return map[string]any{"id": r.id, "actId": r.actor, "status": r.status, "statusMessage": r.msg,
		"defaultDatasetId": r.dataset, "defaultKeyValueStoreId": "kv" + r.id}
}

// postItem is a HarvestAPI post item as the actors push it.
func postItem(id int, info string) map[string]any {
	return map[string]any{
		"type": "post", "id": strconv.Itoa(7300000000000000000 + id),
		"linkedinUrl": "https://www.linkedin.com/posts/x-activity-" + strconv.Itoa(7300000000000000000+id) + "-a",
		"content":     "post " + strconv.Itoa(id),
		"author":      map[string]any{"type": "profile", "name": "Jane Doe", "publicIdentifier": "jane", "info": info},
		"postedAt":    map[string]any{"timestamp": 1764000000000 + int64(id)*1000, "date": "2025-11-24T16:00:00.000Z"},
		"query":       map[string]any{"search": "crm"},
	}
}

func postItems(n int) []any {
	out := make([]any, n)
	for i := range n {
		out[i] = postItem(i, "Head of RevOps at Acme")
	}
	return out
}

func commentItem(i int) map[string]any {
	return map[string]any{"id": "c" + strconv.Itoa(i), "commentary": "nice " + strconv.Itoa(i),
		"actor": map[string]any{"id": "a" + strconv.Itoa(i), "name": "Commenter"}, "query": map[string]any{"post": "x"}}
}

func reactionItem(i int) map[string]any {
	return map[string]any{"id": "r" + strconv.Itoa(i), "reactionType": "LIKE",
		"actor": map[string]any{"id": "ACo" + strconv.Itoa(i), "name": "Reactor", "linkedinUrl": "https://www.linkedin.com/in/r" + strconv.Itoa(i)}}
}

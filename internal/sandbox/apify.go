package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Apify API v2 (api.apify.com/v2) with HarvestAPI's actors: run-sync-get-dataset-items, async
// runs polled with waitForFinish, abort, dataset items and users/me. A run's items are computed
// when it starts; it reads READY when started, RUNNING at its first status read and its final
// status (SUCCEEDED, or FAILED for an error-… input) from the second, or at once with
// waitForFinish > 0, so clients' polling is exercised deterministically.

const (
	apifyMaxRuns    = 1000 // runs kept; the oldest is dropped
	apifyMaxBody    = 1 << 20
	apifyMaxWaitSec = 60
)

type apifyRun struct {
	id, datasetID, kvID, queueID string
	actor                        apifyActor
	started                      time.Time
	status                       string
	final                        string // SUCCEEDED or FAILED
	items                        []json.RawMessage
	inputLen                     int
}

// apifyRuns is the bounded table of runs; its zero value is ready to use.
type apifyRuns struct {
	mu      sync.Mutex
	counter uint64
	byID    map[string]*apifyRun
	byData  map[string]*apifyRun
	order   []string
}

func (t *apifyRuns) add(seed uint64, run *apifyRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID, t.byData = map[string]*apifyRun{}, map[string]*apifyRun{}
	}
	t.counter++
	h := hashN(seed^0xa4, t.counter)
	run.id, run.datasetID = base62String(h, 17), base62String(mix(h^1), 17)
	run.kvID, run.queueID = base62String(mix(h^2), 17), base62String(mix(h^3), 17)
	t.byID[run.id], t.byData[run.datasetID] = run, run
	t.order = append(t.order, run.id)
	for len(t.order) > apifyMaxRuns {
		old := t.byID[t.order[0]]
		delete(t.byID, old.id)
		delete(t.byData, old.datasetID)
		t.order = t.order[1:]
	}
}

func (t *apifyRuns) get(id string) (*apifyRun, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byID[id]
	return r, ok
}

func (t *apifyRuns) dataset(id string) (*apifyRun, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byData[id]
	return r, ok
}

func (t *apifyRuns) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// advance moves a run on by one status read (or to its end when wait), under the table's lock.
func (t *apifyRuns) advance(r *apifyRun, wait bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case r.status != "READY" && r.status != "RUNNING":
	case wait || r.status == "RUNNING":
		r.status = r.final
	default:
		r.status = "RUNNING"
	}
}

func (t *apifyRuns) abort(r *apifyRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.status == "READY" || r.status == "RUNNING" {
		r.status, r.items = "ABORTED", nil
	}
}

// snapshot is the run's status and the items readable now (none before it finishes).
func (t *apifyRuns) snapshot(r *apifyRun) (string, []json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.status == "SUCCEEDED" {
		return r.status, r.items
	}
	return r.status, nil
}

func (s *Sandbox) apifyHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/acts/{actor}/run-sync-get-dataset-items", s.apifyRunSync)
	mux.HandleFunc("POST /v2/acts/{actor}/runs", s.apifyStart)
	mux.HandleFunc("GET /v2/actor-runs/{id}", s.apifyGetRun)
	mux.HandleFunc("POST /v2/actor-runs/{id}/abort", s.apifyAbort)
	mux.HandleFunc("GET /v2/datasets/{id}/items", s.apifyItems)
	mux.HandleFunc("GET /v2/users/me", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
			"id": base62String(s.world.seed^0xa5, 17), "username": "trawl-sandbox", "email": "sandbox@example.com",
			"profile": map[string]any{"name": "Trawl Sandbox"},
			"plan":    map[string]any{"id": "STARTER", "monthlyUsageCreditsUsd": 49, "maxActorMemoryGbytes": 32}}})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apifyError(w, http.StatusNotFound, "page-not-found", "We have bad news: there is no API endpoint at this URL.")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("token")
		if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			token = b
		}
		token = strings.TrimSpace(token)
		if token == "" {
			apifyError(w, http.StatusUnauthorized, "token-not-provided", "Authentication token was not provided")
			return
		}
		if strings.HasPrefix(strings.ToLower(token), "invalid") {
			apifyError(w, http.StatusUnauthorized, "token-not-valid", "Authentication token is not valid")
			return
		}
		// As the contract's server does, so that tests see what a client asked for; a run's
		// actor and input are logged when it starts (apifyStartRun). The query never holds the
		// token here: a ?token= is dropped from the line.
		q := r.URL.Query()
		q.Del("token")
		s.logger.Debug("sandbox apify request", "method", r.Method, "path", r.URL.Path, "query", q.Encode())
		mux.ServeHTTP(w, r)
	})
}

func apifyError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"type": typ, "message": msg}})
}

// apifyStartRun validates the input and starts a run, answering the error itself when it cannot.
func (s *Sandbox) apifyStartRun(w http.ResponseWriter, r *http.Request) (*apifyRun, bool) {
	actor, ok := actorByID(r.PathValue("actor"))
	if !ok {
		apifyError(w, http.StatusNotFound, "record-not-found", "Actor was not found")
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, apifyMaxBody+1))
	if err != nil || len(body) > apifyMaxBody {
		apifyError(w, http.StatusRequestEntityTooLarge, "request-too-large", "The input is too large")
		return nil, false
	}
	in := map[string]any{}
	s.logger.Debug("sandbox apify run", "actor", actor.name, "input", string(body))
	if strings.TrimSpace(string(body)) != "" {
		if err := json.Unmarshal(body, &in); err != nil || in == nil {
			apifyError(w, http.StatusBadRequest, "invalid-input", "Input is not valid: the input must be a JSON object")
			return nil, false
		}
	}
	if err := actor.validate(in); err != nil {
		apifyError(w, http.StatusBadRequest, "invalid-input", "Input is not valid: "+err.Error())
		return nil, false
	}
	fault := inputFault(in)
	switch fault {
	case faultRateLimited:
		w.Header().Set("Retry-After", pronetRetryAfterS)
		fallthrough
	case faultThrottled:
		apifyError(w, http.StatusTooManyRequests, "rate-limit-exceeded", "You have exceeded the rate limit. Please try again later.")
		return nil, false
	}
	now := s.now()
	run := &apifyRun{actor: actor, started: now, status: "READY", final: "SUCCEEDED", inputLen: len(body)}
	if fault == faultError {
		run.final = "FAILED"
	} else {
		items := actor.run(s, in, fault.render(), now)
		for i, it := range items {
			b, _ := json.Marshal(it)
			if i == 0 && fault == faultMalformed {
				b = []byte(`"<html>"`)
			}
			run.items = append(run.items, b)
		}
	}
	s.runs.add(s.world.seed, run)
	return run, true
}

func (s *Sandbox) apifyRunSync(w http.ResponseWriter, r *http.Request) {
	run, ok := s.apifyStartRun(w, r)
	if !ok {
		return
	}
	s.runs.advance(run, true)
	status, items := s.runs.snapshot(run)
	if status != "SUCCEEDED" {
		apifyError(w, http.StatusBadRequest, "run-failed",
			fmt.Sprintf("Actor run did not succeed (run ID: %s, status: %s)", run.id, status))
		return
	}
	writeItems(w, r, http.StatusCreated, items)
}

func waitParam(r *http.Request) bool {
	n, err := strconv.Atoi(r.URL.Query().Get("waitForFinish"))
	return err == nil && n > 0
}

func (s *Sandbox) apifyStart(w http.ResponseWriter, r *http.Request) {
	run, ok := s.apifyStartRun(w, r)
	if !ok {
		return
	}
	if waitParam(r) {
		s.runs.advance(run, true)
	}
	writeJSON(w, http.StatusCreated, map[string]any{"data": s.runRecord(run)})
}

func (s *Sandbox) runOf(w http.ResponseWriter, r *http.Request) (*apifyRun, bool) {
	run, ok := s.runs.get(r.PathValue("id"))
	if !ok {
		apifyError(w, http.StatusNotFound, "record-not-found", "Actor run was not found")
	}
	return run, ok
}

func (s *Sandbox) apifyGetRun(w http.ResponseWriter, r *http.Request) {
	run, ok := s.runOf(w, r)
	if !ok {
		return
	}
	if v := r.URL.Query().Get("waitForFinish"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > apifyMaxWaitSec {
			apifyError(w, http.StatusBadRequest, "invalid-parameter", "waitForFinish must be an integer from 0 to 60")
			return
		}
	}
	s.runs.advance(run, waitParam(r))
	writeJSON(w, http.StatusOK, map[string]any{"data": s.runRecord(run)})
}

func (s *Sandbox) apifyAbort(w http.ResponseWriter, r *http.Request) {
	run, ok := s.runOf(w, r)
	if !ok {
		return
	}
	s.runs.abort(run)
	writeJSON(w, http.StatusOK, map[string]any{"data": s.runRecord(run)})
}

func (s *Sandbox) apifyItems(w http.ResponseWriter, r *http.Request) {
	run, ok := s.runs.dataset(r.PathValue("id"))
	if !ok {
		apifyError(w, http.StatusNotFound, "record-not-found", "Dataset was not found")
		return
	}
	_, items := s.runs.snapshot(run)
	writeItems(w, r, http.StatusOK, items)
}

// writeItems writes a page of dataset items (offset, limit, desc; format json only) with
// Apify's pagination headers.
func writeItems(w http.ResponseWriter, r *http.Request, status int, items []json.RawMessage) {
	q := r.URL.Query()
	if f := q.Get("format"); f != "" && f != "json" {
		apifyError(w, http.StatusBadRequest, "invalid-parameter", "This sandbox serves format=json only")
		return
	}
	offset, ok := intParam(q, "offset", 0, 0)
	limit, ok2 := intParam(q, "limit", len(items), 0)
	if !ok || !ok2 {
		apifyError(w, http.StatusBadRequest, "invalid-parameter", "offset and limit must be non-negative integers")
		return
	}
	if q.Get("desc") == "1" || q.Get("desc") == "true" {
		rev := make([]json.RawMessage, len(items))
		for i, it := range items {
			rev[len(items)-1-i] = it
		}
		items = rev
	}
	lo := min(offset, len(items))
	page := items[lo:min(lo+limit, len(items))]
	h := w.Header()
	h.Set("X-Apify-Pagination-Offset", strconv.Itoa(offset))
	h.Set("X-Apify-Pagination-Limit", strconv.Itoa(limit))
	h.Set("X-Apify-Pagination-Count", strconv.Itoa(len(page)))
	h.Set("X-Apify-Pagination-Total", strconv.Itoa(len(items)))
	if page == nil {
		page = []json.RawMessage{}
	}
	writeJSON(w, status, page)
}

// runRecord renders a run in Apify's run object shape.
func (s *Sandbox) runRecord(run *apifyRun) map[string]any {
	status, items := s.runs.snapshot(run)
	duration := 5*time.Second + time.Duration(len(run.items))*20*time.Millisecond
	var finished, exit any
	switch status {
	case "SUCCEEDED":
		finished, exit = run.started.Add(duration).Format(xTime), 0
	case "FAILED":
		finished, exit = run.started.Add(duration).Format(xTime), 1
	case "ABORTED":
		finished = run.started.Add(duration).Format(xTime)
	}
	msg := map[string]string{"READY": "Starting the Actor run", "RUNNING": "Scraping…",
		"SUCCEEDED": fmt.Sprintf("Finished! Scraped %d items", len(items)), "FAILED": "The Actor process failed: upstream error",
		"ABORTED": "Run was aborted"}[status]
	return map[string]any{
		"id": run.id, "actId": run.actor.id, "userId": base62String(s.world.seed^0xa5, 17), "actorTaskId": nil,
		"startedAt": run.started.Format(xTime), "finishedAt": finished, "status": status, "statusMessage": msg,
		"isStatusMessageTerminal": finished != nil, "meta": map[string]any{"origin": "API"},
		"stats": map[string]any{"inputBodyLen": run.inputLen, "restartCount": 0, "resurrectCount": 0,
			"runTimeSecs": duration.Seconds(), "computeUnits": 0.001},
		"options": map[string]any{"build": "latest", "timeoutSecs": 3600, "memoryMbytes": 1024, "diskMbytes": 2048},
		"buildId": base62String(hashString(s.world.seed, run.actor.name), 17), "buildNumber": "1.0.1", "exitCode": exit,
		"defaultKeyValueStoreId": run.kvID, "defaultDatasetId": run.datasetID, "defaultRequestQueueId": run.queueID,
		"usageTotalUsd": 0.002 * float64(len(items)),
	}
}

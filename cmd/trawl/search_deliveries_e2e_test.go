package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

// webhookSearch is what a search's answers say of its webhook.
type webhookSearch struct {
	ID            string  `json:"id"`
	WebhookURL    *string `json:"webhook_url"`
	WebhookSecret *string `json:"webhook_secret"`
}

func TestSearchWebhookURLAccepted(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		creates := []struct {
			path string
			body map[string]any
		}{
			{"/v1/searches/microblog/posts", map[string]any{"name": "w", "keywords": []string{"CRM"}}},
			{"/v1/searches/microblog/profile", map[string]any{"name": "w", "profile_url": "https://x.com/jack"}},
			{"/v1/searches/pronet/posts", map[string]any{"name": "w", "keywords": []string{"CRM"}}},
			{"/v1/searches/pronet/profile", map[string]any{"name": "w", "profile_url": "https://www.linkedin.com/in/jane-doe"}},
		}
		for _, cr := range creates {
			cr.body["webhook_url"] = "ftp://example.com/hook"
			e := mustDo(t, c, http.MethodPost, cr.path, cr.body, 400).Err()
			if len(e.Details) != 1 || e.Details[0].Field != "body.webhook_url" {
				t.Fatalf("%s with an ftp webhook_url: %+v", cr.path, e)
			}
			cr.body["webhook_url"] = "https://example.com/hook"
			var s webhookSearch
			if err := mustDo(t, c, http.MethodPost, cr.path, cr.body, 201).Data(&s); err != nil {
				t.Fatal(err)
			}
			if s.WebhookURL == nil || *s.WebhookURL != "https://example.com/hook" || s.WebhookSecret == nil || !strings.HasPrefix(*s.WebhookSecret, "whsec_") {
				t.Fatalf("%s created %+v", cr.path, s)
			}
			var got webhookSearch
			if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID, nil, 200).Data(&got); err != nil {
				t.Fatal(err)
			}
			if got.WebhookURL == nil || *got.WebhookURL != "https://example.com/hook" || got.WebhookSecret != nil {
				t.Fatalf("GET %s = %+v, want the URL and no secret", cr.path, got)
			}
		}

		s := createSearch(t, c, map[string]any{"name": "plain", "keywords": []string{"CRM"}})
		var p webhookSearch
		e := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"webhook_url": "not a url"}, 400).Err()
		if len(e.Details) != 1 || e.Details[0].Field != "body.webhook_url" {
			t.Fatalf("PATCH with a bad webhook_url: %+v", e)
		}
		if err := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"webhook_url": "http://example.com/h"}, 200).Data(&p); err != nil {
			t.Fatal(err)
		}
		if p.WebhookURL == nil || p.WebhookSecret == nil {
			t.Fatalf("PATCH set: %+v", p)
		}
		p = webhookSearch{}
		if err := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"webhook_url": ""}, 200).Data(&p); err != nil {
			t.Fatal(err)
		}
		if p.WebhookURL != nil || p.WebhookSecret != nil {
			t.Fatalf("PATCH clear: %+v", p)
		}
	})
}

// hookReceiver is a loopback webhook receiver: each path answers the
// statuses queued for it in turn (200 once they run out).
type hookReceiver struct {
	mu       sync.Mutex
	statuses map[string][]int
	got      map[string][]hookRequest
}

type hookRequest struct {
	ID, Timestamp, Signature string
	Body                     []byte
}

func newHookReceiver(t *testing.T) (*hookReceiver, *httptest.Server) {
	h := &hookReceiver{statuses: map[string][]int{}, got: map[string][]hookRequest{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got[r.URL.Path] = append(h.got[r.URL.Path], hookRequest{r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), body})
		status := http.StatusOK
		if q := h.statuses[r.URL.Path]; len(q) > 0 {
			status, h.statuses[r.URL.Path] = q[0], q[1:]
		}
		h.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return h, srv
}

func (h *hookReceiver) requests(path string) []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.got[path]...)
}

type deliveryView struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	ResultsCount   int     `json:"results_count"`
	NextAttemptAt  *string `json:"next_attempt_at"`
	LastStatusCode *int    `json:"last_status_code"`
	LastError      *string `json:"last_error"`
}

func listDeliveries(t *testing.T, c *client.Client, id string) []deliveryView {
	t.Helper()
	var ds []deliveryView
	if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+id+"/deliveries", nil, 200).Data(&ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// waitDeliveries polls the search's deliveries until ok holds.
func waitDeliveries(t *testing.T, c *client.Client, id string, ok func([]deliveryView) bool) []deliveryView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds := listDeliveries(t, c, id)
		if ok(ds) {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries of %s = %+v", id, ds)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func allStatus(status string) func([]deliveryView) bool {
	return func(ds []deliveryView) bool {
		for _, d := range ds {
			if d.Status != status {
				return false
			}
		}
		return len(ds) > 0
	}
}

func verifySignature(t *testing.T, secret string, r hookRequest) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(r.ID + "." + r.Timestamp + "."))
	mac.Write(r.Body)
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); r.Signature != want {
		t.Fatalf("webhook-signature %q, want %q", r.Signature, want)
	}
}

func TestSearchWebhookDeliveries(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		recv, hook := newHookReceiver(t)
		recv.statuses["/flaky"] = []int{http.StatusInternalServerError}
		recv.statuses["/bad"] = []int{http.StatusBadRequest}
		clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
		ts := startServerAt(t, serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s",
			"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.1/32", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}), clk.Now)
		c := ts.Client
		create := func(url string) webhookSearch {
			var s webhookSearch
			body := map[string]any{"name": "hooked", "keywords": []string{"CRM", "RevOps"}, "max_results": 30, "webhook_url": url}
			if err := mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts", body, 201).Data(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}

		// The first run's new results arrive signed, in the results' shape.
		ok := create(hook.URL + "/ok")
		ds := waitDeliveries(t, c, ok.ID, allStatus("delivered"))
		got, okDeliveries := recv.requests("/ok"), len(ds)
		total := 0
		for _, d := range ds {
			total += d.ResultsCount
			if d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.NextAttemptAt != nil {
				t.Fatalf("delivered = %+v", d)
			}
		}
		if len(got) != len(ds) {
			t.Fatalf("%d requests for %d deliveries", len(got), len(ds))
		}
		verifySignature(t, *ok.WebhookSecret, got[0])
		var payload struct {
			Type     string       `json:"type"`
			SearchID string       `json:"search_id"`
			RunAt    string       `json:"run_at"`
			Results  []resultItem `json:"results"`
		}
		if err := json.Unmarshal(got[0].Body, &payload); err != nil {
			t.Fatal(err)
		}
		if payload.Type != "search.results" || payload.SearchID != ok.ID || payload.RunAt == "" || len(payload.Results) == 0 ||
			payload.Results[0].Source != "microblog" || payload.Results[0].Author.Username == "" {
			t.Fatalf("payload = %s", got[0].Body)
		}
		if sr := getSearch(t, c, ok.ID); int64(total) != sr.TotalResults {
			t.Fatalf("delivered %d results of %d", total, sr.TotalResults)
		}

		// A 500 is retried after the backoff with the same webhook-id.
		flaky := create(hook.URL + "/flaky")
		waitDeliveries(t, c, flaky.ID, func(ds []deliveryView) bool {
			return len(ds) == 1 && ds[0].Status == "pending" && ds[0].LastStatusCode != nil && *ds[0].LastStatusCode == 500 && ds[0].NextAttemptAt != nil
		})
		clk.Advance(31 * time.Second)
		ds = waitDeliveries(t, c, flaky.ID, allStatus("delivered"))
		if reqs := recv.requests("/flaky"); len(reqs) != 2 || reqs[0].ID != reqs[1].ID || reqs[0].ID != ds[0].ID || ds[0].Attempts != 2 {
			t.Fatalf("retried requests %+v, deliveries %+v", reqs, ds)
		}

		// A 400 fails at once.
		bad := create(hook.URL + "/bad")
		ds = waitDeliveries(t, c, bad.ID, allStatus("failed"))
		if ds[0].Attempts != 1 || *ds[0].LastStatusCode != 400 || len(recv.requests("/bad")) != 1 {
			t.Fatalf("400 delivery = %+v", ds[0])
		}

		// A private address the deployment does not allow is refused.
		private := create("http://10.0.0.1:9/hook")
		ds = waitDeliveries(t, c, private.ID, allStatus("failed"))
		if ds[0].LastError == nil || !strings.Contains(*ds[0].LastError, "not a public address") || ds[0].LastStatusCode != nil {
			t.Fatalf("private delivery = %+v", ds[0])
		}

		// Tenancy: another account's search is not found; paging holds.
		mustDo(t, c, http.MethodGet, "/v1/searches/00000000-0000-0000-0000-000000000000/deliveries", nil, 404)
		other := newAccountKey(t, ts, "CUSTOM", "", "searches:read")
		mustDo(t, other, http.MethodGet, "/v1/searches/"+ok.ID+"/deliveries", nil, 404)
		var page struct {
			Data       []deliveryView `json:"data"`
			Pagination pageInfo       `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/searches/"+ok.ID+"/deliveries?limit=1", nil, 200).Body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Pagination.HasMore != (okDeliveries > 1) {
			t.Fatalf("first page of deliveries = %+v", page)
		}
	})
}

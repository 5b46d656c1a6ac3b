package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// lookupRig is an API server whose pronet and enrich connectors talk to a sandbox on loopback.
type lookupRig struct {
	server *Server
	store  *store.Store
	pronet *pronet.Client
	enrich *enrich.Client
	key    string
}

func newLookupRig(tb testing.TB, engine store.Dialect) *lookupRig {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	sb, err := sandbox.Start(ctx, "127.0.0.1:0", sandbox.Config{Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = sb.Close() })
	// No waiting between retries: the sandbox's error- identifiers fail at once.
	noSleep := func(context.Context, time.Duration) error { return nil }
	hc := &http.Client{Timeout: 10 * time.Second}
	rig := &lookupRig{
		store:  storetest.Open(tb, engine, nil),
		pronet: pronet.New(pronet.Config{BaseURL: sb.PronetURL(), APIKey: "sandbox", HTTP: hc, Sleep: noSleep}),
		enrich: enrich.New(enrich.Config{BaseURL: sb.EnrichURL(), APIKey: "sandbox", HTTP: hc, Sleep: noSleep}),
	}
	cfg := &config.Config{RateLimitStarter: 1 << 30, RateLimitEnterprise: 1 << 30, RateLimitCustom: 1 << 30,
		CreditsCustom: 1 << 50, PronetHosts: []string{"linkedin.com"}}
	rig.server = New(Deps{Config: cfg, Store: rig.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now,
		Pronet: rig.pronet, Enrich: rig.enrich})
	a := auth.Account{Name: "lookups", Plan: auth.PlanCustom}
	if err := rig.store.CreateAccount(context.Background(), &a); err != nil {
		tb.Fatal(err)
	}
	if rig.key, err = rig.store.CreateKey(context.Background(), &auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}}); err != nil {
		tb.Fatal(err)
	}
	return rig
}

func (r *lookupRig) post(path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", r.key)
	rec := httptest.NewRecorder()
	r.server.ServeHTTP(rec, req)
	return rec
}

var lookupPaths = []string{"/v1/profile/posts", "/v1/company/posts", "/v1/company/comments", "/v1/profile/enrich"}

// FuzzLookupBodies feeds arbitrary bodies to the four lookups: every answer is a success or
// an error of the model, never a 500, and credits are charged only on a success.
func FuzzLookupBodies(f *testing.F) {
	for _, seed := range []string{
		`{"profileUrl": "https://www.linkedin.com/in/jane-doe"}`,
		`{"profileUrl": "https://www.linkedin.com/in/jane-doe", "page": 3, "after": "2026-11-01T00:00:00Z"}`,
		`{"profileUrl": "https://de.linkedin.com/in/jane-doe/?x=1", "paginationToken": "abc"}`,
		`{"profileUrl": "https://www.linkedin.com/in/error-x"}`,
		`{"profileUrl": "linkedin.com/in/%zz"}`,
		`{"companyUrl": "https://www.linkedin.com/company/acme/posts/"}`,
		`{"companyUrl": "https://www.linkedin.com/company/missing-acme"}`,
		`{"postUrn": "urn:li:activity:7262340993178763264", "page": 2}`,
		`{"postUrn": "https://www.linkedin.com/posts/jane-doe_x-activity-7262340993178763264-abcd"}`,
		`{"postUrn": "99999999999999999999999"}`,
		`{"postUrn": ""}`, `{}`, `[]`, `null`, `{"page": -1}`, `{"after": 5}`,
	} {
		for i := range lookupPaths {
			f.Add(uint8(i), seed)
		}
	}
	rig := newLookupRig(f, store.SQLite)
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		rec := rig.post(lookupPaths[int(which)%len(lookupPaths)], body)
		spent := rec.Header().Get("x-spent-credits")
		switch {
		case rec.Code >= 500 && !strings.Contains(rec.Body.String(), `"code":"`+CodeUpstream+`"`):
			// Only the upstream may fail a lookup (502, or 500 for enrichment).
			t.Fatalf("%d for %q: %s", rec.Code, body, rec.Body)
		case rec.Code == http.StatusOK:
			var env struct {
				Success bool `json:"success"`
			}
			if json.Unmarshal(rec.Body.Bytes(), &env) != nil || !env.Success || spent == "" {
				t.Fatalf("200 without the envelope or x-spent-credits for %q: %s", body, rec.Body)
			}
		default:
			var eb errorBody
			if json.Unmarshal(rec.Body.Bytes(), &eb) != nil || eb.Success || eb.Error.Code == "" || spent != "0" {
				t.Fatalf("%d for %q is not an error of the model: %s", rec.Code, body, rec.Body)
			}
		}
	})
}

func TestPostsAfter(t *testing.T) {
	at := func(ms int64, date string) pronet.Post { return pronet.Post{PostedDateTimestamp: ms, PostedDate: date} }
	cut := time.UnixMilli(2000)
	posts := []pronet.Post{at(3000, ""), at(0, "1970-01-01T00:00:02.500Z"), at(2000, ""), at(0, "")}
	got, dropped := postsAfter(posts, cut)
	if len(got) != 2 || got[0].PostedDateTimestamp != 3000 || got[1].PostedDate == "" || !dropped {
		t.Fatalf("postsAfter = %+v, %v; want the two posts after the cut, and dropped", got, dropped)
	}
	if _, dropped := postsAfter(posts[:1], cut); dropped {
		t.Fatalf("nothing was older, yet dropped is true")
	}
}

func TestLookupsAcceptConfiguredHostsWithWWW(t *testing.T) {
	rig := newLookupRig(t, store.SQLite)
	for _, u := range []string{"https://www.linkedin.com/in/jane-doe", "https://linkedin.com/in/jane-doe", "https://fr.linkedin.com/in/jane-doe"} {
		if rec := rig.post("/v1/profile/enrich", `{"profileUrl": "`+u+`"}`); rec.Code != http.StatusOK {
			t.Errorf("%s: %d %s", u, rec.Code, rec.Body)
		}
	}
	if rec := rig.post("/v1/profile/enrich", `{"profileUrl": "https://www.example.com/in/jane-doe"}`); rec.Code != http.StatusBadRequest {
		t.Errorf("a host that is not configured: %d", rec.Code)
	}
}

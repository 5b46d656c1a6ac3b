package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

type probeBody struct {
	Name  string   `json:"name" minLength:"1" maxLength:"255"`
	Count int      `json:"count,omitempty" minimum:"1" maximum:"10"`
	Tags  []string `json:"tags,omitempty"`
}

type probeInput struct {
	Body probeBody
}

// newProbeServer returns a server with one extra route that needs
// topics:write and the topics feature and spends one credit, so that the
// shared machinery (validation, auth, plans, credits) is tested apart from
// any endpoint.
func newProbeServer(t *testing.T, engine store.Dialect) (*Server, *store.Store) {
	t.Helper()
	st := storetest.Open(t, engine, nil)
	cfg := &config.Config{RateLimitStarter: 1000, RateLimitEnterprise: 1000, RateLimitCustom: 1000, CreditsCustom: 2}
	s := New(Deps{Config: cfg, Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now})
	huma.Register(s.api, route(http.MethodPost, "/v1/probe", "probe", "Test", "probe",
		access{permission: auth.PermTopicsWrite, feature: auth.FeatureTopics}),
		func(ctx context.Context, in *probeInput) (*MeteredReply[probeBody], error) {
			spent, err := s.spend(ctx, credits.SocialTopics, 1, "probe")
			if err != nil {
				return nil, err
			}
			return &MeteredReply[probeBody]{SpentCredits: spent, Body: Envelope[probeBody]{Success: true, Data: in.Body}}, nil
		})
	return s, st
}

func newKey(t *testing.T, st *store.Store, plan auth.Plan, perms ...auth.Permission) string {
	t.Helper()
	a := auth.Account{Name: "t", Plan: plan}
	if err := st.CreateAccount(context.Background(), &a); err != nil {
		t.Fatal(err)
	}
	secret, err := st.CreateKey(context.Background(), &auth.Key{AccountID: a.ID, Permissions: perms})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

type errorBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Error   struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details struct {
			Fields     []Detail `json:"fields"`
			Permission string   `json:"permission"`
			Plans      []string `json:"plans"`
		} `json:"details"`
		RetryAfterSeconds *int64 `json:"retryAfterSeconds"`
	} `json:"error"`
}

func send(t *testing.T, s *Server, key, body string) (*httptest.ResponseRecorder, errorBody) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/probe", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var eb errorBody
	_ = json.Unmarshal(rec.Body.Bytes(), &eb)
	return rec, eb
}

func TestErrorModel(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			s, st := newProbeServer(t, engine)
			good := newKey(t, st, auth.PlanCustom, auth.PermAll)
			cases := []struct {
				name, key, body string
				status          int
				code            string
				fields          []string
			}{
				{"malformed JSON", good, `{"name": "x"`, 400, CodeBadRequest, nil},
				{"wrong type", good, `{"name": 5}`, 400, CodeValidation, []string{"body.name"}},
				{"unknown field", good, `{"name": "x", "colour": "red"}`, 400, CodeValidation, []string{"body.colour"}},
				{"every problem listed", good, `{"name": "", "count": 99, "tags": "a"}`, 400, CodeValidation, []string{"body.name", "body.count", "body.tags"}},
				{"missing required", good, `{}`, 400, CodeValidation, []string{"body.name"}},
				{"oversize", good, `{"name": "` + strings.Repeat("x", 1<<20) + `"}`, 413, CodePayloadTooLarge, nil},
				{"missing permission", newKey(t, st, auth.PlanCustom, auth.PermTopicsRead), `{"name": "x"}`, 403, CodeForbidden, []string{"header.x-api-key"}},
				{"plan without feature", newKey(t, st, auth.PlanStarter, auth.PermAll), `{"name": "x"}`, 403, CodePlanRequired, nil},
			}
			for _, c := range cases {
				rec, eb := send(t, s, c.key, c.body)
				if rec.Code != c.status || eb.Error.Code != c.code || eb.Success || eb.Message == "" || eb.Error.Message == "" {
					t.Errorf("%s: %d %s, want %d %s", c.name, rec.Code, rec.Body.String(), c.status, c.code)
					continue
				}
				for _, f := range c.fields {
					found := false
					for _, d := range eb.Error.Details.Fields {
						found = found || (d.Field == f && d.Message != "")
					}
					if !found {
						t.Errorf("%s: details %+v do not name %s", c.name, eb.Error.Details.Fields, f)
					}
				}
				if got := rec.Header().Get("x-spent-credits"); got != "" && got != "0" {
					t.Errorf("%s: a failed request reports %s spent credits", c.name, got)
				}
				// details is an object with something in it, or absent.
				if b := rec.Body.String(); strings.Contains(b, `"details":[`) || strings.Contains(b, `"details":{}`) ||
					(c.fields == nil && c.code != CodePlanRequired && c.code != CodeBadRequest && strings.Contains(b, `"details"`)) {
					t.Errorf("%s: details %s, want an object with something in it, or none", c.name, b)
				}
				if c.code == CodeForbidden && eb.Error.Details.Permission == "" {
					t.Errorf("%s: details %s do not name the permission", c.name, rec.Body)
				}
				if c.code == CodePlanRequired && !slices.Equal(eb.Error.Details.Plans, []string{"ENTERPRISE", "CUSTOM"}) {
					t.Errorf("%s: details %s do not name the plans that have the feature", c.name, rec.Body)
				}
			}
			// None of the refused requests spent anything.
			u, err := st.Usage(context.Background(), mustAccount(t, st, good), time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
			if err != nil || u.TotalConsumed != 0 {
				t.Fatalf("refused requests spent %+v, %v", u, err)
			}
		})
	}
}

func mustAccount(t *testing.T, st *store.Store, secret string) string {
	p, err := st.Authenticate(context.Background(), auth.HashSecret(secret))
	if err != nil {
		t.Fatal(err)
	}
	return p.Account.ID
}

func TestCreditsHeaderAndExhaustion(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			s, st := newProbeServer(t, engine)
			key := newKey(t, st, auth.PlanEnterprise, auth.PermAll)
			// ENTERPRISE has no allocation in this config: the first spend is refused.
			rec, eb := send(t, s, key, `{"name": "x"}`)
			if rec.Code != 403 || eb.Error.Code != CodeInsufficientCredits {
				t.Fatalf("spend with no credits = %d %s", rec.Code, rec.Body)
			}
			custom := newKey(t, st, auth.PlanCustom, auth.PermAll)
			for i := 0; i < 2; i++ {
				rec, _ := send(t, s, custom, `{"name": "x"}`)
				if rec.Code != 200 || rec.Header().Get("x-spent-credits") != "1" {
					t.Fatalf("spend %d = %d, x-spent-credits %q", i, rec.Code, rec.Header().Get("x-spent-credits"))
				}
			}
			rec, eb = send(t, s, custom, `{"name": "x"}`)
			if rec.Code != 403 || eb.Error.Code != CodeInsufficientCredits || rec.Header().Get("x-spent-credits") != "0" ||
				!strings.Contains(rec.Body.String(), `"needed":1,"available":0`) {
				t.Fatalf("spend past the allocation = %d %s", rec.Code, rec.Body)
			}
			u, err := st.Usage(context.Background(), mustAccount(t, st, custom), time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
			if err != nil || u.TotalConsumed != 2 || u.ByFeature[credits.SocialTopics] != 2 {
				t.Fatalf("ledger = %+v, %v; want the 2 credits the headers reported", u, err)
			}
		})
	}
}

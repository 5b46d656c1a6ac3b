package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/store"
)

// lookupsCharged returns a check that r spent want credits of feature and that the usage
// summary agrees, keeping the running totals in byFeature.
func lookupsCharged(c *client.Client, byFeature map[string]int64) func(t *testing.T, feature string, r *client.Response, want int) {
	return func(t *testing.T, feature string, r *client.Response, want int) {
		t.Helper()
		if got := spentHeader(r); got != int64(want) {
			t.Fatalf("x-spent-credits = %q, want %d", r.Header.Get("x-spent-credits"), want)
		}
		byFeature[feature] += int64(want)
		if u := usageOf(t, c); u.Credits.ByFeature[feature] != byFeature[feature] {
			t.Fatalf("usage %s = %d, want %d (by_feature %v)", feature, u.Credits.ByFeature[feature], byFeature[feature], u.Credits.ByFeature)
		}
	}
}

// refusedLookups checks that each request is answered with status and code and charges nothing.
func refusedLookups(t *testing.T, c *client.Client, cases []refusedLookup) {
	t.Helper()
	for _, rc := range cases {
		r := post(t, c, rc.path, rc.body)
		e := r.Err()
		if e == nil || e.Status != rc.status || e.Code != rc.code || (rc.field != "" && !e.HasField(rc.field)) {
			t.Errorf("%s %s = %d %.400s, want %d %s naming %q", rc.path, rc.body, r.Status, r.Body, rc.status, rc.code, rc.field)
			continue
		}
		if got := r.Header.Get("x-spent-credits"); got != "0" {
			t.Errorf("%s %s: x-spent-credits = %q, want 0", rc.path, rc.body, got)
		}
	}
}

type refusedLookup struct {
	path, body  string
	status      int
	code, field string
}

func TestCompanyEnrichLookup(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		charged := lookupsCharged(c, map[string]int64{})
		world := sandbox.New(sandbox.Config{Seed: 1, Now: time.Now}).World()
		co := world.Companies()[5]

		for _, companyURL := range []string{co.URL(), "https://" + co.Domain + "/about", co.Domain} {
			r := post(t, c, "/v1/company/enrich", map[string]any{"companyUrl": companyURL})
			var a struct {
				Success bool           `json:"success"`
				Data    map[string]any `json:"data"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || !a.Success {
				t.Fatalf("company enrich %s = %d %s", companyURL, r.Status, r.Body)
			}
			d := a.Data
			if k := missingKey(d, "pronet_company_id", "pronet_url", "name", "domain", "size", "industry", "location",
				"company_logo", "city", "country", "description", "employees_count", "state", "revenue", "total_funding",
				"monthly_visitors", "technologies", "annual_growth_rate"); k != "" {
				t.Fatalf("company data lacks %s: %s", k, r.Body)
			}
			if d["name"] != co.Name || d["domain"] != co.Domain || d["pronet_url"] != "https://www.linkedin.com/company/"+co.Slug ||
				d["size"] != co.SizeBand || d["city"] != co.City || d["country"] != co.Country {
				t.Fatalf("company data = %v, want %+v", d, co)
			}
			if techs, ok := d["technologies"].([]any); !ok || techs == nil {
				t.Fatalf("technologies = %v, want a list", d["technologies"])
			}
			charged(t, "company_enrich", r, 1)
		}

		refusedLookups(t, c, []refusedLookup{
			{"/v1/company/enrich", `{}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": ""}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "acme"}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/in/jane-doe"}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "ftp://acme.io"}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "acme.io", "extra": 1}`, 400, "VALIDATION_ERROR", "body.extra"},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/company/missing-acme"}`, 404, "NOT_FOUND", ""},
			{"/v1/company/enrich", `{"companyUrl": "no-such-company.example"}`, 404, "NOT_FOUND", ""},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/company/error-acme"}`, 502, "UPSTREAM_ERROR", ""},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/company/ratelimited-acme"}`, 429, "RATE_LIMITED", ""},
		})
		charged(t, "company_enrich", &client.Response{Header: map[string][]string{"X-Spent-Credits": {"0"}}}, 0)

		narrow := newAccountKey(t, ts, "STARTER", "", "enrich:profile:read")
		refusedLookups(t, narrow, []refusedLookup{
			{"/v1/company/enrich", `{"companyUrl": "acme.io"}`, 403, "FORBIDDEN", "header.x-api-key"},
		})
		allowed := newAccountKey(t, ts, "STARTER", "", "enrich:company:read")
		if r := post(t, allowed, "/v1/company/enrich", map[string]any{"companyUrl": co.URL()}); r.Status != 200 || spentHeader(r) != 1 {
			t.Errorf("company enrich with enrich:company:read = %d %.300s", r.Status, r.Body)
		}
	})
}

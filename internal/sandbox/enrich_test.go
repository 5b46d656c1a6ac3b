package sandbox

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEnrich(t *testing.T) {
	s := newTest(t, 10, testNow)
	h := s.Handler()
	p := s.World().Roster()[42]
	v := getJSON(t, h, "/enrich/v5/person/enrich?profile="+url.QueryEscape(p.PronetURL()), 200)
	d := obj(v["data"])
	if v["status"].(float64) != 200 || v["likelihood"] == nil || d["linkedin_username"] != p.PronetUsername {
		t.Fatalf("enrich: %v", v)
	}
	if d["job_title"] == nil || len(list(d["experience"])) < 2 || d["job_company_size"] != p.Company.SizeBand {
		t.Errorf("record incomplete: %v", d)
	}
	nf := getJSON(t, h, "/enrich/v5/person/enrich?profile=linkedin.com/in/missing-someone", 404)
	if obj(nf["error"])["type"] != "not_found" || nf["status"].(float64) != 404 {
		t.Errorf("404 shape: %v", nf)
	}
	getJSON(t, h, "/enrich/v5/person/enrich?profile=linkedin.com/in/error-someone", 500)
	getJSON(t, h, "/enrich/v5/person/enrich?profile=https://example.com/x", 400)
	if rec := newRecorder(h, "/enrich/v5/person/enrich?profile=linkedin.com/in/a", nil); rec.Code != 401 {
		t.Errorf("no key: %d", rec.Code)
	}
}

func TestEnrichTitlecase(t *testing.T) {
	s := newTest(t, 10, testNow)
	h := s.Handler()
	p := s.World().Roster()[42]
	base := "/enrich/v5/person/enrich?profile=" + url.QueryEscape(p.PronetURL())
	low := obj(getJSON(t, h, base, 200)["data"])
	title := obj(getJSON(t, h, base+"&titlecase=true", 200)["data"])
	if low["first_name"] != strings.ToLower(p.FirstName) || title["first_name"] != p.FirstName {
		t.Errorf("first_name = %v / %v, want lower case by default and %q with titlecase", low["first_name"], title["first_name"], p.FirstName)
	}
	if jt, _ := title["job_title"].(string); jt == "" || strings.ToUpper(jt[:1]) != jt[:1] || strings.ToLower(jt) != low["job_title"] {
		t.Errorf("job_title = %q with titlecase, %q without", jt, low["job_title"])
	}
	getJSON(t, h, base+"&titlecase=maybe", 400)
}

func TestXRateLimitReset(t *testing.T) {
	h := newTest(t, 4, testNow).Handler()
	rec := newRecorder(h, "/microblog/2/users/by/username/ratelimited-bob", map[string]string{"Authorization": "Bearer x"})
	reset, err := strconv.ParseInt(rec.Header().Get("x-rate-limit-reset"), 10, 64)
	if rec.Code != 429 || err != nil {
		t.Fatalf("429 = %d, x-rate-limit-reset %q", rec.Code, rec.Header().Get("x-rate-limit-reset"))
	}
	// X sends the epoch second its 15-minute window ends.
	if at := time.Unix(reset, 0); !at.After(testNow) || at.Sub(testNow) > 15*time.Minute {
		t.Errorf("x-rate-limit-reset = %s, want within 15 minutes after %s", at.UTC(), testNow)
	}
}

func TestEnrichCompany(t *testing.T) {
	s := newTest(t, 10, testNow)
	h := s.Handler()
	c := s.World().Companies()[11]
	for _, q := range []string{"profile=" + url.QueryEscape(c.URL()), "website=" + c.Domain, "website=https://www." + c.Domain + "/x",
		"name=" + url.QueryEscape(c.Name)} {
		v := getJSON(t, h, "/enrich/v5/company/enrich?titlecase=true&"+q, 200)
		if v["status"].(float64) != 200 || v["likelihood"] == nil || v["data"] != nil || v["display_name"] != c.Name ||
			v["linkedin_slug"] != c.Slug || v["website"] != c.Domain || v["size"] != c.SizeBand || obj(v["location"])["locality"] != c.City {
			t.Fatalf("%s: %v", q, v)
		}
	}
	low := getJSON(t, h, "/enrich/v5/company/enrich?website="+c.Domain, 200)
	if low["industry"] != strings.ToLower(c.Industry) || low["name"] != strings.ToLower(c.Name) {
		t.Errorf("without titlecase: %v", low)
	}
	for q, status := range map[string]int{
		"website=nobody-owns-this.example": 404, "profile=linkedin.com/company/missing-x": 404,
		"profile=linkedin.com/company/error-x": 500, "profile=linkedin.com/company/ratelimited-x": 429,
		"profile=https://example.com/company/x": 400, "": 400,
	} {
		v := getJSON(t, h, "/enrich/v5/company/enrich?"+q, status)
		if e := obj(v["error"]); v["status"].(float64) != float64(status) || e["type"] == nil || e["message"] == nil {
			t.Errorf("%s: %v", q, v)
		}
	}
	if rec := newRecorder(h, "/enrich/v5/company/enrich?website="+c.Domain, nil); rec.Code != 401 {
		t.Errorf("no key: %d", rec.Code)
	}
}

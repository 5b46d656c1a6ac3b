package sandbox

import (
	"net/url"
	"testing"
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

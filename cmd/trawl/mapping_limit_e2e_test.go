package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// narrowingFilters are three firmographic filters that keep part of the
// pool: people in its most common country, with a known company size and
// a known follower count. It also returns how many people they keep.
func narrowingFilters(t *testing.T, ts *testServer) (map[string]any, int64) {
	t.Helper()
	var a struct {
		Results []struct {
			Location string `json:"location"`
		} `json:"results"`
		Total int64 `json:"total"`
	}
	if err := mustDo(t, ts.Client, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"},
		"engaged_with_days": 30, "page_size": 50, "includes": []string{"location"}}, 200).Data(&a); err != nil {
		t.Fatal(err)
	}
	byCountry := map[string]int{}
	country := ""
	for _, r := range a.Results {
		if r.Location == "" {
			continue
		}
		if byCountry[r.Location]++; country == "" || byCountry[r.Location] > byCountry[country] {
			country = r.Location
		}
	}
	if country == "" || byCountry[country] == len(a.Results) {
		t.Fatalf("no country keeps part of the pool: %v", byCountry)
	}
	body := map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30,
		"location_country": []string{country},
		"company_sizes":    []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"},
		"followers":        []string{"0+"}}
	var f struct {
		Total int64 `json:"total"`
	}
	if err := mustDo(t, ts.Client, http.MethodPost, "/v1/social/mapping", body, 200).Data(&f); err != nil {
		t.Fatal(err)
	}
	if f.Total == 0 || f.Total >= a.Total {
		t.Fatalf("the filters keep %d people of %d", f.Total, a.Total)
	}
	return body, f.Total
}

// tooBroadCount is the number of engagements a 422's message says the
// query weighs (the number after "matches").
func tooBroadCount(t *testing.T, message string) int64 {
	t.Helper()
	_, rest, ok := strings.Cut(message, "matches ")
	rest = strings.TrimPrefix(rest, "at least ")
	n, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
	if !ok || err != nil {
		t.Fatalf("no count in %q", message)
	}
	return n
}

// testMappingLimitWeighsFilters (issue 34, item 8): the too-broad limit
// weighs the engagements the firmographic filters leave, so that adding
// filters, as the 422 advises, gets a refused query answered. ts runs with
// a limit of 1; the server is restarted with the filtered count as limit.
func testMappingLimitWeighsFilters(t *testing.T, ts *testServer, filtered map[string]any, people int64) *testServer {
	broad := map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30}
	refused := func(ts *testServer, body map[string]any) (int64, string) {
		t.Helper()
		r := post(t, ts.Client, "/v1/social/mapping", body)
		e := r.Err()
		if e == nil || e.Status != 422 || e.Code != "QUERY_TOO_BROAD" || !strings.Contains(e.Suggestion, "firmographic filters") {
			t.Fatalf("%v = %d %s, want 422 QUERY_TOO_BROAD", body, r.Status, r.Body)
		}
		return tooBroadCount(t, e.Message), e.Message
	}
	all, _ := refused(ts, broad)
	kept, msg := refused(ts, filtered)
	if kept >= all || kept < people || !strings.Contains(msg, "of people its filters keep") {
		t.Fatalf("with filters the query weighs %d engagements (%q), without %d; the filters keep %d people", kept, msg, all, people)
	}

	// At a limit of exactly what the filters leave, the filtered query is
	// answered, and the same query without them is still refused.
	ts.stop()
	ts.env["TRAWL_MAPPING_MAX_CANDIDATES"] = strconv.FormatInt(kept, 10)
	ts = startServer(t, ts.env)
	var a struct {
		Total int64 `json:"total"`
	}
	if err := mustDo(t, ts.Client, http.MethodPost, "/v1/social/mapping", filtered, 200).Data(&a); err != nil {
		t.Fatal(err)
	}
	if a.Total != people {
		t.Errorf("at a limit of %d: %d people, want %d", kept, a.Total, people)
	}
	if n, msg := refused(ts, broad); n != all || strings.Contains(msg, "filters") {
		t.Errorf("without filters at a limit of %d: %q, want %d engagements", kept, msg, all)
	}
	return ts
}

package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// apifyDo sends an Apify request with a bearer token (none when token is "").
func apifyDo(t *testing.T, h http.Handler, method, path, token, body string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "/apify"+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decode(t *testing.T, rec *httptest.ResponseRecorder) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode: %v: %s", err, rec.Body.String())
	}
	return v
}

func syncItems(t *testing.T, h http.Handler, actor, input string, want int) []any {
	t.Helper()
	rec := apifyDo(t, h, http.MethodPost, "/v2/acts/"+actor+"/run-sync-get-dataset-items", "tok", input)
	if rec.Code != want {
		t.Fatalf("%s %s: %d, want %d: %s", actor, input, rec.Code, want, rec.Body.String())
	}
	return list(decode(t, rec))
}

func TestApifyActorsAgreeWithHarvestAPI(t *testing.T) {
	s := newTest(t, 21, testNow)
	h := s.Handler()
	p := engagedPost(t, s)
	id := idString(p.URN)
	comments := hvAll(t, h, "post-comments?post="+id, "id")
	items := syncItems(t, h, "harvestapi~linkedin-post-comments", `{"posts":["`+vendorPostURL(p)+`"]}`, 201)
	var got []string
	for _, it := range items {
		got = append(got, str(obj(it)["id"]))
		if obj(obj(it)["query"])["post"] != vendorPostURL(p) {
			t.Fatalf("item query %v", obj(it)["query"])
		}
	}
	sameList(t, "comments actor", got, comments)
	if n := len(syncItems(t, h, "harvestapi~linkedin-post-comments", `{"posts":["`+id+`"],"maxItems":3}`, 201)); n != 3 {
		t.Errorf("maxItems 3 gave %d", n)
	}

	reactions := hvAll(t, h, "post-reactions?post="+id, "id")
	got = nil
	for _, it := range syncItems(t, h, "harvestapi%2Flinkedin-post-reactions", `{"posts":["`+id+`"]}`, 201) {
		got = append(got, str(obj(it)["id"]))
	}
	sameList(t, "reactions actor", got, reactions)
	for _, it := range syncItems(t, h, "harvestapi~linkedin-post-reactions", `{"posts":["`+id+`"],"reactionTypeFilter":["PRAISE"]}`, 201) {
		if obj(it)["reactionType"] != "PRAISE" {
			t.Fatalf("filter kept %v", obj(it)["reactionType"])
		}
	}

	user := s.World().Roster()[3]
	posts := hvAll(t, h, "profile-posts?profilePublicIdentifier="+user.PronetUsername, "id")
	got = nil
	for _, it := range syncItems(t, h, "harvestapi~linkedin-profile-posts", `{"profileUrls":["`+user.PronetURL()+`"],"maxPosts":0}`, 201) {
		got = append(got, str(obj(it)["id"]))
	}
	sameList(t, "profile-posts actor", got, posts)
	if n := len(syncItems(t, h, "harvestapi~linkedin-profile-posts", `{"profilePublicIdentifiers":["`+user.PronetUsername+`"]}`, 201)); n != min(100, len(posts)) {
		t.Errorf("default maxPosts gave %d", n)
	}

	kw := s.World().TopicKeywords(0)[0]
	search := hvAll(t, h, "post-search?search="+url.QueryEscape(kw)+"&sortBy=date&postedLimit=week", "id")
	got = nil
	for _, it := range syncItems(t, h, "harvestapi~linkedin-post-search", `{"searchQueries":["`+kw+`"],"sortBy":"date","postedLimit":"week"}`, 201) {
		got = append(got, str(obj(it)["id"]))
		if obj(obj(it)["query"])["search"] != kw {
			t.Fatalf("query %v", obj(it)["query"])
		}
	}
	sameList(t, "post-search actor", got, search)

	prof := syncItems(t, h, "harvestapi~linkedin-profile", `{"urls":["`+user.PronetURL()+`"],"publicIdentifiers":["missing-x"]}`, 201)
	if len(prof) != 1 || obj(obj(prof[0])["element"])["publicIdentifier"] != user.PronetUsername || obj(prof[0])["user"] != nil {
		t.Fatalf("profile actor: %v", prof)
	}
}

func TestApifyRunStateMachine(t *testing.T) {
	s := newTest(t, 22, testNow)
	h := s.Handler()
	user := s.World().Roster()[8].PronetUsername
	start := func(input, q string) map[string]any {
		rec := apifyDo(t, h, http.MethodPost, "/v2/acts/harvestapi~linkedin-profile-posts/runs"+q, "tok", input)
		if rec.Code != 201 {
			t.Fatalf("start: %d %s", rec.Code, rec.Body.String())
		}
		return obj(obj(decode(t, rec))["data"])
	}
	status := func(id, q string) map[string]any {
		rec := apifyDo(t, h, http.MethodGet, "/v2/actor-runs/"+id+q, "tok", "")
		if rec.Code != 200 {
			t.Fatalf("run: %d %s", rec.Code, rec.Body.String())
		}
		return obj(obj(decode(t, rec))["data"])
	}
	items := func(ds, q string) []any {
		rec := apifyDo(t, h, http.MethodGet, "/v2/datasets/"+ds+"/items"+q, "tok", "")
		if rec.Code != 200 {
			t.Fatalf("items: %d %s", rec.Code, rec.Body.String())
		}
		got := list(decode(t, rec))
		if rec.Header().Get("X-Apify-Pagination-Count") != strconv.Itoa(len(got)) {
			t.Errorf("pagination count header %q for %d items", rec.Header().Get("X-Apify-Pagination-Count"), len(got))
		}
		return got
	}
	run := start(`{"profilePublicIdentifiers":["`+user+`"],"maxPosts":30}`, "")
	id, ds := str(run["id"]), str(run["defaultDatasetId"])
	if run["status"] != "READY" || len(id) != 17 || len(ds) != 17 || run["finishedAt"] != nil {
		t.Fatalf("started run %v", run)
	}
	if n := len(items(ds, "")); n != 0 {
		t.Errorf("dataset of a READY run has %d items", n)
	}
	if st := status(id, ""); st["status"] != "RUNNING" {
		t.Fatalf("first read: %v", st["status"])
	}
	if st := status(id, ""); st["status"] != "SUCCEEDED" || st["finishedAt"] == nil || st["exitCode"].(float64) != 0 {
		t.Fatalf("second read: %v", st)
	}
	if n := len(items(ds, "")); n != 30 {
		t.Errorf("dataset has %d items, want 30", n)
	}
	page := items(ds, "?offset=10&limit=5&clean=true&format=json")
	all := items(ds, "")
	if len(page) != 5 || obj(page[0])["id"] != obj(all[10])["id"] {
		t.Error("offset/limit page")
	}
	if rec := apifyDo(t, h, http.MethodGet, "/v2/datasets/"+ds+"/items?format=csv", "tok", ""); rec.Code != 400 {
		t.Errorf("format=csv: %d", rec.Code)
	}

	// waitForFinish finishes at once.
	run = start(`{"profilePublicIdentifiers":["`+user+`"]}`, "")
	if st := status(str(run["id"]), "?waitForFinish=60"); st["status"] != "SUCCEEDED" {
		t.Fatalf("waitForFinish: %v", st["status"])
	}
	if run = start(`{"profilePublicIdentifiers":["`+user+`"]}`, "?waitForFinish=30"); run["status"] != "SUCCEEDED" {
		t.Fatalf("start with waitForFinish: %v", run["status"])
	}

	// Abort before it finishes.
	run = start(`{"profilePublicIdentifiers":["`+user+`"]}`, "")
	rec := apifyDo(t, h, http.MethodPost, "/v2/actor-runs/"+str(run["id"])+"/abort", "tok", "")
	if rec.Code != 200 || obj(obj(decode(t, rec))["data"])["status"] != "ABORTED" {
		t.Fatalf("abort: %d %s", rec.Code, rec.Body.String())
	}
	if st := status(str(run["id"]), ""); st["status"] != "ABORTED" {
		t.Fatalf("after abort: %v", st["status"])
	}

	// error- fails the run.
	run = start(`{"profilePublicIdentifiers":["error-`+user+`"]}`, "")
	status(str(run["id"]), "")
	if st := status(str(run["id"]), ""); st["status"] != "FAILED" || st["exitCode"].(float64) != 1 {
		t.Fatalf("error run: %v", st)
	}
	if n := len(items(str(run["defaultDatasetId"]), "")); n != 0 {
		t.Error("a failed run has items")
	}
	for _, p := range []string{"/v2/actor-runs/nope", "/v2/datasets/nope/items"} {
		if rec := apifyDo(t, h, http.MethodGet, p, "tok", ""); rec.Code != 404 || !strings.Contains(rec.Body.String(), "record-not-found") {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
}

func TestApifyFaultsAndErrors(t *testing.T) {
	s := newTest(t, 23, testNow)
	h := s.Handler()
	p := engagedPost(t, s)
	id := idString(p.URN)
	comments := "/v2/acts/harvestapi~linkedin-post-comments/run-sync-get-dataset-items"
	for _, c := range []struct {
		name, token, path, body string
		status                  int
		errType, retry          string
	}{
		{"no token", "", comments, `{"posts":["` + id + `"]}`, 401, "token-not-provided", ""},
		{"invalid token", "invalid-x", comments, `{"posts":["` + id + `"]}`, 401, "token-not-valid", ""},
		{"unknown actor", "t", "/v2/acts/someone~nothing/run-sync-get-dataset-items", `{}`, 404, "record-not-found", ""},
		{"not an object", "t", comments, `[1]`, 400, "invalid-input", ""},
		{"wrong type", "t", comments, `{"posts":"x"}`, 400, "invalid-input", ""},
		{"wrong enum", "t", comments, `{"posts":["1"],"postedLimit":"decade"}`, 400, "invalid-input", ""},
		{"too many authors", "t", "/v2/acts/harvestapi~linkedin-post-search/runs", `{"authorUrls":[` + strings.Repeat(`"a",`, 20) + `"a"]}`, 400, "invalid-input", ""},
		{"startPage range", "t", "/v2/acts/harvestapi~linkedin-post-search/runs", `{"startPage":0}`, 400, "invalid-input", ""},
		{"ratelimited", "t", comments, `{"posts":["ratelimited-` + id + `"]}`, 429, "rate-limit-exceeded", "2"},
		{"throttled", "t", comments, `{"posts":["throttled-` + id + `"]}`, 429, "rate-limit-exceeded", ""},
		{"error", "t", comments, `{"posts":["error-` + id + `"]}`, 400, "run-failed", ""},
	} {
		rec := apifyDo(t, h, http.MethodPost, c.path, c.token, c.body)
		e := obj(obj(decode(t, rec))["error"])
		if rec.Code != c.status || e["type"] != c.errType || rec.Header().Get("Retry-After") != c.retry || e["message"] == nil {
			t.Errorf("%s: %d %q retry %q", c.name, rec.Code, e["type"], rec.Header().Get("Retry-After"))
		}
		if strings.Contains(rec.Body.String(), "invalid-x") {
			t.Errorf("%s: the token is echoed", c.name)
		}
	}
	// ?token= works as the header does.
	if rec := apifyDo(t, h, http.MethodGet, "/v2/users/me?token=abc", "", ""); rec.Code != 200 || obj(obj(decode(t, rec))["data"])["username"] == nil {
		t.Errorf("users/me: %d", rec.Code)
	}
	if n := len(syncItems(t, h, "harvestapi~linkedin-post-comments", `{"posts":["missing-`+id+`"]}`, 201)); n != 0 {
		t.Errorf("missing post gave %d items", n)
	}
	sparse := syncItems(t, h, "harvestapi~linkedin-post-comments", `{"posts":["sparse-`+id+`"]}`, 201)
	if len(sparse) < 2 || obj(sparse[0])["createdAtTimestamp"] != nil || obj(obj(sparse[0])["actor"])["picture"] != nil {
		t.Errorf("sparse: %v", sparse)
	}
	malformed := syncItems(t, h, "harvestapi~linkedin-post-comments", `{"posts":["malformed-`+id+`"]}`, 201)
	if len(malformed) != len(sparse) || malformed[0] != "<html>" || obj(malformed[1])["id"] != obj(sparse[1])["id"] {
		t.Errorf("malformed: first %v", malformed[0])
	}
}

func TestApifyRunsTableBound(t *testing.T) {
	s := newTest(t, 24, testNow)
	var first *apifyRun
	for i := 0; i < apifyMaxRuns+5; i++ {
		r := &apifyRun{status: "READY", final: "SUCCEEDED"}
		s.runs.add(s.world.seed, r)
		if i == 0 {
			first = r
		}
	}
	if n := s.runs.len(); n != apifyMaxRuns {
		t.Fatalf("table holds %d runs, want %d", n, apifyMaxRuns)
	}
	if _, ok := s.runs.get(first.id); ok {
		t.Fatal("the oldest run was kept")
	}
	if _, ok := s.runs.dataset(first.datasetID); ok {
		t.Fatal("the oldest run's dataset was kept")
	}
}

func FuzzVendorPostURN(f *testing.F) {
	for _, s := range []string{"7301234567890123456", "urn:li:activity:7301234567890123456", "sparse-7301234567890123456",
		"https://www.linkedin.com/posts/a_b-activity-7301234567890123456-AbCd?x=1", "-activity-", "activity:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _ = vendorPostURN(s, testNow)
		_, _ = linkedInPath(s, "in")
		_ = inputFault(s)
	})
}

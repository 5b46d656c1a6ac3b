package httpapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/config"
)

// TestNamesDocListsEveryPair keeps docs/names.md and the table in names.go
// together: each pair of the code is a row of the doc, and each row of the
// doc a pair of the code.
func TestNamesDocListsEveryPair(t *testing.T) {
	b, err := os.ReadFile("../../docs/names.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows[strings.TrimSpace(line)] = true
		}
	}
	tbl := hostedNames()
	want := map[string]bool{}
	for _, p := range tbl.paths {
		want["| `"+p.Neutral+"` | `"+p.Hosted+"` |"] = true
	}
	for _, p := range tbl.fields {
		want["| `"+p.Neutral+"` | `"+p.Hosted+"` |"] = true
	}
	for _, m := range tbl.valueMembers() {
		for _, p := range tbl.values[m] {
			want["| `"+m+"` | `"+p.Neutral+"` | `"+p.Hosted+"` |"] = true
		}
	}
	for r := range want {
		if !rows[r] {
			t.Errorf("docs/names.md lacks the row %s", r)
		}
	}
	for r := range rows {
		if !want[r] {
			t.Errorf("docs/names.md has the row %s, which names.go does not", r)
		}
	}
}

func TestNamesHostedPath(t *testing.T) {
	tbl := hostedNames()
	for in, want := range map[string]string{
		"/v1/searches/microblog/posts":         "/v1/searches/twitter/posts",
		"/v1/searches/pronet/profile/preview":  "/v1/searches/linkedin/profile/preview",
		"/v1/searches/{id}":                    "",
		"/v1/searches/microblogger":            "",
		"/create-microblog-posts-search":       "",
		"/create/microblog/posts/search":       "/create/twitter/posts/search",
		"/v1/searches/pronet/posts/microblog/": "/v1/searches/linkedin/posts/twitter/",
	} {
		if got := tbl.hostedPath(in); got != want {
			t.Errorf("hostedPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamesRequestBodies(t *testing.T) {
	tbl := hostedNames()
	decode := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var p problems
	got := tbl.toNeutral(decode(`{"twitter_language":"en","frequency":"Every-12h","filters":{"linkedin_sort_by":"relevance"},"includes":["linkedin_url","job_title"],"workflow":{"x":1}}`), "body", &p, map[string]string{})
	want := decode(`{"microblog_language":"en","frequency":"EVERY_12H","filters":{"pronet_sort_by":"relevance"},"includes":["pronet_url","job_title"],"workflow":{"x":1}}`)
	if len(p) > 0 {
		t.Fatalf("problems: %v", p)
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("toNeutral = %s, want %s", g, w)
	}
	p = nil
	tbl.toNeutral(decode(`{"filters":{"pronet_sort_by":"date_posted","linkedin_sort_by":"relevance"}}`), "body", &p, map[string]string{})
	if len(p) != 1 || p[0].Field != "body.filters.linkedin_sort_by" || !strings.Contains(p[0].Message, "pronet_sort_by") {
		t.Errorf("both names: problems %+v, want one at body.filters.linkedin_sort_by naming pronet_sort_by", p)
	}
	if tbl.mentionsHosted([]byte(`{"name":"a","frequency":"daily","keywords":["ai"]}`)) {
		t.Error("a body without hosted names is rewritten")
	}
	p = nil
	dec := json.NewDecoder(strings.NewReader(`{"filters":{"mentions_organization":[1441,"2"]}}`))
	dec.UseNumber()
	var numbered any
	if err := dec.Decode(&numbered); err != nil {
		t.Fatal(err)
	}
	if g := mustJSON(t, tbl.toNeutral(numbered, "body", &p, map[string]string{})); g != `{"filters":{"mentions_organization":["1441","2"]}}` {
		t.Errorf("company ids sent as numbers: %s", g)
	}
	if g := mustJSON(t, tbl.toNeutral(decode(`{"keywords":["twitter"],"source":"twitter"}`), "body", &p, map[string]string{})); g != `{"keywords":["twitter"],"source":"microblog"}` {
		t.Errorf("only a member the table names has its value renamed: %s", g)
	}
}

func TestNamesHostedDocument(t *testing.T) {
	cfg, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	cfg.APINames = NamesHosted
	b, err := Document(cfg, "http://example.test")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, s := range []string{`"/v1/searches/twitter/posts"`, `"/v1/searches/linkedin/profile/preview"`, `"linkedin_url"`, `"linkedin_urn"`, `"linkedinUrl"`, `"twitter-posts"`, `"twitter_language"`, `"linkedin_sort_by"`} {
		if !strings.Contains(doc, s) {
			t.Errorf("the hosted document lacks %s", s)
		}
	}
	for _, s := range []string{`"pronet_url":`, `"pronetUrl":`, `"microblog_language":`} {
		if strings.Contains(doc, s) {
			t.Errorf("the hosted document still has the property %s", s)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

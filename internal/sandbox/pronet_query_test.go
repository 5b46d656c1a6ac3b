package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParsePronetQuery(t *testing.T) {
	for _, c := range []struct {
		in, want string // want is the canonical form, or "error: …" with a part of the message
	}{
		{`crm`, `"crm"`},
		{`"crm"`, `"crm"`},
		{`CRM hygiene`, `"crm" AND "hygiene"`},
		{`"CRM  hygiene"`, `"crm hygiene"`},
		{`"revops" OR "sales ops"`, `"revops" OR "sales ops"`},
		{`("revops" OR "sales ops") AND "crm" NOT "hiring"`, `("revops" OR "sales ops") AND "crm" AND NOT "hiring"`},
		{`a OR b c`, `"a" OR "b" AND "c"`}, // AND binds tighter than OR
		{`a AND b OR c AND d`, `"a" AND "b" OR "c" AND "d"`},
		{`a (b OR c)`, `"a" AND ("b" OR "c")`},
		{`NOT hiring`, `NOT "hiring"`},
		{`NOT (a OR b)`, `NOT ("a" OR "b")`},
		{`NOT NOT a`, `"a"`},
		{`a NOT b NOT c`, `"a" AND NOT "b" AND NOT "c"`},
		{`a AND NOT b`, `"a" AND NOT "b"`},
		{`((a))`, `"a"`},
		{`(a AND b) AND c`, `"a" AND "b" AND "c"`},
		{`sales and marketing`, `"sales" AND "and" AND "marketing"`}, // operators are upper case only
		{`a or b`, `"a" AND "or" AND "b"`},
		{`"AND"`, `"and"`}, // a quoted operator is a phrase
		{`#RevOps`, `"#revops"`},
		{`crm"cold email"(x)`, `"crm" AND "cold email" AND "x"`},
		{"a\tOR\nb", `"a" OR "b"`},
		{`(a`, "error: ( without )"},
		{`a)`, "error: ) without ("},
		{`(a))`, "error: ) without ("},
		{`)a(`, "error: ) without ("},
		{`()`, "error: empty parentheses"},
		{`"crm`, "error: unbalanced quotes"},
		{`crm "a" "b`, "error: unbalanced quotes"},
		{`""`, "error: empty phrase"},
		{`"   "`, "error: empty phrase"},
		{`crm AND`, "error: dangling AND"},
		{`crm OR`, "error: dangling OR"},
		{`crm NOT`, "error: dangling NOT"},
		{`NOT`, "error: dangling NOT"},
		{`OR crm`, "error: OR needs a term before it"},
		{`AND crm`, "error: AND needs a term before it"},
		{`a AND OR b`, "error: AND needs a term after it"},
		{`a OR OR b`, "error: OR needs a term after it"},
		{`(a OR) b`, "error: OR needs a term after it"},
		{`(AND a)`, "error: AND needs a term before it"},
		{``, "error: no search terms"},
		{`  `, "error: no search terms"},
		{strings.Repeat("(", 40) + "a" + strings.Repeat(")", 40), "error: nested more than"},
		{strings.Repeat("NOT ", 40) + "a", "error: nested more than"},
	} {
		q, err := parsePronetQuery(c.in)
		if want, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || !errors.Is(err, errPronetQuery) || !strings.Contains(err.Error(), want) {
				t.Errorf("parse %q: err %v, want one saying %q", c.in, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("parse %q: %v", c.in, err)
			continue
		}
		if got := q.String(); got != c.want {
			t.Errorf("parse %q = %s, want %s", c.in, got, c.want)
		}
	}
	var many []string
	for i := range pqMaxTerms + 1 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	if _, err := parsePronetQuery(strings.Join(many, " OR ")); err == nil {
		t.Errorf("%d terms accepted", len(many))
	}
	if _, err := parsePronetQuery(strings.Repeat("crm OR ", pqMaxTerms+5) + "crm"); err != nil {
		t.Errorf("a repeated term counts once: %v", err)
	}
}

func TestPronetQueryMatch(t *testing.T) {
	const text = "Our CRM hygiene project is done. #RevOps #Sales\n\nWe use HubSpot for lead scoring; crm again."
	for _, c := range []struct {
		q    string
		ok   bool
		hits int
	}{
		{`crm`, true, 2},
		{`CRM hygiene`, true, 3},
		{`"crm hygiene"`, true, 1},
		{`"hygiene crm"`, false, 0},
		{`revops`, true, 1}, // hashtags match their word
		{`#revops`, true, 1},
		{`rev`, false, 0}, // whole words only
		{`"lead scoring"`, true, 1},
		{`crm OR marketing`, true, 2},
		{`marketing OR webinar`, false, 0},
		{`crm AND marketing`, false, 0},
		{`crm NOT hubspot`, false, 2},
		{`crm NOT marketing`, true, 2}, // the negated term does not count
		{`NOT marketing`, true, 0},
		{`NOT crm`, false, 0},
		{`(sales OR marketing) AND (hubspot OR salesforce)`, true, 2},
		{`sales AND NOT (hubspot OR salesforce)`, false, 1},
		{`crm crm`, true, 2}, // a repeated term counts once
	} {
		q, err := parsePronetQuery(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if ok, hits := q.match(text); ok != c.ok || ok && hits != c.hits { // hits only matter in a match
			t.Errorf("%s: match = %v, %d; want %v, %d", c.q, ok, hits, c.ok, c.hits)
		}
	}
}

// searchAll pages through a search and returns the urns it finds, in order, and the records.
func searchAll(t *testing.T, h http.Handler, kw, params string) ([]string, []map[string]any) {
	t.Helper()
	var urns []string
	var recs []map[string]any
	for page := 1; ; page++ {
		v := obj(getJSON(t, h, fmt.Sprintf("/pronet/posts/search?keywords=%s&%s&page=%d", url.QueryEscape(kw), params, page), 200)["data"])
		for _, it := range list(v["items"]) {
			urns = append(urns, obj(it)["urn"].(string))
			recs = append(recs, obj(it))
		}
		if int(v["currentPage"].(float64)) >= int(v["totalPage"].(float64)) {
			if len(urns) != int(v["total"].(float64)) {
				t.Fatalf("%s: %d items over the pages, total %v", kw, len(urns), v["total"])
			}
			return urns, recs
		}
	}
}

func set(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func TestPronetSearchBoolean(t *testing.T) {
	h := newTest(t, 21, testNow).Handler()
	const day = "datePosted=past-24h"
	crm, _ := searchAll(t, h, "crm", day)
	sales, _ := searchAll(t, h, `"sales"`, day)
	// A topic of one popular keyword has tens of posts a day to link.
	if len(crm) < 15 || len(sales) < 30 {
		t.Fatalf("past-24h: crm %d posts, sales %d", len(crm), len(sales))
	}
	either, _ := searchAll(t, h, `"crm" OR "sales"`, day)
	both, _ := searchAll(t, h, `"crm" AND "sales"`, day)
	implicit, _ := searchAll(t, h, `crm sales`, day)
	crmNotSales, _ := searchAll(t, h, `"crm" NOT "sales"`, day)
	cs, ss := set(crm), set(sales)
	var union, inter, diff []string
	for u := range cs {
		if ss[u] {
			inter = append(inter, u)
		} else {
			diff = append(diff, u)
		}
		union = append(union, u)
	}
	for u := range ss {
		if !cs[u] {
			union = append(union, u)
		}
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"OR", either, union}, {"AND", both, inter}, {"implicit AND", implicit, inter}, {"NOT", crmNotSales, diff}} {
		g, w := slices.Clone(c.got), slices.Clone(c.want)
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("%s: %d posts, want %d", c.name, len(g), len(w))
		}
	}
	if len(either) < max(len(crm), len(sales)) || len(inter) == 0 || len(diff) == 0 {
		t.Errorf("or %d, and %d, not %d", len(either), len(inter), len(diff))
	}

	// A phrase keeps its words together and in order; words need only all be there.
	week := "datePosted=past-week"
	phrase, _ := searchAll(t, h, `"cold email"`, week)
	words, _ := searchAll(t, h, `cold email`, week)
	reversed, _ := searchAll(t, h, `"email cold"`, week)
	if ws := set(words); len(phrase) == 0 || len(reversed) != 0 || !slices.ContainsFunc(phrase, func(u string) bool { return ws[u] }) {
		t.Errorf("phrase %d, words %d, reversed phrase %d", len(phrase), len(words), len(reversed))
	}
	for _, u := range phrase {
		if !set(words)[u] {
			t.Errorf("phrase result %s is not a words result", u)
		}
	}

	// The service's compiled topic query: every result satisfies it.
	kw := `("revops" OR "sales ops" OR "crm") AND "salesforce" NOT "hiring"`
	_, recs := searchAll(t, h, kw, week)
	if len(recs) == 0 {
		t.Fatal("compiled topic query found nothing")
	}
	for _, r := range recs {
		text := strings.ToLower(r["text"].(string))
		if !(countWord(text, "revops") > 0 || countWord(text, "sales ops") > 0 || countWord(text, "crm") > 0) ||
			countWord(text, "salesforce") == 0 || countWord(text, "hiring") > 0 {
			t.Errorf("result does not satisfy %s: %q", kw, text)
		}
	}

	// Relevance puts posts with more hits first; a pure NOT query is answered too.
	byRel := list(obj(getJSON(t, h, "/pronet/posts/search?sortBy=relevance&keywords="+url.QueryEscape(`crm OR "data quality"`), 200)["data"])["items"])
	q, _ := parsePronetQuery(`crm OR "data quality"`)
	for i := 1; i < len(byRel); i++ {
		_, a := q.match(obj(byRel[i-1])["text"].(string))
		_, b := q.match(obj(byRel[i])["text"].(string))
		if a < b {
			t.Errorf("relevance order: %d hits before %d", a, b)
		}
	}
	if v := obj(getJSON(t, h, "/pronet/posts/search?datePosted=past-24h&keywords="+url.QueryEscape("NOT crm"), 200)["data"]); v["total"].(float64) < 100 {
		t.Errorf("NOT crm: %v posts", v["total"])
	}
}

func TestPronetSearchContentType(t *testing.T) {
	s := newTest(t, 22, testNow)
	h := s.Handler()
	const kw, week = "sales OR crm", "datePosted=past-week"
	kindOf := func(r map[string]any) string {
		switch {
		case len(list(r["video"])) > 0:
			return "videos"
		case len(list(r["image"])) > 0:
			return "photos"
		case len(obj(r["article"])) > 0:
			return "collaborativeArticles"
		case len(obj(r["document"])) > 0:
			return "documents"
		}
		return "text"
	}
	// What each filter should keep, read from the rendered records of every matching post.
	q, _ := parsePronetQuery(kw)
	want, live, total := map[string][]string{}, map[string]bool{}, 0
	from := testNow.Add(-7 * 24 * time.Hour)
	for b := testNow.UnixMilli() / hourMS; b >= from.UnixMilli()/hourMS; b-- {
		for i := range pronetPerHour {
			p := s.world.PublicPronetPost(b, i)
			if ok, _ := q.match(p.Text); !ok || p.Time.Before(from) || p.Time.After(testNow) {
				continue
			}
			total++
			urn := strconv.FormatUint(p.URN, 10)
			k := kindOf(s.postRecord(p, testNow))
			want[k] = append(want[k], urn)
			live[urn] = p.Live
		}
	}
	if len(want["text"]) < total/3 {
		t.Errorf("only %d of %d posts are plain text", len(want["text"]), total)
	}
	for _, ct := range []string{"", "&contentType=posts"} {
		if v := obj(getJSON(t, h, "/pronet/posts/search?keywords="+url.QueryEscape(kw)+"&"+week+ct, 200)["data"]); int(v["total"].(float64)) != total {
			t.Errorf("%q: %v posts, want all %d", ct, v["total"], total)
		}
	}
	for _, ct := range []string{"videos", "photos", "collaborativeArticles", "documents"} {
		got, recs := searchAll(t, h, kw, week+"&contentType="+ct)
		g, w := slices.Clone(got), slices.Clone(want[ct])
		slices.Sort(g)
		slices.Sort(w)
		if len(g) == 0 || !slices.Equal(g, w) {
			t.Errorf("%s: %d posts, want the %d of that kind", ct, len(g), len(w))
		}
		for _, r := range recs {
			if kindOf(r) != ct {
				t.Errorf("%s: a %s post", ct, kindOf(r))
			}
		}
		if ct == "documents" && len(recs) > 0 {
			d := obj(recs[0]["document"])
			for _, k := range []string{"title", "urn", "TranscribedDocumentUrl", "TranscribedDocumentUrlExpiresAt", "manifestUrl",
				"manifestUrlExpiresAt", "scanRequiredForDownload", "totalPageCount", "coverPages"} {
				if _, ok := d[k]; !ok {
					t.Errorf("document lacks %s: %v", k, d)
				}
			}
		}
	}
	lives, recs := searchAll(t, h, kw, week+"&contentType=liveVideos")
	if len(lives) == 0 || len(lives) >= len(want["videos"]) {
		t.Errorf("%d live videos of %d videos", len(lives), len(want["videos"]))
	}
	for i, u := range lives {
		if !live[u] || kindOf(recs[i]) != "videos" {
			t.Errorf("live video %s is not a live post rendered as a video", u)
		}
	}
	for _, bad := range []string{"video", "Posts", "all", "liveVideo", "%20"} {
		code, body := get(t, h, "/pronet/posts/search?keywords=crm&contentType="+bad)
		if code != 400 || !strings.Contains(string(body), `"success":false`) || !strings.Contains(string(body), "contentType") {
			t.Errorf("contentType=%s: %d %s", bad, code, body)
		}
	}
}

func TestPronetSearchErrors(t *testing.T) {
	h := newTest(t, 23, testNow).Handler()
	for _, c := range []struct {
		kw     string
		status int
	}{
		{`(crm`, 400}, {`crm)`, 400}, {`"crm`, 400}, {`crm AND`, 400}, {`OR crm`, 400}, {`crm AND OR sales`, 400},
		{`()`, 400}, {`NOT`, 400}, {`""`, 400},
		{`error-boom`, 500}, {`"error-boom"`, 500}, {`crm NOT "error-x"`, 500}, {`"crm error_x"`, 500},
		{`(crm OR error-x)`, 500}, {`ratelimited-x`, 429}, {`("ratelimited-x" OR "crm")`, 429},
		{`crm AND (sales OR "RATELIMITED-later")`, 429},
	} {
		code, body := get(t, h, "/pronet/posts/search?keywords="+url.QueryEscape(c.kw))
		if code != c.status || !strings.Contains(string(body), `"success":false`) {
			t.Errorf("%s: %d %s, want %d", c.kw, code, body, c.status)
		}
		if c.status == 400 && !strings.Contains(string(body), "invalid keywords") {
			t.Errorf("%s: 400 does not say why: %s", c.kw, body)
		}
		if rec := newRecorder(h, "/pronet/posts/search?keywords="+url.QueryEscape(c.kw), map[string]string{"x-api-key": "k"}); c.status == 429 && rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: 429 without Retry-After", c.kw)
		}
	}
	// missing- words are ordinary words that no post contains.
	if v := obj(getJSON(t, h, "/pronet/posts/search?keywords="+url.QueryEscape(`"missing-x"`), 200)["data"]); v["total"].(float64) != 0 {
		t.Errorf("missing-x found %v posts", v["total"])
	}
	crm := obj(getJSON(t, h, "/pronet/posts/search?keywords=crm", 200)["data"])["total"]
	if v := obj(getJSON(t, h, "/pronet/posts/search?keywords="+url.QueryEscape(`crm OR missing-x`), 200)["data"]); v["total"] != crm {
		t.Errorf("crm OR missing-x: %v posts, crm alone %v", v["total"], crm)
	}
}

// FuzzPronetQuery: the parser never panics; a parsed query writes back to a query that parses
// to the same thing and matches the same texts, and matching is deterministic.
func FuzzPronetQuery(f *testing.F) {
	for _, s := range []string{`crm`, `"cold email"`, `("revops" OR "sales ops") AND "crm" NOT "hiring"`, `NOT (a OR b)`,
		`a OR b c`, `(a`, `a)`, `"x`, `a AND`, `OR`, `()`, `NOT NOT a`, `#RevOps AND "error-x"`, "a\tb\n(c OR \"d e\")"} {
		f.Add(s)
	}
	texts := []string{"", "Our CRM hygiene project is done. #RevOps #Sales", "cold email and crm, a b c d e", "a", "NOT AND OR ( ) \""}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := parsePronetQuery(s)
		if err != nil {
			if !errors.Is(err, errPronetQuery) {
				t.Fatalf("%q: error %v is not a query error", s, err)
			}
			return
		}
		canon := q.String()
		q2, err := parsePronetQuery(canon)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", s, canon, err)
		}
		if again := q2.String(); again != canon {
			t.Fatalf("%q: canonical form %q writes back as %q", s, canon, again)
		}
		for _, text := range append(texts, s) {
			ok1, h1 := q.match(text)
			ok2, h2 := q.match(text)
			ok3, h3 := q2.match(text)
			if ok1 != ok2 || h1 != h2 || ok1 != ok3 || h1 != h3 {
				t.Fatalf("%q on %q: %v/%d, again %v/%d, canonical %v/%d", s, text, ok1, h1, ok2, h2, ok3, h3)
			}
		}
	})
}
